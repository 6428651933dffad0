//! The `fencelab` command line. Each subcommand lives in its own module.
//! Exit codes: 0 success, 1 an expectation or check failed, 2 invalid input or usage.

mod fmt;
mod input;
mod parse;
mod check;
mod litmus;
mod share;
mod lessons;
mod cuda;
mod observed;

use std::process::ExitCode;

const USAGE: &str = "usage: fencelab <command> [args]

commands:
  check FILE... [--mode strict|pragmatic] [--json]   check scenarios against their expectations
  fmt FILE [--check]                                 rewrite a scenario file canonically (or only check)
  parse FILE --json                                  print the scenario model
  litmus DIR --expected CSV [--liveness CSV] [--json] | litmus --print TEST
  lessons check [DIR]                                verify every lesson
  share FILE [--base URL] [--witness N [--mode M]]   a scenario link (opened on a witness)
  unshare LINK                                       the scenario a link carries
  cuda FILE [-o OUT.cu] [--trials N] [--instances N]  a CUDA litmus harness (sm_90a) for a scenario
  observed FILE RESULT.json [--date D] [--driver V] [--command C]  attach a harness run to a scenario";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    let Some((command, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let code = match command.as_str() {
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            0
        }
        "fmt" => fmt::run(rest),
        "parse" => parse::run(rest),
        "check" => check::run(rest),
        "litmus" => litmus::run(rest),
        "share" => share::share(rest),
        "unshare" => share::unshare(rest),
        "lessons" => lessons::run(rest),
        "cuda" => cuda::parse_args(rest).map_or_else(|e| usage_error(&e, cuda::USAGE), |a| cuda::run(&a)),
        "observed" => observed::parse_args(rest).map_or_else(|e| usage_error(&e, observed::USAGE), |a| observed::run(&a)),
        other => {
            eprintln!("error: unknown command `{other}`\n\n{USAGE}");
            2
        }
    };
    ExitCode::from(code)
}

fn usage_error(message: &str, usage: &str) -> u8 {
    eprintln!("error: {message}\n{usage}");
    2
}
