//! `fencelab check FILE` with no `--mode` meets the expectations of every scenario file in
//! the repository, and `fencelab lessons check` those of every lesson block: each file and
//! block says itself which mode its claims hold in (`expect strict race`).

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/fence_files.rs"]
mod fence_files;

use fence_files::fence_files;

/// Every `.fence` scenario of the repository. `tests/syntax/` is left out: its file is a
/// parser fixture that samples every form, legal together or not, and claims nothing.
fn scenario_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["tests/scenarios", "components/templates"] {
        fence_files(&root.join(dir), &mut files);
    }
    files.sort();
    files
}

fn fencelab(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the fencelab binary runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn plain_check_meets_every_scenario_files_expectations() {
    let files = scenario_files();
    assert!(files.len() > 150, "expected the scenario corpus, found {} files", files.len());
    let paths: Vec<&str> = files.iter().filter_map(|p| p.to_str()).collect();
    let mut args = vec!["check"];
    args.extend(&paths);
    let (ok, text) = fencelab(&args);
    let failed: Vec<&str> = text.lines().filter(|l| l.starts_with("FAILED") || l.starts_with("error:")).collect();
    assert!(ok && failed.is_empty(), "plain `fencelab check` fails:\n{}", failed.join("\n"));
    // Files that claim a verdict per mode really run in both.
    assert!(text.contains("st_async_own_cta.fence: undefined in strict mode"), "{text}");
    assert!(text.contains("st_async_own_cta.fence: correct in pragmatic mode"), "{text}");
}

#[test]
fn plain_lessons_check_meets_every_lesson_blocks_claims() {
    let (ok, text) = fencelab(&["lessons", "check", "lessons"]);
    assert!(ok && text.contains("0 mismatches, 0 unverified, 0 malformed"), "{text}");
}
