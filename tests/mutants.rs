//! Mutation self-test: every single-point weakening of every `expect correct` scenario
//! under `tests/scenarios/` is checked. A mutant the checker cannot tell from the original
//! (a survivor) must be listed in `tests/mutants/survivors.tsv` with a judgement: why it
//! is harmless, citing the reference, or that it is a checker gap (a weakened program
//! called correct) and which issue owns it. A survivor missing from the table fails the
//! test with its ready-to-paste row; a listed one the checker now kills fails as stale.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use fencelab::check::stated_modes;
use fencelab::model::Expect;
use fencelab::mutate::{judge, mutants, Fate};

#[path = "support/fence_files.rs"]
mod fence_files;

/// Per mutant: states explored before it counts as undecided (then it needs a row too).
const MAX_STATES: u64 = 50_000;
const TABLE: &str = "tests/mutants/survivors.tsv";

/// `(file, mode, site, edit)`: what identifies a survivor in the table.
type Key = (String, String, String, String);

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Survivors of one file (key, `fate (verdict)`), and how many of its mutants were killed.
fn survivors_of(path: &Path) -> (Vec<(Key, String)>, usize) {
    let src = std::fs::read_to_string(path).unwrap_or_default();
    let loaded = fencelab::load(&src);
    if loaded.has_errors() {
        return (Vec::new(), 0);
    }
    let scenario = &loaded.scenario;
    let file = path.strip_prefix(root()).unwrap_or(path).display().to_string();
    let mut out = Vec::new();
    let mut killed = 0;
    for mode in stated_modes(scenario) {
        let claims_correct = scenario.expect.iter().any(|e| e.holds_in(mode) && e.verdict == Expect::Correct);
        if !claims_correct {
            continue;
        }
        for j in judge(scenario, mode, MAX_STATES, mutants(scenario)) {
            if j.fate == Fate::Killed {
                killed += 1;
                continue;
            }
            let key = (file.clone(), mode.name().to_string(), j.mutant.site(scenario), format!("{} -> {}", j.mutant.before, j.mutant.after));
            out.push((key, format!("{} ({})", j.fate.name(), j.verdict.name())));
        }
    }
    (out, killed)
}

/// The table: key → judgement. Lines: file, mode, site, edit, judgement, reason (tabs).
fn table() -> BTreeMap<Key, (String, String)> {
    let text = std::fs::read_to_string(root().join(TABLE)).unwrap_or_default();
    let mut rows = BTreeMap::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [file, mode, site, edit, judgement, reason] = cols[..] else {
            panic!("{TABLE}:{}: expected 6 tab-separated columns, found {}", n + 1, cols.len());
        };
        let judged = ["harmless", "open", "unjudged"].contains(&judgement) || judgement.starts_with("gap #");
        assert!(judged, "{TABLE}:{}: judgement is `harmless`, `gap #ISSUE`, `open` or `unjudged`, not `{judgement}`", n + 1);
        assert!(!reason.trim().is_empty(), "{TABLE}:{}: a row needs its reason", n + 1);
        rows.insert((file.into(), mode.into(), site.into(), edit.into()), (judgement.into(), reason.into()));
    }
    rows
}

#[test]
fn every_surviving_mutant_is_judged() {
    let mut files: Vec<PathBuf> = Vec::new();
    fence_files::fence_files(&root().join("tests/scenarios"), &mut files);
    files.sort();
    // Two workers: the machines that run this have few cores.
    let halves: Vec<Vec<PathBuf>> = vec![files.iter().step_by(2).cloned().collect(), files.iter().skip(1).step_by(2).cloned().collect()];
    let per_file: Vec<(Vec<(Key, String)>, usize)> = std::thread::scope(|s| {
        let workers: Vec<_> = halves.iter().map(|half| s.spawn(move || half.iter().map(|p| survivors_of(p)).collect::<Vec<_>>())).collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_default()).collect()
    });
    let killed: usize = per_file.iter().map(|(_, k)| k).sum();
    let mut found: Vec<(Key, String)> = per_file.into_iter().flat_map(|(s, _)| s).collect();
    found.sort();
    println!("{killed} mutants killed, {} survived or undecided", found.len());
    let table = table();
    let new: Vec<String> = found
        .iter()
        .filter(|(key, _)| !table.contains_key(key))
        .map(|((file, mode, site, edit), fate)| format!("{file}\t{mode}\t{site}\t{edit}\tunjudged\t{fate}: judge me"))
        .collect();
    let stale: Vec<String> = table
        .keys()
        .filter(|key| !found.iter().any(|(k, _)| k == *key))
        .map(|(file, mode, site, edit)| format!("{file} {mode} {site}: {edit}"))
        .collect();
    assert!(
        new.is_empty() && stale.is_empty(),
        "{} new survivors (judge them, then add these rows to {TABLE}):\n{}\n\n{} stale entries (the checker now kills them; remove the rows):\n{}",
        new.len(),
        new.join("\n"),
        stale.len(),
        stale.join("\n")
    );
}
