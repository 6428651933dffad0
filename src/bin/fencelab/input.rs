//! Reading scenario files for every subcommand: size cap, UTF-8 check, parse + verify,
//! and diagnostics rendered on stderr.

use std::io::Read;

use fencelab::diag::{render_indexed, Diagnostic, LineIndex, Severity};
use fencelab::model::Scenario;
use fencelab::syntax::{SourceMap, MAX_INPUT_BYTES};

/// Exit code for invalid input or usage.
pub const INPUT_ERROR: u8 = 2;

/// Reads `path` as text, refusing files over the size cap and non-UTF-8 bytes.
/// Problems are printed on stderr; the error value is the exit code.
pub fn read_text(path: &str) -> Result<String, u8> {
    let file = std::fs::File::open(path).map_err(|e| fail(&format!("cannot read `{path}`: {e}")))?;
    let mut bytes = Vec::new();
    let cap = u64::try_from(MAX_INPUT_BYTES).unwrap_or(u64::MAX);
    file.take(cap + 1).read_to_end(&mut bytes).map_err(|e| fail(&format!("cannot read `{path}`: {e}")))?;
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(fail(&format!("`{path}` is larger than {MAX_INPUT_BYTES} bytes; a scenario is a small text file")));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        fail(&format!("`{path}` is not UTF-8 text (invalid byte at offset {at}); is it a binary file?"))
    })
}

fn fail(message: &str) -> u8 {
    eprintln!("error: {message}");
    INPUT_ERROR
}

/// Prints diagnostics on stderr, rustc style, with the file name.
pub fn print_diagnostics(diags: &[Diagnostic], src: &str, path: &str) {
    let index = LineIndex::new(src);
    for d in diags {
        eprintln!("{}", render_indexed(d, &index, path));
    }
    let errors = diags.iter().filter(|d| d.severity == Severity::Error).count();
    if errors > 0 {
        let plural = if errors == 1 { "" } else { "s" };
        eprintln!("error: `{path}` has {errors} error{plural}");
    }
}

/// Reads, parses and verifies a scenario file. Every diagnostic goes to stderr; on any
/// error the result is the exit code [`INPUT_ERROR`].
pub fn read_scenario(path: &str) -> Result<(String, Scenario, SourceMap), u8> {
    let src = read_text(path)?;
    let loaded = fencelab::load(&src);
    print_diagnostics(&loaded.diagnostics, &src, path);
    if loaded.has_errors() {
        return Err(INPUT_ERROR);
    }
    Ok((src, loaded.scenario, loaded.source_map))
}
