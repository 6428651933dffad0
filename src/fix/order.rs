//! Findings ordered by cause (issue 50): when several findings describe one defect, the
//! one whose fix repairs the most goes first, so the first finding a reader meets is the
//! cause and not a consequence of it.
//!
//! For each finding, the search's nearest single edits for it ([`super::search::ordered`],
//! as if it were the first finding; a few per place) are re-checked with small caps. An
//! edit repairs a finding when the re-checked program has no finding of the same kind at
//! the same instructions, and no finding the original lacks (an edit that hangs or breaks
//! the program earlier hides findings instead); a finding's score is the most findings one
//! edit that repairs it repairs. Findings are sorted by score, ties keeping discovery
//! order. The work is bounded (re-checks and states); where it cannot finish, the
//! discovery order stays.

use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use super::candidates;
use super::change;
use super::outcome::Change;
use super::search::{keeps_outcomes, ordered, Node};
use crate::check::{check_one_mode, Finding, FindingKind, Options, Report};
use crate::model::Scenario;
use crate::syntax::{instr_text, print};

/// Single edits re-checked per finding, nearest it first: as many as the state budget
/// allows up to the most, and a ranking that cannot try the fewest is not started.
const MOST_EDITS_PER_FINDING: usize = 32;
const FEWEST_EDITS_PER_FINDING: usize = 6;
/// Reports with more findings keep discovery order: ranking them would cost too many checks.
const MAX_FINDINGS: usize = 8;
/// States all re-checks together may explore; a ranking that would need more is not started.
const STATE_BUDGET: u64 = 25_000;

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
    if !(2..=MAX_FINDINGS).contains(&n) || !report.stats.complete || report.findings.iter().any(|f| f.witness.steps.is_empty()) {
        return;
    }
    let per_check = report.stats.states.saturating_mul(2).max(500);
    let edits = usize::try_from(STATE_BUDGET / per_check.saturating_mul(n as u64)).unwrap_or(usize::MAX).min(MOST_EDITS_PER_FINDING);
    if edits < FEWEST_EDITS_PER_FINDING {
        return;
    }
    let Some(scores) = scores(scenario, report, per_check, edits) else { return };
    let discovered_first = scores.first().map_or(0, |(score, _)| *score);
    let mut ranked: Vec<((usize, Vec<Change>), Finding)> = scores.into_iter().zip(std::mem::take(&mut report.findings)).collect();
    crate::sort::sort_by_key(&mut ranked, |((score, _), _)| std::cmp::Reverse(*score));
    let note = ranked.first().filter(|((score, _), _)| *score > discovered_first).map(|((score, step), _)| cause_note(scenario, step, *score, n));
    report.findings = ranked.into_iter().map(|(_, f)| f).collect();
    if let (Some(note), Some(first)) = (note, report.findings.first_mut()) {
        first.explanation = format!("{}. {note}", first.explanation.trim_end().trim_end_matches('.'));
    }
}

/// Why a finding was moved first: the edit that repairs `repaired` of the report's `total`
/// findings, quoting the instructions it touches (what the reader is sent to change).
fn cause_note(scenario: &Scenario, step: &[Change], repaired: usize, total: usize) -> String {
    let how_many = match (repaired == total, total) {
        (true, 2) => "both findings".to_string(),
        (true, _) => format!("all {total} findings"),
        (false, _) => format!("{repaired} of the {total} findings"),
    };
    let edits: Vec<String> = step.iter().filter_map(|c| edit_words(scenario, c)).collect();
    match edits.is_empty() {
        true => format!("Listed first: one edit here repairs {how_many}."),
        false => format!("Listed first: {} repairs {how_many}.", edits.join(" and ")),
    }
}

/// The first `count` of `steps` (nearest the finding first), with at most a few variants
/// (every fence, every scope) per place: the nearest place of each side of a race holds
/// a score of them, which would otherwise fill the count before the other side's places come.
fn spread(steps: Vec<Vec<Change>>, count: usize) -> Vec<Vec<Change>> {
    const VARIANTS_PER_PLACE: usize = 4;
    let mut taken: Vec<((usize, usize), usize)> = Vec::new();
    let mut out = Vec::with_capacity(count);
    for step in steps {
        if out.len() == count {
            break;
        }
        let place = step.first().map_or((usize::MAX, 0), |c| (c.thread(), c.position()));
        match taken.iter_mut().find(|(p, _)| *p == place) {
            Some((_, n)) if *n >= VARIANTS_PER_PLACE => continue,
            Some((_, n)) => *n += 1,
            None => taken.push((place, 1)),
        }
        out.push(step);
    }
    out
}

/// One edit in words, with the instructions it touches quoted.
fn edit_words(scenario: &Scenario, change: &Change) -> Option<String> {
    let program = |thread: usize| scenario.threads.get(thread).map(|t| t.program.as_slice());
    let quoted = |thread: usize, at: usize| program(thread)?.get(at).map(|i| format!("`{}`", instr_text(i)));
    let end_of = |thread: usize| scenario.threads.get(thread).map(|t| format!("the end of `{}`", t.name));
    Some(match change {
        Change::Replace { thread, at, with } => format!("writing `{}` for {}", instr_text(with), quoted(*thread, *at)?),
        Change::Insert { thread, before, instr } => {
            let place = quoted(*thread, *before).map(|q| format!("before {q}")).or_else(|| end_of(*thread).map(|e| format!("at {e}")))?;
            format!("adding `{}` {place}", instr_text(instr))
        }
        Change::InsertAfter { thread, after, instr } => format!("adding `{}` after {}", instr_text(instr), quoted(*thread, *after)?),
        Change::MoveDown { thread, at } => format!("moving {} below {}", quoted(*thread, *at)?, quoted(*thread, at + 1)?),
        Change::Move { thread, from, to } => {
            let place = quoted(*thread, *to).map(|q| format!("before {q}")).or_else(|| end_of(*thread).map(|e| format!("to {e}")))?;
            format!("moving {} {place}", quoted(*thread, *from)?)
        }
        Change::Remove { thread, at } => format!("dropping {}", quoted(*thread, *at)?),
        Change::DeclaredCount { bar, count } => format!("declaring `{}` with count {count}", scenario.mbarriers.get(*bar)?.name),
        Change::Declare { name, count, .. } => format!("a new mbarrier `{name}` with count {count}"),
    })
}

/// How many findings the best single-edit fix of each finding repairs, with that edit (0
/// and none when none of its edits repairs it), or `None` when the re-checks do not all
/// finish within their caps.
fn scores(scenario: &Scenario, report: &Report, max_states: u64, per_finding: usize) -> Option<Vec<(usize, Vec<Change>)>> {
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
        let edits = spread(ordered(scenario, &all, &node, usize::MAX).into_iter().filter(|(_, (off, _))| !off).map(|(step, _)| step).collect(), per_finding);
        let mut best = (0, Vec::new());
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
                        // An edit that changes what the program computes, or brings a finding
                        // of its own (a hang or undefined step that stops the program before
                        // its races), repairs nothing: it hides findings.
                        let remaining: Vec<Key> = after.findings.iter().map(|f| key(f, &origins, scenario)).collect();
                        (keeps_outcomes(report, &after) && remaining.iter().all(|k| wanted.contains(k)))
                            .then(|| Rc::new((0..wanted.len()).filter(|j| !remaining.contains(&wanted[*j])).collect()))
                    };
                    memo.insert(text, repaired.clone());
                    repaired
                }
            };
            if let Some(repaired) = repaired.filter(|r| r.contains(&i) && r.len() > best.0) {
                best = (repaired.len(), step);
            }
        }
        scores.push(best);
    }
    Some(scores)
}
