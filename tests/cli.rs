//! The command line's interface: help, version, did-you-mean, standard input, colour,
//! completions, and every subcommand's exit codes on good and bad input.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

const RACY: &str = "tests/scenarios/checker/bug1_relay_default_release_cta.fence";
const TEMPLATE: &str = "tests/scenarios/templates/cluster-handoff.fence";
const MISSPELT: &str = "cta A\nthread t @A:\n    ld.aquire.gpu r0, [x]\n";
const NOT_CANONICAL: &str = "cta A\nshared x @A\nthread t @A:\n  st.shared [x],1\n";
const CANONICAL: &str = "cta A\nshared x @A = 0\n\nthread t @A:\n    st.shared::cta [x], 1\n";
const SUBCOMMANDS: [&str; 8] = ["check", "fmt", "parse", "litmus", "lessons", "share", "unshare", "completions"];

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs fencelab in the package root with `stdin` piped in (stdout and stderr are pipes,
/// so never terminals).
fn fencelab(args: &[&str], stdin: &str) -> Run {
    let child = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = child.expect("the fencelab binary starts");
    if let Some(mut pipe) = child.stdin.take() {
        // fencelab may exit before reading (usage errors): a closed pipe is fine here.
        let _ = pipe.write_all(stdin.as_bytes());
    }
    let out = child.wait_with_output().expect("fencelab finishes");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// stdout of a run that must succeed.
fn stdout_of(args: &[&str], stdin: &str) -> String {
    let run = fencelab(args, stdin);
    assert_eq!(run.code, Some(0), "{args:?}: {}", run.stderr);
    run.stdout
}

fn read(path: &str) -> String {
    std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)).expect("test file exists")
}

fn temp_file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("fencelab-cli-iface-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write temp file");
    path.to_string_lossy().into_owned()
}

#[test]
fn top_level_help_lists_every_subcommand_with_examples() {
    for flag in ["--help", "-h"] {
        let run = fencelab(&[flag], "");
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        for sub in SUBCOMMANDS {
            assert!(run.stdout.contains(&format!("\n  {sub} ")), "{flag} lacks `{sub}`:\n{}", run.stdout);
        }
        assert!(run.stdout.contains("Examples:\n  fencelab check"), "{}", run.stdout);
        assert!(run.stdout.contains("--color <WHEN>"), "{}", run.stdout);
    }
}

#[test]
fn every_subcommand_has_help_with_usage_and_examples() {
    let mut commands: Vec<Vec<&str>> = SUBCOMMANDS.iter().filter(|s| **s != "lessons").map(|s| vec![*s]).collect();
    commands.push(vec!["lessons", "check"]);
    for command in commands {
        let name = command.join(" ");
        for flag in ["--help", "-h"] {
            let run = fencelab(&[command.as_slice(), &[flag]].concat(), "");
            assert_eq!(run.code, Some(0), "{name} {flag}: {}", run.stderr);
            assert!(run.stdout.contains(&format!("Usage: fencelab {name}")), "{name} {flag}:\n{}", run.stdout);
            assert!(run.stdout.contains("Examples:\n  fencelab"), "{name} {flag}:\n{}", run.stdout);
        }
        let via_help = fencelab(&[&["help"], command.as_slice()].concat(), "");
        assert_eq!(via_help.code, Some(0), "help {name}");
        assert!(via_help.stdout.contains(&format!("Usage: fencelab {name}")), "help {name}:\n{}", via_help.stdout);
    }
    let lessons = fencelab(&["lessons", "--help"], "");
    assert_eq!(lessons.code, Some(0));
    assert!(lessons.stdout.contains("check  Verify every claim"), "{}", lessons.stdout);
}

#[test]
fn fmt_help_says_it_rewrites_in_place() {
    let run = fencelab(&["fmt", "--help"], "");
    assert!(run.stdout.contains("in place"), "{}", run.stdout);
}

#[test]
fn version_prints_the_package_version() {
    for flag in ["--version", "-V"] {
        let run = fencelab(&[flag], "");
        assert_eq!(run.code, Some(0));
        assert_eq!(run.stdout, format!("fencelab {}\n", env!("CARGO_PKG_VERSION")));
    }
}

#[test]
fn no_arguments_prints_help_on_stderr_and_exits_2() {
    let run = fencelab(&[], "");
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("Usage: fencelab"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
}

#[test]
fn mistyped_subcommands_options_and_values_get_a_suggestion_and_exit_2() {
    let cases: [(&[&str], &str); 5] = [
        (&["chek", RACY], "a similar subcommand exists: 'check'"),
        (&["lesons", "check"], "a similar subcommand exists: 'lessons'"),
        (&["check", "--jsn", RACY], "a similar argument exists: '--json'"),
        (&["fmt", "--chek", RACY], "a similar argument exists: '--check'"),
        (&["check", "--mode", "strikt", RACY], "a similar value exists: 'strict'"),
    ];
    for (args, tip) in cases {
        let run = fencelab(args, "");
        assert_eq!(run.code, Some(2), "{args:?}");
        assert!(run.stderr.contains(tip), "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{args:?}");
    }
}

#[test]
fn check_reads_standard_input_and_names_it_stdin() {
    let run = fencelab(&["check", "-"], &read(RACY));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("\n<stdin>: race in pragmatic mode ("), "{}", run.stdout);
    assert!(run.stdout.contains("--> <stdin>:"), "{}", run.stdout);

    let json = fencelab(&["check", "--json", "-"], &read(RACY));
    // The file touches a spec silence, so it runs in both modes: one object per mode.
    let value: serde_json::Value = serde_json::from_str(&json.stdout).unwrap_or_default();
    assert_eq!(value[0]["file"], "<stdin>");
    assert_eq!(value[0]["verdict"], "race");
    assert_eq!(value[1]["mode"], "strict");
}

#[test]
fn diagnostics_for_standard_input_name_it_stdin() {
    let run = fencelab(&["check", "-"], MISSPELT);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("error[F0203]: unknown modifier `.aquire`\n --> <stdin>:3:7\n"), "{}", run.stderr);
    assert!(run.stderr.contains("error: `<stdin>` has 1 error"), "{}", run.stderr);
}

#[test]
fn standard_input_can_be_named_only_once() {
    let run = fencelab(&["check", "-", "-"], &read(RACY));
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("`-` (standard input) can be given only once"), "{}", run.stderr);
}

#[test]
fn fmt_of_standard_input_writes_the_canonical_text_to_stdout() {
    assert_eq!(stdout_of(&["fmt", "-"], NOT_CANONICAL), CANONICAL);
    let check = fencelab(&["fmt", "--check", "-"], NOT_CANONICAL);
    assert_eq!(check.code, Some(1));
    assert!(check.stderr.contains("`<stdin>` is not in canonical form"), "{}", check.stderr);
    assert_eq!(fencelab(&["fmt", "--check", "-"], CANONICAL).code, Some(0));
}

#[test]
fn fmt_stdout_prints_and_leaves_the_file_alone() {
    let path = temp_file("stdout.fence", NOT_CANONICAL);
    assert_eq!(stdout_of(&["fmt", "--stdout", &path], ""), CANONICAL);
    assert_eq!(std::fs::read_to_string(&path).unwrap_or_default(), NOT_CANONICAL);
}

#[test]
fn parse_prints_canonical_text_and_json_on_request() {
    assert_eq!(stdout_of(&["parse", "-"], NOT_CANONICAL), CANONICAL);
    let json = stdout_of(&["parse", "--json", "-"], NOT_CANONICAL);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
    assert_eq!(value["locations"][0]["name"], "x", "{json}");
}

#[test]
fn share_and_litmus_print_read_standard_input() {
    let shared = stdout_of(&["share", "-"], &read(TEMPLATE));
    let payload = fencelab::link::decode(shared.trim()).expect("the link decodes");
    assert_eq!(payload.scenario, fencelab::load(&read(TEMPLATE)).scenario);

    let litmus = "PTX MP\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)";
    let printed = stdout_of(&["litmus", "--print", "-"], litmus);
    assert!(printed.contains("thread P0"), "{printed}");
}

#[test]
fn color_always_paints_diagnostics_and_never_or_a_pipe_does_not() {
    let always = fencelab(&["--color", "always", "check", "-"], MISSPELT);
    assert!(always.stderr.contains("\x1b[1;31merror[F0203]\x1b[0m"), "{:?}", always.stderr);
    assert!(always.stderr.contains("\x1b[1;34m-->\x1b[0m <stdin>:3:7"), "{:?}", always.stderr);
    for args in [&["check", "--color=never", "-"][..], &["check", "-"]] {
        let plain = fencelab(args, MISSPELT);
        assert_eq!(plain.code, Some(2));
        assert!(plain.stderr.contains("error[F0203]"), "{args:?}: {}", plain.stderr);
        assert!(!plain.stderr.contains('\x1b'), "{args:?}: {:?}", plain.stderr);
    }
    // Findings go to stdout and follow the same choice.
    let findings = fencelab(&["check", "--color", "always", RACY], "");
    assert!(findings.stdout.contains("\x1b[1;31merror[C0001]\x1b[0m"), "{:?}", findings.stdout);
    assert!(!fencelab(&["check", RACY], "").stdout.contains('\x1b'));
}

#[test]
fn color_takes_only_known_values() {
    let run = fencelab(&["--color", "sometimes", "check", RACY], "");
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("[possible values: auto, always, never]"), "{}", run.stderr);
}

#[test]
fn completions_are_scripts_that_know_the_subcommands() {
    for (shell, marker) in [("bash", "_fencelab()"), ("zsh", "#compdef fencelab"), ("fish", "complete -c fencelab")] {
        let run = fencelab(&["completions", shell], "");
        assert_eq!(run.code, Some(0), "{shell}: {}", run.stderr);
        assert!(run.stdout.contains(marker), "{shell}: {}", run.stdout);
        assert!(run.stdout.contains("unshare"), "{shell}");
        assert!(run.stdout.contains("witness"), "{shell}");
    }
    assert_eq!(fencelab(&["completions", "tcsh"], "").code, Some(2));
}

#[test]
fn every_subcommand_exits_0_1_2_on_good_failing_and_bad_input() {
    let failing_expectation = read(RACY).replace("expect race", "expect correct");
    let link = fencelab(&["share", TEMPLATE], "").stdout;
    let no_lessons = temp_file("empty-lessons-dir-marker", "");
    let cases: Vec<(Vec<&str>, &str, i32)> = vec![
        (vec!["check", RACY], "", 0),
        (vec!["check", TEMPLATE, RACY], "", 0),
        (vec!["check", "-"], &failing_expectation, 1),
        (vec!["check", "-"], MISSPELT, 2),
        (vec!["check", "/nonexistent/x.fence"], "", 2),
        (vec!["check"], "", 2),
        (vec!["fmt", "-"], CANONICAL, 0),
        (vec!["fmt", "--check", "-"], NOT_CANONICAL, 1),
        (vec!["fmt", "-"], MISSPELT, 2),
        (vec!["fmt"], "", 2),
        (vec!["parse", TEMPLATE], "", 0),
        (vec!["parse", "-"], MISSPELT, 2),
        (vec!["parse", TEMPLATE, TEMPLATE], "", 2),
        (vec!["litmus", "--print", "-"], "not a litmus test", 2),
        (vec!["litmus", "/nonexistent", "--expected", "/nonexistent/expected.csv"], "", 2),
        (vec!["litmus"], "", 2),
        (vec!["lessons", "check"], "", 0),
        (vec!["lessons", "check", &no_lessons], "", 2),
        (vec!["lessons"], "", 2),
        (vec!["share", TEMPLATE], "", 0),
        (vec!["share", "-"], MISSPELT, 2),
        (vec!["share", TEMPLATE, "--witness", "0"], "", 2),
        (vec!["unshare", "-"], &link, 0),
        (vec!["unshare", "https://fencelab.example/#/s/fAF42j3"], "", 2),
        (vec!["unshare"], "", 2),
        (vec!["completions", "fish"], "", 0),
        (vec!["completions"], "", 2),
    ];
    for (args, stdin, code) in cases {
        let run = fencelab(&args, stdin);
        assert_eq!(run.code, Some(code), "{args:?}\nstdout: {}\nstderr: {}", run.stdout, run.stderr);
    }
}

/// Load buffering: both reads may return the other thread's later write, which no
/// interleaving does.
const LOAD_BUFFERING: &str = "cta A\nglobal x = 0\nglobal y = 0\nthread a @A:\n    ld.relaxed.gpu r0, [x]\n    st.relaxed.gpu [y], 1\nthread b @A:\n    ld.relaxed.gpu r1, [y]\n    st.relaxed.gpu [x], 1\n";

#[test]
fn check_graph_writes_the_execution_of_each_unreached_outcome() {
    let out = temp_file("lb.svg", "");
    std::fs::remove_file(&out).expect("starts absent");
    let run = fencelab(&["check", "--mode", "strict", "--graph", &out, "-"], LOAD_BUFFERING);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("a:r0=1 b:r1=1  (allowed by the axioms"), "{}", run.stdout);
    let svg = std::fs::read_to_string(&out).expect("--graph wrote the file");
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"), "{svg}");
    // Each read takes its value from the other thread's later write.
    assert_eq!(svg.matches(r#"class="rf""#).count(), 2, "{svg}");
    assert!(svg.contains("R x=1 rlx") && svg.contains("R y=1 rlx"), "{svg}");
    assert!(run.stderr.contains("a:r0=1 b:r1=1") && run.stderr.contains(&out), "{}", run.stderr);

    let printed = fencelab(&["check", "--mode", "strict", "--graph", "-", "-"], LOAD_BUFFERING);
    assert_eq!(printed.stdout.matches("<svg").count(), 1, "{}", printed.stdout);

    // Load buffering with release and acquire: the axioms forbid r0 = r1 = 1, no graph.
    let none = temp_file("none.svg", "");
    std::fs::remove_file(&none).expect("starts absent");
    let reached = fencelab(&["check", "--graph", &none, "tests/scenarios/checker/lb_release_acquire.fence"], "");
    assert!(reached.stderr.contains("no outcome needs a graph"), "{}", reached.stderr);
    assert!(!std::path::Path::new(&none).exists());
}

#[test]
fn check_reports_and_draws_a_hang_only_a_coherence_order_against_execution_order_allows() {
    let run = fencelab(&["check", "--graph", "-", "tests/scenarios/loops/xf_barrier_weak.fence"], "");
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("error[C0002]: hang: `P1` may spin for ever under a coherence order no interleaving reaches"), "{}", run.stdout);
    assert!(run.stdout.contains("ok: expect deadlock"), "{}", run.stdout);
    assert!(run.stdout.contains("graph of tests/scenarios/loops/xf_barrier_weak.fence (pragmatic mode): hang"), "{}", run.stdout);
    assert_eq!(run.stdout.matches(r#"class="note""#).count(), 1, "{}", run.stdout);
    // Release and acquire order the flag's stores: no hang, nothing to draw.
    let fixed = fencelab(&["check", "tests/scenarios/loops/xf_barrier_acqrel.fence"], "");
    assert_eq!(fixed.code, Some(0), "{}", fixed.stdout);
    assert!(fixed.stdout.contains("correct in pragmatic mode") && !fixed.stdout.contains("hang"), "{}", fixed.stdout);
}

#[test]
fn a_memory_cap_stops_a_growing_search_cleanly_and_says_what_it_explored() {
    // Without forgetting unobservable writes, every round of the lock's spin adds to the
    // coherence history: the search never closes, and only the cap stops it.
    let run = fencelab(&["check", "--mode", "pragmatic", "--full-history", "--max-memory", "16", "--max-states", "100000000", "tests/scenarios/loops/tas_lock.fence"], "");
    let last = run.stdout.lines().last().unwrap_or_default().to_string();
    assert!(last.contains("partial in pragmatic mode") && last.ends_with("stopped at the memory cap)"), "{}", run.stdout);
    let states: u64 = last.split('(').nth(1).and_then(|s| s.split(' ').next()).and_then(|n| n.parse().ok()).expect("the states explored");
    assert!(states > 1000, "{last}");
}
