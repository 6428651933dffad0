//! The `fencelab` command line, parsed by clap (derive). Each subcommand is a module
//! with an `Args` struct and a `run` function; adding one is a [`Command`] variant and an
//! arm in [`Command::run`].
//! Exit codes: 0 success, 1 an expectation or check failed, 2 invalid input or usage.

#[global_allocator]
static ALLOCATOR: alloc::Allocator = alloc::Allocator;

mod alloc;
mod check;
mod completions;
mod cost;
mod cuda;
mod fix;
mod fmt;
mod import;
mod input;
mod lessons;
mod litmus;
mod mutate;
mod observed;
mod parse;
mod share;
mod ui;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::input::INPUT_ERROR;
use crate::ui::{ColorWhen, Ui};

const EXAMPLES: &str = "\
Examples:
  fencelab check tests/scenarios/checker/bug1_relay_default_release_cta.fence
  fencelab check --mode strict --json a.fence b.fence
  cat mp.fence | fencelab check -
  fencelab fmt --check mp.fence
  fencelab share mp.fence --witness 1
  fencelab help check

Exit status: 0 ok, 1 an expectation failed, 2 bad input or usage.";

/// Checks PTX memory-model scenarios (.fence files) exhaustively
#[derive(Parser)]
#[command(name = "fencelab", version, after_help = EXAMPLES, arg_required_else_help = true)]
#[command(long_about = "Checks PTX memory-model scenarios (.fence files) exhaustively.

A scenario declares threads in CTAs and clusters, memory locations and a program per
thread; `fencelab check` explores every interleaving and says whether every read is
guaranteed to see the data it waits for, naming the missing synchronization with a
shortest witness. Every FILE argument may be `-` for standard input.")]
struct Cli {
    /// When to colour diagnostics: auto colours a terminal unless NO_COLOR is set
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    color: ColorWhen,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Check(check::Args),
    Fmt(fmt::Args),
    Parse(parse::Args),
    Litmus(litmus::Args),
    Lessons(lessons::Args),
    Share(share::ShareArgs),
    Unshare(share::UnshareArgs),
    Mutate(mutate::Args),
    Cuda(cuda::Args),
    Observed(observed::Args),
    Cost(cost::Args),
    Fix(fix::Args),
    Import(import::Args),
    Completions(completions::Args),
}

impl Command {
    /// Runs the subcommand; the result is the exit code.
    fn run(self, ui: Ui) -> u8 {
        match self {
            Command::Check(args) => check::run(&args, ui),
            Command::Fmt(args) => fmt::run(&args, ui),
            Command::Parse(args) => parse::run(&args, ui),
            Command::Litmus(args) => litmus::run(&args, ui),
            Command::Lessons(args) => lessons::run(&args, ui),
            Command::Share(args) => share::share(&args, ui),
            Command::Unshare(args) => share::unshare(&args, ui),
            Command::Mutate(args) => mutate::run(&args, ui),
            Command::Cuda(args) => cuda::run(&args, ui),
            Command::Observed(args) => observed::run(&args, ui),
            Command::Cost(args) => cost::run(&args, ui),
            Command::Fix(args) => fix::run(&args, ui),
            Command::Import(args) => import::run(&args, ui),
            Command::Completions(args) => completions::run(&args),
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().collect();
    let command = Cli::command().color(ColorWhen::scan(&args).for_clap());
    let parsed = command.try_get_matches_from(&args).and_then(|mut matches| Cli::from_arg_matches_mut(&mut matches));
    match parsed {
        Ok(cli) => ExitCode::from(cli.command.run(Ui::new(cli.color))),
        Err(e) => {
            // Help and version go to stdout and exit 0; usage errors exit 2 like bad input.
            let _ = e.print();
            ExitCode::from(if e.use_stderr() { INPUT_ERROR } else { 0 })
        }
    }
}
