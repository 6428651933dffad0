//! What the importer refuses, with the PTX line it was reading.

use std::fmt;

/// Why a PTX text could not be imported. `line` is 1-based; 0 when the problem is not at
/// one line (no entry, a bad option).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportError {
    pub line: usize,
    pub kind: ErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The text is not PTX the front end can read (a token or a form it does not know).
    Syntax(String),
    /// NUL or other control bytes: not a text file.
    Binary,
    /// More than [`super::MAX_INPUT_BYTES`].
    TooLarge { bytes: usize },
    /// `{ }` nested deeper than [`super::MAX_DEPTH`].
    TooDeep,
    /// The module has no `.entry`.
    NoEntry,
    /// `--entry` names no entry.
    UnknownEntry(String),
    /// Several entries and no (unique) `--entry`; the names are listed.
    ChooseEntry(Vec<String>),
    /// An instruction that touches memory or synchronizes in a form the importer does not
    /// follow.
    Unsupported(String),
    /// A value the import needs (an address, a barrier count, a phase) is not known.
    Unknown(String),
    /// A lane ran more steps than the budget: a loop with no bound the policy can cut.
    Runaway { steps: u64 },
    /// The launch shape is missing or invalid.
    Launch(String),
    /// The scenario the importer wrote did not load (a bug in the importer).
    Emit(String),
}

impl ImportError {
    pub fn at(line: usize, kind: ErrorKind) -> ImportError {
        ImportError { line, kind }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        match &self.kind {
            ErrorKind::Syntax(what) => write!(f, "cannot read PTX: {what}"),
            ErrorKind::Binary => f.write_str("not a text file (control bytes)"),
            ErrorKind::TooLarge { bytes } => {
                write!(f, "input of {bytes} bytes is over the limit of {} bytes", super::MAX_INPUT_BYTES)
            }
            ErrorKind::TooDeep => write!(f, "`{{ }}` blocks nested more than {} deep", super::MAX_DEPTH),
            ErrorKind::NoEntry => f.write_str("the module has no `.entry` kernel"),
            ErrorKind::UnknownEntry(name) => write!(f, "no entry matches `{name}`"),
            ErrorKind::ChooseEntry(names) => {
                write!(f, "the module has {} entries; choose one with --entry:", names.len())?;
                for name in names {
                    write!(f, "\n  {name}")?;
                }
                Ok(())
            }
            ErrorKind::Unsupported(what) => write!(f, "unsupported: {what}"),
            ErrorKind::Unknown(what) => write!(f, "value not known: {what}"),
            ErrorKind::Runaway { steps } => {
                write!(f, "a lane ran {steps} instructions without finishing (a loop with no bound?)")
            }
            ErrorKind::Launch(what) => write!(f, "launch: {what}"),
            ErrorKind::Emit(what) => write!(f, "internal: the imported scenario does not load: {what}"),
        }
    }
}

impl std::error::Error for ImportError {}
