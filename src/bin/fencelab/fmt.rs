//! `fencelab fmt FILE... [--check | --stdout]`: canonical text, keeping comments. Like
//! rustfmt, files are rewritten in place; `-` (standard input) goes to stdout.

use std::io::Write;

use fencelab::syntax::print_with_comments;

use crate::input::{read_scenario, Input, INPUT_ERROR};
use crate::ui::Ui;

/// Rewrite scenario files in canonical form, in place
#[derive(clap::Args)]
#[command(long_about = "Rewrite scenario files in canonical form, in place.

Like rustfmt, each FILE is overwritten with its canonical text (comments kept); a file
with errors is left untouched. `-` reads standard input and writes the canonical text to
stdout; --stdout does that for files too.")]
#[command(after_help = "\\
Examples:
  fencelab fmt mp.fence              # rewrite mp.fence in place
  fencelab fmt --check *.fence       # exit 1 if any file is not canonical
  fencelab fmt - < mp.fence          # canonical text on stdout

Exit status: 0 ok, 1 --check found a file not in canonical form, 2 bad input or usage.")]
pub struct Args {
    /// Scenario files; `-` reads standard input and writes stdout
    #[arg(required = true, value_name = "FILE", value_parser = Input::parser())]
    files: Vec<Input>,
    /// Change nothing; exit 1 if a file is not in canonical form
    #[arg(long, conflicts_with = "stdout")]
    check: bool,
    /// Print the canonical text instead of rewriting the files
    #[arg(long)]
    stdout: bool,
}

pub fn run(args: &Args, ui: Ui) -> u8 {
    args.files.iter().map(|file| format_one(file, args, ui)).max().unwrap_or(0)
}

fn format_one(file: &Input, args: &Args, ui: Ui) -> u8 {
    let in_place = !args.check && !args.stdout;
    let (src, scenario, map) = match read_scenario(file, ui) {
        Ok(input) => input,
        Err(code) => {
            if in_place && matches!(file, Input::Path(_)) {
                eprintln!("note: `{file}` was not rewritten");
            }
            return code;
        }
    };
    let canonical = print_with_comments(&scenario, &map);
    if args.check {
        if canonical == src {
            return 0;
        }
        let command = if *file == Input::Stdin { "fencelab fmt -".to_string() } else { format!("fencelab fmt {file}") };
        eprintln!("`{file}` is not in canonical form; run `{command}`");
        return 1;
    }
    let path = match file {
        Input::Path(path) if in_place => path,
        Input::Path(_) | Input::Stdin => {
            // A closed pipe (`| head`) is not an error worth reporting.
            let _ = std::io::stdout().write_all(canonical.as_bytes());
            return 0;
        }
    };
    if canonical == src {
        return 0;
    }
    match std::fs::write(path, canonical) {
        Ok(()) => 0,
        Err(e) => {
            ui.error(&format!("cannot write `{file}`: {e}"));
            INPUT_ERROR
        }
    }
}
