//! `fencelab completions SHELL`: a completion script generated from the clap definition,
//! so it always lists the current subcommands and options.

use std::io::Write;

use clap::CommandFactory;
use clap_complete::Shell;

/// Print a shell completion script
#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  fencelab completions bash > ~/.local/share/bash-completion/completions/fencelab
  fencelab completions zsh > ~/.zfunc/_fencelab
  fencelab completions fish > ~/.config/fish/completions/fencelab.fish")]
pub struct Args {
    /// The shell to complete for
    #[arg(value_enum)]
    shell: Shell,
}

pub fn run(args: &Args) -> u8 {
    // Generated into memory first: a closed pipe must not become a panic.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut crate::Cli::command(), "fencelab", &mut script);
    let _ = std::io::stdout().write_all(&script);
    0
}
