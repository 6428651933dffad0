//! Final states: herd-style outcome tables and litmus final conditions.

use crate::check::machine::{AgentKind, Layout, Machine};
use crate::model::{Cond, FinalCondition, Term};

/// Value of a term in a final state (unwritten registers read 0).
pub fn term_value(layout: &Layout, m: &Machine, term: &Term) -> i64 {
    match term {
        Term::Imm(v) => *v,
        Term::Reg { thread, reg } => m
            .agents
            .iter()
            .find(|a| matches!(a.kind, AgentKind::Thread(t) if layout.threads.get(t).is_some_and(|t| &t.name == thread)))
            .and_then(|a| a.regs.get(reg.as_str()))
            .copied()
            .unwrap_or(0),
        Term::Mem(name) => layout
            .loc(name)
            .ok()
            .and_then(|l| layout.locs.get(l))
            .and_then(|l| m.cells.get(l.cell))
            .and_then(|c| c.writes.last())
            .map_or(0, |w| w.value),
    }
}

pub fn eval(layout: &Layout, m: &Machine, cond: &Cond) -> bool {
    match cond {
        Cond::True => true,
        Cond::Cmp(a, op, b) => op.eval(term_value(layout, m, a), term_value(layout, m, b)),
        Cond::Not(c) => !eval(layout, m, c),
        Cond::And(cs) => cs.iter().all(|c| eval(layout, m, c)),
        Cond::Or(cs) => cs.iter().any(|c| eval(layout, m, c)),
    }
}

pub fn term_text(term: &Term) -> String {
    crate::syntax::term_text(term)
}

/// Terms an outcome table shows: those the conditions mention, else every register.
pub fn shown_terms(conditions: &[FinalCondition], layout: &Layout, finals: &[&Machine]) -> Vec<Term> {
    fn collect(c: &Cond, out: &mut Vec<Term>) {
        match c {
            Cond::True => {}
            Cond::Cmp(a, _, b) => {
                for t in [a, b] {
                    if !matches!(t, Term::Imm(_)) && !out.contains(t) {
                        out.push(t.clone());
                    }
                }
            }
            Cond::Not(c) => collect(c, out),
            Cond::And(cs) | Cond::Or(cs) => cs.iter().for_each(|c| collect(c, out)),
        }
    }
    let mut out = Vec::new();
    for c in conditions {
        collect(&c.cond, &mut out);
    }
    if out.is_empty() {
        for m in finals {
            for a in &m.agents {
                if let AgentKind::Thread(t) = a.kind {
                    let thread = layout.threads.get(t).map_or(String::new(), |t| t.name.clone());
                    for reg in a.regs.keys() {
                        let term = Term::Reg { thread: thread.clone(), reg: reg.to_string() };
                        if !out.contains(&term) {
                            out.push(term);
                        }
                    }
                }
            }
        }
    }
    out
}
