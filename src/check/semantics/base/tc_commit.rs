//! Which `tcgen05.commit` tracks an asynchronous tcgen05 operation, and whom it signals
//! (reference §8.3): the blame for a wait nothing signals, or for a peer CTA that exits
//! under a pair's mma, is often a commit whose arrive-on targets miss the waiter's barrier
//! or the peer's CTA. Read from the programs alone: the commit may not have run yet.

use super::exec::instr_text;
use crate::check::machine::{InstrRef, Layout};
use crate::model::{Instr, Object, Space, TcOp, Use};

/// A commit that tracks an operation, and the mbarriers (indices) its arrive-ons reach.
pub struct Tracking {
    pub commit: InstrRef,
    pub targets: Vec<usize>,
}

/// Whether a commit tracks the operation `instr` issues (§8.3: mma, cp and shift; ld and
/// st complete through `wait::ld`/`wait::st`).
fn is_tracked(instr: &Instr) -> bool {
    match instr.unwrapped() {
        Instr::Tc(op) => match op {
            TcOp::Mma { .. } | TcOp::MmaPair { .. } | TcOp::Cp { .. } | TcOp::Shift { .. } => true,
            TcOp::Alloc { .. }
            | TcOp::Dealloc { .. }
            | TcOp::Relinquish { .. }
            | TcOp::Ld { .. }
            | TcOp::St { .. }
            | TcOp::Commit { .. }
            | TcOp::WaitLd
            | TcOp::WaitSt
            | TcOp::FenceBeforeThreadSync
            | TcOp::FenceAfterThreadSync => false,
        },
        _ => false,
    }
}

fn instr_at(layout: &Layout, at: InstrRef) -> Option<&Instr> {
    layout.threads.get(at.thread())?.program.get(at.pc())
}

/// The commit that tracks the operation issued at `op`: the first `tcgen05.commit` after it
/// in its thread's program (a commit tracks every such operation its thread issued before
/// it). `None` when `op` is no tracked operation or no commit follows it.
pub fn tracking_commit(layout: &Layout, op: InstrRef) -> Option<Tracking> {
    if !instr_at(layout, op).is_some_and(is_tracked) {
        return None;
    }
    let program = &layout.threads.get(op.thread())?.program;
    program.iter().enumerate().skip(op.pc() + 1).find_map(|(pc, instr)| match instr.unwrapped() {
        Instr::Tc(TcOp::Commit { bar, multicast, .. }) => {
            let targets = std::iter::once(bar).chain(multicast).filter_map(|b| layout.mbar(b).ok()).collect();
            Some(Tracking { commit: InstrRef::new(op.thread(), pc), targets })
        }
        _ => None,
    })
}

/// The CTA whose shared memory holds mbarrier `bar`.
pub fn mbar_cta(layout: &Layout, bar: usize) -> Option<usize> {
    match layout.locs.get(*layout.mbar_locs.get(bar)?)?.space {
        Space::Shared(cta) => Some(cta),
        Space::Global | Space::Tmem(_) => None,
    }
}

pub fn mbar_name(layout: &Layout, bar: usize) -> &str {
    layout.mbar_locs.get(bar).and_then(|l| layout.locs.get(*l)).map_or("?", |l| l.name.as_str())
}

/// The targets of a commit, in words: "`done0`", "`done0` and `done2`".
pub fn targets_text(layout: &Layout, targets: &[usize]) -> String {
    let names: Vec<String> = targets.iter().map(|b| format!("`{}`", mbar_name(layout, *b))).collect();
    names.join(" and ")
}

/// A wait that nothing signals, blamed on the commit that should: the waiting thread goes
/// on to read tensor memory that a tracked operation writes, and the commit tracking that
/// operation arrives elsewhere.
pub struct UnsignalledWait {
    pub wait: InstrRef,
    pub bar: usize,
    pub tmem: String,
    pub writer: InstrRef,
    pub tracking: Tracking,
}

/// For the mbarrier wait at `wait`: when no instruction of any program signals its barrier
/// (arrive, expect-tx, complete-tx or commit), the commit that tracks the operation whose
/// tensor-memory result the waiting thread reads afterwards, if that commit misses the
/// barrier. A barrier that someone signals is no commit's fault: its debt is elsewhere.
pub fn unsignalled_wait(layout: &Layout, wait: InstrRef) -> Option<UnsignalledWait> {
    let bar = instr_at(layout, wait)?
        .facts()
        .names
        .iter()
        .find(|n| n.object == Object::Mbarrier && n.how == Use::Wait)
        .and_then(|n| layout.mbar(n.name).ok())?;
    let programs = || layout.threads.iter().enumerate().flat_map(|(t, info)| info.program.iter().enumerate().map(move |(pc, i)| (InstrRef::new(t, pc), i)));
    let signals = |instr: &Instr| {
        instr.unwrapped().facts().names.iter().any(|n| {
            n.object == Object::Mbarrier && matches!(n.how, Use::Arrive | Use::Transaction) && layout.mbar(n.name).ok() == Some(bar)
        })
    };
    if programs().any(|(_, i)| signals(i)) {
        return None;
    }
    let cell = |name: &str| layout.loc(name).ok().and_then(|l| layout.locs.get(l)).map(|l| l.cell);
    let waiter = layout.threads.get(wait.thread())?;
    let read_after: Vec<(usize, &str)> = waiter
        .program
        .get(wait.pc()..)?
        .iter()
        .flat_map(|i| i.unwrapped().facts().names.into_iter().filter(|n| n.object == Object::Tmem && matches!(n.how, Use::Read | Use::Update | Use::CopyFrom)))
        .filter_map(|n| Some((cell(n.name)?, n.name)))
        .collect();
    programs().find_map(|(at, instr)| {
        let facts = instr.unwrapped().facts();
        let written = facts.names.iter().filter(|n| n.object == Object::Tmem && matches!(n.how, Use::Write | Use::Update | Use::CopyTo));
        let tmem = written.filter_map(|n| cell(n.name)).find_map(|c| read_after.iter().find(|(r, _)| *r == c))?.1;
        let tracking = tracking_commit(layout, at)?;
        (!tracking.targets.contains(&bar)).then(|| UnsignalledWait { wait, bar, tmem: tmem.to_string(), writer: at, tracking })
    })
}

impl UnsignalledWait {
    /// One sentence that names the commit to change.
    pub fn sentence(&self, layout: &Layout) -> String {
        let bar = mbar_name(layout, self.bar);
        let issuer = layout.threads.get(self.writer.thread());
        // A commit reaches a barrier of another CTA only through its multicast.
        let how = if issuer.map(|t| t.place.cta) == mbar_cta(layout, self.bar) { "" } else { " through `.multicast::cluster`" };
        format!(
            "Nothing signals `{bar}`. {} waits there for `{}`, which an operation that {} issues writes; the `{}` \
             that tracks that operation arrives on {} only: make it arrive on `{bar}` too{how} (§8.3).",
            layout.threads.get(self.wait.thread()).map_or_else(|| "A thread".to_string(), |t| format!("`{}`", t.name)),
            self.tmem,
            issuer.map_or_else(|| "another thread".to_string(), |t| format!("`{}`", t.name)),
            instr_text(layout, self.tracking.commit),
            targets_text(layout, &self.tracking.targets),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check, Options, Verdict};

    const MISSES_PEER: &str = include_str!("../../../../tests/scenarios/pairs/mainloop_stage_commit_misses_peer.fence");
    const PEER_EXITS: &str = include_str!("../../../../tests/scenarios/pairs/mainloop_stage_peer_exits_during_mma.fence");
    const COMMIT: &str = "tcgen05.commit.cta_group::2.mbarrier::arrive::one [done0]";
    const MULTICAST: &str = "tcgen05.commit.cta_group::2.mbarrier::arrive::one.multicast::cluster [done0], [done1]";

    fn layout(src: &str) -> std::rc::Rc<Layout> {
        let loaded = crate::load(src);
        assert!(!loaded.has_errors(), "{src}");
        crate::check::step::start(&loaded.scenario).map(|(layout, _)| layout).unwrap_or_else(|e| panic!("{e}"))
    }

    fn at(layout: &Layout, thread: &str, pc: usize) -> InstrRef {
        InstrRef::new(layout.threads.iter().position(|t| t.name == thread).unwrap_or(usize::MAX), pc)
    }

    #[test]
    fn the_commit_after_an_mma_tracks_it_and_none_tracks_an_ld() {
        let l = layout(MISSES_PEER);
        let tracking = tracking_commit(&l, at(&l, "mma", 3)).map(|t| (t.commit, t.targets.iter().map(|b| mbar_name(&l, *b).to_string()).collect::<Vec<_>>()));
        assert_eq!(tracking, Some((at(&l, "mma", 4), vec!["done0".to_string()])));
        assert!(tracking_commit(&l, at(&l, "mma", 7)).is_none(), "a tcgen05.ld completes through wait::ld");
    }

    #[test]
    fn a_wait_nothing_signals_names_the_commit_that_misses_its_barrier() {
        let l = layout(MISSES_PEER);
        let found = unsignalled_wait(&l, at(&l, "epi1", 0)).map(|u| (u.tracking.commit, mbar_name(&l, u.bar).to_string(), u.tmem));
        assert_eq!(found, Some((at(&l, "mma", 4), "done1".to_string(), "acc1".to_string())));
    }

    /// Never a bystander: a barrier that some instruction signals owes its debt elsewhere.
    #[test]
    fn a_barrier_something_signals_blames_no_commit() {
        let multicast = MISSES_PEER.replace(COMMIT, MULTICAST);
        let l = layout(&multicast);
        assert!(unsignalled_wait(&l, at(&l, "epi1", 0)).is_none());
        let other_arrive = MISSES_PEER.replace("thread epi1 @P:\n", "thread epi1 @P:\n    mbarrier.arrive.shared::cta [done1]\n");
        let l = layout(&other_arrive);
        assert!(unsignalled_wait(&l, at(&l, "epi1", 1)).is_none());
    }

    #[test]
    fn a_peer_exiting_under_the_pair_mma_names_the_commit_only_when_it_misses_the_peer() {
        let explanation = |src: &str| {
            let report = check(&crate::load(src).scenario, &Options::default());
            assert_eq!(report.verdict, Verdict::Undefined, "{src}");
            report.findings.first().map(|f| f.explanation.clone()).unwrap_or_default()
        };
        assert!(explanation(PEER_EXITS).contains(&format!("`{COMMIT}` that tracks it arrives on `done0` only")));
        // The commit reaches `P`, but no thread of `P` waits: the commit is not what to change.
        let reaches_peer = PEER_EXITS.replace(COMMIT, MULTICAST).replace("mbarrier done0 @L count 1\n", "mbarrier done0 @L count 1\nmbarrier done1 @P count 1\n");
        assert!(!explanation(&reaches_peer).contains("that tracks it"));
    }
}
