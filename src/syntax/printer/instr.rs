//! One instruction in canonical form.

use crate::model::{
    AddrSpace, AtomOp, BarKind, BulkDir, Fence, FenceSem, Instr, MbarKind, MbarOp, Operand, Proxy, ProxyKind, Scope,
    Sem, Sugar, SyncRestrict, TcOp, WgmmaOp,
};

/// The indented line for `instr`, with its default note if any.
pub fn line(instr: &Instr) -> String {
    if let Instr::Label(name) = instr {
        return format!("  {name}:");
    }
    let text = instr_text(instr);
    match default_note(instr) {
        Some(note) => format!("    {text}  # = {note} (default)"),
        None => format!("    {text}"),
    }
}

pub fn sem_str(sem: Sem) -> &'static str {
    match sem {
        Sem::Weak => ".weak",
        Sem::Relaxed => ".relaxed",
        Sem::Acquire => ".acquire",
        Sem::Release => ".release",
        Sem::AcqRel => ".acq_rel",
        Sem::Volatile => ".volatile",
        Sem::Mmio => ".mmio",
    }
}

pub fn scope_str(scope: Scope) -> &'static str {
    match scope {
        Scope::Cta => ".cta",
        Scope::Cluster => ".cluster",
        Scope::Gpu => ".gpu",
        Scope::Sys => ".sys",
    }
}

/// `.shared` and `.shared::cta` are the same; the explicit form is printed so it reads
/// clearly next to `.shared::cluster`.
fn space_str(space: AddrSpace) -> &'static str {
    match space {
        AddrSpace::Global => ".global",
        AddrSpace::SharedCta => ".shared::cta",
        AddrSpace::SharedCluster => ".shared::cluster",
    }
}

fn fence_sem_str(sem: FenceSem) -> &'static str {
    match sem {
        FenceSem::Sc => ".sc",
        FenceSem::AcqRel => ".acq_rel",
        FenceSem::Acquire => ".acquire",
        FenceSem::Release => ".release",
    }
}

fn restrict_str(r: SyncRestrict) -> &'static str {
    match r {
        SyncRestrict::SharedCta => ".sync_restrict::shared::cta",
        SyncRestrict::SharedCluster => ".sync_restrict::shared::cluster",
    }
}

pub fn atom_op_str(op: AtomOp) -> &'static str {
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

fn op(o: &Operand) -> String {
    match o {
        Operand::Imm(n) => n.to_string(),
        Operand::Reg(r) => r.clone(),
    }
}

/// `.sem.scope.space`, each part optional.
fn mods(sem: Option<Sem>, scope: Option<Scope>, space: Option<AddrSpace>) -> String {
    let mut s = String::new();
    s.push_str(sem.map_or("", sem_str));
    s.push_str(scope.map_or("", scope_str));
    s.push_str(space.map_or("", space_str));
    s
}

/// [`mods`] of an `ld`/`st`, where PTX spells MMIO `.mmio.relaxed.sys` (§9.7.9.8).
fn access_mods(sem: Option<Sem>, scope: Option<Scope>, space: Option<AddrSpace>) -> String {
    match sem {
        Some(Sem::Mmio) => format!(".mmio.relaxed{}", mods(None, scope, space)),
        _ => mods(sem, scope, space),
    }
}

/// What a defaulted semantics/scope stands for, e.g. `.release.cta`; `None` when nothing
/// was defaulted. Plain `ld`/`st` are weak and carry no note (weak is not a default
/// strength, it is the absence of one).
pub fn default_note(instr: &Instr) -> Option<String> {
    let pair = |sem: Option<Sem>, scope: Option<Scope>, dsem: &str, dscope: &str| {
        let note = format!("{}{}", if sem.is_none() { dsem } else { "" }, if scope.is_none() { dscope } else { "" });
        Some(note).filter(|n| !n.is_empty())
    };
    match instr {
        Instr::Atom { sem, scope, .. } => pair(*sem, *scope, ".relaxed", ".gpu"),
        Instr::Fence(Fence::Thread { sem: None, sugar: None, .. }) => Some(".acq_rel".into()),
        Instr::ClusterArrive { sem: None } => Some(".release".into()),
        Instr::Mbar(MbarOp { kind, sem, scope, .. }) => match kind {
            MbarKind::Arrive { .. } => pair(*sem, *scope, ".release", ".cta"),
            MbarKind::Wait { .. } => pair(*sem, *scope, ".acquire", ".cta"),
            MbarKind::ExpectTx { .. } | MbarKind::CompleteTx { .. } => pair(*sem, *scope, ".relaxed", ".cta"),
            _ => None,
        },
        Instr::Wait { instr, .. } | Instr::Ranged { instr, .. } | Instr::Guarded { instr, .. } => default_note(instr),
        _ => None,
    }
}

pub fn instr_text(instr: &Instr) -> String {
    match instr {
        Instr::Ld { sem, scope, space, proxy, dst, addr } => {
            let m = access_mods(*sem, *scope, *space);
            match proxy {
                Proxy::Texture => format!("tld{m} {dst}, [{addr}]"),
                Proxy::Surface => format!("suld{m} {dst}, [{addr}]"),
                Proxy::Constant => format!("ld{m}.const {dst}, [{addr}]"),
                _ => format!("ld{m} {dst}, [{addr}]"),
            }
        }
        Instr::St { sem, scope, space, proxy, addr, src } => {
            let m = access_mods(*sem, *scope, *space);
            let head = if *proxy == Proxy::Surface { "sust" } else { "st" };
            format!("{head}{m} [{addr}], {}", op(src))
        }
        Instr::Atom { op: aop, sem, scope, space, dst, addr, args } => {
            let m = mods(*sem, *scope, *space);
            let args: Vec<String> = args.iter().map(op).collect();
            match dst {
                Some(d) => format!("atom{m}{} {d}, [{addr}], {}", atom_op_str(*aop), args.join(", ")),
                None => format!("red{m}{} [{addr}], {}", atom_op_str(*aop), args.join(", ")),
            }
        }
        Instr::Fence(f) => fence_text(f),
        Instr::Bar { kind: BarKind::Sync, id: Operand::Imm(0), count: None, sugar: Some(Sugar::SyncThreads) } => {
            "__syncthreads()".into()
        }
        Instr::Bar { kind, id, count, .. } => {
            let k = match kind {
                BarKind::Sync => "sync",
                BarKind::Arrive => "arrive",
                BarKind::Red => "red",
            };
            let count = count.as_ref().map_or(String::new(), |c| format!(", {}", op(c)));
            format!("bar.{k} {}{count}", op(id))
        }
        Instr::ClusterArrive { sem } => format!("barrier.cluster.arrive{}", sem.map_or("", sem_str)),
        Instr::ClusterWait => "barrier.cluster.wait".into(),
        Instr::Mbar(m) => mbar_text(m),
        Instr::CpAsync { dst, src, bytes } => format!("cp.async.ca.shared::cta.global [{dst}], [{src}], {bytes}"),
        Instr::CpAsyncCommit => "cp.async.commit_group".into(),
        Instr::CpAsyncWait { n } => format!("cp.async.wait_group {n}"),
        Instr::CpAsyncWaitAll => "cp.async.wait_all".into(),
        Instr::CpAsyncMbarArrive { bar, noinc, space } => format!(
            "cp.async.mbarrier.arrive{}{} [{bar}]",
            if *noinc { ".noinc" } else { "" },
            space.map_or("", space_str)
        ),
        Instr::Bulk { dir, dst, src, bytes, mbar, multicast, reduce, tensor } => {
            let head = if reduce.is_some() { "cp.reduce.async.bulk" } else { "cp.async.bulk" };
            let dirs = match dir {
                BulkDir::GlobalToSharedCta => ".shared::cta.global",
                BulkDir::GlobalToSharedCluster | BulkDir::GlobalToSharedClusterPair => ".shared::cluster.global",
                BulkDir::SharedCtaToSharedCluster => ".shared::cluster.shared::cta",
                BulkDir::SharedCtaToGlobal => ".global.shared::cta",
            };
            let completion = if mbar.is_some() { ".mbarrier::complete_tx::bytes" } else { ".bulk_group" };
            let mc = if multicast.is_empty() { "" } else { ".multicast::cluster" };
            let tensor = if *tensor { ".tensor" } else { "" };
            let red = reduce.map_or("", atom_op_str);
            let group = if *dir == BulkDir::GlobalToSharedClusterPair { ".cta_group::2" } else { "" };
            let mut s = format!("{head}{tensor}{dirs}{completion}{mc}{group}{red} [{dst}], [{src}], {bytes}");
            if let Some(bar) = mbar {
                s.push_str(&format!(", [{bar}]"));
            }
            for (d, b) in multicast {
                s.push_str(&format!(", ([{d}], [{b}])"));
            }
            s
        }
        Instr::BulkCommit => "cp.async.bulk.commit_group".into(),
        Instr::BulkWait { n, read } => format!("cp.async.bulk.wait_group{} {n}", if *read { ".read" } else { "" }),
        Instr::StAsync { addr, src, mbar, red: None } => {
            format!("st.async.shared::cluster.mbarrier::complete_tx::bytes [{addr}], {}, [{mbar}]", op(src))
        }
        Instr::StAsync { addr, src, mbar, red: Some(r) } => format!(
            "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes{} [{addr}], {}, [{mbar}]",
            atom_op_str(*r),
            op(src)
        ),
        Instr::Wgmma(w) => match w {
            WgmmaOp::Fence => "wgmma.fence.sync.aligned".into(),
            WgmmaOp::MmaAsync { acc, a, b } => format!("wgmma.mma_async.sync.aligned {acc}, [{a}], [{b}]"),
            WgmmaOp::CommitGroup => "wgmma.commit_group.sync.aligned".into(),
            WgmmaOp::WaitGroup { n } => format!("wgmma.wait_group.sync.aligned {n}"),
        },
        Instr::Tc(t) => tc_text(t),
        Instr::Label(name) => format!("{name}:"),
        Instr::Branch { target, cond: None } => format!("bra {target}"),
        Instr::Branch { target, cond: Some((a, cmp, b)) } => {
            format!("{} {}, {}, {target}", crate::syntax::parser::branch_name(*cmp), op(a), op(b))
        }
        Instr::Mov { dst, src } => format!("mov {dst}, {}", op(src)),
        Instr::Add { dst, a, b } => format!("add {dst}, {}, {}", op(a), op(b)),
        Instr::Wait { instr, until } => {
            let until = until.as_ref().map_or(String::new(), |u| format!(" {} {}", super::cmp_str(u.op), op(&u.value)));
            format!("wait {}{until}", instr_text(instr))
        }
        Instr::Exit => "exit".into(),
        Instr::Ranged { instr, at, src_at, width } => ranged_text(instr, *at, *src_at, *width),
        Instr::Guarded { pred, negated, instr } => {
            format!("@{}{pred} {}", if *negated { "!" } else { "" }, instr_text(instr))
        }
        Instr::SetP { dst, op: cmp, a, b } => format!("setp.{} {dst}, {}, {}", setp_cmp_name(*cmp), op(a), op(b)),
    }
}

/// The comparison suffix of `setp`.
pub fn setp_cmp_name(op: crate::model::CmpOp) -> &'static str {
    use crate::model::CmpOp;
    match op {
        CmpOp::Eq => "eq",
        CmpOp::Ne => "ne",
        CmpOp::Lt => "lt",
        CmpOp::Le => "le",
        CmpOp::Gt => "gt",
        CmpOp::Ge => "ge",
    }
}

/// `instr` with `+OFF` in its bracketed location operands and the width as a `.bN` type
/// suffix on its opcode. Which bracket is which follows the operand order the parser
/// reads: the first is the accessed location or a copy's destination, the second a
/// copy's source, and a multicast copy repeats its destination offset in every
/// `([dst], [bar])` pair (brackets 3, 5, ...).
fn ranged_text(instr: &Instr, at: Option<u32>, src_at: Option<u32>, width: Option<u32>) -> String {
    let text = instr_text(instr);
    let core = match instr.unwrapped() {
        Instr::Wait { instr, .. } => instr.unwrapped(),
        other => other,
    };
    let copy = matches!(core, Instr::CpAsync { .. } | Instr::Bulk { .. });
    let multicast = matches!(core, Instr::Bulk { .. });
    let offset_of = |bracket: usize| match bracket {
        0 => at,
        1 if copy => src_at,
        n if multicast && n >= 3 && n % 2 == 1 => at,
        _ => None,
    };
    let mut out = String::with_capacity(text.len() + 8);
    let mut bracket = 0;
    // The opcode is the first word, or the second after `wait`.
    let opcode_end = match text.strip_prefix("wait ") {
        Some(rest) => rest.find(' ').map(|i| i + 5),
        None => text.find(' '),
    };
    for (i, ch) in text.char_indices() {
        if Some(i) == opcode_end {
            if let Some(w) = width {
                out.push_str(&format!(".b{}", u64::from(w) * 8));
            }
        }
        if ch == ']' {
            if let Some(off) = offset_of(bracket) {
                out.push_str(&format!("+{off}"));
            }
            bracket += 1;
        }
        out.push(ch);
    }
    out
}

fn fence_text(f: &Fence) -> String {
    match f {
        Fence::Thread { sem: Some(FenceSem::Sc), scope, restrict: None, sugar: Some(sugar) } => match (sugar, scope) {
            (Sugar::ThreadFence, Scope::Gpu) => "__threadfence()".into(),
            (Sugar::ThreadFenceBlock, Scope::Cta) => "__threadfence_block()".into(),
            (Sugar::Membar, Scope::Cta) => "membar.cta".into(),
            (Sugar::Membar, Scope::Gpu) => "membar.gl".into(),
            (Sugar::Membar, Scope::Sys) => "membar.sys".into(),
            _ => format!("fence.sc{}", scope_str(*scope)),
        },
        Fence::Thread { sem, scope, restrict, .. } => {
            format!("fence{}{}{}", sem.map_or("", fence_sem_str), restrict.map_or("", restrict_str), scope_str(*scope))
        }
        Fence::MbarrierInit => "fence.mbarrier_init.release.cluster".into(),
        Fence::Proxy(kind) => match kind {
            ProxyKind::Alias => "fence.proxy.alias".into(),
            ProxyKind::Texture => "fence.proxy.texture".into(),
            ProxyKind::Surface => "fence.proxy.surface".into(),
            ProxyKind::Constant => "fence.proxy.constant".into(),
            ProxyKind::Async { space } => format!("fence.proxy.async{}", space.map_or("", space_str)),
            ProxyKind::AsyncGeneric { sem, restrict } => {
                format!("fence.proxy.async::generic{}{}.cluster", fence_sem_str(*sem), restrict_str(*restrict))
            }
            ProxyKind::Tensormap { sem, scope } => {
                format!("fence.proxy.tensormap::generic{}{}", fence_sem_str(*sem), scope_str(*scope))
            }
        },
    }
}

fn mbar_text(m: &MbarOp) -> String {
    let tail = mods(m.sem, m.scope, m.space);
    let bar = &m.bar;
    match &m.kind {
        MbarKind::Init { count } => format!("mbarrier.init{tail} [{bar}], {count}"),
        MbarKind::Inval => format!("mbarrier.inval{tail} [{bar}]"),
        MbarKind::ExpectTx { bytes } => format!("mbarrier.expect_tx{tail} [{bar}], {bytes}"),
        MbarKind::CompleteTx { bytes } => format!("mbarrier.complete_tx{tail} [{bar}], {bytes}"),
        MbarKind::Arrive { count, expect_tx, no_complete, drop, state } => {
            let name = if *drop { "arrive_drop" } else { "arrive" };
            let nc = if *no_complete { ".noComplete" } else { "" };
            let et = if expect_tx.is_some() { ".expect_tx" } else { "" };
            let state = state.as_ref().map_or(String::new(), |s| format!("{s}, "));
            let last = expect_tx.or(*count).map_or(String::new(), |n| format!(", {n}"));
            format!("mbarrier.{name}{nc}{et}{tail} {state}[{bar}]{last}")
        }
        MbarKind::Wait { blocking, parity, phase, dst } => {
            let name = if *blocking { "try_wait" } else { "test_wait" };
            let par = if *parity { ".parity" } else { "" };
            let dst = dst.as_ref().map_or(String::new(), |d| format!("{d}, "));
            format!("mbarrier.{name}{par}{tail} {dst}[{bar}], {}", op(phase))
        }
        MbarKind::PendingCount { dst, state } => format!("mbarrier.pending_count {dst}, {state}"),
    }
}

fn tc_text(t: &TcOp) -> String {
    let g = |n: &u8| format!(".cta_group::{n}");
    match t {
        TcOp::Alloc { dst, cols, cta_group } => format!("tcgen05.alloc{}.sync.aligned [{dst}], {cols}", g(cta_group)),
        TcOp::Dealloc { cols, cta_group } => format!("tcgen05.dealloc{}.sync.aligned {cols}", g(cta_group)),
        TcOp::Relinquish { cta_group } => format!("tcgen05.relinquish_alloc_permit{}.sync.aligned", g(cta_group)),
        TcOp::Mma { d, a, b, cta_group } => format!("tcgen05.mma{} [{d}], [{a}], [{b}]", g(cta_group)),
        TcOp::Cp { dst, src, cta_group } => format!("tcgen05.cp{} [{dst}], [{src}]", g(cta_group)),
        TcOp::Shift { tmem, cta_group } => format!("tcgen05.shift{}.down [{tmem}]", g(cta_group)),
        TcOp::Ld { dst, src } => format!("tcgen05.ld.sync.aligned {dst}, [{src}]"),
        TcOp::St { dst, src } => format!("tcgen05.st.sync.aligned [{dst}], {}", op(src)),
        TcOp::Commit { bar, multicast, cta_group } => {
            let mc = if multicast.is_empty() { "" } else { ".multicast::cluster" };
            let extra: String = multicast.iter().map(|b| format!(", [{b}]")).collect();
            format!("tcgen05.commit{}.mbarrier::arrive::one{mc} [{bar}]{extra}", g(cta_group))
        }
        TcOp::WaitLd => "tcgen05.wait::ld.sync.aligned".into(),
        TcOp::WaitSt => "tcgen05.wait::st.sync.aligned".into(),
        TcOp::FenceBeforeThreadSync => "tcgen05.fence::before_thread_sync".into(),
        TcOp::FenceAfterThreadSync => "tcgen05.fence::after_thread_sync".into(),
        TcOp::MmaPair { leader: l, peer: p } => {
            format!("tcgen05.mma.cta_group::2 [{}], [{}], [{}], ([{}], [{}], [{}])", l.d, l.a, l.b, p.d, p.a, p.b)
        }
    }
}
