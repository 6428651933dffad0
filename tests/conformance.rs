//! Dat3M's PTX litmus corpus against the checker. Fails on any disagreement or unsupported
//! test that `docs/conformance.md` does not list, on listed entries that now agree (so the
//! list only ever shrinks to what we still owe), and on any condition the axiomatic engine
//! did not decide.
//!
//! The corpus lives outside the repository, at `../shared/conformance/dat3m-ptx` from the
//! repository root (or `$FENCELAB_CONFORMANCE_DIR`); without it the test says so and passes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use fencelab::check::{Mode, Options};
use fencelab::litmus::conformance::{
    judge_source, parse_deviations, parse_expected, Property, Status, Summary,
};

fn corpus_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("FENCELAB_CONFORMANCE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/dat3m-ptx"),
    };
    dir.join("expected.csv").is_file().then_some(dir)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Every test the corpus's CSVs list, judged in strict mode (the corpus follows the spec).
fn judge_corpus(dir: &Path) -> Vec<fencelab::litmus::conformance::Judgement> {
    let mut wanted: Vec<(String, Vec<(Property, bool)>)> = Vec::new();
    for (file, property) in [
        ("expected.csv", Property::Condition),
        ("liveness-expected.csv", Property::Liveness),
    ] {
        let path = dir.join(file);
        if !path.is_file() {
            continue;
        }
        for entry in parse_expected(&read(&path)).unwrap_or_else(|e| panic!("{file}: {e}")) {
            match wanted.iter_mut().find(|(test, _)| *test == entry.path) {
                Some((_, properties)) => properties.push((property, entry.bit)),
                None => wanted.push((entry.path, vec![(property, entry.bit)])),
            }
        }
    }
    let options = Options {
        mode: Mode::Strict,
        ..Options::default()
    };
    wanted
        .iter()
        .flat_map(|(test, properties)| {
            judge_source(test, &read(&dir.join(test)), properties, &options)
        })
        .collect()
}

/// Dat3M's forward-progress (CADP) tests, beside the main corpus: every one must agree
/// (none is a listed deviation), liveness and safety alike.
#[test]
fn dat3m_ptx_2026_corpus_agrees() {
    let Some(dir) = corpus_dir().and_then(|d| d.parent().map(|p| p.join("dat3m-ptx-2026"))).filter(|d| d.join("expected.csv").is_file()) else {
        println!("skipping: no dat3m-ptx-2026 corpus beside the Dat3M corpus");
        return;
    };
    let judgements = judge_corpus(&dir);
    assert!(judgements.len() >= 52, "{} judgements", judgements.len());
    let failing: Vec<String> = judgements.iter().filter(|j| j.status != Status::Agree).map(ToString::to_string).collect();
    assert!(failing.is_empty(), "dat3m-ptx-2026 disagreements:\n{}", failing.join("\n"));
}

#[test]
fn dat3m_ptx_corpus_agrees_except_documented_deviations() {
    let Some(dir) = corpus_dir() else {
        println!("skipping: no Dat3M corpus at ../shared/conformance/dat3m-ptx (set FENCELAB_CONFORMANCE_DIR)");
        return;
    };
    let judgements = judge_corpus(&dir);
    let docs = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/conformance.md"));
    let listed: BTreeSet<(String, Option<Property>)> =
        parse_deviations(&docs).into_iter().collect();
    let is_listed =
        |test: &str, property: Option<Property>| listed.contains(&(test.to_string(), property));
    let undocumented: Vec<String> = judgements
        .iter()
        .filter(|j| match j.status {
            Status::Agree => false,
            Status::Disagree => !is_listed(&j.test, Some(j.property)),
            Status::Unsupported => !is_listed(&j.test, None),
        })
        .map(ToString::to_string)
        .collect();
    let stale: Vec<String> = listed
        .iter()
        .filter(|(test, property)| {
            let matching = judgements
                .iter()
                .filter(|j| &j.test == test && property.is_none_or(|p| p == j.property));
            let mut matching = matching.peekable();
            matching.peek().is_some() && matching.all(|j| j.status == Status::Agree)
        })
        .map(|(test, property)| {
            format!(
                "{test} ({})",
                property.map_or("import".to_string(), |p| p.to_string())
            )
        })
        .collect();
    println!("{}", Summary::of(&judgements));
    // Every safety bit in the corpus lies in the axiomatic engine's fragment and is
    // decided there; a condition judged by the explorer means the engine gave up.
    let by_explorer: Vec<String> = judgements
        .iter()
        .filter(|j| j.property == Property::Condition && !j.detail.starts_with("axiomatic engine"))
        .map(ToString::to_string)
        .collect();
    assert!(
        by_explorer.is_empty(),
        "conditions the axiomatic engine did not decide:\n{}",
        by_explorer.join("\n")
    );
    assert!(
        undocumented.is_empty(),
        "disagreements not in docs/conformance.md:\n{}",
        undocumented.join("\n")
    );
    assert!(
        stale.is_empty(),
        "docs/conformance.md lists tests that now agree; remove them:\n{}",
        stale.join("\n")
    );
}
