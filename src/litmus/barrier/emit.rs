//! The instructions each barrier use becomes.

use std::collections::HashSet;

use super::collect::DynamicUse;
use super::plan::{Lowering, Plan};
use crate::litmus::instr::{Cell, LitmusInstr};
use crate::model::{AddrSpace, BarKind, CmpOp, Instr, MbarKind, MbarOp, Operand, Scope, Sem};

/// Label names already used in one thread, to make new ones unique.
pub struct Labels(HashSet<String>);

impl Labels {
    pub fn of(program: &[Cell]) -> Labels {
        Labels(
            program
                .iter()
                .filter_map(|c| match &c.instr {
                    LitmusInstr::Plain(Instr::Label(l)) => Some(l.clone()),
                    _ => None,
                })
                .collect(),
        )
    }

    fn fresh(&mut self, base: String) -> String {
        let mut name = base.replace('-', "m");
        while self.0.contains(&name) {
            name.push('_');
        }
        self.0.insert(name.clone());
        name
    }
}

fn mbar(kind: MbarKind, sem: Sem, bar: &str) -> Instr {
    Instr::Mbar(MbarOp {
        kind,
        sem: Some(sem),
        scope: Some(Scope::Cta),
        space: Some(AddrSpace::SharedCta),
        bar: bar.to_string(),
    })
}

fn arrive(sem: Sem, bar: &str) -> Instr {
    let kind = MbarKind::Arrive {
        count: None,
        expect_tx: None,
        no_complete: false,
        drop: false,
        state: None,
    };
    mbar(kind, sem, bar)
}

fn wait(bar: &str) -> Instr {
    let kind = MbarKind::Wait {
        blocking: true,
        parity: true,
        phase: Operand::Imm(0),
        dst: None,
    };
    Instr::Wait {
        instr: Box::new(mbar(kind, Sem::Acquire, bar)),
        until: None,
    }
}

/// `bar.sync id`, or `arrive.release` (+ `wait` on phase 0 for `sync`) on the mbarrier.
pub fn fixed(lowering: &Lowering, arrive_only: bool) -> Vec<Instr> {
    match lowering {
        Lowering::Bar { id } => vec![Instr::Bar {
            kind: BarKind::Sync,
            id: Operand::Imm(*id),
            count: None,
            sugar: None,
        }],
        Lowering::Mbar { name } if arrive_only => vec![arrive(Sem::Release, name)],
        Lowering::Mbar { name } => vec![arrive(Sem::Release, name), wait(name)],
    }
}

/// Relaxed arrivals on every barrier of the instance the register does not name, then a
/// synchronizing arrival on the one it names, if any.
pub fn dynamic(d: &DynamicUse, plan: &Plan, labels: &mut Labels) -> Vec<Instr> {
    let targets: Vec<(i64, &str)> = plan
        .lowerings
        .iter()
        .filter_map(
            |((cta, instance, resource), lowering)| match (resource, lowering) {
                (Some(v), Lowering::Mbar { name }) if *cta == d.cta && *instance == d.instance => {
                    Some((*v, name.as_str()))
                }
                _ => None,
            },
        )
        .collect();
    if targets.is_empty() {
        return Vec::new();
    }
    let reg = Operand::Reg(d.reg.clone());
    let base = format!("B{}_{}", d.instance, d.reg);
    let branch = |target: &str, op: CmpOp, v: i64| Instr::Branch {
        target: target.to_string(),
        cond: Some((reg.clone(), op, Operand::Imm(v))),
    };
    let mut out = Vec::new();
    for (v, name) in &targets {
        let skip = labels.fresh(format!("{base}_is_{v}"));
        out.extend([
            branch(&skip, CmpOp::Eq, *v),
            arrive(Sem::Relaxed, name),
            Instr::Label(skip),
        ]);
    }
    let done = labels.fresh(format!("{base}_done"));
    for (v, name) in &targets {
        let next = labels.fresh(format!("{base}_not_{v}"));
        out.extend([branch(&next, CmpOp::Ne, *v), arrive(Sem::Release, name)]);
        if !d.arrive {
            out.push(wait(name));
        }
        out.extend([
            Instr::Branch {
                target: done.clone(),
                cond: None,
            },
            Instr::Label(next),
        ]);
    }
    out.push(Instr::Label(done));
    out
}
