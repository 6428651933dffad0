//! Speed work must not change what the checker says: every scenario file's full report
//! (verdict, findings, witnesses, outcomes, state counts) is compared with the one
//! recorded in `tests/snapshots/reports.jsonl`.
//!
//! A scenario whose report changes on purpose (a semantics fix) is re-recorded with
//! `FENCELAB_UPDATE_SNAPSHOT=1 cargo test --test checker_snapshot`; review the diff.
//! Files not yet recorded are reported, not failed, so new scenarios need no ceremony.

use std::collections::BTreeMap;
use std::path::Path;

use fencelab::check::{check, Options};

#[path = "support/fence_files.rs"]
mod fence_files;
#[path = "support/recorded.rs"]
mod recorded;

const SNAPSHOT: &str = "tests/snapshots/reports.jsonl";

fn current() -> BTreeMap<String, String> {
    let mut files = Vec::new();
    fence_files::fence_files(Path::new("tests/scenarios"), &mut files);
    files.sort();
    let mut out = BTreeMap::new();
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap_or_default();
        let scenario = fencelab::load(&src).scenario;
        let report = check(&scenario, &Options::default());
        let line = serde_json::to_string(&report).unwrap_or_else(|e| format!("unserializable: {e}"));
        out.insert(path.display().to_string(), line);
    }
    out
}

/// Report of every ```fence block of the lessons, in the block's own mode.
fn lesson_blocks() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir("lessons").into_iter().flatten().flatten() {
        let path = entry.path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let (lesson, _) = fencelab::lesson::parse_lesson(&text);
        for (n, block) in lesson.blocks.iter().enumerate() {
            if let fencelab::lesson::Block::Scenario { source, mode, .. } = block {
                let scenario = fencelab::load(source).scenario;
                let options = Options { mode: mode.unwrap_or_default(), ..Options::default() };
                let line = serde_json::to_string(&check(&scenario, &options)).unwrap_or_default();
                out.insert(format!("{} block {n}", path.display()), line);
            }
        }
    }
    out
}

#[test]
fn every_scenario_report_matches_the_recorded_one() {
    let now = current();
    assert!(!now.is_empty(), "no scenario files found");
    // Lessons change often, so their blocks are only dumped for a manual diff.
    if let Some(path) = std::env::var_os("FENCELAB_DUMP_LESSON_REPORTS") {
        let text: String = lesson_blocks().iter().map(|(k, v)| format!("{k}\t{v}\n")).collect();
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }
    if std::env::var_os("FENCELAB_UPDATE_SNAPSHOT").is_some() {
        recorded::write(SNAPSHOT, &now);
        return;
    }
    let before = recorded::read(SNAPSHOT);
    assert!(!before.is_empty(), "{SNAPSHOT} is missing or empty");
    let changed = recorded::changes(&before, &now);
    assert!(changed.is_empty(), "{} report(s) changed:\n{}", changed.len(), changed.join("\n"));
}
