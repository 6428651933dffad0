//! A fix's edits, each against the original program, applied to the model (for the
//! search) or to the author's source text (for the answer, comments kept).

use super::outcome::{Change, LineEdit};
use crate::diag::line_col;
use crate::model::{Expect, Expectation, Instr, Mode, Scenario};
use crate::syntax::{expectation_text, instr_text, SourceMap};

impl Change {
    pub fn thread(&self) -> usize {
        match self {
            Change::Replace { thread, .. }
            | Change::Insert { thread, .. }
            | Change::MoveDown { thread, .. }
            | Change::Move { thread, .. }
            | Change::Remove { thread, .. }
            | Change::InsertAfter { thread, .. } => *thread,
            // A declaration belongs to no thread.
            Change::DeclaredCount { .. } | Change::Declare { .. } => usize::MAX,
        }
    }

    /// Sort key: thread, position, then kind, so equal sets of edits compare equal. Inserts
    /// at one place go in synchronization order ([`insert_rank`]), after those that follow
    /// the instruction before that place ([`Change::InsertAfter`]).
    fn key(&self) -> (usize, usize, u8, String) {
        match self {
            Change::InsertAfter { thread, after, instr } => (*thread, after + 1, 0, instr_text(instr)),
            Change::Insert { thread, before, instr } => (*thread, *before, 1 + insert_rank(instr), instr_text(instr)),
            Change::Replace { thread, at, with } => (*thread, *at, 10, instr_text(with)),
            Change::MoveDown { thread, at } => (*thread, *at, 11, String::new()),
            Change::Remove { thread, at } => (*thread, *at, 12, String::new()),
            Change::DeclaredCount { bar, count } => (usize::MAX, *bar, 14, count.to_string()),
            Change::Declare { cta, name, count } => (usize::MAX, usize::MAX, 15, format!("{name} {cta} {count}")),
            Change::Move { thread, from, to } => (*thread, *from, 13, to.to_string()),
        }
    }

    /// The original position this edit sits at.
    pub fn position(&self) -> usize {
        match self {
            Change::Insert { before, .. } => *before,
            Change::InsertAfter { after, .. } => after + 1,
            Change::Replace { at, .. } | Change::MoveDown { at, .. } | Change::Remove { at, .. } => *at,
            Change::Move { to, .. } => *to,
            Change::DeclaredCount { .. } | Change::Declare { .. } => 0,
        }
    }

    /// The original instructions this edit rewrites (an insert rewrites none).
    fn touches(&self) -> Vec<(usize, usize)> {
        match self {
            Change::Replace { thread, at, .. } | Change::Remove { thread, at } => vec![(*thread, *at)],
            Change::MoveDown { thread, at } => vec![(*thread, *at), (*thread, at + 1)],
            // The moved instruction, and the one it lands before, so no other move or insert
            // competes for that place.
            Change::Move { thread, from, to } => vec![(*thread, *from), (*thread, *to)],
            Change::Insert { .. } | Change::InsertAfter { .. } | Change::Declare { .. } => Vec::new(),
            Change::DeclaredCount { bar, .. } => vec![(usize::MAX, *bar)],
        }
    }
}

/// Where an insert goes among others at the same place: what releases before a barrier's
/// arrive, the arrive before the wait, what acquires after the wait. A fence's side is in
/// its kind; every other instruction is placed by its synchronization facts: what
/// registers an asynchronous arrive (`cp.async.mbarrier.arrive`, `tcgen05.commit`) before
/// a thread's own arrive, which could otherwise complete the phase first, and signals
/// before observations.
fn insert_rank(instr: &Instr) -> u8 {
    use crate::model::{Fence, FenceSem, ProxyKind, TcOp, Use, Via};
    let releases = matches!(
        instr,
        Instr::Tc(TcOp::FenceBeforeThreadSync)
            | Instr::Fence(Fence::Thread { sem: Some(FenceSem::Release), .. } | Fence::Proxy(ProxyKind::AsyncGeneric { sem: FenceSem::Release, .. }))
    );
    let acquires = matches!(
        instr,
        Instr::Tc(TcOp::FenceAfterThreadSync)
            | Instr::Fence(Fence::Thread { sem: Some(FenceSem::Acquire), .. } | Fence::Proxy(ProxyKind::AsyncGeneric { sem: FenceSem::Acquire, .. }))
    );
    if releases {
        return 0;
    }
    if acquires {
        return 5;
    }
    let facts = instr.facts();
    let async_arrive = facts.names.iter().any(|n| n.how == Use::Arrive);
    match facts.sync {
        Some(sync) if sync.via == Via::AsyncCompletion && async_arrive => 2,
        Some(sync) if sync.observes => 4,
        Some(sync) if sync.signals => 3,
        Some(_) | None => 1,
    }
}

/// Whether `change` can join `set`: no original instruction is rewritten twice, no insert
/// lands inside a moved pair, and the same line is not inserted twice at one place.
pub(super) fn compatible(set: &[Change], change: &Change) -> bool {
    let taken: Vec<(usize, usize)> = set.iter().flat_map(Change::touches).collect();
    if change.touches().iter().any(|t| taken.contains(t)) {
        return false;
    }
    let splits_move = |moves: &[Change], thread: usize, before: usize| {
        moves.iter().any(|m| matches!(m, Change::MoveDown { thread: t, at } if *t == thread && at + 1 == before))
    };
    match change {
        Change::Insert { thread, before, .. } => !splits_move(set, *thread, *before) && !set.contains(change),
        Change::InsertAfter { thread, after, .. } => !splits_move(set, *thread, after + 1) && !set.contains(change),
        Change::MoveDown { thread, at } => !set.iter().any(|c| {
            matches!(c, Change::Insert { thread: t, before, .. } if t == thread && *before == at + 1)
                || matches!(c, Change::InsertAfter { thread: t, after, .. } if t == thread && after == at)
        }),
        // One name, one declaration.
        Change::Declare { name, .. } => !set.iter().any(|c| matches!(c, Change::Declare { name: other, .. } if other == name)),
        Change::Move { .. } | Change::Replace { .. } | Change::Remove { .. } | Change::DeclaredCount { .. } => true,
    }
}

/// Whether every edit of `step` can join `set` (and the step's own edits each other).
pub(super) fn compatible_step(set: &[Change], step: &[Change]) -> bool {
    let mut joined = set.to_vec();
    for change in step {
        if !compatible(&joined, change) {
            return false;
        }
        joined.push(change.clone());
    }
    true
}

/// `set` plus the edits of `step`, in canonical order.
pub(super) fn with(set: &[Change], step: Vec<Change>) -> Vec<Change> {
    let mut out = set.to_vec();
    out.extend(step);
    crate::sort::sort_by_key(&mut out, Change::key);
    out
}

/// The edited scenario, and for each thread which original index each new instruction
/// comes from (`None` for an inserted one).
pub(super) fn apply(original: &Scenario, changes: &[Change]) -> (Scenario, Vec<Vec<Option<usize>>>) {
    let mut scenario = original.clone();
    for c in changes {
        if let Change::DeclaredCount { bar, count } = c {
            if let Some(b) = scenario.mbarriers.get_mut(*bar) {
                b.count = Some(*count);
            }
        }
    }
    // New declarations go after the others, as the source gets them.
    for c in changes {
        if let Change::Declare { cta, name, count } = c {
            scenario.mbarriers.push(crate::model::Mbarrier { name: name.clone(), cta: *cta, count: Some(*count) });
        }
    }
    let mut origins = Vec::new();
    for (t, thread) in scenario.threads.iter_mut().enumerate() {
        let old = std::mem::take(&mut thread.program);
        let mut program = Vec::new();
        let mut origin = Vec::new();
        let replaced = |i: usize| {
            changes.iter().find_map(|c| match c {
                Change::Replace { thread, at, with } if *thread == t && *at == i => Some(with.clone()),
                Change::Replace { .. }
                | Change::Insert { .. }
                | Change::MoveDown { .. }
                | Change::Move { .. }
                | Change::Remove { .. }
                | Change::DeclaredCount { .. }
                | Change::InsertAfter { .. }
                | Change::Declare { .. } => None,
            })
        };
        let moved_away = |i: usize| changes.iter().any(|c| matches!(c, Change::Move { thread, from, .. } if *thread == t && *from == i));
        let removed = |i: usize| changes.iter().any(|c| matches!(c, Change::Remove { thread, at } if *thread == t && *at == i));
        let moved = |i: usize| changes.iter().any(|c| matches!(c, Change::MoveDown { thread, at } if *thread == t && *at == i));
        let mut i = 0;
        while i <= old.len() {
            // Inserts and moves that land here, in the edits' canonical order, as the text
            // gets them.
            for c in changes {
                match c {
                    Change::Insert { thread, before, instr } if *thread == t && *before == i => {
                        program.push(instr.clone());
                        origin.push(None);
                    }
                    Change::InsertAfter { thread, after, instr } if *thread == t && after + 1 == i => {
                        program.push(instr.clone());
                        origin.push(None);
                    }
                    Change::Move { thread, from, to } if *thread == t && *to == i => {
                        if let Some(instr) = old.get(*from) {
                            program.push(replaced(*from).unwrap_or_else(|| instr.clone()));
                            origin.push(Some(*from));
                        }
                    }
                    Change::Insert { .. }
                    | Change::InsertAfter { .. }
                    | Change::Move { .. }
                    | Change::Replace { .. }
                    | Change::MoveDown { .. }
                    | Change::Remove { .. }
                    | Change::DeclaredCount { .. }
                    | Change::Declare { .. } => {}
                }
            }
            let Some(instr) = old.get(i) else { break };
            if moved(i) {
                if let Some(next) = old.get(i + 1) {
                    program.push(replaced(i + 1).unwrap_or_else(|| next.clone()));
                    origin.push(Some(i + 1));
                    program.push(replaced(i).unwrap_or_else(|| instr.clone()));
                    origin.push(Some(i));
                    i += 2;
                    continue;
                }
            }
            if !removed(i) && !moved_away(i) {
                program.push(replaced(i).unwrap_or_else(|| instr.clone()));
                origin.push(Some(i));
            }
            i += 1;
        }
        thread.program = program;
        origins.push(origin);
    }
    (scenario, origins)
}

/// A byte range of the source and its replacement.
struct Splice {
    start: usize,
    end: usize,
    text: String,
}

/// Where instruction `i` of `thread` sits: its span, its line and the line's indentation.
fn place(src: &str, map: &SourceMap, thread: usize, i: usize) -> Option<(usize, usize, usize, String)> {
    let span = map.instr(thread, i)?;
    let (start, end) = (span.start as usize, span.end as usize);
    let line_start = src.get(..start)?.rfind('\n').map_or(0, |n| n + 1);
    let indent: String = src.get(line_start..start)?.chars().take_while(|c| c.is_whitespace()).collect();
    Some((start, end, line_start, indent))
}

/// The splice that puts the line `text` before original instruction `before` of `thread`
/// (after its last when `before` is its length), and the 1-based line it becomes.
fn insertion(src: &str, map: &SourceMap, original: &Scenario, thread: usize, before: usize, text: &str) -> Option<(Splice, usize)> {
    let line_of = |byte: usize| line_col(src, u32::try_from(byte).unwrap_or(u32::MAX)).0;
    let len = original.threads.get(thread)?.program.len();
    if before < len {
        let (_, _, line_start, indent) = place(src, map, thread, before)?;
        return Some((Splice { start: line_start, end: line_start, text: format!("{indent}{text}\n") }, line_of(line_start)));
    }
    let (at, last, text_there) = append(src, map, thread, len, text)?;
    Some((Splice { start: at, end: at, text: text_there }, line_of(last) + 1))
}

/// The splice that puts the declaration line `text` after the last declaration (the
/// model appends a new mbarrier after the others), and the 1-based line it becomes.
fn declaration(src: &str, map: &SourceMap, text: &str) -> Option<(Splice, usize)> {
    let last = map.clusters.iter().chain(&map.ctas).chain(&map.locations).chain(&map.mbarriers).map(|s| s.end as usize).max()?;
    let line = line_col(src, u32::try_from(last).unwrap_or(u32::MAX)).0 + 1;
    Some(match src.get(last..)?.find('\n') {
        Some(n) => (Splice { start: last + n + 1, end: last + n + 1, text: format!("{text}\n") }, line),
        None => (Splice { start: src.len(), end: src.len(), text: format!("\n{text}") }, line),
    })
}

/// Where a line appended to `thread` (of `len` instructions) goes: just after the line
/// break that ends its last instruction, so that removing that line (a move, a removal)
/// ends where the appended text starts; its text; and a byte on the last line.
fn append(src: &str, map: &SourceMap, thread: usize, len: usize, text: &str) -> Option<(usize, usize, String)> {
    let (_, end, _, indent) = place(src, map, thread, len.checked_sub(1)?)?;
    Some(match src.get(end..)?.find('\n') {
        Some(n) => (end + n + 1, end, format!("{indent}{text}\n")),
        None => (src.len(), end, format!("\n{indent}{text}")),
    })
}

/// The author's source with `changes` applied, the expect lines replaced by
/// `expectations` and the conditions `drop_conditions` removed, plus each edit as a line edit. `None` when the source map does not
/// cover an edited instruction (the source does not match the scenario).
pub(super) fn edit_source(
    src: &str,
    map: &SourceMap,
    original: &Scenario,
    changes: &[Change],
    expectations: &[Expectation],
    drop_conditions: &[usize],
) -> Option<(String, Vec<LineEdit>)> {
    let mut splices = Vec::new();
    let mut edits = Vec::new();
    let line_of = |byte: usize| line_col(src, u32::try_from(byte).unwrap_or(u32::MAX)).0;
    for change in changes {
        match change {
            Change::Replace { thread, at, with } => {
                let (start, end, ..) = place(src, map, *thread, *at)?;
                let before = src.get(start..end)?.to_string();
                splices.push(Splice { start, end, text: instr_text(with) });
                edits.push(LineEdit { line: line_of(start), before, after: instr_text(with) });
            }
            Change::Insert { thread, before: at, instr } | Change::InsertAfter { thread, after: at, instr } => {
                let before = if matches!(change, Change::InsertAfter { .. }) { at + 1 } else { *at };
                let text = instr_text(instr);
                let (splice, line) = insertion(src, map, original, *thread, before, &text)?;
                edits.push(LineEdit { line, before: String::new(), after: text });
                splices.push(splice);
            }
            Change::Declare { cta, name, count } => {
                let text = format!("mbarrier {name} @{} count {count}", original.ctas.get(*cta)?.name);
                let (splice, line) = declaration(src, map, &text)?;
                edits.push(LineEdit { line, before: String::new(), after: text });
                splices.push(splice);
            }
            Change::MoveDown { thread, at } => {
                let (s1, e1, ..) = place(src, map, *thread, *at)?;
                let (s2, e2, ..) = place(src, map, *thread, at + 1)?;
                let (first, second) = (src.get(s1..e1)?.to_string(), src.get(s2..e2)?.to_string());
                edits.push(LineEdit { line: line_of(s1), before: format!("{first} / {second}"), after: format!("{second} / {first}") });
                splices.push(Splice { start: s1, end: e1, text: second });
                splices.push(Splice { start: s2, end: e2, text: first });
            }
            Change::Move { thread, from, to } => {
                let (start, end, line_start, _) = place(src, map, *thread, *from)?;
                let text = src.get(start..end)?.to_string();
                let line_end = src.get(end..)?.find('\n').map_or(src.len(), |n| end + n + 1);
                splices.push(Splice { start: line_start, end: line_end, text: String::new() });
                edits.push(LineEdit { line: line_of(start), before: text.clone(), after: String::new() });
                let (splice, line) = insertion(src, map, original, *thread, *to, &text)?;
                edits.push(LineEdit { line, before: String::new(), after: text });
                splices.push(splice);
            }
            Change::DeclaredCount { bar, count } => {
                let span = map.mbarrier(*bar)?;
                let (start, end) = (span.start as usize, span.end as usize);
                let declared = original.mbarriers.get(*bar)?;
                let cta = original.ctas.get(declared.cta)?;
                let text = format!("mbarrier {} @{} count {count}", declared.name, cta.name);
                edits.push(LineEdit { line: line_of(start), before: src.get(start..end)?.to_string(), after: text.clone() });
                splices.push(Splice { start, end, text });
            }
            Change::Remove { thread, at } => {
                let (start, end, line_start, _) = place(src, map, *thread, *at)?;
                let before = src.get(start..end)?.to_string();
                let line_end = src.get(end..)?.find('\n').map_or(src.len(), |n| end + n + 1);
                splices.push(Splice { start: line_start, end: line_end, text: String::new() });
                edits.push(LineEdit { line: line_of(start), before, after: String::new() });
            }
        }
    }
    let expect_text: Vec<String> = expectations.iter().map(expectation_text).collect();
    let mut expect_spans = map.expect.iter();
    match expect_spans.next() {
        Some(first) => {
            splices.push(Splice { start: first.start as usize, end: first.end as usize, text: expect_text.join("\n") });
            for span in expect_spans {
                // Drop the other expect lines with their line break.
                let end = (span.end as usize + 1).min(src.len());
                splices.push(Splice { start: span.start as usize, end, text: String::new() });
            }
        }
        None => splices.push(Splice { start: src.len(), end: src.len(), text: format!("\n{}\n", expect_text.join("\n")) }),
    }
    for index in drop_conditions.iter().collect::<std::collections::BTreeSet<_>>() {
        let span = map.condition(*index)?;
        let end = (span.end as usize + 1).min(src.len());
        splices.push(Splice { start: span.start as usize, end, text: String::new() });
    }
    crate::sort::sort_by_key(&mut splices, |s| (s.start, s.end));
    let mut out = String::with_capacity(src.len() + 64);
    let mut at = 0;
    for s in splices {
        out.push_str(src.get(at..s.start)?);
        out.push_str(&s.text);
        at = at.max(s.end);
    }
    out.push_str(src.get(at..)?);
    crate::sort::sort_by_key(&mut edits, |e| e.line);
    Some((out, edits))
}

/// `expect correct` when both modes agree it is, else one line per mode.
pub(super) fn expectations(per_mode: &[(Mode, Expect)]) -> Vec<Expectation> {
    if per_mode.iter().all(|(_, e)| *e == Expect::Correct) {
        return vec![Expectation::every_mode(Expect::Correct)];
    }
    per_mode.iter().map(|(mode, verdict)| Expectation { mode: Some(*mode), verdict: *verdict }).collect()
}
