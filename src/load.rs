//! Parse + verify in one call: what the CLI, lessons and the app use to read a scenario.

use serde::{Deserialize, Serialize};

use crate::diag::Diagnostic;
use crate::model::Scenario;
use crate::syntax::{parse, SourceMap};
use crate::verify::verify;

/// A parsed and verified scenario with every diagnostic (errors, warnings, notes) in
/// source order. Serializable so that a build can load a text once and ship the result
/// (the app's starter scenario).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Loaded {
    pub scenario: Scenario,
    pub source_map: SourceMap,
    pub diagnostics: Vec<Diagnostic>,
}

impl Loaded {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// `Ok((scenario, map, warnings_and_notes))` when there is no error, else every diagnostic.
    pub fn into_result(self) -> Result<(Scenario, SourceMap, Vec<Diagnostic>), Vec<Diagnostic>> {
        if self.has_errors() {
            Err(self.diagnostics)
        } else {
            Ok((self.scenario, self.source_map, self.diagnostics))
        }
    }
}

/// Parses `src` and, when it parsed without errors, verifies it. Verification of a model
/// with syntax errors is skipped: lines that failed to parse would show up as confusing
/// "unknown name" errors.
pub fn load(src: &str) -> Loaded {
    let parsed = parse(src);
    let mut diagnostics = parsed.diagnostics;
    if !diagnostics.iter().any(Diagnostic::is_error) {
        diagnostics.extend(verify(&parsed.scenario, &parsed.source_map));
        Diagnostic::sort_in_source_order(&mut diagnostics);
    }
    Loaded { scenario: parsed.scenario, source_map: parsed.source_map, diagnostics }
}
