//! Short instruction texts for messages and the stepping UI (mnemonic level; the syntax
//! printer owns the canonical form).

use crate::model::{
    AtomOp, BarKind, Fence, FenceSem, Instr, MbarKind, Operand, Proxy, ProxyKind, Scope, Sem,
    SyncRestrict, TcOp, WgmmaOp,
};

pub fn scope(s: Scope) -> &'static str {
    match s {
        Scope::Cta => ".cta",
        Scope::Cluster => ".cluster",
        Scope::Gpu => ".gpu",
        Scope::Sys => ".sys",
    }
}

pub fn sem(s: Sem) -> &'static str {
    match s {
        Sem::Weak => ".weak",
        Sem::Relaxed => ".relaxed",
        Sem::Acquire => ".acquire",
        Sem::Release => ".release",
        Sem::AcqRel => ".acq_rel",
        Sem::Volatile => ".volatile",
        Sem::Mmio => ".mmio",
    }
}

fn fence_sem(s: FenceSem) -> &'static str {
    match s {
        FenceSem::Sc => ".sc",
        FenceSem::AcqRel => ".acq_rel",
        FenceSem::Acquire => ".acquire",
        FenceSem::Release => ".release",
    }
}

fn operand(o: &Operand) -> String {
    match o {
        Operand::Imm(v) => v.to_string(),
        Operand::Reg(r) => r.clone(),
    }
}

fn atom_op(op: AtomOp) -> &'static str {
    match op {
        AtomOp::Add => ".add",
        AtomOp::Inc => ".inc",
        AtomOp::Dec => ".dec",
        AtomOp::Exch => ".exch",
        AtomOp::Max => ".max",
        AtomOp::Min => ".min",
        AtomOp::And => ".and",
        AtomOp::Or => ".or",
        AtomOp::Xor => ".xor",
        AtomOp::Cas => ".cas",
    }
}

fn mods(sem_: Option<Sem>, scope_: Option<Scope>) -> String {
    format!("{}{}", sem_.map_or("", sem), scope_.map_or("", scope))
}

fn restrict(r: SyncRestrict) -> &'static str {
    match r {
        SyncRestrict::SharedCta => ".sync_restrict::shared::cta",
        SyncRestrict::SharedCluster => ".sync_restrict::shared::cluster",
    }
}

/// One-line text of an instruction.
pub fn instr(i: &Instr) -> String {
    match i {
        Instr::Ld { sem, scope, proxy, dst, addr, .. } => {
            let op = match proxy {
                Proxy::Texture => "tld",
                Proxy::Surface => "suld",
                Proxy::Constant => "ld.const",
                _ => "ld",
            };
            format!("{op}{} {dst}, [{addr}]", mods(*sem, *scope))
        }
        Instr::St { sem, scope, proxy, addr, src, .. } => {
            let op = if *proxy == Proxy::Surface { "sust" } else { "st" };
            format!("{op}{} [{addr}], {}", mods(*sem, *scope), operand(src))
        }
        Instr::Atom { op, sem, scope, dst, addr, args, .. } => {
            let args: Vec<String> = args.iter().map(operand).collect();
            match dst {
                Some(d) => format!("atom{}{} {d}, [{addr}], {}", mods(*sem, *scope), atom_op(*op), args.join(", ")),
                None => format!("red{}{} [{addr}], {}", mods(*sem, *scope), atom_op(*op), args.join(", ")),
            }
        }
        Instr::Fence(f) => fence(f),
        Instr::Bar { kind, id, count, .. } => {
            let k = match kind {
                BarKind::Sync => "sync",
                BarKind::Arrive => "arrive",
                BarKind::Red => "red",
            };
            match count {
                Some(c) => format!("bar.{k} {}, {}", operand(id), operand(c)),
                None => format!("bar.{k} {}", operand(id)),
            }
        }
        Instr::ClusterArrive { sem: s } => format!("barrier.cluster.arrive{}", s.map_or("", sem)),
        Instr::ClusterWait => "barrier.cluster.wait".into(),
        Instr::Mbar(op) => {
            let m = mods(op.sem, op.scope);
            let bar = &op.bar;
            match &op.kind {
                MbarKind::Init { count } => format!("mbarrier.init [{bar}], {count}"),
                MbarKind::Inval => format!("mbarrier.inval [{bar}]"),
                MbarKind::ExpectTx { bytes } => format!("mbarrier.expect_tx{m} [{bar}], {bytes}"),
                MbarKind::CompleteTx { bytes } => format!("mbarrier.complete_tx{m} [{bar}], {bytes}"),
                MbarKind::Arrive { count, expect_tx, no_complete, drop, .. } => {
                    let name = if *drop { "arrive_drop" } else { "arrive" };
                    let nc = if *no_complete { ".noComplete" } else { "" };
                    let space = match op.space {
                        Some(crate::model::AddrSpace::SharedCluster) => ".shared::cluster",
                        Some(crate::model::AddrSpace::SharedCta) => ".shared::cta",
                        _ => "",
                    };
                    match (expect_tx, count) {
                        (Some(b), _) => format!("mbarrier.{name}.expect_tx{nc}{m}{space} [{bar}], {b}"),
                        (None, Some(c)) => format!("mbarrier.{name}{nc}{m}{space} [{bar}], {c}"),
                        (None, None) => format!("mbarrier.{name}{nc}{m}{space} [{bar}]"),
                    }
                }
                MbarKind::Wait { blocking, parity, phase, .. } => {
                    let name = if *blocking { "try_wait" } else { "test_wait" };
                    let p = if *parity { ".parity" } else { "" };
                    format!("mbarrier.{name}{p}{m} [{bar}], {}", operand(phase))
                }
                MbarKind::PendingCount { dst, state } => format!("mbarrier.pending_count {dst}, {state}"),
            }
        }
        Instr::CpAsync { dst, src, bytes } => format!("cp.async [{dst}], [{src}], {bytes}"),
        Instr::CpAsyncCommit => "cp.async.commit_group".into(),
        Instr::CpAsyncWait { n } => format!("cp.async.wait_group {n}"),
        Instr::CpAsyncWaitAll => "cp.async.wait_all".into(),
        Instr::CpAsyncMbarArrive { bar, noinc, .. } => {
            format!("cp.async.mbarrier.arrive{} [{bar}]", if *noinc { ".noinc" } else { "" })
        }
        Instr::Bulk { dst, src, bytes, mbar, .. } => match mbar {
            Some(b) => format!("cp.async.bulk [{dst}], [{src}], {bytes}, [{b}]"),
            None => format!("cp.async.bulk.bulk_group [{dst}], [{src}], {bytes}"),
        },
        Instr::BulkCommit => "cp.async.bulk.commit_group".into(),
        Instr::BulkWait { n, read } => format!("cp.async.bulk.wait_group{} {n}", if *read { ".read" } else { "" }),
        Instr::StAsync { addr, src, mbar, .. } => format!("st.async [{addr}], {}, [{mbar}]", operand(src)),
        Instr::Wgmma(w) => match w {
            WgmmaOp::Fence => "wgmma.fence".into(),
            WgmmaOp::MmaAsync { acc, a, b } => format!("wgmma.mma_async {acc}, [{a}], [{b}]"),
            WgmmaOp::CommitGroup => "wgmma.commit_group".into(),
            WgmmaOp::WaitGroup { n } => format!("wgmma.wait_group {n}"),
        },
        Instr::Tc(t) => tc(t),
        Instr::Label(l) => format!("{l}:"),
        Instr::Branch { target, cond } => match cond {
            None => format!("bra {target}"),
            Some((a, op, b)) => format!("@({} {op:?} {}) bra {target}", operand(a), operand(b)),
        },
        Instr::Mov { dst, src } => format!("mov {dst}, {}", operand(src)),
        Instr::Add { dst, a, b } => format!("add {dst}, {}, {}", operand(a), operand(b)),
        Instr::Wait { instr: inner, until } => match until {
            Some(t) => format!("wait {} until {:?} {}", instr(inner), t.op, operand(&t.value)),
            None => format!("wait {}", instr(inner)),
        },
        Instr::Exit => "exit".into(),
    }
}

pub fn fence(f: &Fence) -> String {
    match f {
        Fence::Thread { sem, scope: s, restrict: r, .. } => format!(
            "fence{}{}{}",
            sem.map_or("", fence_sem),
            r.map_or("", restrict),
            scope(*s)
        ),
        Fence::MbarrierInit => "fence.mbarrier_init.release.cluster".into(),
        Fence::Proxy(p) => match p {
            ProxyKind::Alias => "fence.proxy.alias".into(),
            ProxyKind::Texture => "fence.proxy.texture".into(),
            ProxyKind::Surface => "fence.proxy.surface".into(),
            ProxyKind::Constant => "fence.proxy.constant".into(),
            ProxyKind::Async { .. } => "fence.proxy.async".into(),
            ProxyKind::AsyncGeneric { sem, restrict: r } => {
                format!("fence.proxy.async::generic{}{}.cluster", fence_sem(*sem), restrict(*r))
            }
            ProxyKind::Tensormap { sem, scope: s } => {
                format!("fence.proxy.tensormap::generic{}{}", fence_sem(*sem), scope(*s))
            }
        },
    }
}

fn tc(t: &TcOp) -> String {
    match t {
        TcOp::Alloc { dst, cols, .. } => format!("tcgen05.alloc [{dst}], {cols}"),
        TcOp::Dealloc { cols, .. } => format!("tcgen05.dealloc {cols}"),
        TcOp::Relinquish { .. } => "tcgen05.relinquish_alloc_permit".into(),
        TcOp::Mma { d, a, b, .. } => format!("tcgen05.mma [{d}], [{a}], [{b}]"),
        TcOp::Cp { dst, src, .. } => format!("tcgen05.cp [{dst}], [{src}]"),
        TcOp::Shift { tmem, .. } => format!("tcgen05.shift [{tmem}]"),
        TcOp::Ld { dst, src } => format!("tcgen05.ld {dst}, [{src}]"),
        TcOp::St { dst, src } => format!("tcgen05.st [{dst}], {}", operand(src)),
        TcOp::Commit { bar, .. } => format!("tcgen05.commit [{bar}]"),
        TcOp::WaitLd => "tcgen05.wait::ld".into(),
        TcOp::WaitSt => "tcgen05.wait::st".into(),
        TcOp::FenceBeforeThreadSync => "tcgen05.fence::before_thread_sync".into(),
        TcOp::FenceAfterThreadSync => "tcgen05.fence::after_thread_sync".into(),
    }
}
