//! When steps on one mbarrier, or one named CTA barrier, commute: plain arrivals and
//! transaction counts add up, and a wait sees only completed phases, so none of them
//! depends on another unless one completes the phase. A phase whose pending arrivals
//! outnumber every arrival the agents outside a stubborn set can still make is *sealed*:
//! outside steps alone never complete it, so they neither wake a waiter of the set nor
//! change what it reads.

use crate::check::machine::{AsyncOp, AsyncWhat, BarState, Layout, MbarState, Stage, TcWhat};
use crate::model::{BarKind, Instr, MbarKind, MbarOp, Object, Operand, TcOp};

/// The largest tx-count magnitude (§9.7.13.15.15); beyond it the step is undefined.
const MAX_TX: u64 = (1 << 20) - 1;

/// What a step does to one mbarrier, where that is all it does to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// A plain arrive (`arrivals` > 0, with its `expect_tx` added to `tx`), an expect-tx
    /// (`tx` > 0) or a complete-tx (`tx` < 0): it moves the counts and completes the phase
    /// when both reach zero.
    Count { arrivals: u32, tx: i64 },
    /// A spin wait on a parity (`Some(parity)`: it runs only once that parity's phase
    /// completed), or any other wait (`None`: it may run, and see the phase, at any time).
    Wait(Option<bool>),
    /// Any other use (init, inval, `arrive.noComplete`, `arrive_drop`, the arrive of
    /// `cp.async.mbarrier.arrive`, `st.async`'s complete-tx): nothing is assumed of it.
    Other,
}

/// The mbarrier and parity of a spin wait on a parity (it blocks until that phase completed).
fn spin(instr: &Instr) -> Option<(&str, bool)> {
    let Instr::Wait { instr: inner, until: None } = instr else { return None };
    match inner.as_ref() {
        Instr::Mbar(MbarOp { kind: MbarKind::Wait { parity: true, phase: Operand::Imm(p), .. }, bar, .. }) => Some((bar.as_str(), p & 1 == 1)),
        _ => None,
    }
}

/// [`spin`] with the barrier's layout index: a gate a thread stops at while the phase of
/// that parity has not completed.
pub fn gate(layout: &Layout, instr: &Instr) -> Option<(usize, bool)> {
    spin(instr).and_then(|(bar, parity)| Some((layout.mbar(bar).ok()?, parity)))
}

/// The counts and waits of `instr`, by mbarrier name ([`indexed`] adds its other uses).
fn signals(instr: &Instr) -> Vec<(&str, Signal)> {
    match instr {
        Instr::Mbar(op) => match &op.kind {
            MbarKind::Arrive { count, expect_tx, no_complete: false, drop: false, .. } => {
                vec![(op.bar.as_str(), Signal::Count { arrivals: count.unwrap_or(1), tx: i64::from(expect_tx.unwrap_or(0)) })]
            }
            MbarKind::ExpectTx { bytes } => vec![(op.bar.as_str(), Signal::Count { arrivals: 0, tx: i64::from(*bytes) })],
            MbarKind::CompleteTx { bytes } => vec![(op.bar.as_str(), Signal::Count { arrivals: 0, tx: -i64::from(*bytes) })],
            // Unless it spins (below), a wait may run while it would fail, and see the phase
            // whenever it runs.
            MbarKind::Wait { .. } => vec![(op.bar.as_str(), Signal::Wait(None))],
            MbarKind::Arrive { .. } | MbarKind::Init { .. } | MbarKind::Inval | MbarKind::PendingCount { .. } => Vec::new(),
        },
        Instr::Bulk { mbar, multicast, bytes, .. } => {
            let count = Signal::Count { arrivals: 0, tx: -i64::from(*bytes) };
            mbar.iter().chain(multicast.iter().map(|(_, m)| m)).map(|m| (m.as_str(), count)).collect()
        }
        Instr::Tc(TcOp::Commit { bar, multicast, .. }) => {
            std::iter::once(bar).chain(multicast).map(|b| (b.as_str(), Signal::Count { arrivals: 1, tx: 0 })).collect()
        }
        Instr::Wait { .. } if spin(instr).is_some() => spin(instr).map(|(bar, parity)| (bar, Signal::Wait(Some(parity)))).into_iter().collect(),
        Instr::Wait { instr, .. } | Instr::Guarded { instr, .. } | Instr::Ranged { instr, .. } => signals(instr),
        Instr::Tc(
            TcOp::Alloc { .. }
            | TcOp::Dealloc { .. }
            | TcOp::Relinquish { .. }
            | TcOp::Mma { .. }
            | TcOp::Cp { .. }
            | TcOp::Shift { .. }
            | TcOp::Ld { .. }
            | TcOp::St { .. }
            | TcOp::WaitLd
            | TcOp::WaitSt
            | TcOp::FenceBeforeThreadSync
            | TcOp::FenceAfterThreadSync
            | TcOp::MmaPair { .. },
        )
        | Instr::Ld { .. }
        | Instr::St { .. }
        | Instr::Atom { .. }
        | Instr::Fence(_)
        | Instr::Bar { .. }
        | Instr::ClusterArrive { .. }
        | Instr::ClusterWait
        | Instr::CpAsync { .. }
        | Instr::CpAsyncCommit
        | Instr::CpAsyncWait { .. }
        | Instr::CpAsyncWaitAll
        | Instr::CpAsyncMbarArrive { .. }
        | Instr::BulkCommit
        | Instr::BulkWait { .. }
        | Instr::StAsync { .. }
        | Instr::Wgmma(_)
        | Instr::Label(_)
        | Instr::Branch { .. }
        | Instr::Mov { .. }
        | Instr::Add { .. }
        | Instr::Exit
        | Instr::SetP { .. } => Vec::new(),
    }
}

/// Every mbarrier `instr` names (its facts, so none is missed), by layout index, with what
/// it does there: each count or wait [`signals`] knows (a multicast copy counts once per
/// destination, even on one barrier), else [`Signal::Other`].
pub fn indexed(layout: &Layout, instr: &Instr) -> Vec<(usize, Signal)> {
    let known = signals(instr);
    // A count that moves nothing still merges its release into whichever phase is current
    // when it runs: it does not commute with the completing count.
    let mut out: Vec<(usize, Signal)> = known
        .iter()
        .filter_map(|(name, s)| {
            let signal = if *s == (Signal::Count { arrivals: 0, tx: 0 }) { Signal::Other } else { *s };
            Some((layout.mbar(name).ok()?, signal))
        })
        .collect();
    for named in instr.facts().names.iter().filter(|n| n.object == Object::Mbarrier) {
        let Ok(bar) = layout.mbar(named.name) else { continue };
        if !known.iter().any(|(name, _)| *name == named.name) && !out.contains(&(bar, Signal::Other)) {
            out.push((bar, Signal::Other));
        }
    }
    out
}

/// What an asynchronous agent's op still signals: a copy's complete-tx on its own
/// destination's barrier and a commit's arrive-ons, until done; other ops name no barrier.
pub fn of_op(op: &AsyncOp) -> Vec<(usize, Signal)> {
    if op.stage == Stage::Completed {
        return Vec::new();
    }
    match &op.what {
        AsyncWhat::Bulk { mbar, bytes, .. } => vec![(*mbar, Signal::Count { arrivals: 0, tx: -i64::from(*bytes) })],
        AsyncWhat::Tc(TcWhat::Commit { bars, .. }) => bars.iter().map(|b| (*b, Signal::Count { arrivals: 1, tx: 0 })).collect(),
        AsyncWhat::CpArrive { mbar, .. } | AsyncWhat::StAsync { mbar, .. } => vec![(*mbar, Signal::Other)],
        AsyncWhat::BulkGroup { .. }
        | AsyncWhat::CpAsync { .. }
        | AsyncWhat::Wgmma { .. }
        | AsyncWhat::Tc(TcWhat::Mma { .. } | TcWhat::Cp { .. } | TcWhat::Shift { .. } | TcWhat::Ld { .. } | TcWhat::St { .. } | TcWhat::Alloc) => Vec::new(),
    }
}

/// What some agents may still do to one mbarrier: arrivals and tx bytes up and down summed
/// (a count of contributors on loops stands for "unbounded"), and waits by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub arrivals: u64,
    /// Bytes expected (raising the tx-count) and completed (lowering it).
    pub tx_up: u64,
    pub tx_down: u64,
    /// Steps that move the tx-count.
    pub tx_steps: u32,
    /// Contributors whose counts are unbounded (a loop repeats them).
    pub unbounded: u32,
    /// Spin waits on parity 0 and on parity 1, and other waits.
    pub waits: [u32; 3],
    /// Other uses ([`Signal::Other`]).
    pub others: u32,
}

impl Tally {
    pub fn of(signal: Signal) -> Tally {
        let mut t = Tally::default();
        t.add_signal(signal);
        t
    }

    pub fn add_signal(&mut self, signal: Signal) {
        match signal {
            Signal::Count { arrivals, tx } => {
                self.arrivals = self.arrivals.saturating_add(u64::from(arrivals));
                if tx > 0 {
                    self.tx_up = self.tx_up.saturating_add(tx.unsigned_abs());
                } else {
                    self.tx_down = self.tx_down.saturating_add(tx.unsigned_abs());
                }
                self.tx_steps += u32::from(tx != 0);
            }
            Signal::Wait(Some(false)) => self.waits[0] += 1,
            Signal::Wait(Some(true)) => self.waits[1] += 1,
            Signal::Wait(None) => self.waits[2] += 1,
            Signal::Other => self.others += 1,
        }
    }

    /// The same signals repeated without bound.
    pub fn repeated(mut self) -> Tally {
        if self.arrivals > 0 || self.tx_steps > 0 || self.others > 0 {
            self.unbounded += 1;
        }
        self
    }

    pub fn add(&mut self, other: &Tally) {
        self.arrivals = self.arrivals.saturating_add(other.arrivals);
        self.tx_up = self.tx_up.saturating_add(other.tx_up);
        self.tx_down = self.tx_down.saturating_add(other.tx_down);
        self.tx_steps += other.tx_steps;
        self.unbounded += other.unbounded;
        self.others += other.others;
        for (w, o) in self.waits.iter_mut().zip(other.waits) {
            *w += o;
        }
    }

    /// Some wait here could run while `state`'s phase stays: any but a spin on the current
    /// phase's parity.
    fn may_pass(&self, state: &MbarState) -> bool {
        let [even, odd, tokens] = self.waits;
        let passing = if state.phase & 1 == 0 { odd } else { even };
        tokens > 0 || passing > 0
    }
}

/// The phase of `state` cannot complete by the steps `outside` tallies alone, and no
/// step of them sees anything but that: it is valid, no wait is still due for its last
/// completion (an arrive then would be undefined, and a wait changes that), they use it
/// only to count and wait, and either its pending arrivals outnumber theirs or its
/// tx-count cannot reach zero within the range their counts move it in. Waits on it then
/// stay as they are.
pub fn sealed(state: &MbarState, outside: &Tally) -> bool {
    if !state.valid || state.unobserved || outside.unbounded > 0 || outside.others > 0 {
        return false;
    }
    let now = i128::from(state.tx);
    let (low, high) = (now - i128::from(outside.tx_down), now + i128::from(outside.tx_up));
    i128::from(outside.arrivals) < i128::from(state.pending) || !(low..=high).contains(&0)
}

/// A member's count on `state` (`arrivals`, and `tx` added to the tx-count) commutes with
/// every outside step on it, on every path of outside steps from here. The phase is
/// sealed, the arrivals never overrun it, the tx-count stays in range in either order,
/// and either the phase completes in neither order (its pending count, or its tx-count,
/// cannot reach zero once the member counted), or it completes only once every outside
/// count is done and no outside wait could pass before: then the last count completes it
/// in either order, with the same releases merged.
pub fn quiet(state: &MbarState, outside: &Tally, arrivals: u32, tx: i64) -> bool {
    if !sealed(state, outside) {
        return false;
    }
    let pending = i128::from(state.pending);
    let arrived = i128::from(outside.arrivals) + i128::from(arrivals);
    if arrived > pending {
        return false;
    }
    let now = i128::from(state.tx);
    let (down, up) = (i128::from(outside.tx_down), i128::from(outside.tx_up));
    let (low, high) = (now - down, now + up);
    let tx = i128::from(tx);
    let bound = i128::from(MAX_TX);
    if ![low, high, low + tx, high + tx].iter().all(|v| v.abs() <= bound) {
        return false;
    }
    let never_completes = arrived < pending || !(low + tx..=high + tx).contains(&0);
    // With no outside raise, the tx-count reaches zero only once all outside lowering is done.
    let completes_last = up == 0 && arrived == pending && now + tx == down && !outside.may_pass(state);
    never_completes || completes_last
}

/// A named CTA barrier whose arrivals only count: every `bar` of its CTA names barriers by
/// constant ids, and every one naming it syncs or arrives (no `red`) with the same
/// constant thread count. Its instance completes when that many PTX threads arrived, so
/// thread exits do not move it (a barrier of the whole CTA counts live threads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NamedBar {
    pub cta: usize,
    pub id: u32,
    pub count: u32,
}

/// The named barriers of `layout` whose arrivals only count ([`NamedBar`]).
pub fn named_bars(layout: &Layout) -> Vec<NamedBar> {
    let mut out: Vec<NamedBar> = Vec::new();
    let mut mixed: Vec<(usize, u32)> = Vec::new();
    let mut dynamic: Vec<usize> = Vec::new();
    for t in &layout.threads {
        let cta = t.place.cta;
        for instr in &t.program {
            let Instr::Bar { kind, id, count, .. } = instr.unwrapped() else { continue };
            let Operand::Imm(id) = id else {
                dynamic.push(cta);
                continue;
            };
            let Ok(id) = u32::try_from(*id) else { continue };
            let count = match (kind, count) {
                (BarKind::Sync | BarKind::Arrive, Some(Operand::Imm(c))) => u32::try_from(*c).ok().filter(|c| *c > 0),
                _ => None,
            };
            match (count, out.iter().position(|b| b.cta == cta && b.id == id)) {
                (Some(count), None) => out.push(NamedBar { cta, id, count }),
                (Some(count), Some(at)) if out.get(at).is_some_and(|b| b.count == count) => {}
                _ => mixed.push((cta, id)),
            }
        }
    }
    out.retain(|b| b.id < 16 && !dynamic.contains(&b.cta) && !mixed.contains(&(b.cta, b.id)));
    out
}

/// The named barrier (index into `named`) that `instr`, run in `cta`, arrives at, and
/// whether it then blocks there (`bar.sync`; a guarded one may not arrive at all).
pub fn arrival(named: &[NamedBar], cta: usize, instr: &Instr) -> Option<(usize, bool)> {
    let Instr::Bar { id: Operand::Imm(id), .. } = instr.unwrapped() else { return None };
    let at = named.iter().position(|b| b.cta == cta && i64::from(b.id) == *id)?;
    Some((at, matches!(instr, Instr::Bar { kind: BarKind::Sync, .. })))
}

/// The current instance of `bar` cannot complete by the arrivals `outside` tallies, in
/// PTX threads. A tally stops at a thread's next `bar.sync` there, and leaves out threads
/// already waiting there: what they do after it comes after the instance completed. An
/// arrival twice in one instance is undefined and adds nothing, so counting it errs high.
pub fn named_sealed(bar: &NamedBar, state: Option<&BarState>, outside: &Tally) -> bool {
    let arrived = u64::from(state.map_or(0, |s| s.lanes));
    outside.unbounded == 0 && outside.others == 0 && arrived + outside.arrivals < u64::from(bar.count)
}

/// A member's arrival of `lanes` PTX threads at `bar` commutes with every outside step on
/// it: with every arrival counted the instance never completes, or the last arrival of
/// all completes it in either order (outside threads see only completion).
pub fn named_quiet(bar: &NamedBar, state: Option<&BarState>, outside: &Tally, lanes: u32) -> bool {
    let total = u64::from(state.map_or(0, |s| s.lanes)) + outside.arrivals + u64::from(lanes);
    named_sealed(bar, state, outside) && total <= u64::from(bar.count)
}
