//! Findings ordered by cause (issue 50): where several findings describe one defect, the
//! one whose fix repairs the most comes first (`fix::order_by_cause`), and the CLI shows
//! that order.

use std::process::Command;

use fencelab::check::{check, Mode, Options, RaceReason, Report};
use fencelab::fix::order_by_cause;
use fencelab::model::Scenario;

/// A header written early and a payload written late, both published by one relaxed flag
/// store: the header's race is discovered first (its witness is shorter), but the release
/// the flag store lacks, nearest the payload's race, mends both.
const HEADER_AND_PAYLOAD: &str = "tests/scenarios/checker/header_early_payload_late_relaxed_flag.fence";

fn loaded(path: &str) -> Scenario {
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let loaded = fencelab::load(&src);
    assert!(!loaded.has_errors(), "{path} loads");
    loaded.scenario
}

/// The discovery order and the order by cause, in `mode`.
fn both_orders(path: &str, mode: Mode) -> (Report, Report) {
    let scenario = loaded(path);
    let discovered = check(&scenario, &Options { mode, ..Options::default() });
    let mut ordered = discovered.clone();
    order_by_cause(&scenario, &mut ordered);
    (discovered, ordered)
}

#[test]
fn the_missing_release_goes_before_the_race_it_also_causes() {
    let (discovered, ordered) = both_orders(HEADER_AND_PAYLOAD, Mode::Pragmatic);
    // Discovery (shortest witness first) puts the header's race first.
    assert_eq!(discovered.findings.len(), 2);
    assert_eq!(discovered.findings[0].accesses.first().map(|a| a.location.as_str()), Some("header"), "{}", discovered.findings[0].message);
    // By cause: the payload's race, whose mend (releasing the flag store) mends both.
    let first = &ordered.findings[0];
    assert_eq!(first.accesses.first().map(|a| a.location.as_str()), Some("payload"), "{}", first.message);
    assert_eq!(first.reason, Some(RaceReason::ExecutionOrderOnly));
    assert!(
        first.explanation.ends_with("Listed first: writing `st.release.gpu.global [flag], 1` for `st.relaxed.gpu.global [flag], 1` repairs both findings."),
        "{}",
        first.explanation
    );
    // Only the order (and that note) changes.
    assert_eq!(ordered.findings[1], discovered.findings[0]);
    let mut without_note = ordered.clone();
    without_note.findings[0].explanation = discovered.findings[1].explanation.clone();
    without_note.findings.swap(0, 1);
    assert_eq!(without_note, discovered);
}

#[test]
fn findings_one_edit_repairs_alike_keep_discovery_order() {
    // One expect_tx declares half the bytes: raising it repairs both halves' races.
    let (discovered, ordered) = both_orders("tests/scenarios/ranges/halves_expect_tx_one_half.fence", Mode::Pragmatic);
    assert_eq!(discovered.findings.len(), 2);
    assert_eq!(ordered, discovered);
}

#[test]
fn a_ranking_past_its_caps_keeps_discovery_order() {
    // Six re-checks per finding, each of up to twice its states, would pass the ranking's
    // budget of 25,000 states.
    let (discovered, ordered) = both_orders("tests/scenarios/pairs/mainloop_stage_peer_bytes_not_expected.fence", Mode::Pragmatic);
    let findings = discovered.findings.len() as u64;
    assert!(findings >= 2 && 6 * findings * 2 * discovered.stats.states > 25_000, "{findings} findings, {} states", discovered.stats.states);
    assert_eq!(ordered, discovered);
    // An unfinished exploration is never ranked.
    let scenario = loaded(HEADER_AND_PAYLOAD);
    let mut capped = check(&scenario, &Options { mode: Mode::Pragmatic, ..Options::default() });
    capped.stats.complete = false;
    let before = capped.clone();
    order_by_cause(&scenario, &mut capped);
    assert_eq!(capped, before);
}

#[test]
fn the_cli_shows_the_cause_first() {
    let out = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args(["check", "--mode", "pragmatic", "--json", HEADER_AND_PAYLOAD])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("fencelab runs");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let report = if json.is_array() { json[0].clone() } else { json };
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    assert_eq!(findings.len(), 2, "{report}");
    let reasons: Vec<String> = findings.iter().map(|f| f["reason"].as_str().unwrap_or("").to_string()).collect();
    let (_, ordered) = both_orders(HEADER_AND_PAYLOAD, Mode::Pragmatic);
    assert_eq!(findings[0]["message"], ordered.findings[0].message, "{reasons:?}");
    assert_eq!(findings[1]["message"], ordered.findings[1].message, "{reasons:?}");
}
