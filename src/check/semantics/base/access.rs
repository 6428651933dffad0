//! Reads and writes of memory cells: which writes a read may return (§1.9), coherence,
//! the data-race check (§1.4), and the release/acquire patterns a strong access takes part
//! in (§1.5).

use super::exec::{agent_name, instr_text, internal, pragmatic, Exec, RawAccess, RawFinding};
use super::race::classify;
use super::sync::{defer, fail, fail_event, fail_release_write, merge, morally_strong, synchronize, OpSem, Side};
use crate::check::machine::{needed, Filter, Layout, Machine, Message, Meta, ProxyKey, ReadRec, Shared, Via, WriteRec};
use crate::check::report::{FindingKind, RaceReason};
use crate::model::Scope;

/// A memory access about to be performed.
#[derive(Clone, Debug)]
pub struct Access {
    pub loc: usize,
    pub key: Via,
    /// Scope after the state-space clamp, when strong.
    pub strong: Option<Scope>,
}

/// The cell holding `loc`'s value: its lowest byte segment (the only one, unless byte
/// offsets split the location; `machine/ranges.rs` has the value model).
pub fn cell_of(layout: &Layout, loc: usize) -> usize {
    layout.locs.get(loc).map_or(loc, |l| l.segs.first().copied().unwrap_or(l.cell))
}

/// The bytes a layout entry names: its byte range, or the whole location.
fn extent(layout: &Layout, loc: usize) -> (u32, u32) {
    layout.locs.get(loc).map_or((0, 0), |l| l.range.unwrap_or((0, l.size)))
}

/// Morally strong needs complete overlap (reference §1.3 item 3): two accesses of
/// different byte ranges of one location never are, whatever their scopes.
fn same_bytes(layout: &Layout, a: usize, b: usize) -> bool {
    extent(layout, a) == extent(layout, b)
}

/// Every cell `loc` covers, lowest bytes first.
fn segs_of(layout: &Layout, loc: usize) -> &[usize] {
    layout.locs.get(loc).map_or(&[], |l| l.segs.as_slice())
}

/// Indices of the writes a read by `agent` through `key` may return now: every write not
/// coherence-before a write already ordered before the reader (or observed by it).
/// They are always the writes from one index to the last, so they are returned as that range.
pub fn candidates(layout: &Layout, m: &Machine, agent: u32, loc: usize, key: Via) -> std::ops::Range<usize> {
    candidates_in(layout, m, agent, loc, cell_of(layout, loc), key)
}

/// [`candidates`] in one byte segment `cell` of `loc`.
fn candidates_in(layout: &Layout, m: &Machine, agent: u32, loc: usize, cell: usize, key: Via) -> std::ops::Range<usize> {
    let (Some(c), Some(a)) = (m.cells.get(cell), m.agents.get(agent as usize)) else {
        return 0..0;
    };
    let k = &a.knowledge;
    let cta_of = |x: u32| m.agents.get(x as usize).map_or(a.place.cta, |x| x.place.cta);
    let floor = (k.floor(layout, loc, cell) as usize).saturating_sub(1);
    let mut first = floor;
    // Writes at or below the floor cannot move it: only those above are asked about.
    for (i, w) in c.writes.iter().enumerate().skip(floor + 1) {
        if w.instr.is_none() || k.orders(layout, w.event, loc, &needed(w.key, cta_of(w.event.agent), key, a.place.cta)) {
            first = i;
        }
    }
    first..c.writes.len()
}

/// Labels for read choices, e.g. `read x = 0 (stale: write of 42 by producer not visible)`.
pub fn labels(layout: &Layout, m: &Machine, loc: usize, writes: &[usize]) -> Vec<String> {
    let cell = cell_of(layout, loc);
    let name = layout.locs.get(loc).map_or("?", |l| l.name.as_str());
    let Some(c) = m.cells.get(cell) else { return Vec::new() };
    let last = c.writes.len().saturating_sub(1);
    writes
        .iter()
        .map(|&i| {
            let Some(w) = c.writes.get(i) else { return String::new() };
            let from = if w.instr.is_none() {
                "the initial value".to_string()
            } else {
                format!("write by {}", agent_name(layout, m, w.event.agent))
            };
            match c.writes.get(last) {
                Some(newest) if i < last => format!(
                    "read {name} = {} (stale: {from}; the write of {} by {} is not visible)",
                    w.value,
                    newest.value,
                    agent_name(layout, m, newest.event.agent)
                ),
                _ => format!("read {name} = {} ({from})", w.value),
            }
        })
        .collect()
}

fn side(ex: &Exec, agent: u32, strong: Option<Scope>, key: Via) -> Side {
    let place = ex.m.agents.get(agent as usize).map_or(ex.place(), |a| a.place);
    Side { agent, place, strong, key }
}

/// Perform a read returning the write at coherence index `widx` (of the lowest segment);
/// checks races. The other segments of a split location are read at the oldest write
/// they may return, so they are checked too and keep their coherence floors.
pub fn read(ex: &mut Exec, acc: &Access, widx: usize) -> Result<Shared<WriteRec>, String> {
    let layout = ex.layout;
    let first = cell_of(layout, acc.loc);
    let w = read_cell(ex, acc, first, widx)?;
    for &cell in segs_of(layout, acc.loc).iter().filter(|c| **c != first) {
        let oldest = candidates_in(layout, ex.m, ex.agent, acc.loc, cell, acc.key).next().unwrap_or(0);
        read_cell(ex, acc, cell, oldest)?;
    }
    Ok(w)
}

fn read_cell(ex: &mut Exec, acc: &Access, cell: usize, widx: usize) -> Result<Shared<WriteRec>, String> {
    let c = ex.m.cells.get(cell).ok_or_else(|| internal("cell"))?;
    let w = c.writes.get(widx).cloned().ok_or_else(|| internal("read choice"))?;
    let me = side(ex, ex.agent, acc.strong, acc.key);
    for other in racing_writes(ex, acc, &c.writes)? {
        race(ex, acc, false, other.event.agent, other.loc, other.instr, other.step.0, true, other.key, other.event, other.strong);
    }
    own_crossings(ex, acc, false, cell, false)?;
    let epoch = ex.me()?.knowledge.own_epoch(ex.agent);
    let event = crate::check::machine::EventId { agent: ex.agent, epoch };
    let rec = ReadRec { event, loc: acc.loc, key: acc.key, strong: acc.strong, instr: ex.instr_ref(), step: Meta(Some(ex.step)) };
    if let Some(c) = ex.m.cells.get_mut(cell) {
        *c = Shared::new(c.with_read(rec));
    }
    // SC per location binds only morally strong accesses (§1.9): a weak read that races
    // leaves no coherence floor behind (CoRR-weak-weak is allowed).
    let writer = side(ex, w.event.agent, if w.instr.is_none() { acc.strong } else { w.strong }, w.key);
    if w.instr.is_none() || (morally_strong(me, writer) && same_bytes(ex.layout, acc.loc, w.loc)) {
        ex.me_mut()?.knowledge.raise_floor(cell, widx as u32 + 1);
    }
    Ok(w)
}

/// The writes of other agents among `writes` that race with the access `acc` is about to
/// make. Races are rare: only these are copied out of the cell.
fn racing_writes(ex: &Exec, acc: &Access, writes: &[Shared<WriteRec>]) -> Result<Vec<Shared<WriteRec>>, String> {
    let me = side(ex, ex.agent, acc.strong, acc.key);
    let mut racing = Vec::new();
    for other in writes.iter().filter(|o| o.instr.is_some() && o.event.agent != ex.agent) {
        let them = side(ex, other.event.agent, other.strong, other.key);
        // Morally strong accesses of the same bytes never race: only the others need the
        // (costlier) happens-before question.
        if morally_strong(me, them) && same_bytes(ex.layout, acc.loc, other.loc) {
            continue;
        }
        if !ordered_before(ex, other.event, other.loc, other.key, acc.key)? {
            racing.push(other.clone());
        }
    }
    Ok(racing)
}

/// Perform a write carrying `msgs` into every byte segment `acc` covers; checks races
/// with earlier conflicting accesses. Returns the write's index in the lowest segment.
pub fn write(ex: &mut Exec, acc: &Access, value: i64, msgs: Vec<Message>) -> Result<usize, String> {
    let layout = ex.layout;
    let first = cell_of(layout, acc.loc);
    let rest = segs_of(layout, acc.loc).iter().filter(|c| **c != first);
    for &cell in rest.clone() {
        write_cell(ex, acc, cell, value, msgs.clone())?;
    }
    write_cell(ex, acc, first, value, msgs)
}

fn write_cell(ex: &mut Exec, acc: &Access, cell: usize, value: i64, msgs: Vec<Message>) -> Result<usize, String> {
    let c = ex.m.cells.get(cell).ok_or_else(|| internal("cell"))?;
    let me = side(ex, ex.agent, acc.strong, acc.key);
    let racing_writes = racing_writes(ex, acc, &c.writes)?;
    let mut racing_reads = Vec::new();
    for other in c.reads.iter().filter(|o| o.event.agent != ex.agent) {
        let them = side(ex, other.event.agent, other.strong, other.key);
        // Morally strong accesses of the same bytes never race, ordered or not.
        if morally_strong(me, them) && same_bytes(ex.layout, acc.loc, other.loc) {
            continue;
        }
        let mut ordered = ordered_before(ex, other.event, other.loc, other.key, acc.key)?;
        if !ordered
            && war_generic_then_async(other.key.proxy, acc.key.proxy)
            && ex.me()?.knowledge.orders(ex.layout, other.event, other.loc, &Default::default())
        {
            ordered = pragmatic(ex);
        }
        if !ordered {
            racing_reads.push(other.clone());
        }
    }
    // Reads first: a write racing both an earlier read and the write that read returned is
    // mended by ordering it after the read (the reader's release moves), which orders it
    // after that write too; the write-write race is the consequence, not the cause.
    for other in racing_reads {
        race(ex, acc, true, other.event.agent, other.loc, other.instr, other.step.0, false, other.key, other.event, other.strong);
    }
    for other in racing_writes {
        race(ex, acc, true, other.event.agent, other.loc, other.instr, other.step.0, true, other.key, other.event, other.strong);
    }
    own_crossings(ex, acc, true, cell, true)?;
    let epoch = ex.me()?.knowledge.own_epoch(ex.agent);
    let rec = WriteRec {
        value,
        event: crate::check::machine::EventId { agent: ex.agent, epoch },
        loc: acc.loc,
        key: acc.key,
        strong: acc.strong,
        msgs,
        instr: ex.instr_ref(),
        step: Meta(Some(ex.step)),
    };
    let c = ex.m.cells.get_mut(cell).ok_or_else(|| internal("cell"))?;
    *c = Shared::new(c.with_write(rec));
    Ok(c.writes.len() - 1)
}

/// The executing agent's own earlier conflicting accesses through another virtual address
/// or proxy: program order orders them only across the proxy fences `needed` names
/// (reference §1.8 (iii), §2.3), so without those they race as two threads' would.
/// `cell`'s accesses are those before this one (its reads too when `with_reads`).
fn own_crossings(ex: &mut Exec, acc: &Access, is_write: bool, cell: usize, with_reads: bool) -> Result<(), String> {
    let me = ex.agent;
    let Some(c) = ex.m.cells.get(cell) else { return Err(internal("cell")) };
    let reads = if with_reads { c.reads.as_slice() } else { &[] };
    let earlier = c
        .writes
        .iter()
        .filter(|w| w.instr.is_some())
        .map(|w| (true, w.event, w.loc, w.key, w.instr, w.step.0, w.strong))
        .chain(reads.iter().map(|r| (false, r.event, r.loc, r.key, r.instr, r.step.0, r.strong)));
    let mut crossing = Vec::new();
    for access @ (_, event, loc, key, ..) in earlier {
        if event.agent == me && key != acc.key && !ordered_before(ex, event, loc, key, acc.key)? {
            crossing.push(access);
        }
    }
    for (was_write, event, loc, key, instr, step, strong) in crossing {
        race(ex, acc, is_write, me, loc, instr, step, was_write, key, event, strong);
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn race(
    ex: &mut Exec,
    acc: &Access,
    is_write: bool,
    other_agent: u32,
    other_loc: usize,
    other_instr: Option<crate::check::machine::InstrRef>,
    other_step: Option<usize>,
    other_is_write: bool,
    other_key: Via,
    other_event: crate::check::machine::EventId,
    other_strong: Option<Scope>,
) {
    let mine = ex.instr_ref();
    let name = ex.layout.locs.get(acc.loc).map_or("?", |l| l.name.as_str());
    let (reason, why, edge) = match (other_strong, acc.strong) {
        // Both strong, but over different bytes: never morally strong (§1.3, §1.4).
        (Some(_), Some(_)) if !same_bytes(ex.layout, acc.loc, other_loc) => {
            let why = ex.text(|| {
                let other_text = other_instr.map_or_else(String::new, |i| instr_text(ex.layout, i).to_string());
                let my_text = ex.instr_ref().map_or_else(String::new, |i| instr_text(ex.layout, i).to_string());
                let (them, me) = (ex.name_of(other_agent), ex.name_of(ex.agent));
                mixed_size_text(ex.layout, &other_text, &them, other_loc, &my_text, &me, acc.loc)
            });
            (RaceReason::MixedSize, why, None)
        }
        // Both strong, same proxy, yet not morally strong: the scopes exclude each other.
        (Some(theirs), Some(mine)) if other_key == acc.key => {
            let them = ex.m.agents.get(other_agent as usize).map_or(ex.place(), |a| a.place);
            let why = ex.text(|| {
                let (who, scope, other, at) = if !crate::check::machine::covers(theirs, them, ex.place()) {
                    (ex.name_of(other_agent), theirs, ex.name_of(ex.agent), ex.place())
                } else {
                    (ex.name_of(ex.agent), mine, ex.name_of(other_agent), them)
                };
                format!(
                    "both accesses are strong, but the `{}` access by `{who}` does not include `{other}` ({}): they are not morally strong",
                    crate::check::text::scope(scope),
                    ex.layout.describe_place(at)
                )
            });
            (crate::check::report::RaceReason::ScopeMismatch, why, None)
        }
        _ => classify(ex, other_event, other_loc, other_key, acc.key),
    };
    let kind_of = |w: bool| if w { "write" } else { "read" };
    let message = ex.text(|| {
        let other_text = other_instr.map_or_else(|| "".into(), |i| instr_text(ex.layout, i));
        let my_text = mine.map_or_else(|| "".into(), |i| instr_text(ex.layout, i));
        format!(
            "data race on `{name}`: {} `{other_text}` by `{}` and {} `{my_text}` by `{}` are not ordered",
            kind_of(other_is_write),
            ex.name_of(other_agent),
            kind_of(is_write),
            ex.name_of(ex.agent),
        )
    });
    let mut key: Vec<_> = other_instr.into_iter().chain(mine).collect();
    crate::sort::short_by_key(&mut key, |r| *r);
    ex.out.findings.push(RawFinding {
        kind: FindingKind::Race,
        reason: Some(reason),
        message,
        explanation: why,
        // Names, like the texts, only when explaining: a finding is kept by its kind, key
        // and reason, and explained by replaying its witness.
        accesses: vec![
            RawAccess { agent_name: ex.text(|| ex.name_of(other_agent)), instr: other_instr, loc: other_loc, is_write: other_is_write, step: other_step },
            RawAccess { agent_name: ex.text(|| ex.name_of(ex.agent)), instr: mine, loc: acc.loc, is_write, step: Some(ex.step) },
        ],
        key,
        edge,
    });
}

/// Why two strong accesses of partly overlapping bytes are not morally strong.
fn mixed_size_text(layout: &Layout, a_text: &str, a_who: &str, a_loc: usize, b_text: &str, b_who: &str, b_loc: usize) -> String {
    let ((a0, a1), (b0, b1)) = (extent(layout, a_loc), extent(layout, b_loc));
    format!(
        "both accesses are strong, but `{a_text}` by `{a_who}` covers bytes {a0}..{a1} and `{b_text}` by `{b_who}` bytes {b0}..{b1}: only accesses of exactly the same bytes are morally strong (a mixed-size race)"
    )
}

/// Resolve an instruction's location operand into an access.
pub fn resolve(layout: &Layout, addr: &str, proxy: crate::model::Proxy, strong: Option<Scope>) -> Result<Access, String> {
    let loc = layout.loc(addr)?;
    let info = layout.locs.get(loc).ok_or_else(|| internal("loc"))?;
    let proxy = match ProxyKey::of(proxy) {
        ProxyKey::Generic => info.key,
        other => other,
    };
    Ok(Access { loc, key: Via { proxy, va: info.va }, strong: strong.map(|s| layout.clamp(s, loc)) })
}

/// Is `event` (by another agent, through `from`) ordered before the executing agent's
/// access through `to`?
pub fn ordered_before(ex: &Exec, event: crate::check::machine::EventId, loc: usize, from: Via, to: Via) -> Result<bool, String> {
    let from_cta = ex.m.agents.get(event.agent as usize).map_or(ex.place().cta, |a| a.place.cta);
    let crossing = needed(from, from_cta, to, ex.place().cta);
    Ok(ex.me()?.knowledge.orders(ex.layout, event, loc, &crossing))
}

/// The releases a strong write to `acc` carries (§1.5): its own (pattern 1), earlier release
/// ops of this agent on the same location (pattern 2, each at its own scope) and earlier
/// release fences (pattern 3).
pub fn write_messages(ex: &mut Exec, op: OpSem, text: &str, acc: &Access) -> Result<Vec<Message>, String> {
    let mut msgs = Vec::new();
    if let Some(scope) = op.strong {
        msgs.extend(ex.me()?.release_fences.iter().cloned());
        let me = ex.agent;
        let cell = cell_of(ex.layout, acc.loc);
        let earlier = ex.m.cells.get(cell).map(|c| c.writes.as_slice()).unwrap_or_default();
        let own = earlier.iter().filter(|w| w.event.agent == me && w.key == acc.key).flat_map(|w| &w.msgs);
        merge(&mut msgs, own.filter(|m| m.from_agent == me).cloned().collect::<Vec<_>>());
        if op.release {
            msgs.push(ex.release_all(scope, text.to_string())?);
        }
    }
    Ok(msgs)
}

/// A read observed write `w`: form the acquire side of a pattern, or record why not.
pub fn observe(ex: &mut Exec, acc: &Access, w: &WriteRec, op: OpSem, text: &str, red: bool) -> Result<(), String> {
    if w.instr.is_none() || w.event.agent == ex.agent {
        return Ok(());
    }
    let place_of = |a: u32| ex.m.agents.get(a as usize).map_or(ex.place(), |x| x.place);
    let me = Side { agent: ex.agent, place: ex.place(), strong: acc.strong, key: acc.key };
    let them = Side { agent: w.event.agent, place: place_of(w.event.agent), strong: w.strong, key: w.key };
    let writer = ex.text(|| ex.name_of(w.event.agent));
    let reader = ex.text(|| ex.name_of(ex.agent));
    let wtext: std::rc::Rc<str> = w.instr.map_or_else(|| "".into(), |i| instr_text(ex.layout, i));
    // A write already ordered before this read (the data read after a successful acquire)
    // needed no synchronization here: recording a failed edge would only mislead.
    let already_ordered = ordered_before(ex, w.event, acc.loc, w.key, acc.key)?;
    let mixed_size = !same_bytes(ex.layout, acc.loc, w.loc);
    if mixed_size || !morally_strong(me, them) {
        if already_ordered {
            return Ok(());
        }
        let (reason, why) = if acc.strong.is_none() {
            (RaceReason::ExecutionOrderOnly, ex.text(|| format!("`{text}` by `{reader}` is weak: a weak read never takes part in synchronization")))
        } else if w.strong.is_none() {
            (RaceReason::ExecutionOrderOnly, ex.text(|| format!("`{wtext}` by `{writer}` is weak: a weak write never takes part in synchronization")))
        } else if mixed_size {
            (RaceReason::MixedSize, ex.text(|| mixed_size_text(ex.layout, &wtext, &writer, w.loc, text, &reader, acc.loc)))
        } else {
            (RaceReason::ScopeMismatch, ex.text(|| format!("`{wtext}` by `{writer}` and `{text}` by `{reader}` are not morally strong: their scopes do not include each other's threads")))
        };
        // A write that is itself a release (`st.release`) fails one edge, which would have
        // carried the write with what it released; any other write fails its own besides
        // those of the releases before it (pattern 2 and 3).
        let is_the_write = |msg: &Message| msg.from_agent == w.event.agent && msg.step.0 == w.step.0;
        for msg in &w.msgs {
            if is_the_write(msg) {
                fail_release_write(ex, msg, w.event, reason, why.clone());
            } else {
                fail(ex, msg, reason, why.clone());
            }
        }
        if !w.msgs.iter().any(is_the_write) {
            fail_event(ex, w.event, w.step.0, reason, why);
        }
        return Ok(());
    }
    if w.msgs.is_empty() {
        if already_ordered {
            return Ok(());
        }
        let why = ex.text(|| format!("`{wtext}` by `{writer}` is not a release and no `fence.release` precedes it: `{reader}` sees the value but gets no ordering (execution order only)"));
        fail_event(ex, w.event, w.step.0, RaceReason::ExecutionOrderOnly, why);
        return Ok(());
    }
    if red {
        for msg in &w.msgs {
            fail(ex, msg, RaceReason::ExecutionOrderOnly, "`red` never forms an acquire pattern (§8.8); use `atom` or `ld.acquire`".into());
        }
        return Ok(());
    }
    match (op.acquire, op.strong) {
        (true, Some(scope)) => {
            for msg in w.msgs.clone() {
                synchronize(ex, &msg, scope, Filter::All, text, "release/acquire")?;
            }
        }
        _ => {
            defer(ex, &w.msgs)?;
            for msg in w.msgs.clone() {
                let why = ex.text(|| format!("`{text}` by `{reader}` is relaxed and no `fence.acquire` follows it: it observes the release but acquires nothing"));
                fail(ex, &msg, RaceReason::ExecutionOrderOnly, why);
            }
        }
    }
    Ok(())
}

/// §12 #4: a generic read followed by an async write of the same location (WAR). Strict
/// mode asks for a proxy fence on the path (the CLC example); pragmatic mode accepts plain
/// causality, as production pipelines (CUTLASS) do.
pub fn war_generic_then_async(read: ProxyKey, write: ProxyKey) -> bool {
    read == ProxyKey::Generic && write == ProxyKey::Async
}
