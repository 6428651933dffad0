//! File arguments for every subcommand: a path or `-` for standard input, read with a
//! size cap and a UTF-8 check; scenarios parsed and verified with their diagnostics
//! rendered on stderr.

use std::ffi::OsString;
use std::fmt;
use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::builder::{OsStringValueParser, TypedValueParser};
use fencelab::diag::{render_styled, Diagnostic, LineIndex, Severity};
use fencelab::model::Scenario;
use fencelab::syntax::{SourceMap, MAX_INPUT_BYTES};

use crate::ui::Ui;

/// Exit code for invalid input or usage.
pub const INPUT_ERROR: u8 = 2;

/// A file argument: `-` stands for standard input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Stdin,
    Path(PathBuf),
}

impl From<OsString> for Input {
    fn from(arg: OsString) -> Input {
        if arg == "-" {
            Input::Stdin
        } else {
            Input::Path(PathBuf::from(arg))
        }
    }
}

impl Input {
    /// clap's parser for file arguments (any bytes, as the OS passes them).
    pub fn parser() -> impl TypedValueParser<Value = Input> {
        OsStringValueParser::new().map(Input::from)
    }
}

/// The name diagnostics use: the path as given, or `<stdin>`.
impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Input::Stdin => f.write_str("<stdin>"),
            Input::Path(path) => write!(f, "{}", path.display()),
        }
    }
}

/// Standard input has one content; a second `-` would silently read nothing.
static STDIN_TAKEN: AtomicBool = AtomicBool::new(false);

/// Reads `input` as text, refusing inputs over the size cap and non-UTF-8 bytes.
/// Problems are printed on stderr; the error value is the exit code.
pub fn read_text(input: &Input, ui: Ui) -> Result<String, u8> {
    let fail = |message: String| {
        ui.error(&message);
        INPUT_ERROR
    };
    let cap = u64::try_from(MAX_INPUT_BYTES).unwrap_or(u64::MAX);
    let mut bytes = Vec::new();
    let read = match input {
        Input::Stdin => {
            if STDIN_TAKEN.swap(true, Ordering::Relaxed) {
                return Err(fail("`-` (standard input) can be given only once".into()));
            }
            std::io::stdin().lock().take(cap + 1).read_to_end(&mut bytes)
        }
        Input::Path(path) => std::fs::File::open(path).and_then(|file| file.take(cap + 1).read_to_end(&mut bytes)),
    };
    read.map_err(|e| fail(format!("cannot read `{input}`: {e}")))?;
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(fail(format!("`{input}` is larger than {MAX_INPUT_BYTES} bytes; a scenario is a small text file")));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        fail(format!("`{input}` is not UTF-8 text (invalid byte at offset {at}); is it a binary file?"))
    })
}

/// Prints diagnostics on stderr, rustc style, with the input's name.
pub fn print_diagnostics(diags: &[Diagnostic], src: &str, input: &Input, ui: Ui) {
    let index = LineIndex::new(src);
    let name = input.to_string();
    for d in diags {
        eprintln!("{}", render_styled(d, &index, &name, ui.stderr_style()));
    }
    let errors = diags.iter().filter(|d| d.severity == Severity::Error).count();
    if errors > 0 {
        let plural = if errors == 1 { "" } else { "s" };
        ui.error(&format!("`{name}` has {errors} error{plural}"));
    }
}

/// Reads, parses and verifies a scenario. Every diagnostic goes to stderr; on any error
/// the result is the exit code [`INPUT_ERROR`].
pub fn read_scenario(input: &Input, ui: Ui) -> Result<(String, Scenario, SourceMap), u8> {
    let src = read_text(input, ui)?;
    let loaded = fencelab::load(&src);
    print_diagnostics(&loaded.diagnostics, &src, input, ui);
    if loaded.has_errors() {
        return Err(INPUT_ERROR);
    }
    Ok((src, loaded.scenario, loaded.source_map))
}
