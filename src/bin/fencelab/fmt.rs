//! `fencelab fmt FILE [--check]`: rewrite a scenario in canonical form, keeping comments.

use fencelab::syntax::print_with_comments;

use super::input::{read_scenario, INPUT_ERROR};

const USAGE: &str = "usage: fencelab fmt FILE [--check]";

pub fn run(args: &[String]) -> u8 {
    let (check, files): (Vec<&String>, Vec<&String>) = args.iter().partition(|a| *a == "--check");
    let [path] = files.as_slice() else {
        eprintln!("{USAGE}");
        return INPUT_ERROR;
    };
    let (src, scenario, map) = match read_scenario(path) {
        Ok(input) => input,
        Err(code) => {
            eprintln!("note: `{path}` was not rewritten");
            return code;
        }
    };
    let canonical = print_with_comments(&scenario, &map);
    if canonical == src {
        return 0;
    }
    if !check.is_empty() {
        eprintln!("`{path}` is not in canonical form; run `fencelab fmt {path}`");
        return 1;
    }
    match std::fs::write(path, canonical) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: cannot write `{path}`: {e}");
            INPUT_ERROR
        }
    }
}
