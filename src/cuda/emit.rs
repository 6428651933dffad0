//! The device side: one block of CUDA C++ per scenario thread, each instruction as the
//! inline PTX it names. Lane 0 of the thread's first warp runs every single-thread
//! instruction; the whole warp (warpgroup) joins the collective ones (`bar`,
//! `barrier.cluster`, `wgmma`), so hardware counts match the model's (one arrival per
//! scenario thread, barriers counting PTX threads).

use super::plan::{Plan, Reg};
use super::Problem;
use crate::model::{
    AddrSpace, AtomOp, BarKind, BulkDir, Fence, FenceSem, Instr, MbarKind, MbarOp, Operand, Proxy, ProxyKind,
    Scenario, Sem, Space, Sugar, WgmmaOp,
};
use crate::syntax::{cmp_str, instr_text, sem_str};

pub const TCGEN05_REFUSAL: &str = "tcgen05 needs Blackwell (sm_100a); this harness targets Hopper (sm_90a) and does not generate it";

/// Where a spin gives up: iterations of one wait, or taken branches of one thread.
pub const SPIN_LIMIT: u32 = 1 << 15;

struct Ctx<'a> {
    s: &'a Scenario,
    plan: &'a Plan,
    thread: usize,
    cta: usize,
    regs: &'a [Reg],
}

fn scope_str(scope: Option<crate::model::Scope>) -> &'static str {
    scope.map_or("", crate::syntax::scope_str)
}

fn space_str(space: Option<AddrSpace>) -> &'static str {
    match space {
        None => "",
        Some(AddrSpace::Global) => ".global",
        Some(AddrSpace::SharedCta) => ".shared::cta",
        Some(AddrSpace::SharedCluster) => ".shared::cluster",
    }
}

/// A C++ string literal holding `text` (PTX lines carry no quotes or backslashes).
fn lit(text: &str) -> String {
    format!("\"{text}\"")
}

impl Ctx<'_> {
    fn reg_of(&self, name: &str) -> Option<&Reg> {
        self.regs.iter().find(|r| r.name == name)
    }

    /// The C++ lvalue holding a register.
    fn reg(&self, name: &str) -> String {
        match self.reg_of(name) {
            Some(r) if r.accumulator => format!("acc_{name}[0]"),
            _ => format!("r_{name}"),
        }
    }

    /// Statement that assigns `value` to a register and marks it written.
    fn set(&self, name: &str, value: &str) -> String {
        let mark = match self.reg_of(name).and_then(|r| r.slot) {
            Some(slot) => format!(" asg |= 1ull << {slot};"),
            None => String::new(),
        };
        format!("{} = {value};{mark}", self.reg(name))
    }

    /// A 32-bit value expression for an operand.
    fn val(&self, o: &Operand, at: usize) -> Result<String, Problem> {
        match o {
            Operand::Imm(n) => match i32::try_from(*n) {
                Ok(v) => Ok(format!("{v}")),
                Err(_) => Err(Problem::instr(self.thread, at, format!("the value {n} does not fit in 32 bits"))),
            },
            Operand::Reg(r) => Ok(format!("(int)({})", self.reg(r))),
        }
    }

    fn owner(&self, name: &str) -> Option<usize> {
        if let Some(l) = self.s.locations.iter().find(|l| l.name == name) {
            return match l.space {
                Space::Shared(c) => Some(c),
                Space::Global | Space::Tmem(_) => None,
            };
        }
        self.s.mbarriers.iter().find(|m| m.name == name).map(|m| m.cta)
    }

    /// Address operand of `name` as addressed with `space`: `(expression, constraint)`.
    fn addr(&self, name: &str, space: Option<AddrSpace>, at: usize) -> Result<(String, &'static str), Problem> {
        if let Some(word) = self.plan.global.get(name) {
            return match space {
                None | Some(AddrSpace::Global) => Ok((format!("(gm + {word})"), "l")),
                Some(AddrSpace::SharedCta | AddrSpace::SharedCluster) => {
                    Err(Problem::instr(self.thread, at, format!("`{name}` is global but addressed as shared")))
                }
            };
        }
        let (Some(off), Some(owner)) = (self.plan.smem.get(name), self.owner(name)) else {
            return Err(Problem::instr(self.thread, at, format!("`{name}` has no place in memory")));
        };
        if self.s.cluster_of(owner) != self.s.cluster_of(self.cta) {
            return Err(Problem::instr(self.thread, at, format!("`{name}` is shared memory of a CTA outside this cluster")));
        }
        let rank = self.plan.rank.get(owner).copied().unwrap_or(0);
        let own = owner == self.cta;
        match space {
            Some(AddrSpace::SharedCta) if own => Ok((format!("smem_u32(sm + {off})"), "r")),
            Some(AddrSpace::SharedCta) => {
                Err(Problem::instr(self.thread, at, format!("`{name}` belongs to another CTA but is addressed as `.shared::cta`")))
            }
            Some(AddrSpace::SharedCluster) => Ok((format!("peer_u32(smem_u32(sm + {off}), {rank})"), "r")),
            None if own => Ok((format!("(sm + {off})"), "l")),
            None => Ok((format!("peer_ptr(sm + {off}, {rank})"), "l")),
            Some(AddrSpace::Global) => Err(Problem::instr(self.thread, at, format!("`{name}` is shared but addressed as `.global`"))),
        }
    }

    /// A counted barrier counts each scenario thread as one warp, but a wgmma thread runs
    /// as a warpgroup: its three extra warps arrive too, so the count grows by 96 for each
    /// warpgroup thread of this CTA that uses the same barrier.
    fn warpgroup_extra(&self, id: &Operand, at: usize) -> Result<u32, Problem> {
        let wide: Vec<usize> = self
            .s
            .threads
            .iter()
            .enumerate()
            .filter(|(i, t)| t.cta == self.cta && self.plan.threads.get(*i).is_some_and(|p| p.warps > 1))
            .map(|(i, _)| i)
            .collect();
        if wide.is_empty() {
            return Ok(0);
        }
        let Operand::Imm(n) = id else {
            return Err(Problem::instr(self.thread, at, "a counted barrier with a register id in a CTA with a wgmma warpgroup"));
        };
        let uses = |t: usize| {
            self.s.threads.get(t).is_some_and(|t| {
                t.program.iter().any(|i| matches!(i, Instr::Bar { id: Operand::Imm(m), .. } if m == n))
            })
        };
        Ok(96 * u32::try_from(wide.into_iter().filter(|t| uses(*t)).count()).unwrap_or(0))
    }

    /// Byte count of a bulk copy, which PTX wants in whole 16-byte units.
    fn bulk_bytes(&self, bytes: u32, at: usize) -> Result<u32, Problem> {
        if bytes == 0 || !bytes.is_multiple_of(16) {
            return Err(Problem::instr(self.thread, at, format!("a bulk copy moves a multiple of 16 bytes, not {bytes}")));
        }
        Ok(bytes)
    }
}

fn atom_suffix(op: AtomOp) -> &'static str {
    match op {
        AtomOp::Add => ".add.u32",
        AtomOp::Inc => ".inc.u32",
        AtomOp::Dec => ".dec.u32",
        AtomOp::Exch => ".exch.b32",
        AtomOp::Max => ".max.s32",
        AtomOp::Min => ".min.s32",
        AtomOp::And => ".and.b32",
        AtomOp::Or => ".or.b32",
        AtomOp::Xor => ".xor.b32",
        AtomOp::Cas => ".cas.b32",
    }
}

/// `.sem.scope` of an `ld`/`st`/`atom`; weak accesses are written plainly.
fn strength(sem: Option<Sem>, scope: Option<crate::model::Scope>) -> String {
    match sem {
        None | Some(Sem::Weak) => String::new(),
        Some(Sem::Volatile) => ".volatile".into(),
        Some(Sem::Mmio) => format!(".mmio.relaxed{}", scope_str(scope)),
        Some(s @ (Sem::Relaxed | Sem::Acquire | Sem::Release | Sem::AcqRel)) => format!("{}{}", sem_str(s), scope_str(scope)),
    }
}

/// What runs an instruction: lane 0 alone, or every lane of the thread's warps.
enum Who {
    Lead,
    All,
}

fn who(i: &Instr) -> Who {
    match i {
        Instr::Bar { .. }
        | Instr::ClusterArrive { .. }
        | Instr::ClusterWait
        | Instr::Wgmma(_)
        | Instr::Label(_)
        | Instr::Branch { .. }
        | Instr::Mov { .. }
        | Instr::Add { .. }
        | Instr::SetP { .. }
        | Instr::Exit => Who::All,
        Instr::Ranged { instr, .. } | Instr::Guarded { instr, .. } => who(instr),
        Instr::Ld { .. }
        | Instr::St { .. }
        | Instr::Atom { .. }
        | Instr::Fence(_)
        | Instr::Mbar(_)
        | Instr::CpAsync { .. }
        | Instr::CpAsyncCommit
        | Instr::CpAsyncWait { .. }
        | Instr::CpAsyncWaitAll
        | Instr::CpAsyncMbarArrive { .. }
        | Instr::Bulk { .. }
        | Instr::BulkCommit
        | Instr::BulkWait { .. }
        | Instr::StAsync { .. }
        | Instr::Tc(_)
        | Instr::Wait { .. } => Who::Lead,
    }
}

/// One statement (or block) of C++ for an instruction; `t` is the thread's index.
fn instr(c: &Ctx, i: &Instr, at: usize) -> Result<String, Problem> {
    let t = c.thread;
    let p = |msg: String| Problem::instr(t, at, msg);
    Ok(match i {
        Instr::Ld { sem, scope, space, proxy, dst, addr } => {
            if *proxy != Proxy::Generic {
                return Err(p("texture, surface and constant loads are not generated".into()));
            }
            let (a, k) = c.addr(addr, *space, at)?;
            let ptx = format!("ld{}{}.s32 %0, [%1];", strength(*sem, *scope), space_str(*space));
            format!("{{ int v_; asm volatile({} : \"=r\"(v_) : \"{k}\"({a}) : \"memory\"); {} }}", lit(&ptx), c.set(dst, "v_"))
        }
        Instr::St { sem, scope, space, proxy, addr, src } => {
            if *proxy != Proxy::Generic {
                return Err(p("surface stores are not generated".into()));
            }
            let (a, k) = c.addr(addr, *space, at)?;
            let ptx = format!("st{}{}.s32 [%0], %1;", strength(*sem, *scope), space_str(*space));
            format!("asm volatile({} :: \"{k}\"({a}), \"r\"({}) : \"memory\");", lit(&ptx), c.val(src, at)?)
        }
        Instr::Atom { op, sem, scope, space, dst, addr, args } => {
            let (a, k) = c.addr(addr, *space, at)?;
            let vals = args.iter().map(|o| c.val(o, at)).collect::<Result<Vec<_>, _>>()?;
            let base = if dst.is_some() { "atom" } else { "red" };
            let mods = format!("{}{}{}{}", base, strength(*sem, *scope), space_str(*space), atom_suffix(*op));
            match dst {
                Some(d) => {
                    let rest: Vec<String> = (0..vals.len()).map(|n| format!("%{}", n + 2)).collect();
                    let ptx = format!("{mods} %0, [%1], {};", rest.join(", "));
                    let ins: Vec<String> = vals.iter().map(|v| format!("\"r\"({v})")).collect();
                    format!(
                        "{{ int v_; asm volatile({} : \"=r\"(v_) : \"{k}\"({a}), {} : \"memory\"); {} }}",
                        lit(&ptx),
                        ins.join(", "),
                        c.set(d, "v_")
                    )
                }
                None => {
                    let v = vals.first().cloned().unwrap_or_else(|| "0".into());
                    format!("asm volatile({} :: \"{k}\"({a}), \"r\"({v}) : \"memory\");", lit(&format!("{mods} [%0], %1;")))
                }
            }
        }
        Instr::Fence(f) => format!("asm volatile({} ::: \"memory\");", lit(&format!("{};", fence(f).map_err(p)?))),
        Instr::Bar { kind, id: id_operand, count, sugar: _ } => {
            let id = c.val(id_operand, at)?;
            // Without a count PTX means every thread of the CTA; the harness CTA may hold
            // idle warps, so name the scenario's own threads instead.
            let count = match count {
                Some(n) => {
                    let extra = c.warpgroup_extra(id_operand, at)?;
                    if extra == 0 { c.val(n, at)? } else { format!("{} + {extra}", c.val(n, at)?) }
                }
                None => format!("{}", c.plan.cta_warps.get(c.cta).copied().unwrap_or(1) * 32),
            };
            let op = match kind {
                BarKind::Sync => "barrier.sync.aligned %0, %1;",
                BarKind::Arrive => "barrier.arrive.aligned %0, %1;",
                BarKind::Red => "{ .reg .pred p_; .reg .u32 d_; setp.ne.u32 p_, 1, 0; barrier.red.popc.aligned.u32 d_, %0, %1, p_; }",
            };
            format!("__syncwarp(); asm volatile({} :: \"r\"({id}), \"r\"({count}) : \"memory\");", lit(op))
        }
        Instr::ClusterArrive { sem } => {
            let sem = match sem {
                None => "",
                Some(Sem::Release) => ".release",
                Some(Sem::Relaxed) => ".relaxed",
                Some(other) => return Err(p(format!("`barrier.cluster.arrive{}` is not PTX", sem_str(*other)))),
            };
            format!("__syncwarp(); asm volatile({} ::: \"memory\");", lit(&format!("barrier.cluster.arrive{sem}.aligned;")))
        }
        Instr::ClusterWait => format!("__syncwarp(); asm volatile({} ::: \"memory\");", lit("barrier.cluster.wait.aligned;")),
        Instr::Mbar(m) => mbar(c, m, at, None)?,
        Instr::CpAsync { dst, src, bytes } => {
            if ![4, 8, 16].contains(bytes) {
                return Err(p(format!("`cp.async` copies 4, 8 or 16 bytes, not {bytes}")));
            }
            let (d, _) = c.addr(dst, Some(AddrSpace::SharedCta), at)?;
            let (s, _) = c.addr(src, Some(AddrSpace::Global), at)?;
            format!(
                "asm volatile({} :: \"r\"({d}), \"l\"({s}) : \"memory\");",
                lit(&format!("cp.async.ca.shared.global [%0], [%1], {bytes};"))
            )
        }
        Instr::CpAsyncCommit => format!("asm volatile({} ::: \"memory\");", lit("cp.async.commit_group;")),
        Instr::CpAsyncWait { n } => format!("asm volatile({} ::: \"memory\");", lit(&format!("cp.async.wait_group {n};"))),
        Instr::CpAsyncWaitAll => format!("asm volatile({} ::: \"memory\");", lit("cp.async.wait_all;")),
        Instr::CpAsyncMbarArrive { bar, noinc, space } => {
            let (b, k) = c.addr(bar, *space, at)?;
            let ptx = format!("cp.async.mbarrier.arrive{}{}.b64 [%0];", if *noinc { ".noinc" } else { "" }, space_str(*space));
            format!("asm volatile({} :: \"{k}\"({b}) : \"memory\");", lit(&ptx))
        }
        Instr::Bulk { dir, dst, src, bytes, mbar, multicast, reduce, tensor } => {
            bulk(c, at, *dir, dst, src, *bytes, mbar.as_deref(), multicast, *reduce, *tensor)?
        }
        Instr::BulkCommit => format!("asm volatile({} ::: \"memory\");", lit("cp.async.bulk.commit_group;")),
        Instr::BulkWait { n, read } => format!(
            "asm volatile({} ::: \"memory\");",
            lit(&format!("cp.async.bulk.wait_group{} {n};", if *read { ".read" } else { "" }))
        ),
        Instr::StAsync { addr, src, mbar, red } => {
            let (a, _) = c.addr(addr, Some(AddrSpace::SharedCluster), at)?;
            let (b, _) = c.addr(mbar, Some(AddrSpace::SharedCluster), at)?;
            let ptx = match red {
                None => "st.async.shared::cluster.mbarrier::complete_tx::bytes.s32 [%0], %1, [%2];".to_string(),
                Some(op @ (AtomOp::Add | AtomOp::Inc | AtomOp::Dec | AtomOp::Max | AtomOp::Min | AtomOp::And | AtomOp::Or | AtomOp::Xor)) => {
                    format!("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes{} [%0], %1, [%2];", atom_suffix(*op))
                }
                Some(AtomOp::Exch | AtomOp::Cas) => return Err(p("`red.async` has no exch or cas".into())),
            };
            format!("asm volatile({} :: \"r\"({a}), \"r\"({}), \"r\"({b}) : \"memory\");", lit(&ptx), c.val(src, at)?)
        }
        Instr::Wgmma(op) => wgmma(c, op, at)?,
        Instr::Tc(_) => return Err(p(TCGEN05_REFUSAL.into())),
        Instr::Label(name) => format!("L{t}_{name}:;"),
        Instr::Branch { target, cond } => {
            let test = match cond {
                None => "1".to_string(),
                Some((a, op, b)) => format!("({} {} {})", operand64(c, a), cmp_str(*op), operand64(c, b)),
            };
            format!(
                "{{ int take_ = L ? {test} : 0; take_ = __shfl_sync(0xffffffffu, take_, 0); \
                 if (take_) {{ if (++budget < SPIN_LIMIT) goto L{t}_{target}; timed_out = 1; }} }}"
            )
        }
        Instr::Mov { dst, src } => c.set(dst, &operand64(c, src)),
        Instr::Add { dst, a, b } => c.set(dst, &format!("{} + {}", operand64(c, a), operand64(c, b))),
        Instr::Wait { instr: inner, until } => spin(c, inner, until.as_ref(), at)?,
        Instr::Exit => format!("goto E{t};"),
        Instr::SetP { dst, op, a, b } => {
            c.set(dst, &format!("(({} {} {}) ? 1ll : 0ll)", operand64(c, a), cmp_str(*op), operand64(c, b)))
        }
        Instr::Guarded { pred, negated, instr: inner } => format!(
            "if ({}{} != 0ll) {{ {} }}",
            if *negated { "!" } else { "" },
            operand64(c, &Operand::Reg(pred.clone())),
            instr(c, inner, at)?
        ),
        Instr::Ranged { .. } => return Err(p("byte offsets (`[x+OFFSET]`) are not generated: the harness keeps one 32-bit word per location".into())),
    })
}

fn operand64(c: &Ctx, o: &Operand) -> String {
    match o {
        Operand::Imm(n) => format!("{n}ll"),
        Operand::Reg(r) => format!("(long long)({})", c.reg(r)),
    }
}

/// PTX text of a fence; the model's texture, surface and constant proxy fences have no
/// PTX instruction.
fn fence(f: &Fence) -> Result<String, String> {
    Ok(match f {
        Fence::Thread { sem: Some(FenceSem::Sc), scope, restrict: None, sugar: Some(Sugar::ThreadFence | Sugar::ThreadFenceBlock) } => {
            format!("fence.sc{}", crate::syntax::scope_str(*scope))
        }
        Fence::Thread { .. } | Fence::MbarrierInit => instr_text(&Instr::Fence(f.clone())),
        Fence::Proxy(kind) => match kind {
            ProxyKind::Alias | ProxyKind::Async { .. } | ProxyKind::AsyncGeneric { .. } | ProxyKind::Tensormap { .. } => {
                instr_text(&Instr::Fence(f.clone()))
            }
            ProxyKind::Texture | ProxyKind::Surface | ProxyKind::Constant => {
                return Err(format!("`{}` has no PTX instruction; texture, surface and constant proxies are not generated", instr_text(&Instr::Fence(f.clone()))))
            }
        },
    })
}

/// An mbarrier instruction. `wait_pred` names the C++ int a spinning wait writes.
fn mbar(c: &Ctx, m: &MbarOp, at: usize, wait_pred: Option<&str>) -> Result<String, Problem> {
    let (b, k) = c.addr(&m.bar, m.space, at)?;
    let mods = format!("{}{}{}", m.sem.map_or("", sem_str), scope_str(m.scope), space_str(m.space));
    let plain = |ptx: String| format!("asm volatile({} :: \"{k}\"({b}) : \"memory\");", lit(&ptx));
    Ok(match &m.kind {
        MbarKind::Init { count } => plain(format!("mbarrier.init{}.b64 [%0], {count};", space_str(m.space))),
        MbarKind::Inval => plain(format!("mbarrier.inval{}.b64 [%0];", space_str(m.space))),
        MbarKind::ExpectTx { bytes } => plain(format!("mbarrier.expect_tx{mods}.b64 [%0], {bytes};")),
        MbarKind::CompleteTx { bytes } => plain(format!("mbarrier.complete_tx{mods}.b64 [%0], {bytes};")),
        MbarKind::Arrive { count, expect_tx, no_complete, drop, state } => {
            let op = format!(
                "mbarrier.arrive{}{}{}{mods}.b64",
                if *drop { "_drop" } else { "" },
                if *no_complete { ".noComplete" } else { "" },
                if expect_tx.is_some() { ".expect_tx" } else { "" }
            );
            let tail = match (expect_tx, count) {
                (Some(bytes), _) => format!(", {bytes}"),
                (None, Some(n)) => format!(", {n}"),
                (None, None) if *no_complete => ", 1".into(),
                (None, None) => String::new(),
            };
            match state {
                Some(reg) if m.space != Some(AddrSpace::SharedCluster) => format!(
                    "{{ unsigned long long s_; asm volatile({} : \"=l\"(s_) : \"{k}\"({b}) : \"memory\"); {} }}",
                    lit(&format!("{op} %0, [%1]{tail};")),
                    c.set(reg, "(long long)s_")
                ),
                Some(_) | None => plain(format!("{op} _, [%0]{tail};")),
            }
        }
        MbarKind::Wait { blocking, parity, phase, dst } => {
            if m.space == Some(AddrSpace::SharedCluster) {
                return Err(Problem::instr(c.thread, at, "PTX waits only on the executing CTA's own mbarrier (`.shared::cta`)"));
            }
            let op = format!("mbarrier.{}{}{mods}.b64", if *blocking { "try_wait" } else { "test_wait" }, if *parity { ".parity" } else { "" });
            let (phase_expr, phase_k) = match (parity, phase) {
                (true, o) => (c.val(o, at)?, "r"),
                (false, Operand::Reg(r)) => (format!("(unsigned long long)({})", c.reg(r)), "l"),
                (false, Operand::Imm(_)) => return Err(Problem::instr(c.thread, at, "a wait without `.parity` takes a state register")),
            };
            let ptx = format!("{{ .reg .pred p_; {op} p_, [%1], %2; selp.u32 %0, 1, 0, p_; }}");
            let call = format!("asm volatile({} : \"=r\"(w_) : \"{k}\"({b}), \"{phase_k}\"({phase_expr}) : \"memory\");", lit(&ptx));
            match (wait_pred, dst) {
                (Some(pred), _) => format!("{{ unsigned w_; {call} {pred} = (int)w_; }}"),
                (None, Some(d)) => format!("{{ unsigned w_; {call} {} }}", c.set(d, "(long long)w_")),
                (None, None) => format!("{{ unsigned w_; {call} (void)w_; }}"),
            }
        }
        MbarKind::PendingCount { dst, state } => format!(
            "{{ unsigned v_; asm volatile({} : \"=r\"(v_) : \"l\"((unsigned long long)({})) : \"memory\"); {} }}",
            lit("mbarrier.pending_count.b64 %0, %1;"),
            c.reg(state),
            c.set(dst, "(long long)v_")
        ),
    })
}

/// `wait ...`: the instruction repeated until it succeeds, at most [`SPIN_LIMIT`] times.
fn spin(c: &Ctx, inner: &Instr, until: Option<&crate::model::WaitTarget>, at: usize) -> Result<String, Problem> {
    let (body, done) = match (inner, until) {
        (Instr::Ld { dst, .. }, Some(target)) => {
            (instr(c, inner, at)?, format!("({} {} {})", c.reg(dst), cmp_str(target.op), operand64(c, &target.value)))
        }
        (Instr::Mbar(m @ MbarOp { kind: MbarKind::Wait { .. }, .. }), None) => (mbar(c, m, at, Some("ok_"))?, "ok_".to_string()),
        _ => return Err(Problem::instr(c.thread, at, "`wait` takes a load with a comparison or an mbarrier wait")),
    };
    Ok(format!(
        "{{ int ok_ = 0; unsigned spins_ = 0; do {{ {body} if ({done}) break; }} while (++spins_ < SPIN_LIMIT); \
         if (spins_ >= SPIN_LIMIT) timed_out = 1; (void)ok_; }}"
    ))
}

#[allow(clippy::too_many_arguments)]
fn bulk(
    c: &Ctx,
    at: usize,
    dir: BulkDir,
    dst: &str,
    src: &str,
    bytes: u32,
    mbar: Option<&str>,
    multicast: &[(String, String)],
    reduce: Option<AtomOp>,
    tensor: bool,
) -> Result<String, Problem> {
    let t = c.thread;
    if tensor {
        return Err(Problem::instr(t, at, "`cp.async.bulk.tensor` needs a tensor map; only non-tensor bulk copies are generated"));
    }
    let bytes = c.bulk_bytes(bytes, at)?;
    let red = match reduce {
        None => String::new(),
        Some(op @ (AtomOp::Add | AtomOp::Inc | AtomOp::Dec | AtomOp::Max | AtomOp::Min | AtomOp::And | AtomOp::Or | AtomOp::Xor)) => {
            atom_suffix(op).to_string()
        }
        Some(AtomOp::Exch | AtomOp::Cas) => return Err(Problem::instr(t, at, "bulk reductions have no exch or cas")),
    };
    let head = if reduce.is_some() { "cp.reduce.async.bulk" } else { "cp.async.bulk" };
    let need_bar = || mbar.ok_or_else(|| Problem::instr(t, at, "this bulk copy direction completes on an mbarrier"));
    match dir {
        BulkDir::GlobalToSharedClusterPair => {
            Err(Problem::instr(t, at, "`.cta_group::2` on a bulk copy is sm_100a (CTA pairs); the sm_90a harness cannot run it"))
        }
        BulkDir::GlobalToSharedCta | BulkDir::GlobalToSharedCluster => {
            if reduce.is_some() {
                return Err(Problem::instr(t, at, "PTX has no bulk reduction into shared memory from global"));
            }
            let bar = need_bar()?;
            let (d, _) = c.addr(dst, Some(AddrSpace::SharedCluster), at)?;
            let (s, _) = c.addr(src, Some(AddrSpace::Global), at)?;
            let (b, _) = c.addr(bar, Some(AddrSpace::SharedCluster), at)?;
            if multicast.is_empty() {
                // Written `.shared::cta` or `.shared::cluster`: the same copy engine
                // operation; the cluster form takes either address.
                let ptx = format!("{head}.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], {bytes}, [%2];");
                return Ok(format!("asm volatile({} :: \"r\"({d}), \"l\"({s}), \"r\"({b}) : \"memory\");", lit(&ptx)));
            }
            // Multicast writes the same offsets in every CTA of the mask.
            let off = |n: &str| c.plan.smem.get(n).copied();
            let owner_rank = |n: &str| c.owner(n).and_then(|o| c.plan.rank.get(o).copied());
            let mut mask = owner_rank(dst).map_or(0, |r| 1u32 << r);
            for (peer_dst, peer_bar) in multicast {
                if off(peer_dst) != off(dst) || off(peer_bar) != off(bar) {
                    return Err(Problem::instr(
                        t,
                        at,
                        format!("multicast writes one offset in every CTA, but `{peer_dst}`/`{peer_bar}` sit elsewhere than `{dst}`/`{bar}`; declare them in the same order"),
                    ));
                }
                mask |= owner_rank(peer_dst).map_or(0, |r| 1u32 << r);
            }
            let (d, _) = c.addr(dst, Some(AddrSpace::SharedCta), at)?;
            let (b, _) = c.addr(bar, Some(AddrSpace::SharedCta), at)?;
            let ptx = format!(
                "{head}.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], {bytes}, [%2], %3;"
            );
            Ok(format!(
                "asm volatile({} :: \"r\"({d}), \"l\"({s}), \"r\"({b}), \"h\"((unsigned short){mask}) : \"memory\");",
                lit(&ptx)
            ))
        }
        BulkDir::SharedCtaToSharedCluster => {
            let bar = need_bar()?;
            let (d, _) = c.addr(dst, Some(AddrSpace::SharedCluster), at)?;
            let (s, _) = c.addr(src, Some(AddrSpace::SharedCta), at)?;
            let (b, _) = c.addr(bar, Some(AddrSpace::SharedCluster), at)?;
            let ptx = format!("{head}.shared::cluster.shared::cta.mbarrier::complete_tx::bytes{red} [%0], [%1], {bytes}, [%2];");
            Ok(format!("asm volatile({} :: \"r\"({d}), \"r\"({s}), \"r\"({b}) : \"memory\");", lit(&ptx)))
        }
        BulkDir::SharedCtaToGlobal => {
            if mbar.is_some() {
                return Err(Problem::instr(t, at, "a bulk copy to global completes through a bulk group, not an mbarrier"));
            }
            let (d, _) = c.addr(dst, Some(AddrSpace::Global), at)?;
            let (s, _) = c.addr(src, Some(AddrSpace::SharedCta), at)?;
            let ptx = format!("{head}.global.shared::cta.bulk_group{red} [%0], [%1], {bytes};");
            Ok(format!("asm volatile({} :: \"l\"({d}), \"r\"({s}) : \"memory\");", lit(&ptx)))
        }
    }
}

/// wgmma as `m64n8k32.s32.s8.s8`: each operand's first byte is its value and every other
/// byte the descriptor reads is zero, so `D[0][0]` (lane 0's first accumulator) gains
/// exactly `a * b`, the model's product. Values must stay in 0..=127.
fn wgmma(c: &Ctx, op: &WgmmaOp, at: usize) -> Result<String, Problem> {
    let accs: Vec<&Reg> = c.regs.iter().filter(|r| r.accumulator).collect();
    Ok(match op {
        WgmmaOp::Fence => format!("__syncwarp(); asm volatile({} ::: \"memory\");", lit("wgmma.fence.sync.aligned;")),
        WgmmaOp::MmaAsync { acc, a, b } => {
            let (da, _) = c.addr(a, Some(AddrSpace::SharedCta), at)?;
            let (db, _) = c.addr(b, Some(AddrSpace::SharedCta), at)?;
            let ptx = "{ .reg .pred p_; setp.ne.b32 p_, %6, 0; \
                       wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%0, %1, %2, %3}, %4, %5, p_; }";
            format!(
                "__syncwarp(); asm volatile({} : \"+r\"(acc_{acc}[0]), \"+r\"(acc_{acc}[1]), \"+r\"(acc_{acc}[2]), \"+r\"(acc_{acc}[3]) \
                 : \"l\"(wgmma_desc({da})), \"l\"(wgmma_desc({db})), \"r\"(1) : \"memory\");",
                lit(ptx)
            )
        }
        WgmmaOp::CommitGroup => format!("__syncwarp(); asm volatile({} ::: \"memory\");", lit("wgmma.commit_group.sync.aligned;")),
        WgmmaOp::WaitGroup { n } => {
            // The accumulators are operands, so the compiler reads them only after the wait.
            let operands: Vec<String> =
                accs.iter().flat_map(|r| (0..4).map(move |k| format!("\"+r\"(acc_{}[{k}])", r.name))).collect();
            let asg: String = accs.iter().filter_map(|r| r.slot).map(|slot| format!(" asg |= 1ull << {slot};")).collect();
            format!(
                "__syncwarp(); asm volatile({} : {} :: \"memory\");{asg}",
                lit(&format!("wgmma.wait_group.sync.aligned {n};")),
                if operands.is_empty() { String::new() } else { operands.join(", ") }
            )
        }
    })
}

/// wgmma reads its operands as bytes: a value outside 0..=127 (or a register stored into
/// one, unknown here) would not multiply as the model does.
fn check_wgmma_values(s: &Scenario, problems: &mut Vec<Problem>) {
    let mut operands = Vec::new();
    for t in &s.threads {
        for i in &t.program {
            if let Instr::Wgmma(WgmmaOp::MmaAsync { a, b, .. }) = i {
                operands.extend([a.clone(), b.clone()]);
            }
        }
    }
    let in_range = |v: i64| (0..=127).contains(&v);
    for l in s.locations.iter().filter(|l| operands.contains(&l.name)) {
        if !in_range(l.init) {
            problems.push(Problem::scenario(format!("wgmma operand `{}` starts at {}; the harness multiplies bytes (0..127)", l.name, l.init)));
        }
    }
    for (ti, t) in s.threads.iter().enumerate() {
        for (k, i) in t.program.iter().enumerate() {
            if let Instr::St { addr, src, .. } = i {
                if operands.contains(addr) && !matches!(src, Operand::Imm(v) if in_range(*v)) {
                    problems.push(Problem::instr(ti, k, format!("stores into wgmma operand `{addr}` must be constants in 0..127")));
                }
            }
        }
    }
}

/// Global locations a thread reads: loaded once before the start so its L1 holds them.
fn primed(c: &Ctx, program: &[Instr]) -> Vec<u32> {
    let mut out = Vec::new();
    for i in program {
        let inner = match i {
            Instr::Wait { instr, .. } => instr.as_ref(),
            other => other,
        };
        if let Instr::Ld { addr, .. } = inner {
            if let Some(w) = c.plan.global.get(addr) {
                if !out.contains(w) {
                    out.push(*w);
                }
            }
        }
    }
    out
}

/// The per-thread blocks of the kernel body.
pub fn kernel(s: &Scenario, plan: &Plan) -> Result<String, Vec<Problem>> {
    let mut problems = Vec::new();
    check_wgmma_values(s, &mut problems);
    let mut out = String::new();
    for (ti, (t, tp)) in s.threads.iter().zip(&plan.threads).enumerate() {
        let c = Ctx { s, plan, thread: ti, cta: t.cta, regs: &tp.regs };
        if tp.warps > 1 && t.program.iter().any(|i| matches!(i, Instr::Branch { .. })) {
            problems.push(Problem::scenario(format!("thread `{}` issues wgmma and branches; a warpgroup must branch as one", t.name)));
        }
        out.push_str(&format!(
            "    if (cta == {} && warp >= {} && warp < {}) {{ // thread `{}`\n",
            t.cta,
            tp.first_warp,
            tp.first_warp + tp.warps,
            t.name
        ));
        out.push_str(&format!("        const bool L = warp == {} && lane == 0;\n", tp.first_warp));
        for r in &tp.regs {
            if r.accumulator {
                out.push_str(&format!("        int acc_{}[4] = {{0, 0, 0, 0}};\n", r.name));
            } else {
                out.push_str(&format!("        long long r_{} = 0;\n", r.name));
            }
        }
        out.push_str("        unsigned long long asg = 0; int timed_out = 0, primed = 0; unsigned budget = 0; (void)budget;\n");
        for w in primed(&c, &t.program) {
            out.push_str(&format!("        if (L) primed += prime(gm + {w});\n"));
        }
        out.push_str("        start(L, rendezvous + inst, seed);\n");
        for (k, i) in t.program.iter().enumerate() {
            out.push_str(&format!("        // {}\n", instr_text(i)));
            match instr(&c, i, k) {
                Ok(code) => match who(i) {
                    Who::Lead => out.push_str(&format!("        if (L) {{ {code} }}\n")),
                    Who::All => out.push_str(&format!("        {code}\n")),
                },
                Err(p) => problems.push(p),
            }
        }
        out.push_str(&format!("    E{ti}:\n        __syncwarp();\n"));
        out.push_str("        if (L) {\n");
        for r in &tp.regs {
            if let Some(slot) = r.slot {
                out.push_str(&format!("            rec->regs[{slot}] = (long long)({});\n", c.reg(&r.name)));
            }
        }
        out.push_str("            atomicOr(&rec->assigned, asg);\n            atomicAdd(&rec->primed, primed);\n            if (timed_out) atomicOr(&rec->timeout, 1);\n");
        out.push_str("            finish_async();\n        }\n        ran = true;\n    }\n");
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}
