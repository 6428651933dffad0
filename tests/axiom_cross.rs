//! The two engines check each other on every repository scenario in the axioms' fragment
//! (`tests/scenarios/**` and every lesson program): each outcome the explorer reaches is
//! allowed by the axioms, and each outcome the axioms allow is reached by the explorer
//! unless no execution reaching it fits in time (load buffering, coherence against
//! execution order: `axiom::Witness::in_time`), which the explorer never produces.

#[path = "support/fence_files.rs"]
mod fence_files;

use std::path::Path;

use fencelab::axiom::differ::mismatches;
use fencelab::check::{Mode, Options};
use fencelab::lesson::{parse_lesson, Block};
use fencelab::model::Scenario;

/// Compares the engines on one scenario; `None` when it is outside the fragment or either
/// engine stopped short.
fn compare(name: &str, scenario: &Scenario, options: &Options) -> Option<Vec<String>> {
    mismatches(scenario, options).map(|p| p.into_iter().map(|p| format!("{name}: {p}")).collect())
}

#[test]
fn explorer_and_axioms_agree_on_repository_scenarios() {
    let mut files = Vec::new();
    fence_files::fence_files(Path::new("tests/scenarios"), &mut files);
    let mut compared = 0;
    let mut problems = Vec::new();
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap_or_default();
        let scenario = fencelab::load(&src).scenario;
        for mode in [Mode::Strict, Mode::Pragmatic] {
            if let Some(p) = compare(&format!("{} ({})", path.display(), mode.name()), &scenario, &Options { mode, ..Options::default() }) {
                compared += 1;
                problems.extend(p);
            }
        }
    }
    let mut paths: Vec<_> = std::fs::read_dir("lessons").into_iter().flatten().flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "md")) {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let (lesson, _) = parse_lesson(&text);
        for (i, block) in lesson.blocks.iter().enumerate() {
            let sources: Vec<&str> = match block {
                Block::Prose(_) => Vec::new(),
                Block::Scenario { source, .. } => vec![source.as_str()],
                Block::Exercise(e) => [&e.start, &e.solution].iter().map(|p| p.source.as_str()).filter(|s| !s.is_empty()).collect(),
            };
            for source in sources {
                let scenario = fencelab::load(source).scenario;
                let name = format!("{} block {i}", path.display());
                if let Some(p) = compare(&name, &scenario, &Options::default()) {
                    compared += 1;
                    problems.extend(p);
                }
            }
        }
    }
    println!("{compared} scenarios compared");
    assert!(compared > 50, "only {compared} scenarios lie in the fragment");
    assert!(problems.is_empty(), "{} mismatches:\n{}", problems.len(), problems.join("\n"));
}
