//! Data-driven checker tests: every `.fence` file under `tests/scenarios/checker/` and the
//! non-async seeds must come out as its `expect` line and final conditions say.

use std::path::Path;

use fencelab::check::{check, Mode, Options, Verdict};

fn run_dir(dir: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return failures };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    paths.sort();
    for path in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "fence")) {
        let src = std::fs::read_to_string(path).unwrap_or_default();
        let loaded = fencelab::load(&src);
        if loaded.has_errors() {
            failures.push(format!("{}: does not load: {:?}", path.display(), loaded.diagnostics.first().map(|d| d.message.clone())));
            continue;
        }
        let report = check(&loaded.scenario, &Options { mode: Mode::Pragmatic, max_states: 200_000 });
        if report.verdict == Verdict::Partial && report.mode_note.as_deref().is_some_and(|n| n.contains("asynchronous")) {
            continue; // async semantics are another module's job
        }
        assert!(!report.expectations.is_empty(), "{} declares no expectation", path.display());
        // `# reason: ScopeMismatch` pins the classification of the data race the file shows.
        if let Some(reason) = src.lines().find_map(|l| l.strip_prefix("# reason: ")) {
            let found: Vec<String> = report.findings.iter().filter_map(|f| f.reason).map(|r| format!("{r:?}")).collect();
            if !found.iter().any(|r| r == reason.trim()) {
                failures.push(format!("{}: expected a race classified {reason}, found {found:?}", path.display()));
            }
        }
        for e in &report.expectations {
            if !e.ok {
                failures.push(format!(
                    "{}: `{}` failed: {} (verdict {:?}; findings: {:?})",
                    path.display(),
                    e.declared,
                    e.actual,
                    report.verdict,
                    report.findings.iter().map(|f| &f.message).collect::<Vec<_>>()
                ));
            }
        }
    }
    failures
}

#[test]
fn checker_scenarios_meet_their_expectations() {
    let failures = run_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/checker"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn seed_scenarios_meet_their_expectations() {
    let failures = run_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/seeds"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
