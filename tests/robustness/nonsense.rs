//! Edits that turn sensible scenarios into nonsense, and the scenario strategy that
//! mixes them with hostile-name scenarios.

use fencelab::model::*;
use proptest::collection::vec;
use proptest::prelude::*;

use crate::{arb_instr, arb_scenario, common};

/// Edits that turn a sensible scenario into nonsense a hand-made link could still carry.
#[derive(Clone, Debug)]
pub enum Nonsense {
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

pub fn apply(s: &mut Scenario, edit: Nonsense) {
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
                    if let Some(cta_group) = match instr {
                        Instr::Tc(op) => op.cta_group_mut(),
                        _ => None,
                    } {
                        *cta_group = group;
                    }
                }
            }
        }
    }
}

/// Scenarios with resolvable names plus nonsense edits, and scenarios with hostile names.
pub fn any_scenario() -> impl Strategy<Value = Scenario> {
    let sensible = (common::strategy::scenario(), vec(nonsense(), 0..4)).prop_map(|(mut s, edits)| {
        // Mostly plausible warp sizes, so that lane checks do not reject most scenarios.
        s.threads.iter_mut().for_each(|t| t.lanes = [32, 1, 64, 96][t.lanes as usize % 4]);
        edits.into_iter().for_each(|e| apply(&mut s, e));
        s
    });
    prop_oneof![
        3 => sensible.boxed(),
        1 => arb_scenario::scenario().boxed(),
        1 => common::strategy::scenario_with_ranges_and_guards().boxed(),
    ]
}
