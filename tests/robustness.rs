//! Nothing a user can feed in panics: arbitrary scenarios of the shape a share link can
//! carry go through the checker, the stepper, the printer and the verifier; arbitrary
//! and mutated text goes through every parser. Runs on a big stack (debug builds recurse
//! deeply in the parsers) and with small state caps so it stays fast.

mod common;
#[path = "link/arb_instr.rs"]
#[allow(dead_code)]
mod arb_instr;
#[path = "link/arb_scenario.rs"]
#[allow(dead_code)]
mod arb_scenario;

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

/// Edits that turn a sensible scenario into nonsense a hand-made link could still carry.
#[derive(Clone, Debug)]
enum Nonsense {
    ZeroLanes(usize),
    HugeLanes(usize),
    EmptyProgram(usize),
    DuplicateThreadName,
    DuplicateLocationName,
    HugeMbarrierCount(usize),
    ZeroMbarrierCount(usize),
    Push(usize, Instr),
    SelfLoop(usize),
    CounterLoop(usize),
    WaitOnUndeclared(usize),
    ExtremeInit(usize, i64),
    /// Spin on any instruction, not just loads and mbarrier waits.
    WrapInWait(usize, Instr, Option<(CmpOp, i64)>),
    AliasCycle,
    MbarrierNamedLikeLocation,
    OddCtaGroup(usize, u8),
}

fn nonsense() -> impl Strategy<Value = Nonsense> {
    let i = 0usize..4;
    let extreme = prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(-1i64), Just(0i64)];
    prop_oneof![
        i.clone().prop_map(Nonsense::ZeroLanes),
        i.clone().prop_map(Nonsense::HugeLanes),
        i.clone().prop_map(Nonsense::EmptyProgram),
        Just(Nonsense::DuplicateThreadName),
        Just(Nonsense::DuplicateLocationName),
        i.clone().prop_map(Nonsense::HugeMbarrierCount),
        i.clone().prop_map(Nonsense::ZeroMbarrierCount),
        (i.clone(), common::strategy::instr()).prop_map(|(t, instr)| Nonsense::Push(t, instr)),
        i.clone().prop_map(Nonsense::SelfLoop),
        i.clone().prop_map(Nonsense::CounterLoop),
        i.clone().prop_map(Nonsense::WaitOnUndeclared),
        (i.clone(), extreme).prop_map(|(l, v)| Nonsense::ExtremeInit(l, v)),
        (i.clone(), common::strategy::instr(), proptest::option::of((arb_instr::cmp_op(), any::<i64>())))
            .prop_map(|(t, instr, until)| Nonsense::WrapInWait(t, instr, until)),
        Just(Nonsense::AliasCycle),
        Just(Nonsense::MbarrierNamedLikeLocation),
        (i, any::<u8>()).prop_map(|(t, g)| Nonsense::OddCtaGroup(t, g)),
    ]
}

fn apply(s: &mut Scenario, edit: Nonsense) {
    fn thread(s: &mut Scenario, t: usize) -> Option<&mut Vec<Instr>> {
        let n = s.threads.len().max(1);
        s.threads.get_mut(t % n).map(|t| &mut t.program)
    }
    match edit {
        Nonsense::ZeroLanes(t) => s.threads.iter_mut().skip(t).take(1).for_each(|t| t.lanes = 0),
        Nonsense::HugeLanes(t) => s.threads.iter_mut().skip(t).take(1).for_each(|t| t.lanes = u32::MAX),
        Nonsense::EmptyProgram(t) => s.threads.iter_mut().skip(t).take(1).for_each(|t| t.program.clear()),
        Nonsense::DuplicateThreadName => {
            if let Some(first) = s.threads.first().cloned() {
                s.threads.push(first);
            }
        }
        Nonsense::DuplicateLocationName => {
            if let Some(first) = s.locations.first().cloned() {
                s.locations.push(Location { init: first.init.wrapping_add(1), ..first });
            }
        }
        Nonsense::HugeMbarrierCount(m) => s.mbarriers.iter_mut().skip(m).take(1).for_each(|m| m.count = Some(u32::MAX)),
        Nonsense::ZeroMbarrierCount(m) => s.mbarriers.iter_mut().skip(m).take(1).for_each(|m| m.count = Some(0)),
        Nonsense::Push(t, instr) => {
            if let Some(p) = thread(s, t) {
                p.push(instr);
            }
        }
        Nonsense::SelfLoop(t) => {
            if let Some(p) = thread(s, t) {
                p.insert(0, Instr::Label("spin".into()));
                p.push(Instr::Branch { target: "spin".into(), cond: None });
            }
        }
        Nonsense::CounterLoop(t) => {
            if let Some(p) = thread(s, t) {
                p.push(Instr::Label("count".into()));
                p.push(Instr::Add { dst: "n".into(), a: Operand::Reg("n".into()), b: Operand::Imm(i64::MAX) });
                p.push(Instr::Branch { target: "count".into(), cond: None });
            }
        }
        Nonsense::WaitOnUndeclared(t) => {
            if let Some(p) = thread(s, t) {
                let kind = MbarKind::Wait { blocking: true, parity: true, phase: Operand::Imm(0), dst: None };
                let op = MbarOp { kind, sem: None, scope: None, space: None, bar: "nowhere".into() };
                p.push(Instr::Wait { instr: Box::new(Instr::Mbar(op)), until: None });
            }
        }
        Nonsense::ExtremeInit(l, v) => s.locations.iter_mut().skip(l).take(1).for_each(|l| l.init = v),
        Nonsense::WrapInWait(t, instr, until) => {
            let until = until.map(|(op, v)| WaitTarget { op, value: Operand::Imm(v) });
            if let Some(p) = thread(s, t) {
                p.push(Instr::Wait { instr: Box::new(instr), until });
            }
        }
        Nonsense::AliasCycle => {
            let names: Vec<String> = s.locations.iter().map(|l| l.name.clone()).collect();
            for (i, l) in s.locations.iter_mut().enumerate() {
                let target = names.get((i + 1) % names.len()).cloned().unwrap_or_default();
                l.alias = Some(Alias { target, proxy: Proxy::Surface });
            }
        }
        Nonsense::MbarrierNamedLikeLocation => {
            if let (Some(m), Some(l)) = (s.mbarriers.first_mut(), s.locations.first()) {
                m.name = l.name.clone();
            }
        }
        Nonsense::OddCtaGroup(t, group) => {
            if let Some(p) = thread(s, t) {
                for instr in p.iter_mut() {
                    if let Instr::Tc(
                        TcOp::Alloc { cta_group, .. }
                        | TcOp::Dealloc { cta_group, .. }
                        | TcOp::Relinquish { cta_group }
                        | TcOp::Mma { cta_group, .. }
                        | TcOp::Cp { cta_group, .. }
                        | TcOp::Shift { cta_group, .. }
                        | TcOp::Commit { cta_group, .. },
                    ) = instr
                    {
                        *cta_group = group;
                    }
                }
            }
        }
    }
}

/// Scenarios with resolvable names plus nonsense edits, and scenarios with hostile names.
fn any_scenario() -> impl Strategy<Value = Scenario> {
    let sensible = (common::strategy::scenario(), vec(nonsense(), 0..4)).prop_map(|(mut s, edits)| {
        // Mostly plausible warp sizes, so that lane checks do not reject most scenarios.
        s.threads.iter_mut().for_each(|t| t.lanes = [32, 1, 64, 96][t.lanes as usize % 4]);
        edits.into_iter().for_each(|e| apply(&mut s, e));
        s
    });
    prop_oneof![3 => sensible, 1 => arb_scenario::scenario()]
}

/// Checks `s`; returns whether the checker explored every state without an error or a
/// finding (a finding may end exploration early).
fn check_well_formed(s: &Scenario, mode: Mode) -> bool {
    let report = check(s, &Options { mode, max_states: 2_000 });
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
            assert!(!why.is_empty() && !explored, "enabled step {agent}/{choice} refused: {why}");
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
    let small = Options { mode: Mode::Pragmatic, max_states: 500 };
    for block in &lesson.blocks {
        if let fencelab::lesson::Block::Exercise(exercise) = block {
            let _ = fencelab::lesson::grade(exercise, &exercise.start.source, &small);
        }
    }
    let _ = fencelab::lesson::check_lesson(&lesson, &small);
    let _ = fencelab::lesson::lint_lesson(&lesson);
    let _ = fencelab::litmus::import(text);
    let _ = fencelab::link::decode(text);
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
            if structural_problem(&s).is_some() {
                return;
            }
            for mode in [Mode::Strict, Mode::Pragmatic] {
                let explored = check_well_formed(&s, mode);
                step_around(&s, mode, &picks, explored);
            }
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
    check(&parsed.scenario, &Options { mode: Mode::Pragmatic, max_states: 2_000 })
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
