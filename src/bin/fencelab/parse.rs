//! `fencelab parse FILE --json`: print the scenario model as JSON.

use super::input::{read_scenario, INPUT_ERROR};

const USAGE: &str = "usage: fencelab parse FILE --json";

pub fn run(args: &[String]) -> u8 {
    let (flags, files): (Vec<&String>, Vec<&String>) = args.iter().partition(|a| a.starts_with("--"));
    let ([path], ["--json"]) = (files.as_slice(), flags.iter().map(|f| f.as_str()).collect::<Vec<_>>().as_slice())
    else {
        eprintln!("{USAGE}");
        return INPUT_ERROR;
    };
    let (_, scenario, _) = match read_scenario(path) {
        Ok(input) => input,
        Err(code) => return code,
    };
    match serde_json::to_string_pretty(&scenario) {
        Ok(json) => {
            println!("{json}");
            0
        }
        Err(e) => {
            eprintln!("error: cannot serialize `{path}`: {e}");
            INPUT_ERROR
        }
    }
}
