//! The two engines side by side: what each reaches, and small random litmus programs for
//! the differential tests (`tests/axiom_cross.rs`, `tests/axiom_differential.rs`) and the
//! fuzz target `axiom_differential` to compare them on.

use std::collections::BTreeSet;

use super::{allowed, project, Limits};
use crate::check::{check, Options, Verdict};
use crate::model::{
    Alias, AtomOp, BarKind, Cluster, Cond, CmpOp, Cta, Fence, FenceSem, FinalCondition, Instr, Location, Operand,
    Proxy, ProxyKind, Quantifier, Scenario, Scope, Sem, Space, Term, Thread,
};

/// Where the engines disagree on `scenario`: an outcome the explorer reaches that the axioms
/// forbid, or, in a program the explorer finds no race in, one the axioms allow through an
/// execution the explorer could perform (`Witness::in_time`) that it never reaches. `None` when the scenario is outside the fragment or either
/// engine stopped short.
pub fn mismatches(scenario: &Scenario, options: &Options) -> Option<Vec<String>> {
    let limits = Limits { mode: options.mode, ..Limits::default() };
    let axioms = allowed(scenario, &limits).ok().filter(|a| !a.cut)?;
    let report = check(scenario, options);
    if report.verdict == Verdict::Partial || !report.stats.complete {
        return None;
    }
    let mut problems = Vec::new();
    let Some(first) = report.outcomes.first() else {
        // No final state reached: every execution hangs or stops at undefined behaviour.
        if !report.hangs && report.findings.is_empty() && !axioms.finals.is_empty() {
            problems.push("the explorer reaches no final state, the axioms allow some".to_string());
        }
        return Some(problems);
    };
    let terms: Vec<String> = first.values.iter().map(|(t, _)| t.clone()).collect();
    let explored: BTreeSet<Vec<(String, i64)>> = report.outcomes.iter().map(|o| o.values.clone()).collect();
    let allowed_rows: BTreeSet<Vec<(String, i64)>> = axioms.finals.keys().map(|f| project(scenario, f, &terms)).collect();
    if !has_cas(scenario) {
        for row in explored.difference(&allowed_rows) {
            problems.push(format!("the explorer reaches {}, which the axioms forbid", row_text(row)));
        }
    }
    // Where the explorer reports a data race, the values racing reads return beyond the
    // race are not what it enumerates (a read after an unfenced write through another
    // proxy keeps its coherence floor, reference §1.8): an allowed outcome it misses there
    // is of a known kind, not a mismatch.
    let racy = report.findings.iter().any(|f| f.kind == crate::check::FindingKind::Race);
    for (fin, witness) in &axioms.finals {
        let row = project(scenario, fin, &terms);
        if witness.in_time && !racy && !explored.contains(&row) {
            problems.push(format!("the axioms allow {} in time order, but the explorer never reaches it", row_text(&row)));
        }
    }
    Some(problems)
}

/// `t0:r1=0 x=1`, as the CLI's outcome table writes a row.
fn row_text(row: &[(String, i64)]) -> String {
    row.iter().map(|(t, v)| format!("{t}={v}")).collect::<Vec<_>>().join(" ")
}

/// A failed `atom.cas` is a read only in the explorer (ARCHITECTURE.md, departures) and a
/// write of the old value in the axioms (Dat3M's reading of `*a = (*a == b) ? c : *a`),
/// which orders later reads of the thread after it: the explorer then reaches stale reads
/// the axioms forbid. Where a program has a `cas`, the explorer's outcomes are not held to
/// the axioms.
fn has_cas(scenario: &Scenario) -> bool {
    scenario.threads.iter().flat_map(|t| &t.program).any(|i| matches!(i.unwrapped(), Instr::Atom { op: AtomOp::Cas, .. }))
}

/// Reads bytes as choices, 0 once they run out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self, n: usize) -> usize {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                usize::from(*b) % n.max(1)
            }
            None => 0,
        }
    }
}

/// A small litmus program from `bytes`: 2-4 threads in one or two CTAs (one cluster, or
/// one each), 2-4 instructions each over `x`, `y` and a surface alias `xs` of `x`: loads,
/// stores, RMWs, thread and proxy fences, `bar.sync 0`; every register and location is a
/// column of its final condition.
pub fn litmus_from_bytes(bytes: &[u8]) -> Scenario {
    let mut b = Bytes(bytes);
    let two_ctas = b.next(2) == 1;
    let one_cluster = b.next(2) == 1;
    let ctas: Vec<Cta> = (0..1 + usize::from(two_ctas))
        .map(|i| Cta { name: format!("A{i}"), cluster: if one_cluster { 0 } else { i } })
        .collect();
    let clusters: Vec<Cluster> = (0..if one_cluster { 1 } else { ctas.len() }).map(|i| Cluster { name: format!("C{i}"), gpu: 0 }).collect();
    let loc = |name: &str, alias: Option<Alias>| Location { name: name.into(), space: Space::Global, size: 4, init: 0, alias };
    let locations = vec![loc("x", None), loc("y", None), loc("xs", Some(Alias { target: "x".into(), proxy: Proxy::Surface }))];
    let scopes = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];
    let thread_count = 2 + b.next(3);
    let mut threads = Vec::new();
    let mut terms = Vec::new();
    for t in 0..thread_count {
        let cta = b.next(ctas.len());
        let mut program = Vec::new();
        for i in 0..2 + b.next(3) {
            let addr = ["x", "y", "xs"][b.next(3)].to_string();
            let proxy = if addr == "xs" { Proxy::Surface } else { Proxy::Generic };
            let scope = Some(scopes[b.next(4)]);
            let reg = format!("r{i}");
            let instr = match b.next(9) {
                0 | 1 => {
                    // Surface accesses take no semantics (`sust`/`suld` are weak).
                    let sem = [None, Some(Sem::Relaxed), Some(Sem::Acquire)][b.next(3)].filter(|_| proxy == Proxy::Generic);
                    terms.push(Term::Reg { thread: format!("t{t}"), reg: reg.clone() });
                    Instr::Ld { sem, scope: sem.and(scope), space: None, proxy, dst: reg, addr }
                }
                2 | 3 => {
                    let sem = [None, Some(Sem::Relaxed), Some(Sem::Release)][b.next(3)].filter(|_| proxy == Proxy::Generic);
                    let value = 1 + b.next(2) as i64;
                    Instr::St { sem, scope: sem.and(scope), space: None, proxy, addr, src: Operand::Imm(value) }
                }
                4 => {
                    let op = [AtomOp::Add, AtomOp::Exch, AtomOp::Cas][b.next(3)];
                    let sem = [Sem::Relaxed, Sem::Acquire, Sem::Release, Sem::AcqRel][b.next(4)];
                    let args = match op {
                        AtomOp::Cas => vec![Operand::Imm(b.next(2) as i64), Operand::Imm(2)],
                        _ => vec![Operand::Imm(1)],
                    };
                    let red = op == AtomOp::Add && b.next(2) == 1;
                    if !red {
                        terms.push(Term::Reg { thread: format!("t{t}"), reg: reg.clone() });
                    }
                    let addr = if addr == "xs" { "x".to_string() } else { addr };
                    Instr::Atom { op, sem: Some(sem), scope, space: None, dst: (!red).then_some(reg), addr, args }
                }
                5 | 6 => {
                    let sem = [FenceSem::Sc, FenceSem::AcqRel, FenceSem::Acquire, FenceSem::Release][b.next(4)];
                    Instr::Fence(Fence::Thread { sem: Some(sem), scope: scopes[b.next(4)], restrict: None, sugar: None })
                }
                7 => Instr::Fence(Fence::Proxy(if b.next(2) == 0 { ProxyKind::Alias } else { ProxyKind::Surface })),
                _ => Instr::Bar { kind: BarKind::Sync, id: Operand::Imm(0), count: None, sugar: None },
            };
            program.push(instr);
        }
        threads.push(Thread { name: format!("t{t}"), cta, lanes: 1, program });
    }
    terms.push(Term::Mem("x".into()));
    terms.push(Term::Mem("y".into()));
    // A condition naming every column, so outcome rows show them all.
    let cond = Cond::And(terms.into_iter().map(|t| Cond::Cmp(t, CmpOp::Ge, Term::Imm(0))).collect());
    Scenario {
        title: None,
        clusters,
        ctas,
        locations,
        mbarriers: Vec::new(),
        threads,
        expect: Vec::new(),
        conditions: vec![FinalCondition { quantifier: Quantifier::Exists, cond }],
    }
}
