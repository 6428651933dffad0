//! `fencelab parse FILE [--json]`: the scenario as canonical text, or its model as JSON.

use std::io::Write;

use fencelab::syntax::print_with_comments;

use crate::input::{read_scenario, Input, INPUT_ERROR};
use crate::ui::Ui;

/// Parse and verify a scenario; print its canonical text or its model
#[derive(clap::Args)]
#[command(long_about = "Parse and verify a scenario; print its canonical text or its model.

Diagnostics go to stderr. Without --json, stdout gets the canonical text (what `fmt`
would write); with --json, the scenario model that the checker and the app consume.")]
#[command(after_help = "\\
Examples:
  fencelab parse mp.fence
  fencelab parse --json mp.fence | jq '.locations'
  echo 'cta A' | fencelab parse -

Exit status: 0 ok, 2 bad input or usage.")]
pub struct Args {
    /// Scenario file; `-` reads standard input
    #[arg(value_name = "FILE", value_parser = Input::parser())]
    file: Input,
    /// Print the scenario model as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: &Args, ui: Ui) -> u8 {
    let (_, scenario, map) = match read_scenario(&args.file, ui) {
        Ok(input) => input,
        Err(code) => return code,
    };
    let text = if args.json {
        match serde_json::to_string_pretty(&scenario) {
            Ok(json) => json + "\n",
            Err(e) => {
                ui.error(&format!("cannot serialize `{}`: {e}", args.file));
                return INPUT_ERROR;
            }
        }
    } else {
        print_with_comments(&scenario, &map)
    };
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = std::io::stdout().write_all(text.as_bytes());
    0
}
