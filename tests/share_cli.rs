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
        [
        &["share"][..],
        &["share", TEMPLATE, "--base"],
        &["share", TEMPLATE, "--witness", "0"],
        &["share", TEMPLATE, "--mode", "strict"],
        &["share", TEMPLATE, TEMPLATE],
        &["unshare"],
        &["unshare", "a", "b"],
    ]
    {
        let output = fencelab(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        // clap's usage errors: the problem, then a pointer to `--help`.
        let stderr = stderr(&output);
        assert!(stderr.starts_with("error: ") && stderr.contains("try '--help'"), "{args:?}: {stderr}");
    }
}

const RACY: &str = "tests/scenarios/checker/bug1_relay_default_release_cta.fence";

#[test]
fn a_witness_link_opens_on_the_last_step_of_the_finding() {
    let shared = fencelab(&["share", RACY, "--witness", "1", "--mode", "strict"]);
    assert!(shared.status.success(), "{}", stderr(&shared));
    let payload = fencelab::link::decode(stdout(&shared).trim()).expect("the link decodes");
    let src = std::fs::read_to_string(RACY).expect("scenario exists");
    let scenario = fencelab::load(&src).scenario;
    let options = fencelab::check::Options { mode: fencelab::check::Mode::Strict, ..Default::default() };
    let report = fencelab::check::check(&scenario, &options);
    let witness = report.findings.first().map(|f| f.witness.clone()).expect("the scenario has a finding");
    assert_eq!(payload.scenario, scenario);
    assert_eq!(payload.view.mode, fencelab::check::Mode::Strict);
    assert_eq!(payload.view.trace, Some(fencelab::link::TraceRef::Schedule(witness.clone())));
    assert_eq!(payload.view.step, u32::try_from(witness.steps.len()).ok());
}

#[test]
fn a_witness_that_does_not_exist_is_refused_with_the_count() {
    let none = fencelab(&["share", TEMPLATE, "--witness", "1"]);
    assert_eq!(none.status.code(), Some(2));
    assert!(stderr(&none).contains("finds nothing to witness in pragmatic mode"), "{}", stderr(&none));
    let too_far = fencelab(&["share", RACY, "--witness", "99"]);
    assert_eq!(too_far.status.code(), Some(2));
    assert!(stderr(&too_far).contains("not 99"), "{}", stderr(&too_far));
    assert_eq!(stdout(&too_far), "");
}
