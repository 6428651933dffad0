//! Static facts resolved once per scenario: who sits where, what each name means.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use crate::model::{By, Facts, Footprint, Instr, Object, Proxy, Scenario, Scope, Space, Use, MAX_LANES};

/// Names to indices. Steps look their operands up by name, so the map hashes with FNV-1a
/// rather than the standard SipHash, which cost more than the rest of the lookup.
pub type NameIndex = HashMap<String, usize, BuildHasherDefault<NameHasher>>;

#[derive(Default)]
pub struct NameHasher(u64);

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for byte in bytes {
            h = (h ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Where an agent executes: the coordinates scope inclusion is evaluated on (reference §1.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Place {
    pub cta: usize,
    pub cluster: usize,
    pub gpu: u32,
}

/// `covers(op, T')` of reference §1.2: is `other` inside `scope` evaluated at `at`?
/// A cluster of one CTA holds just that CTA, so `.cluster` then equals `.cta`.
pub fn covers(scope: Scope, at: Place, other: Place) -> bool {
    match scope {
        Scope::Cta => at.cta == other.cta,
        Scope::Cluster => at.cluster == other.cluster && at.gpu == other.gpu,
        Scope::Gpu => at.gpu == other.gpu,
        Scope::Sys => true,
    }
}

/// Which proxy (or virtual alias) an access goes through; different keys are never
/// morally strong and need a proxy fence between them (reference §1.8, §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProxyKey {
    Generic,
    Async,
    Texture,
    Surface,
    Constant,
    Tensormap,
}

impl ProxyKey {
    pub fn of(proxy: Proxy) -> ProxyKey {
        match proxy {
            Proxy::Generic => ProxyKey::Generic,
            Proxy::Async => ProxyKey::Async,
            Proxy::Texture => ProxyKey::Texture,
            Proxy::Surface => ProxyKey::Surface,
            Proxy::Constant => ProxyKey::Constant,
            Proxy::Tensormap => ProxyKey::Tensormap,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ProxyKey::Generic => "generic",
            ProxyKey::Async => "async",
            ProxyKey::Texture => "texture",
            ProxyKey::Surface => "surface",
            ProxyKey::Constant => "constant",
            ProxyKey::Tensormap => "tensormap",
        }
    }

    /// This proxy's bit in a crossing mask (generic has none).
    pub fn bit(self) -> u8 {
        match self {
            ProxyKey::Generic => 0,
            ProxyKey::Async => 1,
            ProxyKey::Texture => 2,
            ProxyKey::Surface => 4,
            ProxyKey::Constant => 8,
            ProxyKey::Tensormap => 16,
        }
    }
}

/// Crossing bit of `fence.proxy.alias`: between two virtual addresses of one location.
pub const ALIAS_BIT: u8 = 32;

/// How an access reaches memory: through which proxy, and at which virtual address
/// (a generic alias is a second virtual address; a surface/texture alias is the same
/// address through another proxy, as in the mixed-proxy litmus tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Via {
    pub proxy: ProxyKey,
    /// Location index naming the virtual address.
    pub va: usize,
}

#[derive(Clone, Debug)]
pub struct LocInfo {
    pub name: String,
    /// Index of the memory cell (aliases share their target's cell).
    pub cell: usize,
    pub space: Space,
    /// Cluster owning the memory, for shared memory.
    pub cluster: Option<usize>,
    /// Proxy reached through this name when the instruction names no other.
    pub key: ProxyKey,
    /// Virtual address this name stands for (see [`Via`]).
    pub va: usize,
    pub init: i64,
    /// Size in bytes (tx-counts of `st.async` use it).
    pub size: u32,
    /// Set for the pseudo-location holding an mbarrier word.
    pub mbarrier: Option<usize>,
    /// The memory cells this name covers, lowest bytes first: one per byte segment of its
    /// cell (a location that no byte offset names is one segment, `[cell]`).
    pub segs: Vec<usize>,
    /// For a byte range `[x+OFF]` of width W (issue 16): `(OFF, OFF + W)`. Such an entry
    /// is named `x+OFF` (`x+OFF..END` when several widths start at OFF), keeps `cell`
    /// as the location's (so every range of a location is one resource for the
    /// partial-order reduction) and is never shown as a location of its own.
    pub range: Option<(u32, u32)>,
}

#[derive(Clone, Debug)]
pub struct ThreadInfo {
    pub name: String,
    pub place: Place,
    pub lanes: u32,
    /// The program the checker runs: byte ranges name their layout entries (`ranges.rs`).
    pub program: Vec<Instr>,
    /// The program as the author wrote it, for the text of messages and traces.
    pub written: Vec<Instr>,
    pub labels: HashMap<String, usize>,
}

impl ThreadInfo {
    /// Whether the step at `pc` may end the thread: it exits, or the pc it moves to may
    /// lie past the end once the labels there are skipped (the same step skips them).
    pub fn step_may_end(&self, pc: usize) -> bool {
        let runs_off = |from: usize| self.program.iter().skip(from).all(|i| matches!(i, Instr::Label(_)));
        match self.program.get(pc).map(Instr::unwrapped) {
            None | Some(Instr::Exit) => true,
            Some(Instr::Branch { target, .. }) => runs_off(pc + 1) || self.labels.get(target).is_none_or(|&to| runs_off(to)),
            Some(_) => runs_off(pc + 1),
        }
    }
}

/// Everything about a scenario that does not change while it runs.
#[derive(Clone, Debug)]
pub struct Layout {
    pub threads: Vec<ThreadInfo>,
    /// Real locations first, then one pseudo-location per mbarrier.
    pub locs: Vec<LocInfo>,
    pub loc_index: NameIndex,
    /// mbarrier index → pseudo-location index.
    pub mbar_locs: Vec<usize>,
    pub mbar_index: NameIndex,
    /// Number of memory cells (aliases merged, byte segments split).
    pub cells: usize,
    /// For each cell, the location whose initial value and name it starts with.
    pub cell_owner: Vec<usize>,
    /// For each cell of a location split into byte segments, the bytes it holds.
    pub cell_bytes: Vec<Option<(u32, u32)>>,
    pub cta_names: Vec<String>,
    pub cluster_names: Vec<String>,
    pub cta_cluster: Vec<usize>,
    /// Each instruction's text, per thread and pc: messages quote it on most steps, and
    /// printing it each time cost more than the step's semantics.
    pub texts: Vec<Vec<InstrTexts>>,
    /// What every step asks of each instruction, per thread and pc, worked out once from
    /// its facts (asking the facts on each step cost a tenth of the explorer's time).
    pub step_facts: Vec<Vec<StepFacts>>,
    /// Every register name the programs use, made once: a step that writes a register
    /// for the first time shares its name instead of allocating one.
    pub register_names: HashMap<String, Rc<str>, BuildHasherDefault<NameHasher>>,
}

/// The facts of one program instruction (past its guard) that the explorer needs on every
/// step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepFacts {
    /// The location (or mbarrier word) the thread itself reaches, and whether it writes
    /// it: a peer's access into an exited CTA is undefined behaviour. Asynchronous ops are
    /// checked when their agent performs the access instead.
    pub thread_access: Option<(usize, bool)>,
    /// The step reads and writes only the agent's own state (partial-order reduction).
    pub local: bool,
}

impl StepFacts {
    pub fn of(layout: &Layout, instr: &Instr) -> StepFacts {
        let instr = instr.unwrapped();
        let facts = instr.facts();
        StepFacts { thread_access: layout.thread_access(instr, &facts), local: facts.footprint == Footprint::Local }
    }
}

/// The printed forms of one program instruction.
#[derive(Clone, Debug)]
pub struct InstrTexts {
    /// As the author wrote it (guard and byte offsets included).
    pub whole: Rc<str>,
    /// The operation the step runs, as the checker runs it: past any guard, the operation a
    /// `wait` spins on.
    pub op: Rc<str>,
}

impl InstrTexts {
    fn of(written: &Instr, run: &Instr) -> InstrTexts {
        let mut op = run.unwrapped();
        if let Instr::Wait { instr: inner, .. } = op {
            op = inner;
        }
        InstrTexts { whole: crate::syntax::instr_text(written).into(), op: crate::syntax::instr_text(op).into() }
    }
}

impl Layout {
    pub fn new(scenario: &Scenario) -> Result<Layout, String> {
        let cta_cluster: Vec<usize> = scenario.ctas.iter().map(|c| c.cluster).collect();
        let place_of = |cta: usize| -> Result<Place, String> {
            let cluster = *cta_cluster
                .get(cta)
                .ok_or_else(|| format!("unknown CTA index {cta}"))?;
            let gpu = scenario
                .clusters
                .get(cluster)
                .ok_or_else(|| format!("unknown cluster index {cluster}"))?
                .gpu;
            Ok(Place { cta, cluster, gpu })
        };
        let mut locs = Vec::new();
        let mut loc_index = NameIndex::default();
        for (i, loc) in scenario.locations.iter().enumerate() {
            loc_index.insert(loc.name.clone(), i);
        }
        for loc in &scenario.locations {
            let (cell, key, va) = match &loc.alias {
                None => (None, ProxyKey::Generic, None),
                Some(alias) => {
                    let target = *loc_index.get(&alias.target).ok_or_else(|| {
                        format!("alias `{}` names unknown location `{}`", loc.name, alias.target)
                    })?;
                    match alias.proxy {
                        Proxy::Generic => (Some(target), ProxyKey::Generic, None),
                        other => (Some(target), ProxyKey::of(other), Some(target)),
                    }
                }
            };
            let cluster = match loc.space {
                Space::Shared(cta) | Space::Tmem(cta) => Some(place_of(cta)?.cluster),
                Space::Global => None,
            };
            locs.push(LocInfo {
                name: loc.name.clone(),
                cell: cell.unwrap_or(locs.len()),
                space: loc.space,
                cluster,
                key,
                va: va.unwrap_or(locs.len()),
                init: loc.init,
                size: loc.size,
                mbarrier: None,
                segs: Vec::new(),
                range: None,
            });
        }
        // Follow alias chains to the memory cell and, through non-generic aliases, to the
        // virtual address (a surface alias of a generic alias uses the alias's address).
        for _ in 0..locs.len() {
            for i in 0..locs.len() {
                let (cell, va) = locs.get(i).map_or((i, i), |l| (l.cell, l.va));
                let root_cell = locs.get(cell).map_or(cell, |l| l.cell);
                let root_va = if va == i { i } else { locs.get(va).map_or(va, |l| l.va) };
                if let Some(l) = locs.get_mut(i) {
                    l.cell = root_cell;
                    l.va = root_va;
                }
            }
        }
        let mut mbar_locs = Vec::new();
        let mut mbar_index = NameIndex::default();
        for (m, bar) in scenario.mbarriers.iter().enumerate() {
            let place = place_of(bar.cta)?;
            mbar_index.insert(bar.name.clone(), m);
            mbar_locs.push(locs.len());
            locs.push(LocInfo {
                name: bar.name.clone(),
                cell: locs.len(),
                space: Space::Shared(bar.cta),
                cluster: Some(place.cluster),
                key: ProxyKey::Generic,
                va: locs.len(),
                init: 0,
                size: 8,
                mbarrier: Some(m),
                segs: Vec::new(),
                range: None,
            });
        }
        let ranges = super::ranges::split(scenario, &mut locs, &mut loc_index)?;
        let mut threads = Vec::new();
        for t in &scenario.threads {
            // Barrier arithmetic sums lanes; the verifier reports the same bound.
            if !(1..=MAX_LANES).contains(&t.lanes) {
                return Err(format!("thread `{}` has {} lanes; lanes must be 1 to {MAX_LANES}", t.name, t.lanes));
            }
            let mut labels = HashMap::new();
            for (pc, instr) in t.program.iter().enumerate() {
                if let Instr::Label(name) = instr {
                    labels.insert(name.clone(), pc);
                }
            }
            threads.push(ThreadInfo {
                name: t.name.clone(),
                place: place_of(t.cta)?,
                lanes: t.lanes,
                program: t.program.iter().map(|i| ranges.rewrite(i)).collect(),
                written: t.program.clone(),
                labels,
            });
        }
        if threads.is_empty() {
            return Err("the scenario has no threads".into());
        }
        let texts = threads.iter().map(|t| t.written.iter().zip(&t.program).map(|(w, run)| InstrTexts::of(w, run)).collect()).collect();
        let mut layout = Layout {
            texts,
            step_facts: Vec::new(),
            threads,
            cells: ranges.cell_owner.len(),
            cell_owner: ranges.cell_owner,
            cell_bytes: ranges.cell_bytes,
            locs,
            loc_index,
            mbar_locs,
            mbar_index,
            cta_names: scenario.ctas.iter().map(|c| c.name.clone()).collect(),
            cluster_names: scenario.clusters.iter().map(|c| c.name.clone()).collect(),
            cta_cluster,
            register_names: HashMap::default(),
        };
        layout.step_facts =
            layout.threads.iter().map(|t| t.program.iter().map(|instr| StepFacts::of(&layout, instr)).collect()).collect();
        for instr in layout.threads.iter().flat_map(|t| &t.program) {
            let facts = instr.facts();
            for name in facts.reads.iter().chain(&facts.writes).chain(&facts.accumulator) {
                layout.register_names.entry(name.to_string()).or_insert_with(|| Rc::from(*name));
            }
        }
        Ok(layout)
    }

    /// The shared copy of register name `name` (a new one for a name no program uses,
    /// such as an async agent's `value`).
    pub fn register_name(&self, name: &str) -> Rc<str> {
        self.register_names.get(name).cloned().unwrap_or_else(|| Rc::from(name))
    }

    /// [`StepFacts::thread_access`] of `instr`, whose facts are `facts`.
    fn thread_access(&self, instr: &Instr, facts: &Facts) -> Option<(usize, bool)> {
        // Any other form on a peer's barrier is undefined whether or not the peer exited;
        // `mbarrier::step` names that cause (a remote wait, the local form).
        let inner = match instr {
            Instr::Wait { instr, .. } => instr.as_ref(),
            plain => plain,
        };
        if let Instr::Mbar(op) = inner {
            if !op.remote_form_allowed() {
                return None;
            }
        }
        let named = facts.names.iter().find(|n| n.by == By::Thread)?;
        match named.object {
            Object::Location | Object::Tmem => self.loc(named.name).ok().map(|l| (l, named.how != Use::Read)),
            Object::Mbarrier => {
                let idx = self.mbar(named.name).ok()?;
                self.mbar_locs.get(idx).map(|l| (*l, true))
            }
        }
    }

    pub fn loc(&self, name: &str) -> Result<usize, String> {
        self.loc_index.get(name).copied().ok_or_else(|| format!("unknown location `{name}`"))
    }

    pub fn mbar(&self, name: &str) -> Result<usize, String> {
        self.mbar_index.get(name).copied().ok_or_else(|| format!("unknown mbarrier `{name}`"))
    }

    pub fn cta_name(&self, cta: usize) -> &str {
        self.cta_names.get(cta).map_or("?", |s| s.as_str())
    }

    /// Where a thread sits, in words (for scope-mismatch explanations).
    pub fn describe_place(&self, place: Place) -> String {
        let cluster = self.cluster_names.get(place.cluster).map_or("?", |s| s.as_str());
        format!("CTA `{}`, cluster `{cluster}`", self.cta_name(place.cta))
    }

    /// State space clamps scope: shared memory is never observed beyond the cluster (§1.2).
    pub fn clamp(&self, scope: Scope, loc: usize) -> Scope {
        match self.locs.get(loc).map(|l| l.space) {
            Some(Space::Shared(_)) | Some(Space::Tmem(_)) => scope.min(Scope::Cluster),
            _ => scope,
        }
    }
}
