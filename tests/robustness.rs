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
use fencelab::link::structural_problem;
use fencelab::model::*;
use fencelab::schedule::Step;
use fencelab::syntax::{parse, print, SourceMap};
use proptest::collection::vec;
use proptest::prelude::*;

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
        (i, extreme).prop_map(|(l, v)| Nonsense::ExtremeInit(l, v)),
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

fn check_well_formed(s: &Scenario, mode: Mode) {
    let report = check(s, &Options { mode, max_states: 2_000 });
    assert_eq!(report.mode, mode);
    if report.verdict == Verdict::Correct {
        assert!(report.findings.is_empty() || report.findings.iter().all(|f| !f.message.is_empty()));
    }
}

fn step_around(s: &Scenario, mode: Mode, picks: &[u32]) {
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
            assert!(!why.is_empty());
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
    let mut texts = Vec::new();
    for dir in ["tests/scenarios/templates", "tests/scenarios/checker", "tests/scenarios/async", "lessons"] {
        let Ok(entries) = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)) else { continue };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        texts.extend(paths.iter().filter_map(|p| std::fs::read_to_string(p).ok()));
    }
    texts
}

fn feed_text(text: &str) {
    let parsed = parse(text);
    let _ = print(&parsed.scenario);
    let loaded = fencelab::load(text);
    if !loaded.has_errors() && structural_problem(&loaded.scenario).is_none() {
        check_well_formed(&loaded.scenario, Mode::Pragmatic);
    }
    let _ = fencelab::lesson::parse_lesson(text);
    let _ = fencelab::litmus::import(text);
    let _ = fencelab::link::decode(text);
}

proptest! {
    // `ROBUSTNESS_CASES=5000 cargo test --test robustness` for a longer hunt.
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn linkable_scenarios_never_panic(s in any_scenario(), picks in vec(any::<u32>(), 0..50)) {
        prop_assume!(structural_problem(&s).is_none());
        on_big_stack(move || {
            for mode in [Mode::Strict, Mode::Pragmatic] {
                check_well_formed(&s, mode);
            }
            step_around(&s, Mode::Pragmatic, &picks);
            let text = print(&s);
            let _ = parse(&text);
            let _ = fencelab::verify::verify(&s, &SourceMap::default());
        });
    }

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

#[test]
fn self_loop_and_counter_loop_end_partial() {
    let mut s = parse("cta A\nthread t @A\n  L:\n  bra L\n").scenario;
    let report = check(&s, &Options { mode: Mode::Pragmatic, max_states: 2_000 });
    assert!(matches!(report.verdict, Verdict::Partial | Verdict::Deadlock | Verdict::Correct), "{report:?}");
    apply(&mut s, Nonsense::CounterLoop(0));
    let report = check(&s, &Options { mode: Mode::Pragmatic, max_states: 2_000 });
    assert!(matches!(report.verdict, Verdict::Partial | Verdict::Deadlock | Verdict::Correct), "{report:?}");
}

/// Checks `src` in both modes and steps it; like a link, it skips the verifier.
fn check_text(src: &str) {
    let parsed = parse(src);
    assert!(!parsed.has_errors(), "{src}\n{:?}", parsed.diagnostics);
    let scenario = parsed.scenario;
    for mode in [Mode::Strict, Mode::Pragmatic] {
        check_well_formed(&scenario, mode);
    }
    step_around(&scenario, Mode::Pragmatic, &[0; 20]);
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
