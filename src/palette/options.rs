//! Modifier slots of one instruction and the choices each offers. A choice carries the
//! whole resulting instruction (related modifiers repaired, e.g. a strong `ld` gets a
//! scope), and only choices the core accepts are offered: the candidate scenario is
//! printed, re-read and verified, and it must not add an error the scenario lacked.

use std::collections::HashMap;

use crate::model::{
    AddrSpace, Fence, FenceSem, Instr, MbarKind, MbarOp, Operand, ProxyKind, Scenario, Scope, Sem, Space,
    SyncRestrict,
};

/// What a slot sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlotKind {
    Semantics,
    Scope,
    StateSpace,
    Restrict,
    Proxy,
    Parity,
    Bytes,
    Location,
    Barrier,
    BarrierId,
}

impl SlotKind {
    pub fn title(self) -> &'static str {
        match self {
            SlotKind::Semantics => "semantics",
            SlotKind::Scope => "scope",
            SlotKind::StateSpace => "state space",
            SlotKind::Restrict => "sync_restrict",
            SlotKind::Proxy => "proxy",
            SlotKind::Parity => "parity",
            SlotKind::Bytes => "bytes",
            SlotKind::Location => "location",
            SlotKind::Barrier => "mbarrier",
            SlotKind::BarrierId => "barrier id",
        }
    }
}

/// One legal value of a slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// `release`, or `release (default)` when it is what leaving the modifier out means.
    pub label: String,
    pub is_default: bool,
    /// The instruction currently has this value.
    pub selected: bool,
    /// The instruction after picking this choice.
    pub instr: Instr,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    pub kind: SlotKind,
    pub choices: Vec<Choice>,
}

/// The slots of instruction `at` of thread `thread`, each with only legal choices (the
/// current value always stays, so an illegal text still shows what it says).
pub fn slots(s: &Scenario, thread: usize, at: usize) -> Vec<Slot> {
    let Some(current) = s.threads.get(thread).and_then(|t| t.program.get(at)) else { return Vec::new() };
    let (inner, wrap) = peel(current);
    let baseline = error_keys(s);
    let mut out = Vec::new();
    for mut slot in raw_slots(s, inner) {
        slot.choices = slot
            .choices
            .into_iter()
            .map(|c| Choice { instr: wrap(c.instr), ..c })
            .filter(|c| c.selected || is_legal(s, thread, at, &c.instr, &baseline))
            .collect();
        if !slot.choices.is_empty() {
            out.push(slot);
        }
    }
    out
}

/// The instruction whose modifiers the slots offer, under a `wait`, a guard or byte
/// offsets, and how to put a changed one back in place.
fn peel(current: &Instr) -> (&Instr, Box<dyn Fn(Instr) -> Instr>) {
    match current {
        Instr::Wait { instr, until } => {
            let (inner, rewrap) = peel(instr);
            let until = until.clone();
            (inner, Box::new(move |i| Instr::Wait { instr: Box::new(rewrap(i)), until: until.clone() }))
        }
        Instr::Ranged { instr, at, src_at, width } => {
            let (inner, rewrap) = peel(instr);
            let (at, src_at, width) = (*at, *src_at, *width);
            (inner, Box::new(move |i| Instr::Ranged { instr: Box::new(rewrap(i)), at, src_at, width }))
        }
        Instr::Guarded { pred, negated, instr } => {
            let (inner, rewrap) = peel(instr);
            let (pred, negated) = (pred.clone(), *negated);
            (inner, Box::new(move |i| Instr::Guarded { pred: pred.clone(), negated, instr: Box::new(rewrap(i)) }))
        }
        other => (other, Box::new(|i| i)),
    }
}

/// Errors of a scenario as counts by "code message" (codes have no space, so the key is
/// the pair; a `String` key shares the parser's map type, one copy of hashing code less).
fn error_keys(s: &Scenario) -> HashMap<String, usize> {
    let mut keys = HashMap::new();
    for d in crate::load(&crate::syntax::print(s)).diagnostics.into_iter().filter(|d| d.is_error()) {
        *keys.entry(format!("{} {}", d.code, d.message)).or_insert(0) += 1;
    }
    keys
}

fn is_legal(s: &Scenario, thread: usize, at: usize, instr: &Instr, baseline: &HashMap<String, usize>) -> bool {
    let mut candidate = s.clone();
    let Some(slot) = candidate.threads.get_mut(thread).and_then(|t| t.program.get_mut(at)) else { return false };
    *slot = instr.clone();
    error_keys(&candidate).iter().all(|(key, n)| baseline.get(key).is_some_and(|b| b >= n))
}

struct Builder {
    kind: SlotKind,
    choices: Vec<Choice>,
}

impl Builder {
    fn new(kind: SlotKind) -> Builder {
        Builder { kind, choices: Vec::new() }
    }

    fn add(&mut self, label: &str, is_default: bool, selected: bool, instr: Instr) {
        let label = if is_default { format!("{label} (default)") } else { label.to_string() };
        self.choices.push(Choice { label, is_default, selected, instr });
    }

    fn done(self) -> Slot {
        Slot { kind: self.kind, choices: self.choices }
    }
}

fn sem_name(sem: Sem) -> &'static str {
    match sem {
        Sem::Weak => "weak",
        Sem::Relaxed => "relaxed",
        Sem::Acquire => "acquire",
        Sem::Release => "release",
        Sem::AcqRel => "acq_rel",
        Sem::Volatile => "volatile",
        Sem::Mmio => "mmio",
    }
}

fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Cta => "cta",
        Scope::Cluster => "cluster",
        Scope::Gpu => "gpu",
        Scope::Sys => "sys",
    }
}

fn space_name(space: Option<AddrSpace>) -> &'static str {
    match space {
        None => "generic",
        Some(AddrSpace::Global) => "global",
        Some(AddrSpace::SharedCta) => "shared::cta",
        Some(AddrSpace::SharedCluster) => "shared::cluster",
    }
}

const SCOPES: [Scope; 4] = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];

fn is_strong(sem: Option<Sem>) -> bool {
    matches!(sem, Some(Sem::Relaxed | Sem::Acquire | Sem::Release | Sem::AcqRel | Sem::Mmio))
}

fn raw_slots(s: &Scenario, instr: &Instr) -> Vec<Slot> {
    match instr {
        Instr::Ld { .. } | Instr::St { .. } | Instr::Atom { .. } => memory_slots(s, instr),
        Instr::Fence(Fence::Thread { sem, scope, restrict, .. }) => fence_slots(*sem, *scope, *restrict),
        Instr::Fence(Fence::Proxy(kind)) => vec![proxy_slot(kind)],
        Instr::ClusterArrive { sem } => {
            let mut b = Builder::new(SlotKind::Semantics);
            b.add("release", true, sem.is_none(), Instr::ClusterArrive { sem: None });
            for v in [Sem::Release, Sem::Relaxed] {
                b.add(sem_name(v), false, *sem == Some(v), Instr::ClusterArrive { sem: Some(v) });
            }
            vec![b.done()]
        }
        Instr::Bar { kind, id, count, sugar } => {
            let mut b = Builder::new(SlotKind::BarrierId);
            for n in 0..4 {
                let instr = Instr::Bar { kind: *kind, id: Operand::Imm(n), count: count.clone(), sugar: None };
                b.add(&n.to_string(), false, *id == Operand::Imm(n) && sugar.is_none(), instr);
            }
            vec![b.done()]
        }
        Instr::Mbar(op) => mbar_slots(s, op),
        Instr::Bulk { bytes, mbar, .. } => {
            let mut out = vec![bytes_slot(s, *bytes, |b| with_bytes(instr, b))];
            if let Some(current) = mbar {
                out.push(barrier_slot(s, current, |name| match instr.clone() {
                    Instr::Bulk { dir, dst, src, bytes, multicast, reduce, tensor, .. } => {
                        Instr::Bulk { dir, dst, src, bytes, mbar: Some(name), multicast, reduce, tensor }
                    }
                    other => other,
                }));
            }
            out
        }
        Instr::CpAsync { dst, src, bytes } => vec![bytes_slot(s, *bytes, |b| Instr::CpAsync {
            dst: dst.clone(),
            src: src.clone(),
            bytes: b,
        })],
        Instr::CpAsyncMbarArrive { bar, noinc, space } => vec![barrier_slot(s, bar, |name| {
            Instr::CpAsyncMbarArrive { bar: name, noinc: *noinc, space: *space }
        })],
        Instr::StAsync { addr, src, mbar, red } => vec![
            location_slot(s, addr, |a| Instr::StAsync { addr: a, src: src.clone(), mbar: mbar.clone(), red: *red }),
            barrier_slot(s, mbar, |m| Instr::StAsync { addr: addr.clone(), src: src.clone(), mbar: m, red: *red }),
        ],
        _ => Vec::new(),
    }
}

fn with_bytes(instr: &Instr, b: u32) -> Instr {
    match instr.clone() {
        Instr::Bulk { dir, dst, src, mbar, multicast, reduce, tensor, .. } => {
            Instr::Bulk { dir, dst, src, bytes: b, mbar, multicast, reduce, tensor }
        }
        other => other,
    }
}

/// `ld`/`st`/`atom`/`red`: semantics, scope, state space and location.
fn memory_slots(s: &Scenario, instr: &Instr) -> Vec<Slot> {
    let (sem, scope, space, addr) = match instr {
        Instr::Ld { sem, scope, space, addr, .. }
        | Instr::St { sem, scope, space, addr, .. }
        | Instr::Atom { sem, scope, space, addr, .. } => (*sem, *scope, *space, addr.clone()),
        _ => return Vec::new(),
    };
    let is_atom = matches!(instr, Instr::Atom { .. });
    let set = |sem: Option<Sem>, scope: Option<Scope>, space: Option<AddrSpace>, addr: String| match instr.clone() {
        Instr::Ld { proxy, dst, .. } => Instr::Ld { sem, scope, space, proxy, dst, addr },
        Instr::St { proxy, src, .. } => Instr::St { sem, scope, space, proxy, addr, src },
        Instr::Atom { op, dst, args, .. } => Instr::Atom { op, sem, scope, space, dst, addr, args },
        other => other,
    };
    // A strong ld/st needs a scope and a weak one takes none: repair the other half.
    let repaired_scope = |new: Option<Sem>| match new {
        _ if is_atom => scope,
        Some(Sem::Mmio) => Some(Scope::Sys),
        n if is_strong(n) => scope.or(Some(Scope::Gpu)),
        _ => None,
    };
    let mut sems = Builder::new(SlotKind::Semantics);
    let values: &[Sem] = match instr {
        Instr::Ld { .. } => &[Sem::Relaxed, Sem::Acquire, Sem::Release, Sem::Volatile, Sem::Mmio],
        Instr::St { .. } => &[Sem::Relaxed, Sem::Acquire, Sem::Release, Sem::Volatile, Sem::Mmio],
        _ => &[Sem::Relaxed, Sem::Acquire, Sem::Release, Sem::AcqRel],
    };
    let none_label = if is_atom { "relaxed" } else { "weak" };
    sems.add(none_label, true, sem.is_none(), set(None, repaired_scope(None), space, addr.clone()));
    for &v in values {
        sems.add(sem_name(v), false, sem == Some(v), set(Some(v), repaired_scope(Some(v)), space, addr.clone()));
    }
    let mut scopes = Builder::new(SlotKind::Scope);
    if is_atom {
        scopes.add("gpu", true, scope.is_none(), set(sem, None, space, addr.clone()));
    } else {
        let weak = if is_strong(sem) { None } else { sem };
        scopes.add("none (weak)", false, scope.is_none(), set(weak, None, space, addr.clone()));
    }
    for v in SCOPES {
        let sem = if is_atom || is_strong(sem) { sem } else { Some(Sem::Relaxed) };
        scopes.add(scope_name(v), false, scope == Some(v), set(sem, Some(v), space, addr.clone()));
    }
    let mut spaces = Builder::new(SlotKind::StateSpace);
    for v in [None, Some(AddrSpace::Global), Some(AddrSpace::SharedCta), Some(AddrSpace::SharedCluster)] {
        spaces.add(space_name(v), v.is_none(), space == v, set(sem, scope, v, addr.clone()));
    }
    let location = location_slot(s, &addr, |a| set(sem, scope, space, a));
    vec![sems.done(), scopes.done(), spaces.done(), location]
}

fn fence_slots(sem: Option<FenceSem>, scope: Scope, restrict: Option<SyncRestrict>) -> Vec<Slot> {
    let fence = |sem, scope, restrict| Instr::Fence(Fence::Thread { sem, scope, restrict, sugar: None });
    let restricted_sem = |s: Option<FenceSem>| matches!(s, Some(FenceSem::Release | FenceSem::Acquire));
    let mut sems = Builder::new(SlotKind::Semantics);
    sems.add("acq_rel", true, sem.is_none(), fence(None, scope, None));
    for (v, name) in [(FenceSem::Sc, "sc"), (FenceSem::AcqRel, "acq_rel"), (FenceSem::Acquire, "acquire"), (FenceSem::Release, "release")] {
        let keep = restrict.filter(|_| restricted_sem(Some(v)));
        sems.add(name, false, sem == Some(v), fence(Some(v), scope, keep));
    }
    let mut scopes = Builder::new(SlotKind::Scope);
    for v in SCOPES {
        let keep = restrict.filter(|_| v == Scope::Cluster);
        scopes.add(scope_name(v), false, scope == v, fence(sem, v, keep));
    }
    // `.sync_restrict` only exists as `.release`/`.acquire` at `.cluster` (ref §2.2).
    let mut restricts = Builder::new(SlotKind::Restrict);
    restricts.add("none", false, restrict.is_none(), fence(sem, scope, None));
    for (v, name) in [(SyncRestrict::SharedCta, "shared::cta"), (SyncRestrict::SharedCluster, "shared::cluster")] {
        let sem = if restricted_sem(sem) { sem } else { Some(FenceSem::Release) };
        restricts.add(name, false, restrict == Some(v), fence(sem, Scope::Cluster, Some(v)));
    }
    vec![sems.done(), scopes.done(), restricts.done()]
}

fn proxy_slot(current: &ProxyKind) -> Slot {
    let mut kinds = vec![
        ProxyKind::Alias,
        ProxyKind::Async { space: None },
        ProxyKind::Async { space: Some(AddrSpace::Global) },
        ProxyKind::Async { space: Some(AddrSpace::SharedCta) },
        ProxyKind::Async { space: Some(AddrSpace::SharedCluster) },
    ];
    // PTX's two uni-directional forms: a release restricted to the own CTA, an acquire to the cluster.
    kinds.push(ProxyKind::AsyncGeneric { sem: FenceSem::Release, restrict: SyncRestrict::SharedCta });
    kinds.push(ProxyKind::AsyncGeneric { sem: FenceSem::Acquire, restrict: SyncRestrict::SharedCluster });
    for sem in [FenceSem::Release, FenceSem::Acquire] {
        for scope in SCOPES {
            kinds.push(ProxyKind::Tensormap { sem, scope });
        }
    }
    let mut b = Builder::new(SlotKind::Proxy);
    for kind in kinds {
        let instr = Instr::Fence(Fence::Proxy(kind.clone()));
        let text = crate::syntax::instr_text(&instr);
        let label = text.strip_prefix("fence.proxy.").unwrap_or(&text).to_string();
        b.add(&label, false, &kind == current, instr);
    }
    b.done()
}

fn mbar_slots(s: &Scenario, op: &MbarOp) -> Vec<Slot> {
    let with = |f: &dyn Fn(&mut MbarOp)| {
        let mut next = op.clone();
        f(&mut next);
        Instr::Mbar(next)
    };
    let mut out = Vec::new();
    let sem_values: Option<(&str, &[Sem])> = match &op.kind {
        MbarKind::Arrive { .. } => Some(("release", &[Sem::Release, Sem::Relaxed])),
        MbarKind::Wait { .. } => Some(("acquire", &[Sem::Acquire, Sem::Relaxed])),
        MbarKind::ExpectTx { .. } | MbarKind::CompleteTx { .. } => Some(("relaxed", &[Sem::Relaxed])),
        _ => None,
    };
    if let Some((default, values)) = sem_values {
        // `.sem` and `.scope` are written together or not at all (ref §4.4).
        let default_sem = values.first().copied();
        let mut sems = Builder::new(SlotKind::Semantics);
        sems.add(default, true, op.sem.is_none(), with(&|m| (m.sem, m.scope) = (None, None)));
        for &v in values {
            let scope = op.scope.or(Some(Scope::Cta));
            sems.add(sem_name(v), false, op.sem == Some(v), with(&|m| (m.sem, m.scope) = (Some(v), scope)));
        }
        out.push(sems.done());
        let mut scopes = Builder::new(SlotKind::Scope);
        scopes.add("cta", true, op.scope.is_none(), with(&|m| (m.sem, m.scope) = (None, None)));
        for v in [Scope::Cta, Scope::Cluster] {
            let sem = op.sem.or(default_sem);
            scopes.add(scope_name(v), false, op.scope == Some(v), with(&|m| (m.sem, m.scope) = (sem, Some(v))));
        }
        out.push(scopes.done());
    }
    let mut spaces = Builder::new(SlotKind::StateSpace);
    for v in [None, Some(AddrSpace::SharedCta), Some(AddrSpace::SharedCluster)] {
        spaces.add(space_name(v), v.is_none(), op.space == v, with(&|m| m.space = v));
    }
    out.push(spaces.done());
    out.push(barrier_slot(s, &op.bar, |name| with(&|m| m.bar = name.clone())));
    match &op.kind {
        MbarKind::Wait { blocking, parity: true, phase, dst } => {
            let mut b = Builder::new(SlotKind::Parity);
            for p in 0..2 {
                let kind = MbarKind::Wait { blocking: *blocking, parity: true, phase: Operand::Imm(p), dst: dst.clone() };
                b.add(&p.to_string(), false, *phase == Operand::Imm(p), with(&|m| m.kind = kind.clone()));
            }
            out.push(b.done());
        }
        MbarKind::ExpectTx { bytes } => out.push(bytes_slot(s, *bytes, |b| with(&|m| m.kind = MbarKind::ExpectTx { bytes: b }))),
        MbarKind::CompleteTx { bytes } => {
            out.push(bytes_slot(s, *bytes, |b| with(&|m| m.kind = MbarKind::CompleteTx { bytes: b })))
        }
        MbarKind::Arrive { expect_tx: Some(bytes), count, no_complete, drop, state } => {
            out.push(bytes_slot(s, *bytes, |b| {
                let kind = MbarKind::Arrive {
                    count: *count,
                    expect_tx: Some(b),
                    no_complete: *no_complete,
                    drop: *drop,
                    state: state.clone(),
                };
                with(&|m| m.kind = kind.clone())
            }))
        }
        _ => {}
    }
    out
}

/// Byte counts: the current one and the sizes of declared locations.
fn bytes_slot(s: &Scenario, current: u32, build: impl Fn(u32) -> Instr) -> Slot {
    let mut values: Vec<u32> = s.locations.iter().map(|l| l.size).chain([current, 4, 16]).collect();
    crate::sort::sort(&mut values);
    values.dedup();
    let mut b = Builder::new(SlotKind::Bytes);
    for v in values {
        b.add(&v.to_string(), false, v == current, build(v));
    }
    b.done()
}

/// Declared memory locations (not tensor memory).
fn location_slot(s: &Scenario, current: &str, build: impl Fn(String) -> Instr) -> Slot {
    let mut b = Builder::new(SlotKind::Location);
    let names = s.locations.iter().filter(|l| !matches!(l.space, Space::Tmem(_))).map(|l| l.name.as_str());
    let mut seen_current = false;
    for name in names {
        seen_current |= name == current;
        b.add(name, false, name == current, build(name.to_string()));
    }
    if !seen_current {
        b.add(current, false, true, build(current.to_string()));
    }
    b.done()
}

fn barrier_slot(s: &Scenario, current: &str, build: impl Fn(String) -> Instr) -> Slot {
    let mut b = Builder::new(SlotKind::Barrier);
    let mut seen_current = false;
    for m in &s.mbarriers {
        seen_current |= m.name == current;
        b.add(&m.name, false, m.name == current, build(m.name.clone()));
    }
    if !seen_current {
        b.add(current, false, true, build(current.to_string()));
    }
    b.done()
}
