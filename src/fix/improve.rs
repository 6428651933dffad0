//! For a correct scenario: which synchronization steps matter, which can go, and which
//! cheaper variants stay correct.

use super::candidates::{self, added_cost};
use super::change;
use super::outcome::{Breakage, Change, Fix, Improvement, Limits, Necessary, Redundant};
use super::search::{distance, Side, solved, verified, Checker, FixError};
use crate::check::{check_one_mode, Mode, Options, Verdict};
use crate::cost::cost;
use crate::diag::line_col;
use crate::mutate::{judge, mutants, Fate, Mutant, MutationKind};

/// The mutant as an edit of the original program.
fn as_change(m: &Mutant) -> Option<Change> {
    match m.kind {
        MutationKind::Drop if m.after == crate::mutate::DROPPED => Some(Change::Remove { thread: m.thread, at: m.instr }),
        MutationKind::MoveDown => Some(Change::MoveDown { thread: m.thread, at: m.instr }),
        MutationKind::NarrowScope
        | MutationKind::WeakenSem
        | MutationKind::Drop
        | MutationKind::FlipParity
        | MutationKind::ChangeCount
        | MutationKind::ChangeBytes
        | MutationKind::InvertGuard => {
            let with = m.scenario.threads.get(m.thread)?.program.get(m.instr)?.clone();
            Some(Change::Replace { thread: m.thread, at: m.instr, with })
        }
    }
}

/// Necessity, redundancy and cheaper variants of a correct scenario in `mode`.
pub fn improve(src: &str, mode: Mode, limits: &Limits, on_progress: &mut dyn FnMut(usize, usize) -> bool) -> Result<Improvement, FixError> {
    let loaded = crate::load(src);
    if loaded.has_errors() {
        return Err(FixError::Invalid(loaded.diagnostics));
    }
    let original = &loaded.scenario;
    let map = &loaded.source_map;
    let base = cost(original);
    let line_of = |t: usize, i: usize| map.instr(t, i).map_or(0, |s| line_col(src, s.start).0);
    let name = |t: usize| original.threads.get(t).map_or_else(String::new, |th| th.name.clone());
    let judged = judge(original, mode, limits.max_states, mutants(original));
    let original_report = check_one_mode(original, &Options { mode, max_states: limits.max_states, ..Options::default() });
    if judged.iter().any(|j| j.fate == Fate::Undecided) && !original_report.stats.complete {
        return Err(FixError::Undecided);
    }
    let mut necessary: Vec<Necessary> = Vec::new();
    let mut redundant = Vec::new();
    for j in &judged {
        let m = &j.mutant;
        match j.fate {
            Fate::Killed => {
                let breakage = Breakage { kind: m.kind.name().to_string(), after: m.after.clone(), verdict: j.verdict, finding: j.finding.clone() };
                match necessary.iter_mut().find(|n| n.thread == name(m.thread) && n.instr == m.instr) {
                    Some(n) => n.breaks.push(breakage),
                    None => necessary.push(Necessary { line: line_of(m.thread, m.instr), thread: name(m.thread), instr: m.instr, text: m.before.clone(), breaks: vec![breakage] }),
                }
            }
            Fate::Survived => redundant.push(Redundant {
                line: line_of(m.thread, m.instr),
                thread: name(m.thread),
                instr: m.instr,
                text: m.before.clone(),
                kind: m.kind.name().to_string(),
                after: m.after.clone(),
            }),
            Fate::Undecided => {}
        }
    }
    // Cheaper variants: a weakening that saves cost, alone or repaired by one edit that
    // adds back less than it saved, near the weakened step.
    let mut checker = Checker::new(original, mode, limits.clone(), on_progress);
    let all = candidates::all(original);
    let mut found: Vec<Vec<Change>> = Vec::new();
    for j in &judged {
        let Some(weakening) = as_change(&j.mutant) else { continue };
        let saved = -added_cost(original, &weakening);
        if saved <= 0 {
            continue;
        }
        if j.fate == Fate::Survived {
            found.push(vec![weakening]);
            continue;
        }
        let Some(node) = checker.node(vec![weakening.clone()]) else { continue };
        let hot = [(j.mutant.thread, j.mutant.instr, Side::Either)];
        let step_cost = |step: &[Change]| step.iter().map(|c| added_cost(original, c)).sum::<i64>();
        let near = |step: &[Change], at: usize| step.iter().map(|c| distance(&hot, c, at)).min().unwrap_or(usize::MAX);
        let mut repairs: Vec<&(Vec<Change>, usize)> = all
            .iter()
            .filter(|(step, at)| change::compatible_step(&node.changes, step) && step_cost(step) < saved && near(step, *at) <= 2)
            .collect();
        crate::sort::sort_by_key(&mut repairs, |(step, at)| (step_cost(step), near(step, *at)));
        for (step, _) in repairs.into_iter().take(limits.per_node) {
            let Some(child) = checker.node(change::with(&node.changes, step.clone())) else { continue };
            if solved(&child.report) {
                found.push(child.changes);
            }
        }
    }
    let mut cheaper: Vec<Fix> = found
        .iter()
        .filter_map(|changes| verified(src, map, original, &original_report, changes, &base, limits))
        .filter(|f| f.cost < base.total && f.modes.iter().any(|m| m.mode == mode && m.verdict == Verdict::Correct))
        .collect();
    crate::sort::sort_by_key(&mut cheaper, |f| (f.cost, f.changes.len()));
    cheaper.dedup_by(|a, b| a.text == b.text);
    cheaper.truncate(limits.max_fixes);
    Ok(Improvement { mode, cost: base.total, necessary, redundant, cheaper, checks: checker.checks, stopped_early: checker.stopped })
}
