//! `fencelab cost` and `fencelab fix` on the command line: JSON shapes, text, exit codes.

use std::io::Write;
use std::process::{Command, Stdio};

const MP: &str = "cta A
cta B
global data = 0
global flag = 0

thread p @A:
    st.global [data], 42
    st.relaxed.gpu.global [flag], 1

thread c @B:
    wait ld.relaxed.gpu.global r0, [flag] == 1
    ld.global r1, [data]

expect race
";

fn fencelab(args: &[&str], stdin: &str) -> (Option<i32>, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the fencelab binary starts");
    if let Some(mut pipe) = child.stdin.take() {
        let _ = pipe.write_all(stdin.as_bytes());
    }
    let out = child.wait_with_output().expect("fencelab finishes");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn json(args: &[&str], stdin: &str) -> serde_json::Value {
    let (code, stdout, stderr) = fencelab(args, stdin);
    assert_eq!(code, Some(0), "{args:?}: {stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}\n{stdout}"))
}

#[test]
fn cost_json_totals_threads_and_sass() {
    let v = json(&["cost", "--json", "tests/scenarios/seeds/003-relay-warp-fully-fixed.fence"], "");
    let total = v["total"].as_u64().expect("total");
    let threads: u64 = v["threads"].as_array().expect("threads").iter().map(|t| t["cost"].as_u64().unwrap_or(0)).sum();
    let sass: u64 = v["sass"].as_array().expect("sass").iter().map(|s| s["cost"].as_u64().unwrap_or(0)).sum();
    assert_eq!((total, threads), (sass, sass));
    assert!(v["sass"].as_array().is_some_and(|ops| ops.iter().any(|s| s["op"] == "MEMBAR.ALL.GPU")));
    assert!(v["model"].as_str().is_some_and(|m| m.contains("sm_90a")));
}

#[test]
fn cost_text_names_lines_and_the_model() {
    let (code, stdout, _) = fencelab(&["cost", "-"], MP);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("<stdin>: cost 0 (SASS from nvcc 13.0 for sm_90a"), "{stdout}");
}

#[test]
fn fix_json_lists_verified_fixes_cheapest_first() {
    let v = json(&["fix", "--json", "-"], MP);
    assert_eq!(v["verdict"], "race");
    assert_eq!(v["mode"], "strict");
    let fixes = v["fixes"].as_array().expect("fixes");
    assert!(!fixes.is_empty());
    let costs: Vec<u64> = fixes.iter().map(|f| f["cost"].as_u64().unwrap_or(u64::MAX)).collect();
    assert!(costs.windows(2).all(|w| w[0] <= w[1]), "{costs:?}");
    for f in fixes {
        assert_eq!(f["modes"]["strict"], "correct");
        let text = f["text"].as_str().expect("text");
        assert!(text.contains("expect correct"), "{text}");
        let edits = f["edits"].as_array().expect("edits");
        assert!(edits.iter().all(|e| e["line"].as_u64().is_some() && e["after"].is_string() && e["before"].is_string()));
        // The fixed text checks correct on its own.
        let (code, _, stderr) = fencelab(&["check", "-"], text);
        assert_eq!(code, Some(0), "{stderr}\n{text}");
    }
}

#[test]
fn fix_on_a_correct_scenario_says_what_matters() {
    let v = json(&["fix", "--json", "tests/scenarios/checker/bug1_cheaper_sync_restrict.fence"], "");
    assert_eq!(v["verdict"], "correct");
    let necessary = v["necessary"].as_array().expect("necessary");
    assert!(necessary.iter().any(|n| n["text"].as_str().is_some_and(|t| t.contains("sync_restrict"))), "{necessary:?}");
    assert!(v["redundant"].is_array() && v["cheaper"].is_array());
}

#[test]
fn bad_input_and_usage_exit_2() {
    assert_eq!(fencelab(&["fix", "-"], "thread t @Nowhere:\n").0, Some(2));
    assert_eq!(fencelab(&["cost", "-"], "thread t @Nowhere:\n").0, Some(2));
    assert_eq!(fencelab(&["fix"], "").0, Some(2));
    assert_eq!(fencelab(&["fix", "--max-edits", "x", "-"], MP).0, Some(2));
}
