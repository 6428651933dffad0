//! Runs `.fence` files through the checker and compares with what they declare.
//!
//! Each file must load cleanly and declare an expectation; it runs in the modes its
//! `expect` lines name (`check::stated_modes`), as `fencelab check` without `--mode` does.
//! Comment directives, checked in every mode run that has findings (a file may expect
//! none in one mode, `expect pragmatic correct`): `# reason: X` pins a race's
//! classification, `# message: text` requires a finding to mention `text`; `# mode-note`,
//! checked in every run, requires the other mode to judge differently. Every finding must also be
//! well-formed: no access names an empty location or a step past its witness, and the last
//! witness step of undefined behaviour says what happened.

use std::path::Path;

use fencelab::check::{check, stated_modes, FindingKind, Mode, Options, Report, Stepper};

/// Failures of every `.fence` file directly in `dir`, in file-name order.
pub fn check_dir(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return vec![format!("{} is missing", dir.display())] };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    paths.sort();
    paths.iter().filter(|p| p.extension().is_some_and(|e| e == "fence")).flat_map(|p| check_file(p)).collect()
}

fn check_file(path: &Path) -> Vec<String> {
    let src = std::fs::read_to_string(path).unwrap_or_default();
    let loaded = fencelab::load(&src);
    if loaded.has_errors() {
        let msgs: Vec<String> = loaded.diagnostics.iter().map(|d| d.message.clone()).collect();
        return vec![format!("{}: does not load: {msgs:?}", path.display())];
    }
    if loaded.scenario.expect.is_empty() && loaded.scenario.conditions.is_empty() {
        return vec![format!("{} declares no expectation", path.display())];
    }
    stated_modes(&loaded.scenario)
        .into_iter()
        .flat_map(|mode| {
            let report = check(&loaded.scenario, &Options { mode, max_states: 500_000, ..Options::default() });
            let mut failures = judge(path, &src, &report);
            failures.extend(malformed_findings(path, &loaded.scenario, mode, &report));
            failures
        })
        .collect()
}

fn judge(path: &Path, src: &str, report: &Report) -> Vec<String> {
    let directive = |name: &str| src.lines().find_map(|l| l.strip_prefix(name)).map(str::trim);
    let mut failures = Vec::new();
    let has_findings = !report.findings.is_empty();
    if let Some(reason) = directive("# reason: ").filter(|_| has_findings) {
        let found: Vec<String> = report.findings.iter().filter_map(|f| f.reason).map(|r| format!("{r:?}")).collect();
        if !found.iter().any(|r| r == reason) {
            failures.push(format!("{}: expected a race classified {reason}, found {found:?}", path.display()));
        }
    }
    if let Some(text) = directive("# message: ").filter(|_| has_findings) {
        if !report.findings.iter().any(|f| f.message.contains(text) || f.explanation.contains(text)) {
            let found: Vec<_> = report.findings.iter().map(|f| (&f.message, &f.explanation)).collect();
            failures.push(format!("{}: no finding mentions `{text}`: {found:?}", path.display()));
        }
    }
    if src.lines().any(|l| l.trim() == "# mode-note") && report.mode_note.is_none() {
        failures.push(format!("{}: the modes should differ, but there is no mode note", path.display()));
    }
    for e in report.expectations.iter().filter(|e| !e.ok) {
        let findings: Vec<_> = report.findings.iter().map(|f| &f.message).collect();
        failures.push(format!(
            "{}: `{}` failed in {} mode: {} (verdict {:?}; findings: {findings:?})",
            path.display(),
            e.declared,
            report.mode.name(),
            e.actual,
            report.verdict
        ));
    }
    failures
}

/// Findings that would mislead a reader: an access of an empty location, a step past the
/// end of the witness, an undefined-behaviour step with no description.
fn malformed_findings(path: &Path, scenario: &fencelab::model::Scenario, mode: Mode, report: &Report) -> Vec<String> {
    let mut failures = Vec::new();
    for f in &report.findings {
        let len = f.witness.steps.len();
        for a in &f.accesses {
            if a.location.is_empty() || a.step >= len {
                failures.push(format!("{}: `{}` names location `{}` at step {} of a {len}-step witness", path.display(), f.message, a.location, a.step));
            }
        }
        if f.kind == FindingKind::Undefined {
            let last = Stepper::replay(scenario, mode, &f.witness).map(|s| s.history().last().map(|e| e.description.clone()));
            if !matches!(&last, Ok(Some(d)) if !d.is_empty()) {
                failures.push(format!("{}: the step where `{}` happens has no description: {last:?}", path.display(), f.message));
            }
        }
    }
    failures
}
