//! How output looks: `--color auto|always|never`, resolved per stream. `auto` colours
//! only a terminal and honours `NO_COLOR`; an explicit `--color` wins over both.

use std::ffi::OsString;
use std::io::IsTerminal;

use clap::ValueEnum;
use fencelab::diag::{Severity, Style};

/// The `--color` choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorWhen {
    /// The choice for clap's own help and errors, which are printed before the command
    /// line is parsed: the last `--color WHEN` or `--color=WHEN` before `--`, if valid.
    pub fn scan(args: &[OsString]) -> ColorWhen {
        let mut chosen = ColorWhen::Auto;
        let mut args = args.iter().filter_map(|a| a.to_str()).take_while(|a| *a != "--");
        while let Some(arg) = args.next() {
            let value = match arg.strip_prefix("--color") {
                Some("") => args.next(),
                Some(rest) => rest.strip_prefix('='),
                None => None,
            };
            if let Some(when) = value.and_then(|v| ColorWhen::from_str(v, false).ok()) {
                chosen = when;
            }
        }
        chosen
    }

    pub fn for_clap(self) -> clap::ColorChoice {
        match self {
            ColorWhen::Auto => clap::ColorChoice::Auto,
            ColorWhen::Always => clap::ColorChoice::Always,
            ColorWhen::Never => clap::ColorChoice::Never,
        }
    }
}

/// Output settings every subcommand prints with.
#[derive(Clone, Copy, Debug)]
pub struct Ui {
    color: ColorWhen,
    /// `NO_COLOR` set to a non-empty value (<https://no-color.org>).
    no_color_env: bool,
}

impl Ui {
    pub fn new(color: ColorWhen) -> Ui {
        let no_color_env = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Ui { color, no_color_env }
    }

    /// The style of diagnostics written to stdout.
    pub fn stdout_style(self) -> Style {
        self.style_for(std::io::stdout().is_terminal())
    }

    /// The style of diagnostics written to stderr.
    pub fn stderr_style(self) -> Style {
        self.style_for(std::io::stderr().is_terminal())
    }

    fn style_for(self, terminal: bool) -> Style {
        let colour = match self.color {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => terminal && !self.no_color_env,
        };
        if colour {
            Style::Ansi
        } else {
            Style::Plain
        }
    }

    /// Prints `error: MESSAGE` on stderr.
    pub fn error(self, message: &str) {
        eprintln!("{}: {message}", self.stderr_style().severity(Severity::Error));
    }

    /// Prints `warning: MESSAGE` on stderr.
    pub fn warning(self, message: &str) {
        eprintln!("{}: {message}", self.stderr_style().severity(Severity::Warning));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ui(color: ColorWhen, no_color_env: bool) -> Ui {
        Ui { color, no_color_env }
    }

    #[test]
    fn auto_colours_only_a_terminal_without_no_color() {
        assert_eq!(ui(ColorWhen::Auto, false).style_for(true), Style::Ansi);
        assert_eq!(ui(ColorWhen::Auto, false).style_for(false), Style::Plain);
        assert_eq!(ui(ColorWhen::Auto, true).style_for(true), Style::Plain);
    }

    #[test]
    fn an_explicit_choice_wins_over_the_terminal_and_no_color() {
        assert_eq!(ui(ColorWhen::Always, true).style_for(false), Style::Ansi);
        assert_eq!(ui(ColorWhen::Never, false).style_for(true), Style::Plain);
    }

    #[test]
    fn scan_finds_the_last_valid_color_flag_before_double_dash() {
        let args = |list: &[&str]| list.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(ColorWhen::scan(&args(&["fencelab", "check", "--color", "never"])), ColorWhen::Never);
        assert_eq!(ColorWhen::scan(&args(&["fencelab", "--color=always", "x"])), ColorWhen::Always);
        assert_eq!(ColorWhen::scan(&args(&["fencelab", "--color=always", "--color", "never"])), ColorWhen::Never);
        assert_eq!(ColorWhen::scan(&args(&["fencelab", "--color", "purple"])), ColorWhen::Auto);
        assert_eq!(ColorWhen::scan(&args(&["fencelab", "--", "--color", "always"])), ColorWhen::Auto);
    }
}
