//! Issue 15's checker gaps: every `.fence` file under `tests/scenarios/gaps/` must come out as
//! it declares (directives: `support/scenario_files.rs`), and, unless it carries `# mode-note`,
//! both modes must meet its `expect` lines, so each twin is pinned in both modes.

#[path = "support/scenario_files.rs"]
mod scenario_files;

use std::path::{Path, PathBuf};

use fencelab::check::{check, Mode, Options, Stepper};

fn gaps_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/gaps")
}

fn gap_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(gaps_dir())
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "fence"))
        .collect();
    files.sort();
    files
}

#[test]
fn gap_scenarios_meet_their_expectations() {
    let failures = scenario_files::check_dir(&gaps_dir());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn gap_scenarios_agree_in_the_other_mode_unless_marked() {
    let files = gap_files();
    assert!(files.len() >= 20, "expected the gap twins, found {}", files.len());
    let mut failures = Vec::new();
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap_or_default();
        if src.lines().any(|l| l.trim() == "# mode-note") {
            continue;
        }
        let scenario = fencelab::load(&src).scenario;
        for mode in [Mode::Strict, Mode::Pragmatic] {
            let report = check(&scenario, &Options { mode, max_states: 500_000, ..Options::default() });
            for e in report.expectations.iter().filter(|e| !e.ok) {
                failures.push(format!("{} in {mode:?} mode: `{}` failed: {}", path.display(), e.declared, e.actual));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A relaxed arrival that released nothing still names the step that arrived, so the
/// timeline can draw the failed edge from it.
#[test]
fn failed_edge_of_a_relaxed_arrive_records_its_step() {
    for name in ["mbar_relaxed_arrive_cta_scope_remote.fence", "clc_war_no_release.fence"] {
        let src = std::fs::read_to_string(gaps_dir().join(name)).unwrap_or_default();
        let scenario = fencelab::load(&src).scenario;
        let report = check(&scenario, &Options { mode: Mode::Strict, max_states: 500_000, ..Options::default() });
        let finding = report.findings.first().unwrap_or_else(|| panic!("{name}: no finding"));
        let stepper = Stepper::replay(&scenario, Mode::Strict, &finding.witness).unwrap_or_else(|e| panic!("{name}: {e}"));
        let failed: Vec<_> = stepper.history().iter().flat_map(|e| e.failed_edges.iter()).filter(|f| f.reason.contains("relaxed")).collect();
        assert!(!failed.is_empty(), "{name}: no failed edge from the relaxed arrive");
        for f in failed {
            let step = f.from_step.unwrap_or_else(|| panic!("{name}: failed edge without a source step: {f:?}"));
            let source = stepper.history().iter().find(|e| e.step == step).unwrap_or_else(|| panic!("{name}: no step {step}"));
            assert!(source.instr_text.contains("arrive"), "{name}: step {step} is `{}`", source.instr_text);
        }
    }
}
