//! Frozen links: every link a released format wrote must keep decoding to the same payload.
//!
//! `tests/links/v<N>/<name>.link` holds a link, `<name>.json` the payload it must decode
//! to, and from format 5 on `<name>.fence`, when present, the sender's text it must show.
//! Files are never rewritten; `freeze_links` only adds entries that are missing.

use std::fs;
use std::path::{Path, PathBuf};

use fencelab::check::Mode;
use fencelab::link::{
    decode, decode_full, encode, encode_with_source, v1_frozen, LessonRef, Panel, SharePayload, Theme, TraceRef, FORMAT_VERSION,
};
use fencelab::model::{Scenario, Thread};
use proptest::collection::vec;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;

use crate::arb_instr::{instr, instr_kinds};
use crate::arb_scenario::payload;
use crate::on_big_stack;
use crate::samples::mbarrier_handoff;

fn version_dir(version: u8) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/links/v{version}"))
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

#[test]
fn every_frozen_link_still_decodes_to_its_payload() {
    for version in 1..=FORMAT_VERSION {
        let dir = version_dir(version);
        let mut links: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "link"))
            .collect();
        links.sort();
        assert!(links.len() >= 10, "format {version} needs its frozen links in {}", dir.display());
        for link in links {
            let json = read(&link.with_extension("json"));
            // Each format's JSON holds its own payload shape; older shapes convert as the
            // decoder does.
            let expected: Result<SharePayload, _> = match version {
                1 => serde_json::from_str::<v1_frozen::SharePayload>(&json).map(Into::into),
                _ => serde_json::from_str(&json),
            };
            let expected = expected.unwrap_or_else(|e| panic!("{}: bad expected payload: {e}", link.display()));
            let decoded = decode(read(&link).trim());
            assert_eq!(decoded.as_ref(), Ok(&expected), "{} no longer decodes", link.display());
            let text = link.with_extension("fence");
            if text.exists() {
                let shown = decode_full(read(&link).trim()).map(|d| d.text());
                assert_eq!(shown, Ok(read(&text)), "{} no longer shows its sender's text", link.display());
            }
        }
    }
}

/// Payloads frozen for the current format: a realistic one with every view option set,
/// the templates, a few arbitrary ones, and one program sampling every instruction kind.
fn samples_to_freeze() -> Vec<(String, SharePayload, Option<String>)> {
    let mut handoff = SharePayload::scenario_only(mbarrier_handoff());
    handoff.view.mode = Mode::Strict;
    handoff.view.trace = Some(TraceRef::Finding(0));
    handoff.view.step = Some(3);
    handoff.view.lesson = Some(LessonRef { id: "mbarrier-basics".into(), block: 2 });
    handoff.view.ui.theme = Theme::Dark;
    handoff.view.ui.panels.set(Panel::Memory, true);
    handoff.view.ui.panels.set(Panel::Explanation, false);
    let mut samples = vec![("handoff-with-view".to_string(), handoff, None)];

    let templates = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/templates");
    for entry in fs::read_dir(&templates).expect("templates exist").filter_map(Result::ok) {
        let path = entry.path();
        // Observation files (`*.observed.json`) sit beside the scenarios.
        if path.extension().is_none_or(|ext| ext != "fence") {
            continue;
        }
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else { continue };
        let text = read(&path);
        let loaded = fencelab::load(&text);
        assert!(!loaded.has_errors(), "{} has errors", path.display());
        // The templates travel with their text as written (format 5).
        samples.push((format!("template-{stem}"), SharePayload::scenario_only(loaded.scenario), Some(text)));
    }

    // A racy scenario opened on its first finding's witness, at the witness's end.
    let racy_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/checker/bug1_relay_default_release_cta.fence");
    let racy = fencelab::load(&read(&racy_path)).scenario;
    let report = fencelab::check::check(&racy, &fencelab::check::Options::default());
    let witness_len = report.findings.first().map_or(0, |f| f.witness.steps.len());
    let mut finding = SharePayload::scenario_only(racy);
    finding.view.trace = Some(TraceRef::Finding(0));
    finding.view.step = u32::try_from(witness_len).ok();
    samples.push(("finding-witness".to_string(), finding, None));

    let mut runner = TestRunner::deterministic();
    for index in 1..=4 {
        let tree = payload().new_tree(&mut runner).expect("strategy yields a value");
        samples.push((format!("arbitrary-{index}"), tree.current(), None));
    }
    // Two samples of every leaf kind, plus a few spin-waits around arbitrary kinds.
    let mut program = Vec::new();
    for kind in instr_kinds().iter().chain(instr_kinds().iter()) {
        program.push(kind.new_tree(&mut runner).expect("strategy yields").current());
    }
    program.extend(vec(instr(), 8).new_tree(&mut runner).expect("strategy yields").current());
    let mut scenario: Scenario = mbarrier_handoff();
    scenario.threads.push(Thread { name: "everything".into(), cta: 0, lanes: 1, program });
    samples.push(("every-instruction".into(), SharePayload::scenario_only(scenario), None));
    samples
}

/// Writes the links of the current format that are not frozen yet (never overwrites).
/// Run: `cargo test --test link freeze_links -- --ignored`.
#[test]
#[ignore = "writes files; run by hand when adding a format or a sample"]
fn freeze_links() {
    on_big_stack(freeze_missing_links);
}

fn freeze_missing_links() {
    let dir = version_dir(FORMAT_VERSION);
    fs::create_dir_all(&dir).expect("create the corpus directory");
    for (name, payload, text) in samples_to_freeze() {
        let link_path = dir.join(format!("{name}.link"));
        if link_path.exists() {
            continue;
        }
        let code = match &text {
            Some(text) => {
                let comments = fencelab::load(text).source_map.comments;
                fs::write(dir.join(format!("{name}.fence")), text).expect("write text");
                encode_with_source(&payload, &comments, text)
            }
            None => encode(&payload),
        };
        let code = code.unwrap_or_else(|e| panic!("{name}: {e}"));
        let json = serde_json::to_string_pretty(&payload).expect("payloads serialize");
        fs::write(dir.join(format!("{name}.json")), json + "\n").expect("write json");
        fs::write(&link_path, code + "\n").expect("write link");
    }
}
