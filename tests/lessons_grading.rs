//! Exercises are graded on their point: for each shipped exercise that a lazy,
//! over-synchronized or beside-the-point answer used to pass, that answer is rejected with
//! feedback naming why, while the intended answer passes.

use std::path::Path;
use std::process::Command;

use fencelab::check::Options;
use fencelab::lesson::{grade, parse_lesson, Block, Exercise};

fn lesson_path(file: &str) -> std::path::PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/lessons")).join(file)
}

fn exercise(file: &str, id: &str) -> Exercise {
    let src = std::fs::read_to_string(lesson_path(file)).expect("lesson is readable");
    let (lesson, errors) = parse_lesson(&src);
    assert_eq!(errors, vec![], "{file}");
    lesson
        .blocks
        .into_iter()
        .find_map(|b| match b {
            Block::Exercise(ex) if ex.id == id => Some(ex),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{file} has exercise {id}"))
}

/// `program` with each `(from, to)` applied once; every `from` must occur.
fn edited(program: &str, edits: &[(&str, &str)]) -> String {
    edits.iter().fold(program.to_string(), |src, (from, to)| {
        assert!(src.contains(from), "`{from}` not in\n{src}");
        src.replacen(from, to, 1)
    })
}

enum From {
    Start,
    Solution,
}

/// An answer that must fail: the file, the exercise, the program it edits, the edits, and
/// a phrase the feedback must contain.
struct Lazy {
    file: &'static str,
    exercise: &'static str,
    from: From,
    edits: &'static [(&'static str, &'static str)],
    feedback: &'static str,
}

/// The feedback of `keep-data`, for answers that move or drop the data instead of synchronizing it.
const KEPT: &str = "of the starting program is no longer in";

/// An answer from the start that moves or drops data `keep-data` holds in place.
const fn kept(file: &'static str, exercise: &'static str, edits: &'static [(&'static str, &'static str)]) -> Lazy {
    Lazy { file, exercise, from: From::Start, edits, feedback: KEPT }
}

const LAZY: &[Lazy] = &[
    Lazy {
        file: "01-executed-is-not-visible.md",
        exercise: "publish-the-data",
        from: From::Solution,
        edits: &[("st.release.gpu", "st.release.sys"), ("ld.acquire.gpu", "ld.acquire.sys")],
        feedback: "wider than this exercise allows (`max-scope: gpu`)",
    },
    Lazy {
        file: "03-scopes.md",
        exercise: "widen-the-acquire",
        from: From::Solution,
        edits: &[("fence.acquire.gpu", "fence.acquire.sys")],
        feedback: "`max-scope: gpu`",
    },
    Lazy {
        file: "03-scopes.md",
        exercise: "widen-the-acquire",
        from: From::Solution,
        edits: &[("fence.acquire.gpu", "fence.sc.gpu")],
        feedback: "(`forbid: fence-sc`)",
    },
    Lazy {
        file: "04-state-spaces.md",
        exercise: "publish-global-data",
        from: From::Solution,
        edits: &[
            ("fence.release.cluster", "fence.release.gpu"),
            (
                "wait mbarrier.try_wait.parity.acquire.cluster.shared::cta [bar], 0",
                "wait mbarrier.try_wait.parity.relaxed.cluster.shared::cta [bar], 0\n    fence.acquire.sys",
            ),
        ],
        feedback: "`max-scope: cluster`",
    },
    Lazy {
        file: "02-release-acquire.md",
        exercise: "fence-the-relaxed-pair",
        from: From::Solution,
        edits: &[("fence.release.cta", "fence.acq_rel.sys"), ("fence.acquire.cta", "fence.acq_rel.sys")],
        feedback: "`max-scope: cta`",
    },
    Lazy {
        file: "02-release-acquire.md",
        exercise: "fence-the-relaxed-pair",
        from: From::Start,
        edits: &[
            ("mbarrier.arrive.relaxed.cta.shared::cta", "mbarrier.arrive.shared::cta"),
            ("try_wait.parity.relaxed.cta.shared::cta", "try_wait.parity.shared::cta"),
        ],
        feedback: "(`forbid: release-acquire-mbarrier`)",
    },
    Lazy {
        file: "08-cluster-handoffs.md",
        exercise: "pull-without-membar-gpu",
        from: From::Solution,
        edits: &[("mbarrier.arrive.relaxed.cluster.shared::cluster", "mbarrier.arrive.shared::cluster")],
        feedback: "(`forbid: cta-scope-mbarrier`): its `.cta` scope does not include the thread in the other CTA",
    },
    Lazy {
        file: "08-cluster-handoffs.md",
        exercise: "pull-without-membar-gpu",
        from: From::Solution,
        // Correct, and no MEMBAR.GPU, but it trades the mbarrier for a second cluster barrier,
        // which costs more than the handoff it replaces.
        edits: &[
            ("mbarrier.arrive.relaxed.cluster.shared::cluster [bar]", "barrier.cluster.arrive.relaxed\n    barrier.cluster.wait"),
            ("wait mbarrier.try_wait.parity.relaxed.cluster.shared::cta [bar], 0", "barrier.cluster.arrive.relaxed\n    barrier.cluster.wait"),
        ],
        feedback: "this exercise allows at most 25",
    },
    Lazy {
        file: "14-relay-warp-case-study.md",
        exercise: "fix-the-relay-cheaply",
        from: From::Solution,
        // Belt and braces: a second fence before the store pays again for the same order.
        edits: &[("    st.shared [d], 42", "    fence.release.sync_restrict::shared::cta.cluster\n    st.shared [d], 42")],
        feedback: "this exercise allows at most 30",
    },
    Lazy {
        file: "14-relay-warp-case-study.md",
        exercise: "fix-the-relay-cheaply",
        from: From::Solution,
        edits: &[("mbarrier.arrive.relaxed.cluster.shared::cluster", "mbarrier.arrive.shared::cluster")],
        feedback: "(`forbid: cta-scope-mbarrier`)",
    },
    Lazy {
        file: "14-relay-warp-case-study.md",
        exercise: "fix-the-relay-cheaply",
        from: From::Solution,
        edits: &[("mbarrier.arrive.relaxed.cluster.shared::cluster", "mbarrier.arrive.relaxed.cta.shared::cluster")],
        feedback: "(`forbid: cta-scope-mbarrier`)",
    },
    Lazy {
        file: "08-cluster-handoffs.md",
        exercise: "announce-every-byte",
        from: From::Solution,
        edits: &[("[bar], 4\n", "[bar], 0\n")],
        feedback: "does not hold",
    },
    Lazy {
        file: "08-cluster-handoffs.md",
        exercise: "announce-every-byte",
        from: From::Solution,
        edits: &[("[bar], 4\n", "[bar], 2\n")],
        feedback: "the checker's verdict is deadlock",
    },
    Lazy {
        file: "08-cluster-handoffs.md",
        exercise: "announce-every-byte",
        from: From::Start,
        edits: &[(
            "    mbarrier.arrive.expect_tx.shared::cta [bar], 8\n",
            "    mbarrier.complete_tx.relaxed.cta.shared::cta [bar], 4\n    mbarrier.arrive.expect_tx.shared::cta [bar], 8\n",
        )],
        feedback: "allows at most 4",
    },
    Lazy {
        file: "13-pipelines.md",
        exercise: "add-the-empty-barrier",
        from: From::Start,
        edits: &[
            ("    st.shared [slot], 2\n", "    bar.sync 0\n    st.shared [slot], 2\n"),
            ("    ld.shared r0, [slot]\n", "    ld.shared r0, [slot]\n    bar.sync 0\n"),
        ],
        feedback: "(`forbid: cta-barrier`)",
    },
    Lazy {
        file: "10-tma-store.md",
        exercise: "fence-before-the-store",
        from: From::Solution,
        edits: &[("fence.proxy.async.shared::cta", "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster")],
        feedback: "(`forbid: proxy-fence-half`): it is one half of the split proxy fence",
    },
    Lazy {
        file: "15-where-the-spec-is-silent.md",
        exercise: "strict-war-fence",
        from: From::Solution,
        edits: &[("fence.proxy.async.shared::cta", "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster")],
        feedback: "(`forbid: proxy-fence-half`)",
    },
    Lazy {
        file: "11-wgmma-operands.md",
        exercise: "fence-the-operands",
        from: From::Solution,
        edits: &[("fence.proxy.async.shared::cta", "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster")],
        feedback: "(`forbid: proxy-fence-half`)",
    },
    // Spinning on the data itself (made strong) instead of publishing it through the flag.
    kept(
            "01-executed-is-not-visible.md",
            "publish-the-data",
        &[
            ("    st.global [data], 42\n", "    st.relaxed.gpu.global [data], 42\n"),
            ("    ld.global r0, [data]\n", "    wait ld.relaxed.gpu.global r0, [data] == 42\n"),
        ],
    ),
    // Relocating the release into the writer (or the store into the signaller) makes the chain
    // correct without the CTA-internal link the exercise is about.
    kept(
            "06-causality-chains.md",
            "close-the-chain",
        &[
            ("    st.global [data], 42\n", "    st.global [data], 42\n    atom.release.gpu.global.add r9, [flag], 1\n"),
            ("thread signaller @A:\n    atom.release.gpu.global.add r9, [flag], 1\n", "thread signaller @A:\n"),
        ],
    ),
    kept(
            "06-causality-chains.md",
            "close-the-chain",
        &[
            ("thread writer @A:\n    st.global [data], 42\n", "thread writer @A:\n"),
            ("thread signaller @A:\n", "thread signaller @A:\n    st.global [data], 42\n"),
        ],
    ),
    // Writing the tile with a thread store instead of announcing the copy's bytes.
    kept(
            "09-tma-load.md",
            "announce-the-tma-bytes",
        &[
            ("    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [src], 16, [full]\n", ""),
            ("    mbarrier.arrive.shared::cta [full]\n", "    st.shared [buf], 42\n    mbarrier.arrive.shared::cta [full]\n"),
        ],
    ),
    // Writing the output with a thread store instead of waiting for the TMA store.
    kept(
            "10-tma-store.md",
            "announce-after-completion",
        &[(
            "    cp.async.bulk.global.shared::cta.bulk_group [out], [buf], 16\n    cp.async.bulk.commit_group\n    cp.async.bulk.wait_group.read 0\n",
            "    st.global [out], 42\n",
        )],
    ),
    // Deleting the MMA leaves no handoff to fence.
    kept(
            "12-tcgen05.md",
            "fence-the-tmem-handoff",
        &[("    tcgen05.mma.cta_group::1 [acc], [a], [b]\n", "")],
    ),
];

#[test]
fn lazy_and_beside_the_point_answers_fail_with_the_reason() {
    let options = Options::default();
    for lazy in LAZY {
        let ex = exercise(lazy.file, lazy.exercise);
        let base = match lazy.from {
            From::Start => &ex.start.source,
            From::Solution => &ex.solution.source,
        };
        let attempt = edited(base, lazy.edits);
        let result = grade(&ex, &attempt, &options);
        assert!(result.complete && !result.passed, "{}: {attempt}\n{:?}", lazy.exercise, result.reasons);
        assert!(
            result.reasons.iter().any(|r| r.contains(lazy.feedback)),
            "{}: expected feedback containing {:?}, got {:#?}",
            lazy.exercise,
            lazy.feedback,
            result.reasons
        );
        // A cost rejection is flagged, so the CLI and the app each point at their own
        // price list; no reason names a tool only one of them has.
        let priced = lazy.feedback.starts_with("this exercise allows at most");
        assert_eq!(result.over_cost, priced, "{}: {:?}", lazy.exercise, result.reasons);
        assert!(result.reasons.iter().all(|r| !r.contains("fencelab cost")), "{}: {:?}", lazy.exercise, result.reasons);
        let intended = grade(&ex, &ex.solution.source, &options);
        assert!(intended.passed, "{}: the intended answer fails: {:?}", lazy.exercise, intended.reasons);
    }
}

/// The `keep-data` rows are real holes: without the rule, the checker alone accepts them.
#[test]
fn kept_data_is_what_rejects_relocation() {
    let options = Options::default();
    for lazy in LAZY.iter().filter(|l| l.feedback == KEPT) {
        let mut ex = exercise(lazy.file, lazy.exercise);
        ex.goal.keep_data = false;
        let base = match lazy.from {
            From::Start => &ex.start.source,
            From::Solution => &ex.solution.source,
        };
        let result = grade(&ex, &edited(base, lazy.edits), &options);
        assert!(result.passed, "{}: passes the checker without `keep`: {:?}", lazy.exercise, result.reasons);
    }
}

fn fencelab(args: &[&str], attempt: &str) -> (Option<i32>, String) {
    let dir = std::env::temp_dir().join(format!("fencelab-grade-{}-{}", std::process::id(), args.join("-").len()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("attempt.fence");
    std::fs::write(&file, attempt).expect("write attempt");
    let out = Command::new(env!("CARGO_BIN_EXE_fencelab")).args(args).arg(&file).output().expect("fencelab runs");
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text)
}

#[test]
fn the_grade_command_prints_the_verdict_and_exits_by_it() {
    let lesson = lesson_path("03-scopes.md");
    let lesson = lesson.to_str().expect("utf-8 path");
    let ex = exercise("03-scopes.md", "widen-the-acquire");

    let (code, text) = fencelab(&["lessons", "grade", lesson, "widen-the-acquire"], &ex.solution.source);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.starts_with("PASS widen-the-acquire"), "{text}");

    let sys = edited(&ex.solution.source, &[("fence.acquire.gpu", "fence.acquire.sys")]);
    let (code, text) = fencelab(&["lessons", "grade", lesson, "widen-the-acquire"], &sys);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.starts_with("FAIL widen-the-acquire") && text.contains("`max-scope: gpu`"), "{text}");

    let (code, text) = fencelab(&["lessons", "grade", lesson, "no-such-exercise"], &ex.solution.source);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("has no exercise `no-such-exercise` (it has: predict-cluster-scope, widen-the-acquire)"), "{text}");

    let (code, text) = fencelab(&["lessons", "grade", lesson, "widen-the-acquire"], "thread t @Nowhere:\n    bogus\n");
    assert_eq!(code, Some(2), "{text}");
}

#[test]
fn predictions_are_graded_and_checked_against_the_checker() {
    let options = Options::default();
    let ex = exercise("05-cta-barriers.md", "predict-store-after-sync");
    assert!(grade(&ex, "race", &options).passed);
    let wrong = grade(&ex, "correct", &options);
    assert!(!wrong.passed && wrong.reasons[0].starts_with("you predicted correct; the checker says race"), "{:?}", wrong.reasons);

    // A lesson whose declared answer the checker contradicts is flagged.
    let src = std::fs::read_to_string(lesson_path("05-cta-barriers.md")).expect("lesson 5");
    let lying = src.replacen("kind: predict\nprompt: Both warps meet at `bar.sync 1, 64`, but the producer stores *after* the barrier.\nprompt: Before the checker runs: what will it say?\ngoal: race", "kind: predict\nprompt: Both warps meet at `bar.sync 1, 64`, but the producer stores *after* the barrier.\nprompt: Before the checker runs: what will it say?\ngoal: correct", 1);
    assert_ne!(lying, src, "the predict block is where the test expects it");
    let (lesson, errors) = parse_lesson(&lying);
    assert_eq!(errors, vec![]);
    let found = fencelab::lesson::check_lesson(&lesson, &options);
    assert!(
        found.iter().any(|m| m.declared.contains("predict-store-after-sync") && m.actual.contains("the checker says race")),
        "{found:#?}"
    );

    let lesson = lesson_path("05-cta-barriers.md");
    let (code, text) = fencelab(&["lessons", "grade", lesson.to_str().expect("utf-8"), "predict-store-after-sync"], "race\n");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.starts_with("PASS predict-store-after-sync") && text.contains("the checker says race"), "{text}");
}
