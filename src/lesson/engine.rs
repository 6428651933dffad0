//! The one place lessons reach into the parser and the checker.

use super::types::LessonError;
use crate::check::{check, Mode, Options, Report};
use crate::diag::{line_col, Diagnostic};
use crate::model::Scenario;

/// Parses and verifies a `.fence` program that starts on lesson line `first_line`. Errors
/// carry lesson line numbers; warnings and notes are dropped (the checker reports what
/// matters).
pub fn load(src: &str, first_line: usize) -> Result<Scenario, Vec<LessonError>> {
    crate::load::load(src).into_result().map(|(scenario, _, _)| scenario).map_err(|diagnostics| {
        diagnostics.iter().filter(|d| d.is_error()).map(|d| to_lesson_error(d, src, first_line)).collect()
    })
}

fn to_lesson_error(diag: &Diagnostic, src: &str, first_line: usize) -> LessonError {
    let line = diag.primary_start().map_or(1, |offset| line_col(src, offset).0);
    LessonError::new(first_line + line - 1, format!("error[{}]: {}", diag.code, diag.message))
}

/// Runs the checker on `scenario` in `mode`, with `options`' caps, and completes its
/// outcome table from the axioms.
pub fn run(scenario: &Scenario, mode: Mode, options: &Options) -> Report {
    let mut report = check(scenario, &Options { mode, ..options.clone() });
    // The outcome table also lists what the axioms allow and no interleaving reaches.
    crate::axiom::table::complete_outcomes(scenario, &mut report);
    report
}
