//! Nothing a user can feed in panics: arbitrary scenarios of the shape a share link can
//! carry go through the checker, the stepper, the printer and the verifier; arbitrary
//! and mutated text goes through every parser. Runs on a big stack (debug builds recurse
//! deeply in the parsers) and with small state caps so it stays fast.

#[path = "../common/mod.rs"]
mod common;
#[path = "../link/arb_instr.rs"]
#[allow(dead_code)]
mod arb_instr;
#[path = "../link/arb_scenario.rs"]
#[allow(dead_code)]
mod arb_scenario;
mod nonsense;

use std::path::Path;

use fencelab::check::view::AgentStatusView;
use fencelab::check::{check, Mode, Options, Stepper, Verdict};
use fencelab::diag::render_all;
use fencelab::link::structural_problem;
use fencelab::model::*;
use fencelab::schedule::{Schedule, Step};
use fencelab::syntax::{parse, print, SourceMap};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;

use nonsense::any_scenario;


/// Checks `s`; returns whether the checker explored every state without an error or a
/// finding (a finding may end exploration early).
fn check_well_formed(s: &Scenario, mode: Mode) -> bool {
    let report = check(s, &Options { mode, max_states: 2_000, ..Options::default() });
    assert_eq!(report.mode, mode);
    if report.verdict == Verdict::Correct {
        assert!(report.stats.complete, "correct without finishing: {report:?}");
    }
    for finding in &report.findings {
        assert!(!finding.message.is_empty());
        let replay = Stepper::replay(s, mode, &finding.witness);
        assert!(replay.is_ok(), "witness of `{}` does not replay: {:?}", finding.message, replay.err());
    }
    for result in &report.conditions {
        assert!(result.index < s.conditions.len(), "{result:?}");
        if let Some(witness) = &result.witness {
            let replay = Stepper::replay(s, mode, witness);
            assert!(replay.is_ok(), "condition witness does not replay: {:?}", replay.err());
        }
    }
    let not_checked = report.mode_note.as_deref().is_some_and(|n| n.starts_with("not checked"));
    report.stats.complete && !not_checked && report.findings.is_empty()
}

/// Steps enabled agents by `picks`; when `explored` (the checker saw every state without
/// an error), an enabled step must also succeed.
fn step_around(s: &Scenario, mode: Mode, picks: &[u32], explored: bool) {
    let mut stepper = match Stepper::new(s, mode) {
        Ok(stepper) => stepper,
        Err(why) => {
            if std::env::var_os("ROBUSTNESS_VERBOSE").is_some() { eprintln!("rejected: {why}"); }
            return;
        }
    };
    for (i, pick) in picks.iter().enumerate() {
        let _ = stepper.snapshot();
        let enabled: Vec<(u32, u32)> = stepper
            .agents()
            .iter()
            .filter_map(|a| match &a.status {
                AgentStatusView::Enabled { choices } => Some((a.id, choices.len() as u32)),
                _ => None,
            })
            .collect();
        if i % 7 == 6 {
            stepper.undo();
            continue;
        }
        let Some(&(agent, choices)) = enabled.get(*pick as usize % enabled.len().max(1)) else {
            // Nothing enabled: stepping anything must be refused, not panic.
            assert!(stepper.step(Step { agent: *pick, choice: 0 }).is_err());
            break;
        };
        let choice = pick.rotate_left(7) % choices.max(1);
        // An enabled step may still fail on a name the checker cannot resolve; it must say why.
        if let Err(why) = stepper.step(Step { agent, choice }) {
            assert!(!why.to_string().is_empty() && !explored, "enabled step {agent}/{choice} refused: {why}");
        }
    }
    // Out-of-range steps are refused.
    assert!(stepper.step(Step { agent: u32::MAX, choice: 0 }).is_err());
    let _ = stepper.schedule();
}

/// Runs `body` on a thread with a large stack, re-raising its panic.
fn on_big_stack(body: impl FnOnce() + Send + 'static) {
    let thread = std::thread::Builder::new().stack_size(64 << 20).spawn(body).expect("spawn");
    if let Err(panic) = thread.join() {
        std::panic::resume_unwind(panic);
    }
}

fn cases() -> u32 {
    std::env::var("ROBUSTNESS_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(160)
}

fn corpus() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    for dir in ["tests/scenarios", "lessons", "../shared/conformance/dat3m-ptx"] {
        collect(&root.join(dir), &mut paths);
    }
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read_to_string(p).ok()).collect()
}

/// `.fence`, `.md` and `.litmus` files under `dir`; a missing corpus is skipped.
fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "fence" || e == "md" || e == "litmus") {
            out.push(path);
        }
    }
}

fn feed_text(text: &str) {
    let parsed = parse(text);
    let _ = print(&parsed.scenario);
    let loaded = fencelab::load(text);
    let rendered = render_all(&loaded.diagnostics, text, "input.fence");
    assert_eq!(loaded.diagnostics.is_empty(), rendered.is_empty());
    if !loaded.has_errors() && structural_problem(&loaded.scenario).is_none() {
        let _ = check_well_formed(&loaded.scenario, Mode::Pragmatic);
    }
    let (lesson, _) = fencelab::lesson::parse_lesson(text);
    let small = Options { mode: Mode::Pragmatic, max_states: 500, ..Options::default() };
    for block in &lesson.blocks {
        if let fencelab::lesson::Block::Exercise(exercise) = block {
            let _ = fencelab::lesson::grade(exercise, &exercise.start.source, &small);
        }
    }
    let _ = fencelab::lesson::check_lesson(&lesson, &small);
    let _ = fencelab::lesson::lint_lesson(&lesson);
    let _ = fencelab::litmus::import(text);
    let _ = fencelab::link::decode(text);
    if !loaded.has_errors() {
        let _ = fencelab::cuda::generate(&loaded.scenario, &fencelab::cuda::HarnessOptions::default());
    }
}

/// Runs a proptest runner on a big stack: in debug builds, generating these nested
/// strategies alone can overflow a test thread's 2 MiB.
fn run_cases<S: Strategy<Value: 'static>>(strategy: impl FnOnce() -> S + Send + 'static, test: fn(S::Value)) {
    on_big_stack(move || {
        let mut runner = TestRunner::new(ProptestConfig { cases: cases(), ..ProptestConfig::default() });
        let result = runner.run(&strategy(), |value| {
            test(value);
            Ok(())
        });
        if let Err(e) = result {
            panic!("{e}");
        }
    });
}

#[test]
fn linkable_scenarios_never_panic() {
    run_cases(
        || (any_scenario(), vec(any::<u32>(), 0..50)),
        |(s, picks)| {
            // The axiomatic engine takes any scenario, structurally sound or not.
            let small = fencelab::axiom::Limits { max_traces: 64, max_values: 8, max_candidates: 2_000, ..Default::default() };
            if let Ok(allowed) = fencelab::axiom::allowed(&s, &small) {
                for witness in allowed.finals.values() {
                    let _ = fencelab::axiom::graph::svg(&s, &witness.execution);
                }
            }
            if structural_problem(&s).is_some() {
                return;
            }
            for mode in [Mode::Strict, Mode::Pragmatic] {
                let explored = check_well_formed(&s, mode);
                step_around(&s, mode, &picks, explored);
            }
            let _ = fencelab::cuda::generate(&s, &fencelab::cuda::HarnessOptions::default());
            let text = print(&s);
            let reparsed = parse(&text);
            // Diagnostics with spans from another text must still render.
            let diagnostics = fencelab::verify::verify(&s, &reparsed.source_map);
            let _ = render_all(&diagnostics, &text, "link.fence");
            let _ = render_all(&fencelab::verify::verify(&s, &SourceMap::default()), "", "empty.fence");
        },
    );
}

#[test]
fn arbitrary_schedules_replay_or_fail_cleanly() {
    run_cases(
        || (any_scenario(), vec((0u32..6, 0u32..4), 0..30)),
        |(s, steps)| {
            if structural_problem(&s).is_some() {
                return;
            }
            let schedule = Schedule { steps: steps.into_iter().map(|(agent, choice)| Step { agent, choice }).collect() };
            if let Ok(stepper) = Stepper::replay(&s, Mode::Strict, &schedule) {
                assert_eq!(stepper.schedule(), schedule);
                let _ = stepper.snapshot();
            }
        },
    );
}

proptest! {
    // `ROBUSTNESS_CASES=5000 cargo test --test robustness` for a longer hunt.
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(text in ".{0,300}") {
        on_big_stack(move || feed_text(&text));
    }

    #[test]
    fn mutated_corpus_never_panics(
        pick in any::<prop::sample::Index>(),
        edits in vec((any::<prop::sample::Index>(), 0..4u8, "[ -~\n]{0,4}"), 1..6),
    ) {
        let texts = corpus();
        prop_assume!(!texts.is_empty());
        let mut text = texts[pick.index(texts.len())].clone();
        for (at, kind, insert) in edits {
            let mut at = at.index(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            match kind {
                0 => text.insert_str(at, &insert),
                1 => text.truncate(at),
                2 => { let end = (at + 8).min(text.len()); if text.is_char_boundary(end) { text.replace_range(at..end, &insert) } }
                _ => text.insert_str(at, "999999999999999999999"),
            }
        }
        on_big_stack(move || feed_text(&text));
    }
}

fn check_loop(src: &str) -> fencelab::check::Report {
    let parsed = parse(src);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    check(&parsed.scenario, &Options { mode: Mode::Pragmatic, max_states: 2_000, ..Options::default() })
}

#[test]
fn a_branch_self_loop_is_a_livelock() {
    let report = check_loop("cta A\nthread t @A:\n    L:\n    bra L\n");
    assert_eq!(report.verdict, Verdict::Deadlock, "{report:?}");
    assert!(report.hangs && report.stats.complete);
}

#[test]
fn a_counter_loop_stops_at_the_state_cap() {
    for step in ["1", "9223372036854775807"] {
        let report = check_loop(&format!("cta A\nthread t @A:\n    L:\n    add n, n, {step}\n    bra L\n"));
        assert!(!report.stats.complete && report.stats.states <= 2_001, "{report:?}");
        assert_eq!(report.verdict, Verdict::Partial, "{report:?}");
    }
}

/// Checks `src` in both modes and steps it; like a link, it skips the verifier.
fn check_text(src: &str) {
    let parsed = parse(src);
    assert!(!parsed.has_errors(), "{src}\n{:?}", parsed.diagnostics);
    let scenario = parsed.scenario;
    for mode in [Mode::Strict, Mode::Pragmatic] {
        let explored = check_well_formed(&scenario, mode);
        step_around(&scenario, mode, &[0; 20], explored);
    }
}

#[test]
fn tmem_alloc_of_every_column_count_is_checked() {
    check_text(
        "cta A\nshared taddr @A = 0\nthread t @A:\n    tcgen05.alloc.cta_group::1.sync.aligned [taddr], 32\n    tcgen05.alloc.cta_group::1.sync.aligned [taddr], 4294967295\n",
    );
}

#[test]
fn atom_dec_of_the_smallest_value_is_checked() {
    check_text("cta A\nglobal x = -9223372036854775808\nthread t @A:\n    atom.relaxed.gpu.dec r0, [x], 5\n");
}

#[test]
fn a_barrier_count_past_u32_never_completes() {
    let src = "cta A\nthread t @A:\n    bar.sync 1, 4294967328\n";
    let parsed = parse(src);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let report = check(&parsed.scenario, &Options::default());
    assert_eq!(report.verdict, Verdict::Deadlock, "{report:?}");
}
