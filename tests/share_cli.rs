//! `fencelab share` / `fencelab unshare` end to end.

use std::process::{Command, Output};

const TEMPLATE: &str = "tests/scenarios/templates/cluster-handoff.fence";

fn fencelab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the fencelab binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn share_then_unshare_gives_back_the_scenario() {
    let shared = fencelab(&["share", TEMPLATE, "--base", "https://fencelab.example/app/"]);
    assert!(shared.status.success(), "{}", stderr(&shared));
    let link = stdout(&shared);
    assert!(link.starts_with("https://fencelab.example/app/#/s/"), "{link}");

    let unshared = fencelab(&["unshare", link.trim()]);
    assert!(unshared.status.success(), "{}", stderr(&unshared));
    assert_eq!(stderr(&unshared), "", "a plain scenario link has nothing else to say");
    let src = std::fs::read_to_string(TEMPLATE).expect("template exists");
    let original = fencelab::load(&src);
    let printed = fencelab::load(&stdout(&unshared));
    assert!(!printed.has_errors(), "{}", stdout(&unshared));
    assert_eq!(printed.scenario, original.scenario);
}

#[test]
fn share_without_base_prints_the_route() {
    let shared = fencelab(&["share", TEMPLATE]);
    assert!(shared.status.success(), "{}", stderr(&shared));
    assert!(stdout(&shared).starts_with("#/s/"), "{}", stdout(&shared));
}

#[test]
fn a_bad_link_exits_2_with_the_reason() {
    let cut = fencelab(&["unshare", "https://fencelab.example/#/s/fAF42j3"]);
    assert_eq!(cut.status.code(), Some(2));
    assert_eq!(
        stderr(&cut),
        "error: the link is incomplete; it was probably cut off when copied\n"
    );
    assert_eq!(stdout(&cut), "");
    let lesson = fencelab(&["unshare", "https://fencelab.example/#/lesson/2"]);
    assert_eq!(lesson.status.code(), Some(2));
    assert!(stderr(&lesson).contains("no shared scenario"), "{}", stderr(&lesson));
}

#[test]
fn a_scenario_with_errors_is_not_shared() {
    let dir = std::env::temp_dir().join(format!("fencelab-share-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("broken.fence");
    std::fs::write(&path, "cta A\nthread t @Nowhere:\n    st [x], 1\n").expect("write");
    let shared = fencelab(&["share", path.to_str().expect("utf-8 path")]);
    assert_eq!(shared.status.code(), Some(2));
    assert!(stderr(&shared).contains("broken.fence` has 1 error"), "{}", stderr(&shared));
    assert_eq!(stdout(&shared), "");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn usage_mistakes_exit_2() {
    for args in
        [&["share"][..], &["share", TEMPLATE, "--base"], &["unshare"], &["unshare", "a", "b"]]
    {
        let output = fencelab(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(stderr(&output).starts_with("usage: fencelab"), "{args:?}: {}", stderr(&output));
    }
}
