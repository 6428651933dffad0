//! The "new scenario" templates: each parses and verifies cleanly, says what it shows,
//! and fits in a chat-sized link.

use std::fs;
use std::path::{Path, PathBuf};

use fencelab::check::{check, Mode, Options};
use fencelab::diag::render;
use fencelab::link::{decode, encode, SharePayload};

/// Longest acceptable link code for a template: it must fit in a chat message.
const CHAT_SIZED: usize = 600;

fn templates() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/templates");
    let mut paths: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "fence"))
        .collect();
    paths.sort();
    paths
}

#[test]
fn every_template_loads_cleanly_with_a_title_and_an_expectation() {
    let paths = templates();
    assert!(paths.len() >= 6, "expected the six templates, found {}", paths.len());
    for path in paths {
        let name = path.display().to_string();
        let src = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let loaded = fencelab::load(&src);
        let rendered: Vec<String> =
            loaded.diagnostics.iter().map(|d| render(d, &src, &name)).collect();
        assert!(loaded.diagnostics.is_empty(), "{name}:\n{}", rendered.join("\n"));
        assert!(
            loaded.scenario.title.as_deref().is_some_and(|t| !t.is_empty()),
            "{name}: no title"
        );
        assert!(!loaded.scenario.expect.is_empty(), "{name}: no `expect` line");
    }
}

#[test]
fn every_template_shares_as_a_chat_sized_link() {
    for path in templates() {
        let name = path.display().to_string();
        let src = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let payload = SharePayload::scenario_only(fencelab::load(&src).scenario);
        let code = encode(&payload).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(code.len() < CHAT_SIZED, "{name}: {} characters", code.len());
        assert_eq!(decode(&code), Ok(payload), "{name}");
    }
}

/// Templates teach correct patterns, so the checker must finish on each of them and agree
/// with its `expect` and condition lines in both modes.
#[test]
fn every_template_meets_its_expectations_in_both_modes() {
    for path in templates() {
        let name = path.display().to_string();
        let src = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let scenario = fencelab::load(&src).scenario;
        for mode in [Mode::Strict, Mode::Pragmatic] {
            let report = check(&scenario, &Options { mode, ..Options::default() });
            assert!(report.stats.complete, "{name} ({mode:?}): the checker did not finish");
            assert!(!report.expectations.is_empty(), "{name}: nothing was checked");
            for expectation in &report.expectations {
                assert!(
                    expectation.ok,
                    "{name} ({mode:?}): `{}` fails: {}",
                    expectation.declared, expectation.actual
                );
            }
        }
    }
}
