//! Every scenario file in the repository loads without errors; seed scenarios carry a
//! title and an expectation and are in canonical form.

use std::path::{Path, PathBuf};

use fencelab::syntax::print_with_comments;

#[path = "support/fence_files.rs"]
mod fence_files;

use fence_files::fence_files;

fn all_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    fence_files(Path::new("tests/scenarios"), &mut files);
    fence_files(Path::new("lessons"), &mut files);
    files.sort();
    files
}

#[test]
fn every_scenario_file_loads_without_errors() {
    let files = all_files();
    assert!(!files.is_empty(), "no scenario files found");
    let mut failures = Vec::new();
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap_or_default();
        let loaded = fencelab::load(&src);
        let name = path.display().to_string();
        for d in loaded.diagnostics.iter().filter(|d| d.is_error()) {
            failures.push(fencelab::diag::render(d, &src, &name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The ```fence blocks of the lessons: the parser must keep accepting them.
#[test]
fn lesson_scenario_blocks_load_without_errors() {
    let mut failures = Vec::new();
    for entry in std::fs::read_dir("lessons").into_iter().flatten().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for (n, block) in text.split("```fence").skip(1).enumerate() {
            let body = block.split_once('\n').map_or("", |(_, rest)| rest);
            let src = body.split("```").next().unwrap_or("");
            let loaded = fencelab::load(src);
            let name = format!("{} block {}", path.display(), n + 1);
            for d in loaded.diagnostics.iter().filter(|d| d.is_error()) {
                failures.push(fencelab::diag::render(d, src, &name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn seed_scenarios_have_title_expectation_and_canonical_form() {
    let mut files = Vec::new();
    fence_files(Path::new("tests/scenarios/seeds"), &mut files);
    assert!(files.len() >= 30, "expected the seed scenarios, found {}", files.len());
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap_or_default();
        let loaded = fencelab::load(&src);
        let name = path.display();
        assert!(loaded.scenario.title.is_some(), "{name} has no title");
        assert!(!loaded.scenario.expect.is_empty(), "{name} has no expect line");
        assert_eq!(
            print_with_comments(&loaded.scenario, &loaded.source_map),
            src,
            "{name} is not canonical; run `fencelab fmt`"
        );
    }
}
