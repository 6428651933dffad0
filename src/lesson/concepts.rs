//! Which lesson teaches each instruction, so `lessons check` can tell when a lesson uses
//! something its prerequisites have not taught yet.
//!
//! [`concepts_of`] is the table from instruction form to concept (an exhaustive match, so
//! a new instruction kind must be placed); [`Concept::taught_in`] names the lesson that
//! introduces each concept. [`check_prerequisites`] walks every program of every lesson.

use super::engine::load;
use super::types::{Block, Lesson, LessonError};
use crate::diag::line_col;
use crate::model::{AddrSpace, Fence, Instr, MbarKind, Proxy, ProxyKind, Scenario, TcOp};

/// An idea a learner must have met before a program using it makes sense.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Concept {
    /// `ld`, `st`, register moves, branches, spins, `exit`.
    Access,
    /// Arriving on and waiting for an mbarrier.
    Mbarrier,
    /// `atom` and `red`.
    Atomic,
    /// `fence.{sc,acq_rel,acquire,release}` and `membar` with no state-space restriction.
    ThreadFence,
    /// `fence.*.sync_restrict::…`.
    RestrictedFence,
    /// A `.shared::cluster` address: a peer CTA's shared memory or mbarrier.
    ClusterMemory,
    /// `barrier.cluster.*`.
    ClusterBarrier,
    /// `bar.*`, `barrier.cta.*`, `__syncthreads()`.
    CtaBarrier,
    /// `mbarrier.init`, `mbarrier.inval`, `fence.mbarrier_init`, `arrive_drop`.
    MbarrierLifecycle,
    /// The transaction count: `expect_tx`, `complete_tx`, `arrive.expect_tx`.
    TxCount,
    /// `st.async` / `red.async`.
    StAsync,
    /// `cp.async.bulk` completed through an mbarrier (TMA load).
    BulkCopy,
    /// Bulk async-groups: `.bulk_group` copies, `commit_group`, `wait_group{.read}`.
    BulkGroup,
    /// `.multicast::cluster` copies and commits.
    Multicast,
    /// The async proxy seen from threads: `fence.proxy.async*`, async-proxy accesses.
    AsyncProxy,
    /// `wgmma.*`.
    Wgmma,
    /// `tcgen05.*`, tensor memory and its allocation.
    Tcgen05,
    /// Non-bulk `cp.async`, its groups and `cp.async.mbarrier.arrive`.
    CpAsync,
    /// The alias, texture, surface, constant and tensormap proxies.
    OtherProxies,
}

impl Concept {
    /// What a diagnostic calls it.
    pub fn name(self) -> &'static str {
        match self {
            Concept::Access => "loads and stores",
            Concept::Mbarrier => "mbarrier arrive and wait",
            Concept::Atomic => "atomics",
            Concept::ThreadFence => "thread fences",
            Concept::RestrictedFence => "restricted (`sync_restrict`) fences",
            Concept::ClusterMemory => "`.shared::cluster` addresses (a peer CTA's shared memory)",
            Concept::ClusterBarrier => "the cluster barrier",
            Concept::CtaBarrier => "CTA barriers",
            Concept::MbarrierLifecycle => "mbarrier initialization and invalidation",
            Concept::TxCount => "the mbarrier transaction count",
            Concept::StAsync => "`st.async`",
            Concept::BulkCopy => "TMA loads (`cp.async.bulk` with an mbarrier)",
            Concept::BulkGroup => "bulk async-groups",
            Concept::Multicast => "multicast",
            Concept::AsyncProxy => "the async proxy and proxy fences",
            Concept::Wgmma => "wgmma",
            Concept::Tcgen05 => "tcgen05 and tensor memory",
            Concept::CpAsync => "non-bulk `cp.async`",
            Concept::OtherProxies => "the alias, texture, surface, constant and tensormap proxies",
        }
    }

    /// The id of the lesson that introduces the concept; `None` when no lesson does yet.
    pub fn taught_in(self) -> Option<&'static str> {
        match self {
            Concept::Access | Concept::Mbarrier => Some("executed-is-not-visible"),
            Concept::Atomic | Concept::ThreadFence => Some("release-acquire"),
            Concept::RestrictedFence | Concept::ClusterMemory | Concept::ClusterBarrier => Some("state-spaces"),
            Concept::CtaBarrier => Some("cta-barriers"),
            Concept::MbarrierLifecycle | Concept::StAsync => Some("cluster-handoffs"),
            Concept::TxCount => Some("mbarrier-debts"),
            Concept::BulkCopy => Some("tma-load"),
            Concept::BulkGroup | Concept::AsyncProxy => Some("tma-store"),
            Concept::Wgmma => Some("wgmma-operands"),
            Concept::Tcgen05 => Some("tcgen05"),
            Concept::Multicast => Some("pipelines"),
            Concept::CpAsync => Some("relay-warp-case-study"),
            Concept::OtherProxies => None,
        }
    }
}

/// The concepts an instruction relies on.
pub fn concepts_of(instr: &Instr) -> Vec<Concept> {
    let cluster_addressed = |space: &Option<AddrSpace>| *space == Some(AddrSpace::SharedCluster);
    let mut out = match instr {
        Instr::Ld { space, proxy, .. } | Instr::St { space, proxy, .. } => {
            let mut c = vec![proxy_concept(*proxy)];
            c.extend(cluster_addressed(space).then_some(Concept::ClusterMemory));
            c
        }
        Instr::Atom { space, .. } => {
            let mut c = vec![Concept::Atomic];
            c.extend(cluster_addressed(space).then_some(Concept::ClusterMemory));
            c
        }
        Instr::Fence(Fence::Thread { restrict: None, .. }) => vec![Concept::ThreadFence],
        Instr::Fence(Fence::Thread { restrict: Some(_), .. }) => vec![Concept::ThreadFence, Concept::RestrictedFence],
        Instr::Fence(Fence::MbarrierInit) => vec![Concept::MbarrierLifecycle],
        Instr::Fence(Fence::Proxy(kind)) => vec![match kind {
            ProxyKind::Async { .. } | ProxyKind::AsyncGeneric { .. } => Concept::AsyncProxy,
            ProxyKind::Alias | ProxyKind::Texture | ProxyKind::Surface | ProxyKind::Constant | ProxyKind::Tensormap { .. } => {
                Concept::OtherProxies
            }
        }],
        Instr::Bar { .. } => vec![Concept::CtaBarrier],
        Instr::ClusterArrive { .. } | Instr::ClusterWait => vec![Concept::ClusterBarrier],
        Instr::Mbar(op) => {
            let mut c = vec![match &op.kind {
                MbarKind::Init { .. } | MbarKind::Inval => Concept::MbarrierLifecycle,
                MbarKind::ExpectTx { .. } | MbarKind::CompleteTx { .. } => Concept::TxCount,
                MbarKind::Arrive { expect_tx: Some(_), .. } => Concept::TxCount,
                MbarKind::Arrive { drop: true, .. } => Concept::MbarrierLifecycle,
                MbarKind::Arrive { .. } | MbarKind::Wait { .. } | MbarKind::PendingCount { .. } => Concept::Mbarrier,
            }];
            c.extend(cluster_addressed(&op.space).then_some(Concept::ClusterMemory));
            c
        }
        Instr::CpAsync { .. } | Instr::CpAsyncCommit | Instr::CpAsyncWait { .. } | Instr::CpAsyncWaitAll => {
            vec![Concept::CpAsync]
        }
        Instr::CpAsyncMbarArrive { space, .. } => {
            let mut c = vec![Concept::CpAsync];
            c.extend(cluster_addressed(space).then_some(Concept::ClusterMemory));
            c
        }
        Instr::Bulk { mbar, multicast, .. } => {
            let mut c = vec![if mbar.is_some() { Concept::BulkCopy } else { Concept::BulkGroup }];
            c.extend((!multicast.is_empty()).then_some(Concept::Multicast));
            c
        }
        Instr::BulkCommit | Instr::BulkWait { .. } => vec![Concept::BulkGroup],
        Instr::StAsync { .. } => vec![Concept::StAsync, Concept::TxCount, Concept::ClusterMemory],
        Instr::Wgmma(_) => vec![Concept::Wgmma],
        Instr::Tc(op) => {
            let multicast = matches!(op, TcOp::Commit { multicast, .. } if !multicast.is_empty());
            let mut c = vec![Concept::Tcgen05];
            c.extend(multicast.then_some(Concept::Multicast));
            c
        }
        Instr::Wait { instr, .. } | Instr::Ranged { instr, .. } => concepts_of(instr),
        Instr::Guarded { instr, .. } => {
            let mut c = concepts_of(instr);
            c.push(Concept::Access);
            c
        }
        Instr::Label(_) | Instr::Branch { .. } | Instr::Mov { .. } | Instr::Add { .. } | Instr::SetP { .. } | Instr::Exit => {
            vec![Concept::Access]
        }
    };
    out.dedup();
    out
}

fn proxy_concept(proxy: Proxy) -> Concept {
    match proxy {
        Proxy::Generic => Concept::Access,
        Proxy::Async => Concept::AsyncProxy,
        Proxy::Texture | Proxy::Surface | Proxy::Constant | Proxy::Tensormap => Concept::OtherProxies,
    }
}

/// For each lesson of `course` (file name and lesson, in course order), every instruction
/// of its scenarios and exercises that relies on a concept neither the lesson nor one of
/// its prerequisites (transitively) introduces. Each problem names the instruction, its
/// lesson line, the concept and where the concept is taught.
pub fn check_prerequisites(course: &[(&str, &Lesson)]) -> Vec<(String, LessonError)> {
    let mut out = Vec::new();
    for (file, lesson) in course {
        let known = reachable(course, &lesson.meta.id);
        for (source, first_line) in programs(lesson) {
            // A program that does not load is reported by `lint_lesson`.
            let Ok(scenario) = load(source, first_line) else { continue };
            for (line, text, concept) in uses(&scenario, source, first_line) {
                let Some(problem) = untaught(concept, &known, course, &lesson.meta.id) else { continue };
                out.push((file.to_string(), LessonError::new(line, format!("`{text}` uses {}, {problem}", concept.name()))));
            }
        }
    }
    out
}

/// Why `concept` is not known in lesson `id`, or `None` when it is.
fn untaught(concept: Concept, known: &[&str], course: &[(&str, &Lesson)], id: &str) -> Option<String> {
    let Some(teacher) = concept.taught_in() else { return Some("which no lesson teaches".into()) };
    if known.contains(&teacher) {
        return None;
    }
    let Some((file, _)) = course.iter().find(|(_, l)| l.meta.id == teacher) else {
        return Some(format!("taught in lesson `{teacher}`, which this course does not have"));
    };
    Some(format!("taught in lesson `{teacher}` ({file}), which is not a prerequisite of `{id}`"))
}

/// `id` and every lesson its prerequisites reach.
fn reachable<'a>(course: &[(&str, &'a Lesson)], id: &'a str) -> Vec<&'a str> {
    let mut known = vec![id];
    let mut next = 0;
    while let Some(current) = known.get(next).copied() {
        next += 1;
        let Some((_, lesson)) = course.iter().find(|(_, l)| l.meta.id == current) else { continue };
        for pre in &lesson.meta.prerequisites {
            if !known.contains(&pre.as_str()) {
                known.push(pre);
            }
        }
    }
    known
}

/// Every `.fence` program in a lesson with its first lesson line.
fn programs(lesson: &Lesson) -> Vec<(&str, usize)> {
    let mut out = Vec::new();
    for block in &lesson.blocks {
        match block {
            Block::Prose(_) => {}
            Block::Scenario { source, line, .. } => out.push((source.as_str(), *line)),
            Block::Exercise(ex) => {
                out.extend([&ex.start, &ex.solution].into_iter().filter(|p| !p.source.is_empty()).map(|p| (p.source.as_str(), p.line)));
            }
        }
    }
    out
}

/// Each instruction's concepts, with its lesson line and source text, first use only.
fn uses(scenario: &Scenario, source: &str, first_line: usize) -> Vec<(usize, String, Concept)> {
    let parsed = crate::syntax::parse(source);
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for (t, thread) in scenario.threads.iter().enumerate() {
        for (i, instr) in thread.program.iter().enumerate() {
            for concept in concepts_of(instr) {
                if seen.contains(&concept) {
                    continue;
                }
                seen.push(concept);
                let span = parsed.source_map.instr(t, i);
                let line = span.map_or(first_line, |s| first_line + line_col(source, s.start).0 - 1);
                let text = span
                    .and_then(|s| source.get(s.start as usize..s.end as usize))
                    .map_or_else(|| crate::syntax::instr_text(instr), |t| t.trim().to_string());
                out.push((line, text, concept));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::parse_lesson;

    fn lesson(id: &str, prerequisites: &str, program: &str) -> Lesson {
        let src = format!("---\nid: {id}\ntitle: T\norder: 1\nprerequisites: [{prerequisites}]\n---\nIntro.\n\n```fence\n{program}```\n");
        let (lesson, errors) = parse_lesson(&src);
        assert_eq!(errors, vec![]);
        lesson
    }

    const FENCED: &str = "cta A\nshared x @A = 0\n\nthread t @A:\n    st.shared [x], 1\n    fence.sc.cta\nexpect correct\n";

    #[test]
    fn an_untaught_instruction_is_named_with_its_line_and_teacher() {
        let first = lesson("executed-is-not-visible", "", FENCED);
        let found = check_prerequisites(&[("01.md", &first)]);
        assert_eq!(found.len(), 1, "{found:?}");
        // Front matter 5 lines, prose 2, fence line 9: the fence is the program's line 6.
        assert_eq!(found[0].1.line, 15, "{found:?}");
        assert!(found[0].1.message.contains("`fence.sc.cta` uses thread fences"), "{found:?}");
        assert!(found[0].1.message.contains("which this course does not have"), "{found:?}");

        let teacher = lesson("release-acquire", "", "cta A\nexpect correct\n");
        let found = check_prerequisites(&[("01.md", &first), ("02.md", &teacher)]);
        assert!(found[0].1.message.contains("taught in lesson `release-acquire` (02.md), which is not a prerequisite"), "{found:?}");
    }

    #[test]
    fn prerequisites_count_transitively() {
        let basics = lesson("executed-is-not-visible", "", "cta A\nexpect correct\n");
        let teacher = lesson("release-acquire", "executed-is-not-visible", "cta A\nexpect correct\n");
        let middle = lesson("scopes", "release-acquire", "cta A\nexpect correct\n");
        let user = lesson("state-spaces", "scopes", FENCED);
        let course = [("a.md", &basics), ("b.md", &teacher), ("c.md", &middle), ("d.md", &user)];
        assert_eq!(check_prerequisites(&course), vec![]);
    }

    #[test]
    fn a_spin_counts_as_what_it_repeats_and_multicast_is_its_own_concept() {
        let spin = crate::load("cta A\nmbarrier b @A count 1\nthread t @A:\n    wait mbarrier.try_wait.parity.shared::cta [b], 0\n").scenario;
        assert_eq!(concepts_of(&spin.threads[0].program[0]), vec![Concept::Mbarrier]);
        let src = "cluster C\ncta A in C\ncta B in C\nglobal g = 1 size 16\nshared sa @A = 0 size 16\nshared sb @B = 0 size 16\n\
mbarrier fa @A count 1\nmbarrier fb @B count 1\nthread t @A:\n    \
cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [sa], [g], 16, [fa], ([sb], [fb])\n";
        let multicast = crate::load(src).scenario;
        assert_eq!(concepts_of(&multicast.threads[0].program[0]), vec![Concept::BulkCopy, Concept::Multicast]);
    }
}
