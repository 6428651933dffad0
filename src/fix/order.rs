//! Findings ordered by cause (issue 50): when several findings describe one defect, the
//! one whose fix repairs the most goes first, so the first finding a reader meets is the
//! cause and not a consequence of it.
//!
//! For each finding, the search's nearest single edits for it ([`super::search::ordered`],
//! as if it were the first finding) are re-checked with small caps. An edit repairs a
//! finding when the re-checked program has no finding of the same kind at the same
//! instructions; a finding's score is the most findings one edit that repairs it repairs.
//! Findings are sorted by score, ties keeping discovery order. The work is bounded (re-checks
//! and states); where it cannot finish, the discovery order stays.

use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use super::candidates;
use super::change;
use super::outcome::Change;
use super::search::{keeps_outcomes, ordered, Node};
use crate::check::{check_one_mode, Finding, FindingKind, Options, Report};
use crate::model::Scenario;
use crate::syntax::print;

/// Single edits re-checked per finding, nearest it first.
const EDITS_PER_FINDING: usize = 6;
/// Reports with more findings keep discovery order: ranking them would cost too many checks.
const MAX_FINDINGS: usize = 8;
/// States all re-checks together may explore; a ranking that would need more is not started.
const STATE_BUDGET: u64 = 50_000;

/// What identifies a finding across edits: its kind and the original instructions it
/// names (`None` for one an edit inserted); with none named, its message.
type Key = (FindingKind, BTreeSet<(String, Option<usize>)>, Option<String>);

fn key(finding: &Finding, origins: &[Vec<Option<usize>>], scenario: &Scenario) -> Key {
    let original = |thread: &str, instr: usize| {
        let t = scenario.threads.iter().position(|th| th.name == thread);
        t.and_then(|t| origins.get(t)).and_then(|o| o.get(instr).copied().flatten())
    };
    let named: BTreeSet<(String, Option<usize>)> = finding
        .accesses
        .iter()
        .map(|a| (a.thread.clone(), original(&a.thread, a.instr)))
        .chain(finding.blocked.iter().map(|b| (b.thread.clone(), original(&b.thread, b.instr))))
        .collect();
    let message = named.is_empty().then(|| finding.message.clone());
    (finding.kind, named, message)
}

/// Reorders `report.findings` so the finding whose best single-edit fix repairs the most
/// findings comes first (stable), and says so in its explanation when it moved. A report
/// with fewer than two findings, an unfinished one, or one whose ranking would exceed the
/// caps is left as it is. `scenario` is the program `report` checked.
pub fn order_by_cause(scenario: &Scenario, report: &mut Report) {
    let n = report.findings.len();
    // A finding without a witness is the axioms' (`axiom::table`): re-checks cannot see it.
    if n < 2 || n > MAX_FINDINGS || !report.stats.complete || report.findings.iter().any(|f| f.witness.steps.is_empty()) {
        return;
    }
    let per_check = report.stats.states.saturating_mul(2).max(500);
    if per_check.saturating_mul((n * EDITS_PER_FINDING) as u64) > STATE_BUDGET {
        return;
    }
    let Some(scores) = scores(scenario, report, per_check) else { return };
    let mut ranked: Vec<(usize, Finding)> = scores.iter().copied().zip(std::mem::take(&mut report.findings)).collect();
    crate::sort::sort_by_key(&mut ranked, |(score, _)| std::cmp::Reverse(*score));
    let moved = ranked.first().is_some_and(|(score, _)| *score > scores[0]);
    report.findings = ranked.into_iter().map(|(_, f)| f).collect();
    if moved {
        if let Some(first) = report.findings.first_mut() {
            let repaired = scores.iter().max().copied().unwrap_or(0);
            first.explanation = format!("{}. {}", first.explanation.trim_end().trim_end_matches('.'), cause_note(repaired, n));
        }
    }
}

/// Why a finding was moved first: how many of the report's `total` findings one edit of it
/// repairs.
fn cause_note(repaired: usize, total: usize) -> String {
    let how_many = match (repaired == total, total) {
        (true, 2) => "both findings".to_string(),
        (true, _) => format!("all {total} findings"),
        (false, _) => format!("{repaired} of the {total} findings"),
    };
    format!("Listed first: one edit here repairs {how_many}.")
}

/// How many findings the best single-edit fix of each finding repairs (0 when none of its
/// edits repairs it), or `None` when the re-checks do not all finish within their caps.
fn scores(scenario: &Scenario, report: &Report, max_states: u64) -> Option<Vec<usize>> {
    let (_, identity) = change::apply(scenario, &[]);
    let wanted: Vec<Key> = report.findings.iter().map(|f| key(f, &identity, scenario)).collect();
    let all = candidates::all(scenario);
    let options = Options { mode: report.mode, max_states, ..Options::default() };
    // Edits shared between findings are checked once: the repaired findings' indices.
    let mut memo: HashMap<String, Option<Rc<BTreeSet<usize>>>> = HashMap::new();
    let mut scores = Vec::with_capacity(wanted.len());
    for i in 0..report.findings.len() {
        let mut as_first = report.clone();
        let finding = as_first.findings.remove(i);
        as_first.findings.insert(0, finding);
        let node = Node { changes: Vec::new(), report: Rc::new(as_first), cost: 0, origins: identity.clone() };
        let edits: Vec<Vec<Change>> =
            ordered(scenario, &all, &node, EDITS_PER_FINDING).into_iter().filter(|(_, (off, _))| !off).take(EDITS_PER_FINDING).map(|(step, _)| step).collect();
        let mut best = 0;
        for step in edits {
            let (edited, origins) = change::apply(scenario, &step);
            let text = print(&edited);
            let repaired = match memo.get(&text) {
                Some(known) => known.clone(),
                None => {
                    let loaded = crate::load(&text);
                    let repaired = if loaded.has_errors() {
                        None
                    } else {
                        let after = check_one_mode(&loaded.scenario, &options);
                        if !after.stats.complete {
                            // A ranking from unfinished re-checks could put a consequence first.
                            return None;
                        }
                        // An edit that changes what the program computes repairs nothing.
                        keeps_outcomes(report, &after).then(|| {
                            let remaining: Vec<Key> = after.findings.iter().map(|f| key(f, &origins, scenario)).collect();
                            Rc::new((0..wanted.len()).filter(|j| !remaining.contains(&wanted[*j])).collect())
                        })
                    };
                    memo.insert(text, repaired.clone());
                    repaired
                }
            };
            if let Some(repaired) = repaired.filter(|r| r.contains(&i)) {
                best = best.max(repaired.len());
            }
        }
        scores.push(best);
    }
    Some(scores)
}
