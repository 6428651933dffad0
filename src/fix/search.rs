//! The bounded search for fixes.

use std::collections::HashMap;
use std::rc::Rc;

use super::{candidates, handoffs};
use super::change;
use super::outcome::{Change, Fix, Limits, ModeVerdict, Search};
use crate::check::view::AgentKindView;
use crate::check::{check_one_mode, Finding, Mode, Options, Report, Stepper, Verdict};
use crate::cost::{cost, difference, Cost};
use crate::diag::Diagnostic;
use crate::model::{BarKind, Expect, Instr, Object, Operand, Scenario};
use crate::syntax::{print, SourceMap};

#[derive(Clone, Debug, PartialEq)]
pub enum FixError {
    /// The source does not load.
    Invalid(Vec<Diagnostic>),
    /// The original's exploration hit the state cap, so there is nothing to repair against.
    Undecided,
}

impl std::fmt::Display for FixError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FixError::Invalid(d) => write!(f, "the scenario does not load ({} errors)", d.iter().filter(|d| d.is_error()).count()),
            FixError::Undecided => write!(f, "the scenario's exploration hit the state cap; raise the cap (max_states) before searching for fixes"),
        }
    }
}

impl std::error::Error for FixError {}

/// A set of edits and what the checker says of it.
#[derive(Clone)]
pub(super) struct Node {
    pub changes: Vec<Change>,
    pub report: Rc<Report>,
    pub cost: u32,
    pub origins: Vec<Vec<Option<usize>>>,
}

/// Checks programs once each: the memo is keyed by canonical text.
pub(super) struct Checker<'a> {
    pub original: &'a Scenario,
    pub mode: Mode,
    pub limits: Limits,
    memo: HashMap<String, Option<Rc<Report>>>,
    pub checks: usize,
    pub stopped: Option<String>,
    on_progress: &'a mut dyn FnMut(usize, usize) -> bool,
}

impl<'a> Checker<'a> {
    pub fn new(original: &'a Scenario, mode: Mode, limits: Limits, on_progress: &'a mut dyn FnMut(usize, usize) -> bool) -> Self {
        Checker { original, mode, limits, memo: HashMap::new(), checks: 0, stopped: None, on_progress }
    }

    /// Whether `changes` make the program correct; memoized, and outside the check budget
    /// (it only shrinks fixes already found).
    pub fn solved(&mut self, changes: Vec<Change>) -> bool {
        let (edited, _) = change::apply(self.original, &changes);
        let text = print(&edited);
        if let Some(known) = self.memo.get(&text) {
            return known.as_ref().is_some_and(|r| solved(r));
        }
        let loaded = crate::load(&text);
        let report = (!loaded.has_errors())
            .then(|| Rc::new(check_one_mode(&loaded.scenario, &Options { mode: self.mode, max_states: self.limits.max_states, ..Options::default() })));
        let answer = report.as_ref().is_some_and(|r| solved(r));
        self.memo.insert(text, report);
        answer
    }

    /// The node for `changes`, or `None` when the edited program does not load, was seen
    /// before, or the budget is spent.
    pub fn node(&mut self, changes: Vec<Change>) -> Option<Node> {
        if self.stopped.is_some() {
            return None;
        }
        let (edited, origins) = change::apply(self.original, &changes);
        let text = print(&edited);
        if self.memo.contains_key(&text) {
            return None;
        }
        let loaded = crate::load(&text);
        if loaded.has_errors() {
            self.memo.insert(text, None);
            return None;
        }
        if self.checks >= self.limits.max_checks {
            self.stopped = Some(format!("stopped after {} checks (the max_checks bound)", self.checks));
            return None;
        }
        self.checks += 1;
        if !(self.on_progress)(self.checks, self.limits.max_checks) {
            self.stopped = Some(format!("cancelled after {} checks", self.checks));
            return None;
        }
        let report = Rc::new(check_one_mode(&loaded.scenario, &Options { mode: self.mode, max_states: self.limits.max_states, ..Options::default() }));
        self.memo.insert(text, Some(report.clone()));
        Some(Node { changes, cost: cost(&loaded.scenario).total, report, origins })
    }
}

/// Which side of a named instruction the missing synchronization sits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Side {
    /// The earlier access of a race: its release must come after it.
    After,
    /// The later access: its acquire must come before it.
    Before,
    Either,
}

/// `(thread, original index, side)` of every instruction a finding names.
pub(super) fn hot_spots(original: &Scenario, node: &Node, finding: &Finding) -> Vec<(usize, usize, Side)> {
    let first_step = finding.accesses.iter().map(|a| a.step).min();
    let two_threads = finding.accesses.iter().any(|a| finding.accesses.first().is_some_and(|b| a.thread != b.thread));
    let side = |step: usize| match (two_threads, Some(step) == first_step) {
        (false, _) => Side::Either,
        (true, true) => Side::After,
        (true, false) => Side::Before,
    };
    let mut named: Vec<(String, usize, Side)> = finding
        .accesses
        .iter()
        .map(|a| (a.thread.clone(), a.instr, side(a.step)))
        .chain(finding.blocked.iter().map(|b| (b.thread.clone(), b.instr, Side::Either)))
        .collect();
    if named.is_empty() {
        // What is missing comes before the instruction that went wrong.
        named.extend(witness_end(original, node, finding).map(|(thread, instr)| (thread, instr, Side::Before)));
    }
    named
        .into_iter()
        .filter_map(|(thread, instr, side)| {
            let t = original.thread(&thread)?;
            let origin = node.origins.get(t)?;
            // An inserted instruction maps to the nearest original one before it.
            let at = origin.iter().take(instr + 1).rev().find_map(|o| *o).unwrap_or(0);
            Some((t, at, side))
        })
        .collect()
}

/// The thread and instruction (in the edited program) of a finding's witness's last
/// step: where a finding that names no access or stuck agent went wrong (undefined
/// behaviour at a `dealloc`, an arrive the barrier does not expect). An asynchronous
/// agent's step is placed at the instruction that issued it.
fn witness_end(original: &Scenario, node: &Node, finding: &Finding) -> Option<(String, usize)> {
    let (edited, _) = change::apply(original, &node.changes);
    let stepper = Stepper::replay(&edited, node.report.mode, &finding.witness).ok()?;
    let last = stepper.history().last()?;
    let agent = stepper.agents().into_iter().find(|a| a.id == last.agent)?;
    match agent.kind {
        AgentKindView::Thread { .. } => Some((agent.name, last.instr_index?)),
        AgentKindView::Async { issuer, .. } => Some((issuer, agent.instr_index?)),
    }
}

/// How far a candidate edit sits from what the finding names: edits on the wrong side of
/// an access come after every edit on the right side, untouched threads last.
pub(super) fn distance(hot: &[(usize, usize, Side)], change: &Change, position: usize) -> usize {
    distance_at(hot, change.thread(), position, matches!(change, Change::Insert { .. } | Change::InsertAfter { .. }))
}

/// [`distance`] of an edit of `thread` at `position` (an insert before it when `inserts`).
fn distance_at(hot: &[(usize, usize, Side)], thread: usize, position: usize, inserts: bool) -> usize {
    hot.iter()
        .filter(|(t, ..)| *t == thread)
        .map(|(_, at, side)| match side {
            // An insert before `at + 1` or a replacement after `at` follows the access.
            Side::After if position > *at || (inserts && position == at + 1) => position - at,
            Side::Before if position <= *at => at - position,
            Side::After | Side::Before => 20 + at.abs_diff(position),
            Side::Either => at.abs_diff(position),
        })
        .min()
        .unwrap_or(1000 + position)
}

/// How far a barrier's declared count sits from the finding: as far as the nearest
/// instruction that uses the barrier (a declaration belongs to no thread).
fn declared_nearness(original: &Scenario, hot: &[(usize, usize, Side)], step: &[Change]) -> Option<usize> {
    let bars: Vec<&str> = step
        .iter()
        .filter_map(|c| match c {
            Change::DeclaredCount { bar, .. } => original.mbarriers.get(*bar).map(|b| b.name.as_str()),
            Change::Replace { .. }
            | Change::Insert { .. }
            | Change::InsertAfter { .. }
            | Change::MoveDown { .. }
            | Change::Move { .. }
            | Change::Remove { .. }
            | Change::Declare { .. } => None,
        })
        .collect();
    let uses = original.threads.iter().enumerate().flat_map(|(t, th)| {
        th.program.iter().enumerate().filter(|(_, i)| i.facts().named(Object::Mbarrier).any(|n| bars.contains(&n))).map(move |(at, _)| (t, at))
    });
    uses.map(|(t, at)| distance_at(hot, t, at, false)).min()
}

/// How far a step sits from the finding: its nearest edit; for a step over several threads
/// (a barrier every thread takes) its farthest edit in a thread the finding names, so that
/// each named thread gets the barrier on the side its access needs.
fn nearness(hot: &[(usize, usize, Side)], step: &[Change], position: usize) -> usize {
    let threads = step.iter().map(Change::thread).collect::<std::collections::BTreeSet<_>>();
    if threads.len() < 2 {
        return step.iter().map(|c| distance(hot, c, position)).min().unwrap_or(usize::MAX);
    }
    let named: Vec<usize> = step.iter().filter(|c| hot.iter().any(|(t, ..)| *t == c.thread())).map(|c| distance(hot, c, c.position())).collect();
    named.into_iter().max().unwrap_or_else(|| step.iter().map(|c| distance(hot, c, c.position())).min().unwrap_or(usize::MAX))
}

/// A finding's kind, reason, what its explanation says is missing and `(thread, location,
/// is_write)` of each access; for a finding that names no access (a hang, TMEM held at
/// exit, an uninitialized barrier) its message, which is then all that tells two such
/// findings apart. The explanation tells a release that now lacks only its acquire from
/// the relaxed store before it (message passing: the release half of the repair).
type Signature = (crate::check::FindingKind, Option<crate::check::RaceReason>, String, Vec<(String, String, bool)>, Option<String>);

/// What identifies the first finding, independent of where edits moved instructions.
fn signature(report: &Report) -> Option<Signature> {
    let f = report.findings.first()?;
    let mut accesses: Vec<_> = f.accesses.iter().map(|a| (a.thread.clone(), a.location.clone(), a.is_write)).collect();
    crate::sort::sort(&mut accesses);
    let message = accesses.is_empty().then(|| f.message.clone());
    Some((f.kind, f.reason, f.explanation.clone(), accesses, message))
}

/// Correct and fully explored. Final conditions are not asked for: a buggy scenario's
/// conditions usually describe the bug (`exists (r0 == 0)`), and a fix removes it.
pub(super) fn solved(report: &Report) -> bool {
    report.verdict == Verdict::Correct && report.stats.complete
}

/// Candidates for `node` with their rank (outside the wanted families, distance), those
/// answering the first finding's reason and nearest it first, at most `per_node`.
pub(super) fn ordered(original: &Scenario, all: &[(Vec<Change>, usize)], node: &Node, per_node: usize) -> Vec<(Vec<Change>, (bool, usize))> {
    let first = node.report.findings.first();
    let hot = first.map(|f| hot_spots(original, node, f)).unwrap_or_default();
    let wanted = first.map_or(candidates::family::ALL, |f| candidates::wanted(f.reason));
    // Handoffs on a new barrier are generated only where the finding needs an edge: a
    // wait right before each instruction it names on the receiving side.
    let waits: Vec<(usize, usize)> = hot.iter().filter(|(.., side)| *side != Side::After).map(|(t, at, _)| (*t, *at)).collect();
    let handoffs = handoffs::handoffs(original, &waits);
    let mut scored: Vec<(bool, usize, usize, &Vec<Change>)> = all
        .iter()
        .chain(&handoffs)
        .enumerate()
        .filter(|(_, (step, _))| change::compatible_step(&node.changes, step))
        .map(|(k, (step, position))| {
            let near = nearness(&hot, step, *position).min(declared_nearness(original, &hot, step).unwrap_or(usize::MAX));
            (candidates::step_families(original, step) & wanted == 0, near, k, step)
        })
        .collect();
    crate::sort::sort_by_key(&mut scored, |(off, d, k, _)| (*off, *d, *k));
    // A linked step (a declared count with the edits it needs elsewhere) cannot be reached
    // one edit at a time, so from the original each one answering the reason is tried, past
    // the bound: they are few (barriers times the places of their remote threads).
    let linked = |step: &[Change]| step.len() > 1 && step.iter().any(|c| matches!(c, Change::DeclaredCount { .. }));
    let root = node.changes.is_empty();
    scored
        .into_iter()
        .enumerate()
        .filter(|(rank, (off, _, _, step))| *rank < per_node || (root && !off && linked(step)))
        .map(|(_, (off, d, _, c))| (c.clone(), (off, d)))
        .collect()
}

/// Searches for fixes of `src` in `mode`. `on_progress(checks, max_checks)` returns false
/// to cancel; the fixes found so far are still returned.
pub fn fix(src: &str, mode: Mode, limits: &Limits, on_progress: &mut dyn FnMut(usize, usize) -> bool) -> Result<Search, FixError> {
    let loaded = crate::load(src);
    if loaded.has_errors() {
        return Err(FixError::Invalid(loaded.diagnostics));
    }
    let original = &loaded.scenario;
    let mut checker = Checker::new(original, mode, limits.clone(), on_progress);
    let root_report = Rc::new(check_one_mode(original, &Options { mode, max_states: limits.max_states, ..Options::default() }));
    if !root_report.stats.complete {
        return Err(FixError::Undecided);
    }
    let original_cost = cost(original);
    let root = Node { changes: Vec::new(), report: root_report.clone(), cost: original_cost.total, origins: Vec::new() };
    let root = Node { origins: change::apply(original, &[]).1, ..root };
    let all = candidates::all(original);
    let mut found: Vec<Vec<Change>> = Vec::new();
    let mut frontier = if solved(&root_report) { Vec::new() } else { vec![root] };
    for _depth in 0..limits.max_edits {
        let mut next: Vec<(Node, (bool, usize))> = Vec::new();
        for node in &frontier {
            let parent = signature(&node.report);
            for (step, rank) in ordered(original, &all, node, limits.per_node) {
                let Some(child) = checker.node(change::with(&node.changes, step)) else { continue };
                if solved(&child.report) {
                    found.push(child.changes);
                } else if child.report.stats.complete && (signature(&child.report) != parent || child.report.findings.len() < node.report.findings.len()) {
                    next.push((child, rank));
                }
            }
        }
        // Kept first: edits that answered the finding's reason close to it. Edits that
        // turned the problem into another kind (a race into a hang) come last.
        let kind = root_report.findings.first().map(|f| f.kind);
        crate::sort::sort_by_key(&mut next, |(n, (off, d))| (n.report.findings.first().map(|f| f.kind) != kind, *off, n.report.findings.len(), *d, n.cost));
        frontier = next.into_iter().take(limits.beam).map(|(n, _)| n).collect();
        if frontier.is_empty() || checker.stopped.is_some() {
            break;
        }
    }
    // A step kept for changing the finding may not be needed in the end: drop every edit
    // the fix stays correct without (an edit of a compound step may go alone).
    let mut found: Vec<Vec<Change>> = found.into_iter().map(|f| minimized(&mut checker, f)).collect();
    // A handoff on a new barrier may leave a CTA barrier of the program with nothing to
    // order: drop it where the fix stays correct without (bug 24's twin hands off on an
    // mbarrier instead of its two `bar.sync`).
    let groups = bar_sync_groups(original);
    for f in found.iter_mut().filter(|f| f.iter().any(|c| matches!(c, Change::Declare { .. }))) {
        for group in &groups {
            if change::compatible_step(f, group) && checker.solved(change::with(f, group.clone())) {
                *f = change::with(f, group.clone());
            }
        }
    }
    // A fix that contains another fix's edits adds nothing.
    crate::sort::sort_by_key(&mut found, Vec::len);
    let mut minimal: Vec<Vec<Change>> = Vec::new();
    for f in found {
        if !minimal.iter().any(|m| m.iter().all(|c| f.contains(c))) {
            minimal.push(f);
        }
    }
    let mut fixes: Vec<Fix> =
        minimal.iter().filter_map(|changes| verified(src, &loaded.source_map, original, &root_report, changes, &original_cost, limits)).collect();
    crate::sort::sort_by_key(&mut fixes, |f| (f.cost, f.changes.len()));
    fixes.truncate(limits.max_fixes);
    Ok(Search { verdict: root_report.verdict, mode, cost: original_cost.total, fixes, checks: checker.checks, stopped_early: checker.stopped })
}

/// The removal of each `bar.sync` barrier of the original: every `bar.sync` on one
/// immediate id in the threads of one CTA, as one step (a thread alone cannot leave it).
fn bar_sync_groups(original: &Scenario) -> Vec<Vec<Change>> {
    let mut groups: Vec<((usize, i64), Vec<Change>)> = Vec::new();
    for (thread, th) in original.threads.iter().enumerate() {
        for (at, instr) in th.program.iter().enumerate() {
            let Instr::Bar { kind: BarKind::Sync, id: Operand::Imm(id), .. } = instr else { continue };
            let key = (th.cta, *id);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, group)) => group.push(Change::Remove { thread, at }),
                None => groups.push((key, vec![Change::Remove { thread, at }])),
            }
        }
    }
    groups.into_iter().map(|(_, group)| group).collect()
}

/// `changes` without each edit it stays solved without, tried one at a time.
fn minimized(checker: &mut Checker, mut changes: Vec<Change>) -> Vec<Change> {
    let mut k = 0;
    while k < changes.len() && changes.len() > 1 {
        let mut fewer = changes.clone();
        fewer.remove(k);
        match checker.solved(fewer.clone()) {
            true => changes = fewer,
            false => k += 1,
        }
    }
    changes
}

/// Whether every final outcome of `fixed` (on the terms `original`'s outcomes name) is one
/// the original program can end with. A fix changes how a program synchronizes, not what
/// it computes: edits that make it correct by reading the initial value instead of the
/// value handed over (bug 35's reader moved above the barrier, or a barrier round put
/// before the owner's store) are not fixes. A racy original can end with stale values, so
/// this keeps only the fixes that invent no result; a program with no complete execution
/// (every one hangs or is undefined) says nothing.
pub(super) fn keeps_outcomes(original: &Report, fixed: &Report) -> bool {
    if original.outcomes.is_empty() {
        return true;
    }
    let terms: Vec<&str> = original.outcomes.iter().flat_map(|o| o.values.iter().map(|(term, _)| term.as_str())).collect();
    let on_terms = |o: &crate::check::Outcome| -> Vec<(String, i64)> {
        let mut values: Vec<(String, i64)> = o.values.iter().filter(|(term, _)| terms.contains(&term.as_str())).cloned().collect();
        crate::sort::sort(&mut values);
        values
    };
    let known: Vec<Vec<(String, i64)>> = original.outcomes.iter().map(on_terms).collect();
    fixed.outcomes.iter().all(|o| known.contains(&on_terms(o)))
}

/// Applies `changes` to the author's source, loads the result again and re-checks it in
/// both modes; the expect lines of the text say what each mode found. `None` when the
/// edits do not load or change what the program computes in the searched mode (see
/// [`keeps_outcomes`]; `original_report` is the original's report in that mode).
pub(super) fn verified(
    src: &str,
    map: &SourceMap,
    original: &Scenario,
    original_report: &Report,
    changes: &[Change],
    before: &Cost,
    limits: &Limits,
) -> Option<Fix> {
    let (draft, _) = change::edit_source(src, map, original, changes, &[], &[])?;
    let loaded = crate::load(&draft);
    if loaded.has_errors() {
        return None;
    }
    let reports: Vec<Report> =
        [Mode::Strict, Mode::Pragmatic].into_iter().map(|mode| check_one_mode(&loaded.scenario, &Options { mode, max_states: limits.max_states, ..Options::default() })).collect();
    if !reports.iter().filter(|r| r.mode == original_report.mode).all(|r| keeps_outcomes(original_report, r)) {
        return None;
    }
    let modes: Vec<ModeVerdict> = reports.iter().map(|r| ModeVerdict { mode: r.mode, verdict: r.verdict }).collect();
    let per_mode: Vec<(Mode, Expect)> = modes.iter().filter_map(|m| Some((m.mode, m.verdict.expect()?))).collect();
    // Conditions that stop holding in some mode described the bug: the fixed text drops them.
    let failing: Vec<usize> = reports.iter().flat_map(|r| r.conditions.iter().filter(|c| !c.holds).map(|c| c.index)).collect();
    let (text, edits) = change::edit_source(src, map, original, changes, &change::expectations(&per_mode), &failing)?;
    let after = cost(&loaded.scenario);
    Some(Fix { cost: after.total, cost_change: difference(before, &after), changes: changes.to_vec(), edits, text, modes })
}
