//! Runs one lane of the kernel concretely and records what it does to memory and
//! synchronization as [`Event`]s. Integer and predicate arithmetic runs; values nobody
//! gave are [`Val::Unknown`], and a branch on one is decided by the policy in
//! [`Lane::decide`]. A `try_wait`/`test_wait` succeeds at once and is recorded as a
//! `wait`, so a spin on it runs once.

use std::collections::{BTreeMap, HashMap};

use super::error::{ErrorKind, ImportError};
use super::ptx::{Arg, Func, Instr, Module};
use super::value::{type_of, wrap, Addr, Base, Val};

/// Most instructions one lane may run, calls included.
pub const MAX_STEPS: u64 = 2_000_000;
/// Largest byte offset or size the importer places (4 GiB): beyond it an address is not
/// one it can name, and the emitter's arithmetic stays far from overflow.
const MAX_OFFSET: i64 = 1 << 32;
/// Bytes an `extern` shared array without a size may span (the sm_90 maximum).
pub const DYNAMIC_SHARED: i64 = 232_448;
/// Most instructions a probe of a branch side runs.
const PROBE_STEPS: u64 = 5_000;
/// Deepest `call` nesting.
const MAX_CALL_DEPTH: usize = 64;

/// A memory object an event names; the emitter turns these into locations and mbarriers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Region {
    /// Shared variable `sym` of CTA `cta` (index of the CTA in the launch).
    Shared { sym: u32, cta: u32 },
    /// Global memory a parameter's pointer points at.
    ParamPtr { idx: u32, field: i64 },
    /// A tensor map: the parameter bytes at `field` of parameter `idx`.
    Tensormap { idx: u32, field: i64 },
    GlobalVar { idx: u32 },
    /// The response a `clusterlaunchcontrol.try_cancel` brings (written like a bulk copy's).
    CancelResponse,
    /// Tensor memory of CTA `cta`; spans count columns (lanes are not told apart: the
    /// warps of an epilogue read their own lane quarters of the same columns).
    Tmem { cta: u32 },
}

/// Bytes of a region an event touches. When `exact` is false the address was computed
/// by arithmetic the importer does not follow (a swizzle, a descriptor) from `start`: the
/// access touches the object holding byte `start`, somewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub region: Region,
    pub start: i64,
    pub len: i64,
    pub exact: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Obj {
    /// Data bytes; `width` is the access width when a type suffix gave one.
    Mem { span: Span, width: Option<u32> },
    /// The mbarrier at `off` in shared variable `sym` of CTA `cta`.
    Bar { cta: u32, sym: u32, off: i64 },
}

/// How an error names an object: the emitted scenario's names are not known yet there.
impl std::fmt::Display for Obj {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Obj::Mem { span, .. } => write!(f, "{} bytes at offset {}", span.len, span.start),
            Obj::Bar { cta, sym, off } => write!(f, "the mbarrier at byte {off} of shared variable #{sym} in CTA {cta}"),
        }
    }
}

/// How events of several lanes combine into one scenario thread's instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// A data access of each lane: the lanes' bytes are united.
    Data,
    /// An mbarrier arrive: the lanes' arrivals add up to the arrive's count.
    Arrive(u32),
    /// Issued once for the lanes that run it (a collective, a fence, a wait, a copy).
    Sync,
    /// `bar.warp.sync`: orders the warp's lanes.
    WarpBarrier,
}

/// One instruction of the scenario, before its objects have names: `text` holds `{0}`,
/// `{1}`… where `objs` go, and `{n}` where an arrive's count goes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Op {
    pub text: String,
    pub objs: Vec<Obj>,
    pub class: Class,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub line: usize,
    /// How many times this lane had reached `line` before (loops unrolled).
    pub occ: u32,
    pub op: Op,
}

/// Where a lane sits in the launch.
#[derive(Clone, Copy, Debug)]
pub struct LaneId {
    /// Rank of the lane's CTA in its cluster, and the cluster's index.
    pub rank: u32,
    pub cluster: u32,
    pub tid: [u32; 3],
    pub ntid: [u32; 3],
    pub ctaid: [u32; 3],
    pub cluster_dims: [u32; 3],
    pub rank_in_cluster: [u32; 3],
    pub linear: u32,
    /// The launch's grid in CTAs and in clusters: the CTAs the importer runs.
    pub nctaid: [u32; 3],
    pub nclusters: u32,
}

/// What the run decided or left out, for the scenario's header.
#[derive(Clone, Debug, Default)]
pub struct Notes {
    /// PTX line → what was fixed there (a branch on an unknown value, a guard).
    pub fixed: BTreeMap<usize, String>,
    /// Instructions that touch no memory and no synchronization, skipped.
    pub skipped: u64,
    /// Global data accesses at addresses that depend on unknown values, left out.
    pub dropped_global: BTreeMap<usize, u64>,
    /// Calls of functions the module does not define, skipped.
    pub external_calls: BTreeMap<usize, String>,
}

/// What the importer knows of the kernel and launch while it runs lanes.
pub struct Ctx<'c, 'a> {
    pub module: &'a Module,
    pub entry: &'a Func,
    /// Shared symbols: the entry's, then the module's.
    pub shared: Vec<&'a str>,
    pub shared_bytes: Vec<Option<u64>>,
    /// `--param` values by (parameter index, byte offset).
    pub params: HashMap<(u32, i64), i64>,
    pub iterations: u32,
    /// Where the importer's layout puts each shared symbol, as a number.
    pub shared_base: Vec<i64>,
    /// Launch index of the first CTA of the running CTA's cluster.
    pub cluster_base: u32,
    pub reg_names: &'c std::collections::HashSet<&'a str>,
    /// Shared words (symbol, offset) a `tcgen05.alloc` of this CTA wrote its TMEM address
    /// to: a later load of one reads column 0 (the CTA's first allocation starts there).
    pub tmem_slots: std::cell::RefCell<std::collections::HashSet<(u32, i64)>>,
}

/// Decisions on unknown branches, shared by the lanes of a warp so they agree.
pub type Decisions = HashMap<(usize, u32), bool>;

struct Frame<'a> {
    func: &'a Func,
    pc: usize,
    regs: HashMap<&'a str, Val>,
    /// `.param` bytes of this frame: call arguments written and results read.
    pmem: HashMap<(String, i64), Val>,
    /// Caller's names for this call's results.
    ret_names: Vec<String>,
}

pub struct Lane<'c, 'a> {
    ctx: &'c Ctx<'c, 'a>,
    id: LaneId,
    frames: Vec<Frame<'a>>,
    occ: HashMap<usize, u32>,
    back_edges: HashMap<usize, u32>,
    pub events: Vec<Event>,
    steps: u64,
    probe: bool,
    sync_count: u64,
    /// `shfl.sync.idx` results this lane published: (line, occurrence) → value.
    pub shfl_out: HashMap<(usize, u32), Val>,
    /// This lane's arrives so far per mbarrier: the phase a state token names.
    arrives: HashMap<Obj, i64>,
}

fn unknown(line: usize, what: impl Into<String>) -> ImportError {
    ImportError::at(line, ErrorKind::Unknown(what.into()))
}

fn unsupported(line: usize, what: impl Into<String>) -> ImportError {
    ImportError::at(line, ErrorKind::Unsupported(what.into()))
}

/// What `memory_or_sync` made of an instruction.
enum Handled {
    /// A memory or synchronization instruction the scenario keeps.
    Event(Op),
    /// Handled with no event (a parameter access, a local or constant load, a hint).
    Done,
    /// Neither memory nor synchronization: arithmetic, run by `step`.
    NotMine,
}

impl From<Option<Op>> for Handled {
    fn from(op: Option<Op>) -> Handled {
        op.map_or(Handled::Done, Handled::Event)
    }
}

/// Opcode heads that touch no memory and no synchronization: run when the importer can
/// compute them, else their results are unknown.
const PURE: &[&str] = &[
    "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min", "max", "popc", "clz", "bfind",
    "fns", "brev", "bfe", "bfi", "bmsk", "szext", "dp4a", "dp2a", "copysign", "testp", "fma", "rcp", "sqrt", "rsqrt",
    "sin", "cos", "lg2", "ex2", "tanh", "set", "setp", "selp", "slct", "and", "or", "xor", "not", "cnot", "lop3", "shf",
    "shl", "shr", "cvt", "cvta", "mov", "prmt", "shfl", "vote", "match", "activemask", "redux", "elect", "mma", "movmatrix",
    "isspacep", "getctarank", "mapa", "nanosleep", "pmevent", "setmaxnreg", "prefetch", "prefetchu", "applypriority",
    "discard", "createpolicy", "griddepcontrol", "istypep", "fma", "mul.hi", "ldu", "brkpt",
];

impl<'c, 'a> Lane<'c, 'a> {
    pub fn new(ctx: &'c Ctx<'c, 'a>, id: LaneId) -> Lane<'c, 'a> {
        let frame = Frame { func: ctx.entry, pc: 0, regs: HashMap::new(), pmem: HashMap::new(), ret_names: Vec::new() };
        Lane {
            ctx,
            id,
            frames: vec![frame],
            occ: HashMap::new(),
            back_edges: HashMap::new(),
            events: Vec::new(),
            steps: 0,
            probe: false,
            sync_count: 0,
            shfl_out: HashMap::new(),
            arrives: HashMap::new(),
        }
    }

    fn lane(&self) -> u32 {
        self.id.linear % 32
    }

    fn probe_clone(&self) -> Lane<'c, 'a> {
        let frames = self
            .frames
            .iter()
            .map(|f| Frame { func: f.func, pc: f.pc, regs: f.regs.clone(), pmem: f.pmem.clone(), ret_names: f.ret_names.clone() })
            .collect();
        Lane {
            ctx: self.ctx,
            id: self.id,
            frames,
            occ: self.occ.clone(),
            back_edges: self.back_edges.clone(),
            events: Vec::new(),
            steps: 0,
            probe: true,
            sync_count: 0,
            shfl_out: self.shfl_out.clone(),
            arrives: self.arrives.clone(),
        }
    }

    /// Runs the lane to its end. `peers` holds the `shfl` values of the warp's lanes run
    /// before this one.
    pub fn run(
        &mut self,
        decisions: &mut Decisions,
        notes: &mut Notes,
        peers: &[HashMap<(usize, u32), Val>],
    ) -> Result<(), ImportError> {
        let budget = if self.probe { PROBE_STEPS } else { MAX_STEPS };
        while let Some(frame) = self.frames.last() {
            let func = frame.func;
            let pc = frame.pc;
            let Some(instr) = func.body.get(pc) else {
                self.ret();
                continue;
            };
            self.steps += 1;
            if self.steps > budget {
                if self.probe {
                    return Ok(());
                }
                return Err(ImportError::at(instr.line, ErrorKind::Runaway { steps: self.steps - 1 }));
            }
            let occ = {
                let n = self.occ.entry(instr.line).or_insert(0);
                *n += 1;
                *n - 1
            };
            if let Some(f) = self.frames.last_mut() {
                f.pc += 1;
            }
            if let Some((pred, neg)) = &instr.guard {
                match self.reg(pred) {
                    Val::Known(v) => {
                        if (v != 0) == *neg {
                            continue;
                        }
                    }
                    _ if is_branch(&instr.op) => {}
                    _ => {
                        // Run it: the side that synchronizes more (the policy).
                        if !self.probe {
                            notes
                                .fixed
                                .entry(instr.line)
                                .or_insert_with(|| "a guard on an unknown value: the guarded instruction runs".to_string());
                        }
                    }
                }
            }
            self.step(instr, occ, decisions, notes, peers)?;
        }
        Ok(())
    }

    fn ret(&mut self) {
        if let Some(done) = self.frames.pop() {
            if let Some(caller) = self.frames.last_mut() {
                for (formal, name) in done.func.rets.iter().zip(&done.ret_names) {
                    for ((key, off), v) in &done.pmem {
                        if key == &formal.name {
                            caller.pmem.insert((name.clone(), *off), *v);
                        }
                    }
                }
            }
        }
    }

    fn reg(&self, name: &str) -> Val {
        if let Some(v) = self.special(name) {
            return v;
        }
        self.frames.last().and_then(|f| f.regs.get(name).copied()).unwrap_or(Val::Unknown)
    }

    fn special(&self, name: &str) -> Option<Val> {
        if !name.starts_with('%') || name.contains('#') {
            return None;
        }
        let dim = |s: &str| match s.rsplit('.').next() {
            Some("x") => Some(0usize),
            Some("y") => Some(1),
            Some("z") => Some(2),
            _ => None,
        };
        let id = &self.id;
        let lane = self.lane() as i64;
        let head = name.split('.').next().unwrap_or(name);
        let k = |v: u32| Some(Val::Known(v as i64));
        match head {
            "%tid" => k(id.tid[dim(name)?]),
            "%ntid" => k(id.ntid[dim(name)?]),
            "%ctaid" => k(id.ctaid[dim(name)?]),
            "%cluster_ctaid" => k(id.rank_in_cluster[dim(name)?]),
            "%cluster_nctaid" => k(id.cluster_dims[dim(name)?]),
            "%clusterid" => k(if dim(name)? == 0 { id.cluster } else { 0 }),
            "%cluster_ctarank" => k(id.rank),
            "%cluster_nctarank" => k(id.cluster_dims.iter().product()),
            "%is_explicit_cluster" => k(1),
            "%laneid" => Some(Val::Known(lane)),
            "%warpid" => k(id.linear / 32),
            "%nwarpid" => k(id.ntid.iter().product::<u32>().div_ceil(32)),
            "%lanemask_eq" => Some(Val::Known(1 << lane)),
            "%lanemask_lt" => Some(Val::Known((1i64 << lane) - 1)),
            "%lanemask_le" => Some(Val::Known((1i64 << (lane + 1)) - 1)),
            "%lanemask_gt" => Some(Val::Known(0xffff_ffff & !((1i64 << (lane + 1)) - 1))),
            "%lanemask_ge" => Some(Val::Known(0xffff_ffff & !((1i64 << lane) - 1))),
            "%nctaid" => k(id.nctaid[dim(name)?]),
            "%nclusterid" => k(if dim(name)? == 0 { id.nclusters } else { 1 }),
            "%smid" | "%nsmid" | "%gridid" | "%clock" | "%clock64" | "%globaltimer"
            | "%globaltimer_lo" | "%globaltimer_hi" | "%dynamic_smem_size" | "%total_smem_size" | "%aggr_smem_size"
            | "%reserved_smem_offset_begin" | "%reserved_smem_offset_end" | "%reserved_smem_offset_cap" => Some(Val::Unknown),
            _ if head.starts_with("%envreg") || head.starts_with("%pm") => Some(Val::Unknown),
            _ => None,
        }
    }

    fn set(&mut self, dst: &Arg, v: Val) {
        match dst {
            Arg::Reg(name) => {
                if let Some(f) = self.frames.last_mut() {
                    // Keys borrow the module's text.
                    if let Some(key) = self.ctx.reg_names.get(name.as_str()) {
                        f.regs.insert(key, v);
                    }
                }
            }
            Arg::Pair(a, b) => {
                self.set(a, v);
                self.set(b, Val::Unknown);
            }
            Arg::Vector(items) => {
                for item in items {
                    self.set(item, Val::Unknown);
                }
            }
            _ => {}
        }
    }

    fn symbol(&self, name: &str) -> Val {
        if let Some(i) = self.ctx.shared.iter().position(|s| *s == name) {
            return Val::Addr(Addr { base: Base::Shared { sym: i as u32, cta: None }, off: 0 });
        }
        if let Some(i) = self.ctx.entry.params.iter().position(|p| p.name == name) {
            return Val::Addr(Addr { base: Base::Param { idx: i as u32 }, off: 0 });
        }
        if let Some(i) = self.ctx.module.globals.iter().position(|g| g.name == name) {
            return Val::Addr(Addr { base: Base::GlobalVar { idx: i as u32 }, off: 0 });
        }
        Val::Unknown
    }

    fn val(&self, arg: &Arg) -> Val {
        match arg {
            Arg::Reg(r) => self.reg(r),
            Arg::Imm(v) => Val::Known(*v),
            Arg::Name(n) => self.symbol(n),
            Arg::Not(inner) => match self.val(inner) {
                Val::Known(v) => Val::Known((v == 0) as i64),
                _ => Val::Unknown,
            },
            _ => Val::Unknown,
        }
    }

    /// The address `[base+offset]` names.
    fn address(&self, arg: &Arg) -> Val {
        match arg {
            Arg::Mem { base, offset, .. } => add_off(self.val(base), *offset),
            other => self.val(other),
        }
    }

    fn step(
        &mut self,
        instr: &'a Instr,
        occ: u32,
        decisions: &mut Decisions,
        notes: &mut Notes,
        peers: &[HashMap<(usize, u32), Val>],
    ) -> Result<(), ImportError> {
        let op = instr.op.as_str();
        let head = op.split('.').next().unwrap_or(op);
        let line = instr.line;
        let a = &instr.args;
        let arg = |i: usize| a.get(i).cloned().unwrap_or(Arg::Sink);
        match head {
            "bra" | "brx" => return self.branch(instr, occ, decisions, notes),
            "ret" | "exit" | "trap" => {
                if head == "ret" && self.frames.len() > 1 {
                    self.ret();
                } else {
                    self.frames.clear();
                }
                return Ok(());
            }
            "call" => return self.call(instr, notes),
            _ => {}
        }
        match self.memory_or_sync(instr, head, notes)? {
            Handled::Event(event) => {
                self.sync_count += 1;
                if !self.probe {
                    self.events.push(Event { line, occ, op: event });
                }
                return Ok(());
            }
            Handled::Done => return Ok(()),
            Handled::NotMine => {}
        }
        if !PURE.contains(&head) {
            return Err(unsupported(line, format!("`{op}`: an instruction the importer does not know")));
        }
        let (bits, signed) = type_of(op);
        let w = |v: i64| Val::Known(wrap(v, bits, signed));
        // Arithmetic other than offsets runs on shared addresses as numbers (their layout
        // is the importer's: `Ctx::shared_base`), so swizzles and descriptors stay exact.
        let linear = matches!(head, "mov" | "cvt" | "cvta" | "add" | "sub" | "mad" | "setp" | "selp" | "mapa" | "getctarank" | "isspacep" | "shfl" | "elect");
        let v = |i: usize| {
            let x = self.val(&arg(i));
            if linear {
                x
            } else {
                self.concrete(x)
            }
        };
        let result = match head {
            "mov" => match (a.first(), a.get(1)) {
                // Packing and unpacking (wgmma descriptors are built so).
                (_, Some(Arg::Vector(items))) => {
                    let parts: Vec<Val> = items.iter().map(|i| self.concrete(self.val(i))).collect();
                    let width = 64 / parts.len().max(1) as u32;
                    match parts.iter().map(|p| p.known()).collect::<Option<Vec<i64>>>() {
                        Some(ks) => Val::Known(ks.iter().enumerate().fold(0i64, |acc, (i, k)| acc | (wrap(*k, width, false) << (width * i as u32)))),
                        None => parts.iter().find_map(|p| p.origin()).map_or(Val::Unknown, Val::Derived),
                    }
                }
                (Some(Arg::Vector(items)), _) => {
                    let whole = self.concrete(v(1));
                    let width = 64 / items.len().max(1) as u32;
                    for (i, item) in items.iter().enumerate() {
                        let part = match whole {
                            Val::Known(k) => Val::Known(wrap(((k as u64) >> (width * i as u32)) as i64, width, false)),
                            other => other.origin().map_or(Val::Unknown, Val::Derived),
                        };
                        self.set(item, part);
                    }
                    return Ok(());
                }
                _ => v(1),
            },
            "cvt" | "cvta" => match v(1) {
                Val::Known(x) if !op.contains(".f") => {
                    let (sbits, ssigned) = type_of(op.rsplit('.').next().map(|s| format!(".{s}")).as_deref().unwrap_or(""));
                    w(wrap(x, sbits, ssigned))
                }
                Val::Known(_) => Val::Unknown,
                other => other,
            },
            "add" | "sub" => arith(v(1), v(2), head == "sub", w),
            "mul" | "mul24" => match (v(1), v(2)) {
                (Val::Known(x), Val::Known(y)) => {
                    if op.contains(".hi") {
                        let wide = (x as i128) * (y as i128);
                        w((wide >> bits) as i64)
                    } else if op.contains(".wide") {
                        Val::Known(x.wrapping_mul(y))
                    } else {
                        w(x.wrapping_mul(y))
                    }
                }
                (x, y) => derived(x, y),
            },
            "mad" | "mad24" => match (v(1), v(2), v(3)) {
                (Val::Known(x), Val::Known(y), c) => {
                    let prod = if op.contains(".hi") { ((x as i128 * y as i128) >> bits) as i64 } else { x.wrapping_mul(y) };
                    arith(Val::Known(prod), c, false, |r| if op.contains(".wide") { Val::Known(r) } else { w(r) })
                }
                (x, y, c) => derived(derived(x, y), c),
            },
            "shl" | "shr" => match (v(1), v(2)) {
                (Val::Known(x), Val::Known(s)) => {
                    let s = s.clamp(0, 64) as u32;
                    if head == "shl" {
                        w(if s >= 64 { 0 } else { x << s })
                    } else if signed {
                        w(if s >= 64 { x >> 63 } else { wrap(x, bits, true) >> s })
                    } else {
                        w(if s >= 64 { 0 } else { ((wrap(x, bits, false) as u64) >> s) as i64 })
                    }
                }
                (x, y) => derived(x, y),
            },
            "and" | "or" | "xor" if op.contains(".pred") => {
                let (x, y) = (v(1), v(2));
                match (head, x, y) {
                    ("and", Val::Known(0), _) | ("and", _, Val::Known(0)) => Val::Known(0),
                    ("or", Val::Known(p), _) | ("or", _, Val::Known(p)) if p != 0 => Val::Known(1),
                    (_, Val::Known(p), Val::Known(q)) => Val::Known(match head {
                        "and" => (p != 0 && q != 0) as i64,
                        "or" => (p != 0 || q != 0) as i64,
                        _ => ((p != 0) ^ (q != 0)) as i64,
                    }),
                    _ => Val::Unknown,
                }
            }
            "and" | "or" | "xor" => match (v(1), v(2)) {
                (Val::Known(x), Val::Known(y)) => w(match head {
                    "and" => x & y,
                    "or" => x | y,
                    _ => x ^ y,
                }),
                (x, y) => derived(x, y),
            },
            "not" => match v(1) {
                Val::Known(x) if op.contains(".pred") => Val::Known((x == 0) as i64),
                Val::Known(x) => w(!x),
                x => derived(x, Val::Known(0)),
            },
            "neg" => match v(1) {
                Val::Known(x) => w(x.wrapping_neg()),
                _ => Val::Unknown,
            },
            "min" | "max" => match (v(1), v(2)) {
                (Val::Known(x), Val::Known(y)) => {
                    let (x, y) = (wrap(x, bits, signed), wrap(y, bits, signed));
                    let pick = if signed { if head == "min" { x.min(y) } else { x.max(y) } } else if head == "min" {
                        (x as u64).min(y as u64) as i64
                    } else {
                        (x as u64).max(y as u64) as i64
                    };
                    w(pick)
                }
                _ => Val::Unknown,
            },
            "div" | "rem" => match (v(1), v(2)) {
                (Val::Known(x), Val::Known(y)) if y != 0 && !op.contains(".f") => {
                    let (x, y) = (wrap(x, bits, signed), wrap(y, bits, signed));
                    if signed {
                        w(if head == "div" { x.wrapping_div(y) } else { x.wrapping_rem(y) })
                    } else {
                        let (x, y) = (x as u64, y as u64);
                        w((if head == "div" { x / y } else { x % y }) as i64)
                    }
                }
                _ => Val::Unknown,
            },
            "selp" => match v(3) {
                Val::Known(p) => {
                    if p != 0 {
                        v(1)
                    } else {
                        v(2)
                    }
                }
                _ => match (v(1), v(2)) {
                    (x, y) if x == y => x,
                    _ => Val::Unknown,
                },
            },
            "setp" => {
                let r = compare(op, v(1), v(2));
                let r = combine(op, r, v(3));
                if let Some(Arg::Pair(p, q)) = a.first() {
                    self.set(p, r);
                    self.set(q, r.known().map_or(Val::Unknown, |x| Val::Known((x == 0) as i64)));
                    return Ok(());
                }
                r
            }
            "bfe" => match (v(1), v(2), v(3)) {
                (Val::Known(x), Val::Known(pos), Val::Known(len)) if (0..64).contains(&pos) && (0..=64).contains(&len) => {
                    let shifted = ((wrap(x, bits, false) as u64) >> pos) as i64;
                    let mask = if len >= 64 { -1 } else { (1i64 << len) - 1 };
                    let field = shifted & mask;
                    if signed && len > 0 && len < 64 && field >> (len - 1) & 1 == 1 {
                        w(field | !mask)
                    } else {
                        w(field)
                    }
                }
                _ => Val::Unknown,
            },
            "bfi" => match (v(1), v(2), v(3), v(4)) {
                (Val::Known(f), Val::Known(b), Val::Known(pos), Val::Known(len)) if (0..64).contains(&pos) && (0..64).contains(&len) => {
                    let mask = ((1i64 << len) - 1) << pos;
                    w((b & !mask) | ((f << pos) & mask))
                }
                _ => Val::Unknown,
            },
            "elect" => {
                let mask = v(1).known().unwrap_or(0xffff_ffff) as u64 & 0xffff_ffff;
                let leader = if mask == 0 { 32 } else { mask.trailing_zeros() };
                let elected = (self.lane() == leader) as i64;
                if let Some(Arg::Pair(d, p)) = a.first() {
                    self.set(d, Val::Known(leader as i64));
                    self.set(p, Val::Known(elected));
                    return Ok(());
                }
                Val::Known(elected)
            }
            "shfl" => {
                let key = (line, occ);
                let mine = v(1);
                let src_lane = v(2);
                self.shfl_out.insert(key, mine);
                let result = if op.contains(".idx") {
                    match src_lane {
                        Val::Known(src) => {
                            let src = (src & 31) as u32;
                            if src == self.lane() {
                                mine
                            } else {
                                peers.get(src as usize).and_then(|m| m.get(&key)).copied().unwrap_or(Val::Unknown)
                            }
                        }
                        _ => Val::Unknown,
                    }
                } else {
                    Val::Unknown
                };
                if let Some(Arg::Pair(d, p)) = a.first() {
                    self.set(d, result);
                    self.set(p, Val::Known(1));
                    return Ok(());
                }
                result
            }
            "mapa" => match (v(1), v(2)) {
                (Val::Addr(Addr { base: Base::Shared { sym, .. }, off }), Val::Known(rank)) => {
                    Val::Addr(Addr { base: Base::Shared { sym, cta: Some(rank as u32) }, off })
                }
                (Val::Addr(_), _) => return Err(unknown(line, "the CTA rank `mapa` maps to")),
                _ => return Err(unknown(line, "the shared address `mapa` maps")),
            },
            "getctarank" => match v(1) {
                Val::Addr(Addr { base: Base::Shared { cta, .. }, .. }) => Val::Known(cta.unwrap_or(self.id.rank) as i64),
                _ => Val::Unknown,
            },
            "isspacep" => match v(1) {
                Val::Addr(Addr { base, .. }) => {
                    let shared = matches!(base, Base::Shared { .. });
                    let global = matches!(base, Base::ParamPtr { .. } | Base::GlobalVar { .. });
                    Val::Known(if op.contains(".shared") { shared as i64 } else if op.contains(".global") { global as i64 } else { 0 })
                }
                _ => Val::Unknown,
            },
            _ => Val::Unknown,
        };
        if !matches!(head, "mov" | "cvta" | "cvt" | "add" | "sub" | "setp" | "selp") {
            notes.skipped += u64::from(!self.probe);
        }
        if let Some(dst) = a.first() {
            self.set(dst, result);
        }
        Ok(())
    }
}

/// Every register name the module's instructions mention, so lanes key registers by
/// `&str` borrowed from the module.
pub fn reg_names(module: &Module) -> std::collections::HashSet<&str> {
    let mut names = std::collections::HashSet::new();
    for f in &module.funcs {
        for instr in &f.body {
            for arg in &instr.args {
                collect_regs(arg, &mut names);
            }
            if let Some((p, _)) = &instr.guard {
                names.insert(p.as_str());
            }
        }
    }
    names
}

fn collect_regs<'a>(arg: &'a Arg, out: &mut std::collections::HashSet<&'a str>) {
    match arg {
        Arg::Reg(r) => {
            out.insert(r.as_str());
        }
        Arg::Mem { base, coords, .. } => {
            collect_regs(base, out);
            coords.iter().for_each(|c| collect_regs(c, out));
        }
        Arg::Vector(items) | Arg::List(items) => items.iter().for_each(|c| collect_regs(c, out)),
        Arg::Pair(a, b) => {
            collect_regs(a, out);
            collect_regs(b, out);
        }
        Arg::Not(a) => collect_regs(a, out),
        _ => {}
    }
}

pub fn is_branch(op: &str) -> bool {
    op == "bra" || op.starts_with("bra.")
}

pub fn add_off(v: Val, off: i64) -> Val {
    match v {
        Val::Addr(a) => Val::Addr(Addr { base: a.base, off: a.off.wrapping_add(off) }),
        Val::Known(x) => Val::Known(x.wrapping_add(off)),
        other => other,
    }
}

fn arith(x: Val, y: Val, sub: bool, w: impl Fn(i64) -> Val) -> Val {
    match (x, y) {
        (Val::Known(a), Val::Known(b)) => w(if sub { a.wrapping_sub(b) } else { a.wrapping_add(b) }),
        (Val::Addr(a), Val::Known(b)) => Val::Addr(Addr { base: a.base, off: if sub { a.off.wrapping_sub(b) } else { a.off.wrapping_add(b) } }),
        (Val::Known(b), Val::Addr(a)) if !sub => Val::Addr(Addr { base: a.base, off: a.off.wrapping_add(b) }),
        (Val::Addr(a), Val::Addr(b)) if sub && a.base == b.base => Val::Known(a.off.wrapping_sub(b.off)),
        (x, y) => derived(x, y),
    }
}

/// A value computed from an address and something else: it still points into the
/// address's object, somewhere.
fn derived(x: Val, y: Val) -> Val {
    match (x.origin(), y.origin()) {
        (Some(a), None) | (None, Some(a)) => Val::Derived(a),
        _ => Val::Unknown,
    }
}

fn compare(op: &str, x: Val, y: Val) -> Val {
    let cmp = op.split('.').nth(1).unwrap_or("");
    let (bits, signed) = type_of(op);
    if op.contains(".f32") || op.contains(".f64") || op.contains(".f16") {
        return Val::Unknown;
    }
    let (a, b) = match (x, y) {
        (Val::Known(a), Val::Known(b)) => (a, b),
        (Val::Addr(a), Val::Addr(b)) if a.base == b.base => (a.off, b.off),
        _ => return Val::Unknown,
    };
    let (sa, sb) = (wrap(a, bits, true), wrap(b, bits, true));
    let (ua, ub) = (wrap(a, bits, false) as u64, wrap(b, bits, false) as u64);
    let r = match cmp {
        "eq" => ua == ub,
        "ne" => ua != ub,
        "lt" if signed => sa < sb,
        "le" if signed => sa <= sb,
        "gt" if signed => sa > sb,
        "ge" if signed => sa >= sb,
        "lt" | "lo" => ua < ub,
        "le" | "ls" => ua <= ub,
        "gt" | "hi" => ua > ub,
        "ge" | "hs" => ua >= ub,
        _ => return Val::Unknown,
    };
    Val::Known(r as i64)
}

/// `setp.CMP.BOOLOP`: combines the comparison with a third predicate operand.
fn combine(op: &str, r: Val, c: Val) -> Val {
    let boolop = op.split('.').find(|p| matches!(*p, "and" | "or" | "xor"));
    let Some(boolop) = boolop else { return r };
    match (boolop, r, c) {
        ("and", Val::Known(0), _) | ("and", _, Val::Known(0)) => Val::Known(0),
        ("or", Val::Known(p), _) | ("or", _, Val::Known(p)) if p != 0 => Val::Known(1),
        (_, Val::Known(p), Val::Known(q)) => Val::Known(match boolop {
            "and" => (p != 0 && q != 0) as i64,
            "or" => (p != 0 || q != 0) as i64,
            _ => ((p != 0) ^ (q != 0)) as i64,
        }),
        _ => Val::Unknown,
    }
}

impl<'c, 'a> Lane<'c, 'a> {
    fn branch(&mut self, instr: &'a Instr, occ: u32, decisions: &mut Decisions, notes: &mut Notes) -> Result<(), ImportError> {
        let line = instr.line;
        if instr.op.starts_with("brx") {
            return Err(unsupported(line, "`brx.idx` (an indirect branch)"));
        }
        let Some(Arg::Name(label)) = instr.args.first() else {
            return Err(unsupported(line, "a branch without a label"));
        };
        let Some(frame) = self.frames.last() else { return Ok(()) };
        let func = frame.func;
        let Some(&target) = func.labels.get(label) else {
            return Err(ImportError::at(line, ErrorKind::Syntax(format!("branch to unknown label `{label}`"))));
        };
        let here = frame.pc - 1;
        let taken = match &instr.guard {
            None => true,
            Some((pred, neg)) => match self.reg(pred) {
                Val::Known(v) => (v != 0) != *neg,
                _ => self.decide(here, target, line, occ, decisions, notes)?,
            },
        };
        if taken {
            if let Some(f) = self.frames.last_mut() {
                f.pc = target;
            }
        }
        Ok(())
    }

    /// The policy for a branch on an unknown value: a back edge is taken until its loop
    /// has run `iterations` times; any other branch takes the side that runs more memory
    /// and synchronization instructions (the fall-through on a tie).
    fn decide(
        &mut self,
        here: usize,
        target: usize,
        line: usize,
        occ: u32,
        decisions: &mut Decisions,
        notes: &mut Notes,
    ) -> Result<bool, ImportError> {
        let iterations = self.ctx.iterations.max(1);
        if target <= here {
            let count = self.back_edges.entry(line).or_insert(0);
            let take = *count + 1 < iterations;
            *count = if take { *count + 1 } else { 0 };
            if !self.probe {
                notes.fixed.entry(line).or_insert_with(|| {
                    format!("loop back edge on an unknown value: the loop runs {iterations} times (--iterations)")
                });
            }
            return Ok(take);
        }
        // A forward branch out of a loop's body: stay until the loop has run `iterations` times.
        if let Some(func) = self.frames.last().map(|f| f.func) {
            let exits_loop = func.body.iter().enumerate().any(|(b, instr)| {
                is_branch(&instr.op)
                    && b < target
                    && b >= here
                    && matches!(instr.args.first(), Some(Arg::Name(l)) if func.labels.get(l).is_some_and(|&h| h <= here))
            });
            if exits_loop {
                let count = self.back_edges.entry(line).or_insert(0);
                let stay = *count + 1 < iterations;
                *count = if stay { *count + 1 } else { 0 };
                if !self.probe {
                    notes.fixed.entry(line).or_insert_with(|| {
                        format!("loop exit on an unknown value: the loop runs {iterations} times (--iterations)")
                    });
                }
                return Ok(!stay);
            }
        }
        if self.probe {
            return Ok(false);
        }
        if let Some(&d) = decisions.get(&(line, occ)) {
            return Ok(d);
        }
        let mut jump = self.probe_clone();
        if let Some(f) = jump.frames.last_mut() {
            f.pc = target;
        }
        let mut stay = self.probe_clone();
        let mut scratch = Notes::default();
        let mut none = Decisions::new();
        jump.run(&mut none, &mut scratch, &[])?;
        stay.run(&mut none, &mut scratch, &[])?;
        // Reached more than `iterations` times, it takes the side with less: a loop that
        // continues on an unknown value ends.
        let more = jump.sync_count > stay.sync_count;
        let take = if occ >= iterations { !more && jump.sync_count != stay.sync_count } else { more };
        decisions.insert((line, occ), take);
        if occ >= iterations {
            notes.fixed.insert(
                line,
                format!("branch on an unknown value, reached over {iterations} times (a loop): then it takes the side with less synchronization"),
            );
        }
        notes.fixed.entry(line).or_insert_with(|| {
            format!(
                "branch on an unknown value: {} ({} memory/sync instructions against {})",
                if take { "taken" } else { "not taken" },
                jump.sync_count.max(stay.sync_count),
                jump.sync_count.min(stay.sync_count)
            )
        });
        Ok(take)
    }

    fn call(&mut self, instr: &'a Instr, notes: &mut Notes) -> Result<(), ImportError> {
        let line = instr.line;
        let (rets, name, args) = match instr.args.as_slice() {
            [Arg::List(rets), Arg::Name(name), Arg::List(args), ..] => (rets.clone(), name, args.clone()),
            [Arg::List(rets), Arg::Name(name)] => (rets.clone(), name, Vec::new()),
            [Arg::Name(name), Arg::List(args), ..] => (Vec::new(), name, args.clone()),
            [Arg::Name(name)] => (Vec::new(), name, Vec::new()),
            _ => return Err(unsupported(line, "an indirect `call`")),
        };
        let Some(callee) = self.ctx.module.func(name) else {
            if !self.probe {
                notes.external_calls.insert(line, name.clone());
            }
            for r in &rets {
                let rname = arg_name(r);
                if let (Some(f), Some(rname)) = (self.frames.last_mut(), rname) {
                    f.pmem.retain(|(k, _), _| k != &rname);
                }
            }
            return Ok(());
        };
        if self.frames.len() >= MAX_CALL_DEPTH {
            return Err(unsupported(line, "calls nested too deep (recursion?)"));
        }
        let mut pmem = HashMap::new();
        if let Some(caller) = self.frames.last() {
            for (formal, actual) in callee.params.iter().zip(&args) {
                match actual {
                    Arg::Reg(_) | Arg::Imm(_) => {
                        pmem.insert((formal.name.clone(), 0), self.val(actual));
                    }
                    _ => {
                        let Some(aname) = arg_name(actual) else { continue };
                        for ((k, off), v) in &caller.pmem {
                            if *k == aname {
                                pmem.insert((formal.name.clone(), *off), *v);
                            }
                        }
                    }
                }
            }
        }
        let ret_names = rets.iter().filter_map(arg_name).collect();
        self.frames.push(Frame { func: callee, pc: 0, regs: HashMap::new(), pmem, ret_names });
        Ok(())
    }
}

fn arg_name(arg: &Arg) -> Option<String> {
    match arg {
        Arg::Name(n) | Arg::Reg(n) => Some(n.clone()),
        _ => None,
    }
}

/// Memory and synchronization instructions: what each becomes in the scenario.
impl<'c, 'a> Lane<'c, 'a> {
    fn cta_of(&self, base_cta: Option<u32>) -> u32 {
        self.ctx.cluster_base + base_cta.unwrap_or(self.id.rank)
    }

    /// The object `[addr]` names for a data access of `len` bytes.
    fn data(&self, addr: Val, len: i64, width: Option<u32>, line: usize, notes: &mut Notes) -> Result<Option<Obj>, ImportError> {
        let off = addr.origin().map_or(0, |a| a.off);
        if !(0..=MAX_OFFSET).contains(&len) || !(-MAX_OFFSET..=MAX_OFFSET).contains(&off) {
            return Err(unknown(line, format!("an access of {len} bytes at offset {off}: out of range")));
        }
        let span = |region: Region, start: Option<i64>| {
            let span = match start {
                Some(start) => Span { region, start, len, exact: true },
                None => Span { region, start: 0, len: 1, exact: false },
            };
            Ok(Some(Obj::Mem { span, width }))
        };
        let region_of = |base: Base| -> Option<Region> {
            Some(match base {
                Base::Shared { sym, cta } => Region::Shared { sym, cta: self.cta_of(cta) },
                Base::ParamPtr { idx, field } => Region::ParamPtr { idx, field },
                Base::GlobalVar { idx } => Region::GlobalVar { idx },
                Base::Param { idx } => Region::Tensormap { idx, field: 0 },
            })
        };
        match addr {
            Val::Addr(a) => match region_of(a.base) {
                Some(r) => span(r, Some(a.off)),
                None => Ok(None),
            },
            Val::Derived(a) => match (a.base, region_of(a.base)) {
                (Base::Shared { .. }, Some(r)) => Ok(Some(Obj::Mem { span: Span { region: r, start: a.off, len: 1, exact: false }, width: None })),
                _ => {
                    if !self.probe {
                        *notes.dropped_global.entry(line).or_insert(0) += 1;
                    }
                    Ok(None)
                }
            },
            _ => {
                if !self.probe {
                    *notes.dropped_global.entry(line).or_insert(0) += 1;
                }
                Ok(None)
            }
        }
    }

    fn shared_data(&self, addr: Val, len: i64, width: Option<u32>, line: usize, what: &str) -> Result<Obj, ImportError> {
        let addr = self.shared_at(addr);
        let mut scratch = Notes::default();
        match (addr, self.data(addr, len, width, line, &mut scratch)?) {
            (Val::Addr(Addr { base: Base::Shared { .. }, .. }) | Val::Derived(Addr { base: Base::Shared { .. }, .. }), Some(obj)) => Ok(obj),
            _ => Err(unknown(line, format!("the shared-memory address of {what}"))),
        }
    }

    fn bar(&self, addr: Val, line: usize) -> Result<Obj, ImportError> {
        match self.shared_at(addr) {
            Val::Addr(Addr { base: Base::Shared { sym, cta }, off }) => Ok(Obj::Bar { cta: self.cta_of(cta), sym, off }),
            _ => Err(unknown(line, "the mbarrier's address")),
        }
    }

    /// A shared address of the executing CTA as the number the importer's layout gives it.
    fn concrete(&self, v: Val) -> Val {
        match v {
            Val::Addr(Addr { base: Base::Shared { sym, cta: None }, off }) => {
                self.ctx.shared_base.get(sym as usize).map_or(v, |b| Val::Known(b + off))
            }
            other => other,
        }
    }

    /// A number used as a shared address: the variable the layout puts there.
    fn shared_at(&self, v: Val) -> Val {
        let Val::Known(k) = v else { return v };
        let k = wrap(k, 32, false);
        for (sym, base) in self.ctx.shared_base.iter().enumerate() {
            let size = self.ctx.shared_bytes.get(sym).copied().flatten().map_or(DYNAMIC_SHARED, |b| b as i64);
            if *base <= k && k < base + size {
                return Val::Addr(Addr { base: Base::Shared { sym: sym as u32, cta: None }, off: k - base });
            }
        }
        v
    }

    fn known(&self, arg: Option<&Arg>, line: usize, what: &str) -> Result<i64, ImportError> {
        arg.map(|a| self.val(a)).and_then(Val::known).ok_or_else(|| unknown(line, what.to_string()))
    }

    fn memory_or_sync(&mut self, instr: &'a Instr, head: &str, notes: &mut Notes) -> Result<Handled, ImportError> {
        let op = instr.op.as_str();
        let line = instr.line;
        let a = &instr.args;
        let mods: Vec<&str> = op.split('.').skip(1).collect();
        let has = |m: &str| mods.contains(&m);
        let sem = ["weak", "relaxed", "acquire", "release", "acq_rel", "volatile", "mmio", "sc"]
            .into_iter()
            .find(|s| has(s))
            .map_or(String::new(), |s| format!(".{s}"));
        let scope = ["cta", "cluster", "gpu", "sys"].into_iter().find(|s| has(s)).map_or(String::new(), |s| format!(".{s}"));
        let space = if has("shared::cluster") {
            ".shared::cluster"
        } else if has("shared") || has("shared::cta") {
            ".shared::cta"
        } else if has("global") {
            ".global"
        } else {
            ""
        };
        let sync = |text: String, objs: Vec<Obj>| Ok(Handled::Event(Op { text, objs, class: Class::Sync }));
        match head {
            "st" | "red" if has("async") => self.store_async(instr, &mods).map(Handled::from),
            "ld" | "ldu" | "st" | "atom" | "red" | "ldmatrix" | "stmatrix" => {
                if has("param") {
                    if head == "st" {
                        let addr = a.first().cloned().unwrap_or(Arg::Sink);
                        let v = self.val(a.get(1).unwrap_or(&Arg::Sink));
                        if let Arg::Mem { base, offset, .. } = addr {
                            if let (Some(name), Some(f)) = (arg_name(&base), self.frames.last_mut()) {
                                f.pmem.insert((name, offset), v);
                            }
                        }
                        return Ok(Handled::Done);
                    }
                    match a.first() {
                        Some(Arg::Vector(items)) => {
                            let (bits, _) = type_of(op);
                            let elem = i64::from(bits.max(8) / 8);
                            let src = a.get(1).unwrap_or(&Arg::Sink);
                            let vals: Vec<Val> = (0..items.len() as i64).map(|i| self.load_param_at(src, op, i * elem)).collect();
                            for (item, v) in items.iter().zip(vals) {
                                self.set(item, v);
                            }
                        }
                        Some(dst) => {
                            let v = self.load_param_at(a.get(1).unwrap_or(&Arg::Sink), op, 0);
                            self.set(dst, v);
                        }
                        None => {}
                    }
                    return Ok(Handled::Done);
                }
                if has("local") || has("const") || (head == "ld" && has("nc")) && !has("shared") {
                    if head != "st" && head != "red" {
                        if let Some(dst) = a.first() {
                            self.set(dst, Val::Unknown);
                        }
                    }
                    notes.skipped += u64::from(!self.probe);
                    return Ok(Handled::Done);
                }
                self.access(instr, head, &sem, &scope, space, notes).map(Handled::from)
            }
            "fence" | "membar" => {
                let text = if head == "membar" {
                    format!("membar{}", if has("gl") { ".gl" } else if has("sys") { ".sys" } else { ".cta" })
                } else if has("proxy") {
                    let kind = mods.get(1).copied().unwrap_or("");
                    match kind {
                        "async" => format!("fence.proxy.async{}", mods.get(2).map_or(String::new(), |s| format!(".{s}"))),
                        "alias" | "texture" | "surface" | "constant" => format!("fence.proxy.{kind}"),
                        "async::generic" | "tensormap::generic" => format!("fence.{}", mods.join(".")),
                        _ => return Err(unsupported(line, format!("`{op}`"))),
                    }
                } else if has("mbarrier_init") {
                    "fence.mbarrier_init.release.cluster".into()
                } else {
                    format!("fence.{}", mods.join("."))
                };
                sync(text, vec![])
            }
            "bar" | "barrier" => {
                if has("warp") {
                    return Ok(Handled::Event(Op { text: "bar.warp.sync".into(), objs: vec![], class: Class::WarpBarrier }));
                }
                if has("cluster") {
                    let text = if has("arrive") {
                        format!("barrier.cluster.arrive{}", if has("relaxed") { ".relaxed" } else { "" })
                    } else {
                        format!("barrier.cluster.wait{}", if has("acquire") { ".acquire" } else { "" })
                    };
                    return sync(text, vec![]);
                }
                let kind = if has("arrive") { "arrive" } else if has("red") { "red" } else { "sync" };
                let operands: Vec<&Arg> = a.iter().filter(|x| !matches!(x, Arg::Pair(..))).collect();
                let (id_arg, count_arg) = if kind == "red" {
                    // bar.red.op.pred d, a, {b,} {!}c
                    (operands.get(1).copied(), if operands.len() > 3 { operands.get(2).copied() } else { None })
                } else {
                    (operands.first().copied(), operands.get(1).copied())
                };
                let id = self.known(id_arg, line, "the barrier id")?;
                let count = match count_arg {
                    Some(c) => format!(", {}", self.known(Some(c), line, "the barrier's thread count")?),
                    None => String::new(),
                };
                if kind == "red" {
                    if let Some(dst) = a.first() {
                        self.set(dst, Val::Unknown);
                    }
                }
                sync(format!("bar.{kind} {id}{count}"), vec![])
            }
            "mbarrier" => self.mbarrier(instr, &mods, &sem, &scope, space, notes).map(Handled::from),
            "cp" => self.copy(instr, &mods, notes).map(Handled::from),
            "wgmma" => {
                let text = match mods.first().copied() {
                    Some("fence") => "wgmma.fence.sync.aligned".to_string(),
                    Some("commit_group") => "wgmma.commit_group.sync.aligned".to_string(),
                    Some("wait_group") => format!("wgmma.wait_group.sync.aligned {}", self.known(a.first(), line, "the wgmma group count")?),
                    Some("mma_async") => {
                        // D, A-desc or A registers, B-desc, ...: the descriptors point into shared memory.
                        let b = self.descriptor(self.val(a.get(2).unwrap_or(&Arg::Sink)));
                        let a_desc = match a.get(1) {
                            Some(Arg::Vector(_)) => None,
                            Some(x) => Some(self.descriptor(self.val(x))),
                            None => None,
                        };
                        let b_obj = self.shared_data(b, 1, None, line, "the wgmma B descriptor")?;
                        let a_obj = match a_desc {
                            Some(v) => self.shared_data(v, 1, None, line, "the wgmma A descriptor")?,
                            // A in the thread's own registers: the MMA reads only B from shared
                            // memory, so B stands for both operands (the scenario's form names two).
                            None => {
                                if !self.probe {
                                    notes.fixed.insert(line, "wgmma with A in registers: its shared-memory operands are B's, named twice".into());
                                }
                                b_obj
                            }
                        };
                        return Ok(Handled::Event(Op { text: "wgmma.mma_async.sync.aligned acc, [{0}], [{1}]".into(), objs: vec![a_obj, b_obj], class: Class::Sync }));
                    }
                    _ => return Err(unsupported(line, format!("`{op}`"))),
                };
                sync(text, vec![])
            }
            "tcgen05" => self.tcgen05(instr, &mods, notes).map(Handled::from),
            "clusterlaunchcontrol" => self.launch_control(instr, &mods, notes).map(Handled::from),
            "tensormap" | "multimem" | "tex" | "tld4" | "suld" | "sust" | "sured" | "suq" | "txq"
            | "wmma" | "alloca" | "stacksave" | "stackrestore" => Err(unsupported(line, format!("`{op}`"))),
            _ => Ok(Handled::NotMine),
        }
    }

    /// `st.async` / `red.async` into a peer CTA's shared memory, completing on the
    /// mbarrier there: one instruction carrying both the write and the complete-tx, so the
    /// lanes of a warp that store at different bytes stay apart (a `Sync` op), and runs of
    /// them are never joined (each completes its own bytes).
    fn store_async(&self, instr: &'a Instr, mods: &[&str]) -> Result<Option<Op>, ImportError> {
        let line = instr.line;
        let op = instr.op.as_str();
        let a = &instr.args;
        let is_red = op.starts_with("red");
        if !mods.contains(&"mbarrier::complete_tx::bytes") || !mods.contains(&"shared::cluster") {
            // The `.mmio`/`.global` forms of PTX 8.7+ complete on no mbarrier.
            return Err(unsupported(line, format!("`{op}` (only the `.shared::cluster.mbarrier::complete_tx::bytes` form is followed)")));
        }
        let (bits, _) = type_of(op);
        let lanes = if mods.contains(&"v4") { 4 } else if mods.contains(&"v2") { 2 } else { 1 };
        let width = (bits.max(8) / 8) * lanes;
        let addr = a.first().map(|x| self.address(x)).unwrap_or(Val::Unknown);
        let data = self.shared_data(addr, i64::from(width), Some(width), line, &format!("`{op}`'s destination"))?;
        let bar = self.bar(a.get(2).map(|x| self.address(x)).unwrap_or(Val::Unknown), line)?;
        // The scenario language refuses what PTX leaves undefined (§9.7.13.7); `st.async`
        // into its own CTA is the checker's to judge (reference §12 #9).
        if is_red && matches!(data, Obj::Mem { span: Span { region: Region::Shared { cta, .. }, .. }, .. } if cta == self.cta_of(None)) {
            return Err(unsupported(line, "`red.async` into the executing CTA's own shared memory (it must target another CTA of the cluster)"));
        }
        let value = match a.get(1).map(|x| self.val(x)) {
            Some(Val::Known(v)) => v.to_string(),
            _ => "1".into(),
        };
        let ty = format!(".b{}", width * 8);
        let text = if is_red {
            let aop = ["add", "inc", "dec", "max", "min", "and", "or", "xor"]
                .into_iter()
                .find(|m| mods.contains(m))
                .ok_or_else(|| unsupported(line, format!("`{op}`: a reduction the importer does not know")))?;
            format!("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.{aop}{ty} [{{0}}], {value}, [{{1}}]")
        } else {
            format!("st.async.shared::cluster.mbarrier::complete_tx::bytes{ty} [{{0}}], {value}, [{{1}}]")
        };
        Ok(Some(Op { text, objs: vec![data, bar], class: Class::Sync }))
    }

    /// A wgmma shared-memory descriptor: bits 0–13 hold the start address / 16.
    fn descriptor(&self, v: Val) -> Val {
        match v {
            Val::Known(d) => self.shared_at(Val::Known((d & 0x3fff) << 4)),
            other => other,
        }
    }

    fn load_param_at(&self, src: &Arg, op: &str, extra: i64) -> Val {
        let addr = add_off(self.address(src), extra);
        let (bits, _) = type_of(op);
        let vector = op.contains(".v2") || op.contains(".v4");
        match addr {
            Val::Addr(Addr { base: Base::Param { idx }, off }) => {
                if let Some(v) = self.ctx.params.get(&(idx, off)) {
                    return Val::Known(*v);
                }
                if bits == 64 && !vector {
                    Val::Addr(Addr { base: Base::ParamPtr { idx, field: off }, off: 0 })
                } else {
                    Val::Unknown
                }
            }
            _ => {
                // A `.func` parameter or a call result.
                if let Arg::Mem { base, offset, .. } = src {
                    if let (Some(name), Some(f)) = (arg_name(base), self.frames.last()) {
                        return f.pmem.get(&(name, *offset + extra)).copied().unwrap_or(Val::Unknown);
                    }
                }
                Val::Unknown
            }
        }
    }

    fn access(&mut self, instr: &'a Instr, head: &str, sem: &str, scope: &str, space: &str, notes: &mut Notes) -> Result<Option<Op>, ImportError> {
        let op = instr.op.as_str();
        let line = instr.line;
        let a = &instr.args;
        let (bits, _) = type_of(op);
        let lanes = if op.contains(".v4") { 4 } else if op.contains(".v2") { 2 } else { 1 };
        let matrix = head == "ldmatrix" || head == "stmatrix";
        let width = if matrix { 16 } else { (bits.max(8) / 8) * lanes };
        let (addr_arg, dst) = match head {
            "ld" | "ldu" | "ldmatrix" => (a.get(1), a.first()),
            "atom" => (a.get(1), a.first()),
            _ => (a.first(), None),
        };
        let mut addr = addr_arg.map(|x| self.address(x)).unwrap_or(Val::Unknown);
        if space.starts_with(".shared") {
            addr = self.shared_at(addr);
        }
        if let Some(dst) = dst {
            self.set(dst, Val::Unknown);
        }
        let Some(obj) = self.data(addr, width as i64, Some(width), line, notes)? else {
            return Ok(None);
        };
        if let (Some(dst), Obj::Mem { span: Span { region: Region::Shared { sym, cta }, start, exact: true, .. }, .. }) = (dst, obj) {
            if head == "ld" && cta == self.cta_of(None) && self.ctx.tmem_slots.borrow().contains(&(sym, start)) {
                self.set(dst, Val::Known(0));
            }
        }
        let is_shared = matches!(obj, Obj::Mem { span: Span { region: Region::Shared { .. }, .. }, .. });
        let space = if space.is_empty() && !is_shared { ".global" } else { space };
        let bsuffix = format!(".b{}", width * 8);
        let reg = dst.map(reg_text).unwrap_or_else(|| "r".into());
        let value = |i: usize| match a.get(i).map(|x| self.val(x)) {
            Some(Val::Known(v)) => v.to_string(),
            _ => "1".into(),
        };
        let sem = if sem == ".sc" { "" } else { sem };
        let text = match head {
            "ld" | "ldu" | "ldmatrix" => format!("ld{sem}{scope}{space}{bsuffix} {reg}, [{{0}}]"),
            "st" | "stmatrix" => format!("st{sem}{scope}{space}{bsuffix} [{{0}}], {}", value(1)),
            _ => {
                let aop = ["add", "inc", "dec", "exch", "max", "min", "and", "or", "xor", "cas"]
                    .into_iter()
                    .find(|m| op.split('.').any(|p| p == *m))
                    .ok_or_else(|| unsupported(line, format!("`{op}`: an atomic operation the importer does not know")))?;
                let sem = if sem == ".weak" { "" } else { sem };
                if head == "red" {
                    format!("red{sem}{scope}{space}.{aop}{bsuffix} [{{0}}], {}", value(1))
                } else if aop == "cas" {
                    format!("atom{sem}{scope}{space}.cas{bsuffix} {reg}, [{{0}}], {}, {}", value(2), value(3))
                } else {
                    format!("atom{sem}{scope}{space}.{aop}{bsuffix} {reg}, [{{0}}], {}", value(2))
                }
            }
        };
        Ok(Some(Op { text, objs: vec![obj], class: Class::Data }))
    }
}

/// A register's name in the scenario (`%rd9` → `rd9`, `%p#3` → `p_3`).
pub fn reg_text(arg: &Arg) -> String {
    match arg {
        Arg::Reg(r) => {
            let s: String = r.trim_start_matches('%').chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
            if s.starts_with(|c: char| c.is_ascii_alphabetic()) {
                s
            } else {
                format!("r{s}")
            }
        }
        Arg::Pair(a, _) => reg_text(a),
        _ => "r".into(),
    }
}

impl<'c, 'a> Lane<'c, 'a> {
    fn mbarrier(&mut self, instr: &'a Instr, mods: &[&str], sem: &str, scope: &str, space: &str, notes: &mut Notes) -> Result<Option<Op>, ImportError> {
        let line = instr.line;
        let op = instr.op.as_str();
        let a = &instr.args;
        let has = |m: &str| mods.contains(&m);
        let kind = mods.first().copied().unwrap_or("");
        let space = if space == ".global" || space.is_empty() { ".shared::cta" } else { space };
        let bar_arg = a.iter().find(|x| matches!(x, Arg::Mem { .. }));
        let bar = |lane: &Self| lane.bar(bar_arg.map(|x| lane.address(x)).unwrap_or(Val::Unknown), line);
        let after_bar: Vec<&Arg> = a.iter().skip_while(|x| !matches!(x, Arg::Mem { .. })).skip(1).collect();
        let sync = |text: String, objs: Vec<Obj>| Ok(Some(Op { text, objs, class: Class::Sync }));
        match kind {
            "init" => {
                let count = self.known(after_bar.first().copied(), line, "the mbarrier's expected count")?;
                sync(format!("mbarrier.init.shared::cta [{{0}}], {count}"), vec![bar(self)?])
            }
            "inval" => sync("mbarrier.inval.shared::cta [{0}]".into(), vec![bar(self)?]),
            "expect_tx" | "complete_tx" => {
                let bytes = self.tx_bytes(after_bar.first().copied(), line, kind == "expect_tx")?;
                sync(format!("mbarrier.{kind}{sem}{scope}{space} [{{0}}], {bytes}"), vec![bar(self)?])
            }
            "arrive" | "arrive_drop" => {
                // The state token names the phase this arrive is in: the lane's own count
                // of arrives on the barrier (a wait on it assumes each phase needs one).
                let barrier = bar(self)?;
                let phase = self.arrives.get(&barrier).copied().unwrap_or(0);
                self.arrives.insert(barrier, phase + 1);
                if let Some(dst) = a.first().filter(|x| !matches!(x, Arg::Mem { .. })) {
                    self.set(dst, Val::Known(phase));
                }
                let no_complete = if has("noComplete") { ".noComplete" } else { "" };
                if has("expect_tx") {
                    let bytes = self.tx_bytes(after_bar.first().copied(), line, true)?;
                    return sync(format!("mbarrier.{kind}.expect_tx{sem}{scope}{space} [{{0}}], {bytes}"), vec![bar(self)?]);
                }
                let count = match after_bar.first() {
                    Some(c) => u32::try_from(self.known(Some(c), line, "the arrive count")?).map_err(|_| unknown(line, "an arrive count in range"))?,
                    None => 1,
                };
                let text = format!("mbarrier.{kind}{no_complete}{sem}{scope}{space} [{{0}}]{{n}}");
                Ok(Some(Op { text, objs: vec![bar(self)?], class: Class::Arrive(count) }))
            }
            "test_wait" | "try_wait" => {
                if let Some(dst) = a.first() {
                    self.set(dst, Val::Known(1));
                }
                let parity = if has("parity") {
                    self.known(after_bar.first().copied(), line, "the phase parity the wait expects")? & 1
                } else {
                    let phase = self.known(after_bar.first().copied(), line, "the phase of the state token the wait is given (a token from this lane's own arrive)")?;
                    if !self.probe {
                        notes.fixed.insert(line, "wait on a state token: the phase of the lane's own arrive on that barrier (its count of arrives there)".into());
                    }
                    phase & 1
                };
                sync(format!("wait mbarrier.{kind}.parity{sem}{scope}.shared::cta [{{0}}], {parity}"), vec![bar(self)?])
            }
            "pending_count" => {
                if let Some(dst) = a.first() {
                    self.set(dst, Val::Unknown);
                }
                Ok(None)
            }
            _ => Err(unsupported(line, format!("`{op}`"))),
        }
    }

    /// An expect-tx byte count; an unknown one (a runtime parameter) becomes `{expect}`,
    /// fixed by [`super::emit::tensor_bytes`] from the copies completing on the barrier.
    fn tx_bytes(&self, arg: Option<&Arg>, line: usize, expect: bool) -> Result<String, ImportError> {
        match arg.map(|a| self.val(a)) {
            Some(Val::Known(v)) => Ok(v.to_string()),
            _ if expect => Ok("{expect}".into()),
            _ => Err(unknown(line, "the transaction byte count")),
        }
    }

    fn copy(&mut self, instr: &'a Instr, mods: &[&str], notes: &mut Notes) -> Result<Option<Op>, ImportError> {
        let line = instr.line;
        let op = instr.op.as_str();
        let a = &instr.args;
        let has = |m: &str| mods.contains(&m);
        let sync = |text: String, objs: Vec<Obj>| Ok(Some(Op { text, objs, class: Class::Sync }));
        let reduce = op.starts_with("cp.reduce");
        // The modifiers after `async` (`cp.async.wait_group`) or after `bulk`.
        let after = |word: &str| -> Vec<&str> { mods.iter().skip_while(|m| **m != word).skip(1).copied().collect() };
        let rest = if has("bulk") { after("bulk") } else { after("async") };
        if !has("bulk") {
            // cp.async (non-bulk)
            return match rest.first().copied() {
                Some("commit_group") => sync("cp.async.commit_group".into(), vec![]),
                Some("wait_group") => sync(format!("cp.async.wait_group {}", self.known(a.first(), line, "the group count")?), vec![]),
                Some("wait_all") => sync("cp.async.wait_all".into(), vec![]),
                Some("mbarrier") => {
                    let bar = self.bar(a.first().map(|x| self.address(x)).unwrap_or(Val::Unknown), line)?;
                    // Each lane's arrive-on counts: lanes merged into one thread repeat it
                    // (the form has no count operand).
                    let text = format!("cp.async.mbarrier.arrive{}.shared::cta [{{0}}]", if has("noinc") { ".noinc" } else { "" });
                    Ok(Some(Op { text, objs: vec![bar], class: Class::Arrive(1) }))
                }
                Some("ca" | "cg") => {
                    let bytes = self.known(a.get(2), line, "the copy size")?;
                    let dst = self.address(a.first().unwrap_or(&Arg::Sink));
                    let src = self.address(a.get(1).unwrap_or(&Arg::Sink));
                    let dst = self.shared_data(dst, bytes, None, line, "the copy's destination")?;
                    let src = self.global(src, bytes);
                    Ok(Some(Op { text: format!("cp.async.ca.shared.global [{{0}}], [{{1}}], {bytes}"), objs: vec![dst, src], class: Class::Data }))
                }
                _ => Err(unsupported(line, format!("`{op}`"))),
            };
        }
        match rest.first().copied() {
            Some("commit_group") => return sync("cp.async.bulk.commit_group".into(), vec![]),
            Some("wait_group") => {
                let n = self.known(a.first(), line, "the group count")?;
                return sync(format!("cp.async.bulk.wait_group{} {n}", if has("read") { ".read" } else { "" }), vec![]);
            }
            Some("prefetch") => return Ok(None),
            _ => {}
        }
        let tensor = has("tensor");
        let redop = if reduce {
            Some(
                ["add", "inc", "dec", "max", "min", "and", "or", "xor"]
                    .into_iter()
                    .find(|m| has(m))
                    .ok_or_else(|| unsupported(line, format!("`{op}`: a reduction the importer does not know")))?,
            )
        } else {
            None
        };
        let prefix = format!("{}{}", if reduce { "cp.reduce.async.bulk" } else { "cp.async.bulk" }, if tensor { ".tensor" } else { "" });
        let red = redop.map_or(String::new(), |r| format!(".{r}"));
        let to_global = mods.iter().position(|m| *m == "global") < mods.iter().position(|m| m.starts_with("shared"));
        if to_global {
            // Shared → global, completed through a bulk group.
            let (dst_arg, src_arg) = (a.first(), a.get(1));
            let dst = dst_arg.map(|x| self.address(x)).unwrap_or(Val::Unknown);
            let src = src_arg.map(|x| self.address(x)).unwrap_or(Val::Unknown);
            let src_obj = self.shared_data(src, 0, None, line, "the store's source")?;
            // A tensor store reads a box its tensor map gives: up to the end of a variable of
            // known size, else the location holding its start.
            let src_obj = match src_obj {
                Obj::Mem { span, .. } => {
                    let end = match span.region {
                        Region::Shared { sym, .. } => self.ctx.shared_bytes.get(sym as usize).copied().flatten().map(|b| b as i64),
                        _ => None,
                    };
                    match end {
                        Some(end) if tensor && end > span.start => Obj::Mem { span: Span { exact: true, len: end - span.start, ..span }, width: None },
                        _ => Obj::Mem { span: Span { exact: false, len: 1, ..span }, width: None },
                    }
                }
                other => other,
            };
            let dst_obj = match (tensor, dst_arg) {
                (true, Some(Arg::Mem { base, .. })) => self.tensormap(self.val(base), line)?,
                _ => self.global(dst, 0),
            };
            let bytes = if tensor { "{size1}".to_string() } else { self.known(a.get(2), line, "the copy size")?.to_string() };
            let text = format!("{prefix}.global.shared::cta.bulk_group{red} [{{0}}], [{{1}}], {bytes}");
            return Ok(Some(Op { text, objs: vec![dst_obj, src_obj], class: Class::Sync }));
        }
        // Into shared memory, completing on an mbarrier.
        let from_shared = mods.iter().filter(|m| m.starts_with("shared")).count() == 2;
        let multicast = has("multicast::cluster");
        // `.cta_group::2`: the copy completes on the barrier of its destination's pair
        // leader (the even rank). The PTX names that CTA by the address's peer bit, which
        // CUTLASS clears; the importer's shared addresses carry no CTA bits, so it takes
        // the leader's barrier, and the header says so.
        let pair = has("cta_group::2");
        if pair && !self.probe {
            notes.fixed.insert(line, "a .cta_group::2 copy: it completes on the barrier of its destination's pair leader (CUTLASS clears the peer bit)".into());
        }
        let dst = self.shared_at(self.address(a.first().unwrap_or(&Arg::Sink)));
        let (src_obj, size_arg, bar_idx) = if tensor {
            let Some(Arg::Mem { base, .. }) = a.get(1) else {
                return Err(unsupported(line, "a tensor copy without a tensor map operand"));
            };
            (self.tensormap(self.val(base), line)?, None, 2)
        } else if from_shared {
            let src = self.address(a.get(1).unwrap_or(&Arg::Sink));
            let size = self.known(a.get(2), line, "the copy size")?;
            (self.shared_data(src, size, None, line, "the copy's source")?, Some(size), 3)
        } else {
            let src = self.address(a.get(1).unwrap_or(&Arg::Sink));
            let size = self.known(a.get(2), line, "the copy size")?;
            (self.global(src, size), Some(size), 3)
        };
        let bar_val = self.shared_at(a.get(bar_idx).map(|x| self.address(x)).unwrap_or(Val::Unknown));
        let Val::Addr(Addr { base: Base::Shared { sym: bsym, .. }, off: boff }) = bar_val else {
            return Err(unknown(line, "the copy's mbarrier address"));
        };
        let Val::Addr(Addr { base: Base::Shared { sym: dsym, cta: dcta }, off: doff }) = dst else {
            return Err(unknown(line, "the copy's destination address"));
        };
        let len = size_arg.unwrap_or(-1);
        if len > MAX_OFFSET || !(-MAX_OFFSET..=MAX_OFFSET).contains(&doff) {
            return Err(unknown(line, format!("a copy of {len} bytes at offset {doff}: out of range")));
        }
        let mut ranks = vec![dcta.unwrap_or(self.id.rank)];
        if multicast {
            let mask_idx = bar_idx + 1;
            let mask = self.known(a.get(mask_idx), line, "the multicast CTA mask")? as u64 & 0xffff;
            ranks = (0..16).filter(|r| mask >> r & 1 == 1).collect();
        }
        let mut objs = Vec::new();
        let bytes = size_arg.map_or("{tx}".to_string(), |s| s.to_string());
        let dirs = if from_shared { ".shared::cluster.shared::cta" } else { ".shared::cluster.global" };
        let mut text = format!(
            "{prefix}{dirs}.mbarrier::complete_tx::bytes{}{red}{}",
            if multicast { ".multicast::cluster" } else { "" },
            if pair { ".cta_group::2" } else { "" }
        );
        for (i, rank) in ranks.iter().enumerate() {
            let cta = self.cluster_cta(*rank, line)?;
            let d = Obj::Mem { span: Span { region: Region::Shared { sym: dsym, cta }, start: doff, len, exact: true }, width: None };
            let bar_cta = if pair { self.ctx.cluster_base + (rank & !1) } else { cta };
            let b = Obj::Bar { cta: bar_cta, sym: bsym, off: boff };
            if i == 0 {
                objs.extend([d, src_obj, b]);
                text.push_str(&format!(" [{{0}}], [{{1}}], {bytes}, [{{2}}]"));
            } else {
                let n = objs.len();
                objs.extend([d, b]);
                text.push_str(&format!(", ([{{{n}}}], [{{{}}}])", n + 1));
            }
        }
        Ok(Some(Op { text, objs, class: Class::Sync }))
    }

    /// A global source or destination: the region its address names, or somewhere in
    /// global memory the importer cannot name (`gmem`).
    fn global(&self, addr: Val, len: i64) -> Obj {
        let region = |base: Base| match base {
            Base::ParamPtr { idx, field } => Some(Region::ParamPtr { idx, field }),
            Base::GlobalVar { idx } => Some(Region::GlobalVar { idx }),
            _ => None,
        };
        match addr {
            Val::Addr(a) if len > 0 && len <= MAX_OFFSET && a.off.abs() <= MAX_OFFSET => match region(a.base) {
                Some(r) => Obj::Mem { span: Span { region: r, start: a.off, len, exact: true }, width: None },
                None => Obj::Mem { span: Span { region: Region::GlobalVar { idx: u32::MAX }, start: 0, len: 1, exact: false }, width: None },
            },
            other => {
                let r = other.origin().and_then(|a| region(a.base)).unwrap_or(Region::GlobalVar { idx: u32::MAX });
                Obj::Mem { span: Span { region: r, start: 0, len: 1, exact: false }, width: None }
            }
        }
    }

    fn tensormap(&self, v: Val, line: usize) -> Result<Obj, ImportError> {
        match v {
            Val::Addr(Addr { base: Base::Param { idx }, off }) => {
                Ok(Obj::Mem { span: Span { region: Region::Tensormap { idx, field: off }, start: 0, len: 1, exact: false }, width: None })
            }
            Val::Addr(Addr { base: Base::ParamPtr { idx, field }, .. }) | Val::Derived(Addr { base: Base::ParamPtr { idx, field }, .. }) => {
                Ok(Obj::Mem { span: Span { region: Region::ParamPtr { idx, field }, start: 0, len: 1, exact: false }, width: None })
            }
            _ => Err(unknown(line, "the tensor map a tensor copy uses")),
        }
    }
}

/// `obj` in CTA `cta` of the launch: the same bytes of the other CTA of a pair.
fn on_cta(obj: Obj, cta: u32) -> Obj {
    match obj {
        Obj::Mem { span, width } => {
            let region = match span.region {
                Region::Shared { sym, .. } => Region::Shared { sym, cta },
                Region::Tmem { .. } => Region::Tmem { cta },
                other => other,
            };
            Obj::Mem { span: Span { region, ..span }, width }
        }
        Obj::Bar { sym, off, .. } => Obj::Bar { cta, sym, off },
    }
}

impl<'c, 'a> Lane<'c, 'a> {
    /// The launch index of rank `rank` of this lane's cluster, or an error naming the line
    /// when the cluster run has no such CTA (a kernel built for a larger cluster).
    fn cluster_cta(&self, rank: u32, line: usize) -> Result<u32, ImportError> {
        let size: u32 = self.id.cluster_dims.iter().product();
        if rank < size {
            Ok(self.ctx.cluster_base + rank)
        } else {
            Err(ImportError::at(line, ErrorKind::Launch(format!("the instruction names CTA rank {rank} of a cluster of {size}: give --cluster the kernel's cluster shape"))))
        }
    }

    /// `tcgen05.*` (reference §8). A TMEM address is a number whose low 16 bits are the
    /// column; the importer takes a CTA's allocation to start at column 0 (see
    /// [`Ctx::tmem_slots`]), so the columns an accumulator stage uses name its location.
    fn tcgen05(&mut self, instr: &'a Instr, mods: &[&str], notes: &mut Notes) -> Result<Option<Op>, ImportError> {
        let line = instr.line;
        let op = instr.op.as_str();
        let a = &instr.args;
        let has = |m: &str| mods.contains(&m);
        let group = if has("cta_group::2") { 2 } else { 1 };
        let sync = |text: String, objs: Vec<Obj>| Ok(Some(Op { text, objs, class: Class::Sync }));
        let kind = mods.first().copied().unwrap_or("");
        let regs = |arg: Option<&'a Arg>| -> Vec<&'a Arg> {
            match arg {
                Some(Arg::Vector(items)) => items.iter().collect(),
                Some(x) => vec![x],
                None => vec![],
            }
        };
        match kind {
            "alloc" => {
                let dst = self.address(a.first().unwrap_or(&Arg::Sink));
                let slot = self.shared_data(dst, 4, Some(4), line, "the word receiving the TMEM address")?;
                if let Obj::Mem { span: Span { region: Region::Shared { sym, .. }, start, exact: true, .. }, .. } = slot {
                    self.ctx.tmem_slots.borrow_mut().insert((sym, start));
                }
                let cols = self.known(a.get(1), line, "the TMEM column count")?;
                sync(format!("tcgen05.alloc.cta_group::{group}.sync.aligned.shared::cta.b32 [{{0}}], {cols}"), vec![slot])
            }
            "dealloc" => {
                let cols = self.known(a.get(1), line, "the TMEM column count")?;
                sync(format!("tcgen05.dealloc.cta_group::{group}.sync.aligned {cols}"), vec![])
            }
            "relinquish_alloc_permit" => sync(format!("tcgen05.relinquish_alloc_permit.cta_group::{group}.sync.aligned"), vec![]),
            "fence::before_thread_sync" | "fence::after_thread_sync" => sync(format!("tcgen05.{kind}"), vec![]),
            "wait::ld" | "wait::st" => sync(format!("tcgen05.{kind}.sync.aligned"), vec![]),
            "ld" => {
                let dsts = regs(a.first());
                for d in &dsts {
                    self.set(d, Val::Unknown);
                }
                // `.32x32b`: one column per destination register; other shapes name the
                // location holding their first column.
                let cols = has("32x32b").then_some(dsts.len() as i64);
                let t = self.tmem(a.get(1), cols, line, notes)?;
                let reg = dsts.first().map_or_else(|| "r".to_string(), |r| reg_text(r));
                sync(format!("tcgen05.ld.sync.aligned {reg}, [{{0}}]"), vec![t])
            }
            "st" => {
                let cols = has("32x32b").then_some(regs(a.get(1)).len() as i64);
                let t = self.tmem(a.first(), cols, line, notes)?;
                sync("tcgen05.st.sync.aligned [{0}], 1".into(), vec![t])
            }
            "cp" => {
                let t = self.tmem(a.first(), None, line, notes)?;
                let src = self.descriptor(self.val(a.get(1).unwrap_or(&Arg::Sink)));
                let src = self.shared_data(src, 1, None, line, "the tcgen05.cp source descriptor")?;
                sync(format!("tcgen05.cp.cta_group::{group} [{{0}}], [{{1}}]"), vec![t, src])
            }
            "shift" => {
                let t = self.tmem(a.first(), None, line, notes)?;
                sync(format!("tcgen05.shift.cta_group::{group}.down [{{0}}]"), vec![t])
            }
            "mma" => self.tc_mma(instr, group, notes),
            "commit" => {
                let addr = a.first().map_or(Val::Unknown, |x| self.address(x));
                let bar = self.bar(addr, line)?;
                let space = if has("shared::cluster") { ".shared::cluster" } else { "" };
                let mut objs = vec![bar];
                if has("multicast::cluster") {
                    let mask = self.known(a.get(1), line, "the commit's multicast CTA mask")? as u64 & 0xffff;
                    objs = (0..16u32)
                        .filter(|r| mask >> r & 1 == 1)
                        .map(|r| self.cluster_cta(r, line).map(|c| on_cta(bar, c)))
                        .collect::<Result<_, _>>()?;
                    if objs.is_empty() {
                        return Err(unknown(line, "a multicast CTA mask naming no CTA"));
                    }
                }
                let multicast = if objs.len() > 1 { ".multicast::cluster" } else { "" };
                let list: Vec<String> = (0..objs.len()).map(|i| format!("[{{{i}}}]")).collect();
                let text = format!("tcgen05.commit.cta_group::{group}.mbarrier::arrive::one{space}{multicast}.b64 {}", list.join(", "));
                sync(text, objs)
            }
            _ => Err(unsupported(line, format!("`{op}`"))),
        }
    }

    /// `tcgen05.mma[.sp][.ws] [d], a-desc|[a-tmem], b-desc, [sp-meta,] idesc, ...`: the
    /// accumulator's columns come from the instruction descriptor's N (bits 17–22, N/8).
    /// With `.cta_group::2` the pair's MMA also reads the peer CTA's halves at the same
    /// shared offsets and writes its accumulator at the same columns.
    fn tc_mma(&mut self, instr: &'a Instr, group: u32, notes: &mut Notes) -> Result<Option<Op>, ImportError> {
        let line = instr.line;
        let a = &instr.args;
        let idesc = a.iter().skip(3).find(|x| matches!(x, Arg::Reg(_) | Arg::Imm(_))).map(|x| self.val(x));
        let cols = match idesc {
            Some(Val::Known(d)) if (d >> 17) & 0x3f != 0 => Some(((d >> 17) & 0x3f) << 3),
            _ => {
                if !self.probe {
                    notes.fixed.insert(line, "tcgen05.mma with an unknown instruction descriptor: it writes the TMEM location holding its first column".into());
                }
                None
            }
        };
        let d = self.tmem(a.first(), cols, line, notes)?;
        let b = self.descriptor(self.val(a.get(2).unwrap_or(&Arg::Sink)));
        let b = self.shared_data(b, 1, None, line, "the tcgen05.mma B descriptor")?;
        let a_obj = match a.get(1) {
            Some(Arg::Mem { .. }) => {
                // A in tensor memory: the MMA reads only B from shared memory.
                if !self.probe {
                    notes.fixed.insert(line, "tcgen05.mma with A in tensor memory: its shared-memory operands are B's, named twice".into());
                }
                b
            }
            Some(x) => {
                let v = self.descriptor(self.val(x));
                self.shared_data(v, 1, None, line, "the tcgen05.mma A descriptor")?
            }
            None => return Err(unsupported(line, "a tcgen05.mma without operands")),
        };
        if group == 2 {
            let peer = self.cluster_cta(self.id.rank ^ 1, line)?;
            let objs = vec![d, a_obj, b, on_cta(d, peer), on_cta(a_obj, peer), on_cta(b, peer)];
            return Ok(Some(Op { text: "tcgen05.mma.cta_group::2 [{0}], [{1}], [{2}], ([{3}], [{4}], [{5}])".into(), objs, class: Class::Sync }));
        }
        Ok(Some(Op { text: "tcgen05.mma.cta_group::1 [{0}], [{1}], [{2}]".into(), objs: vec![d, a_obj, b], class: Class::Sync }))
    }

    /// The TMEM columns `[taddr]` names: `cols` columns from its column, or the location
    /// holding that column when the width is not known.
    fn tmem(&self, arg: Option<&Arg>, cols: Option<i64>, line: usize, notes: &mut Notes) -> Result<Obj, ImportError> {
        let region = Region::Tmem { cta: self.cta_of(None) };
        let span = match arg.map(|x| self.address(x)) {
            Some(Val::Known(t)) => {
                let col = t & 0xffff;
                match cols {
                    Some(n) if (1..=512).contains(&n) => Span { region, start: col, len: n, exact: true },
                    _ => Span { region, start: col, len: 1, exact: false },
                }
            }
            _ => {
                if !self.probe {
                    notes.fixed.insert(line, "a TMEM address the importer cannot follow (not loaded from a tcgen05.alloc's word after it ran): the access names the CTA's first TMEM location".into());
                }
                Span { region, start: 0, len: 1, exact: false }
            }
        };
        Ok(Obj::Mem { span, width: None })
    }
}

impl<'c, 'a> Lane<'c, 'a> {
    /// `clusterlaunchcontrol.*` (cluster launch control): `try_cancel` writes a 16-byte
    /// response into shared memory in the async proxy and completes 16 bytes on an
    /// mbarrier, in every CTA of the cluster with `.multicast::cluster::all`; it is written
    /// as the bulk copy that does the same. `query_cancel` decodes a response already in
    /// registers: its results are unknown.
    fn launch_control(&mut self, instr: &'a Instr, mods: &[&str], notes: &mut Notes) -> Result<Option<Op>, ImportError> {
        let line = instr.line;
        let a = &instr.args;
        match mods.first().copied() {
            Some("query_cancel") => {
                match a.first() {
                    Some(Arg::Vector(items)) => items.iter().for_each(|r| self.set(r, Val::Unknown)),
                    Some(r) => self.set(r, Val::Unknown),
                    None => {}
                }
                notes.skipped += u64::from(!self.probe);
                Ok(None)
            }
            Some("try_cancel") => {
                let resp = self.address(a.first().unwrap_or(&Arg::Sink));
                let resp = self.shared_data(resp, 16, None, line, "the cancel response")?;
                let bar = self.bar(a.get(1).map_or(Val::Unknown, |x| self.address(x)), line)?;
                let src = Obj::Mem { span: Span { region: Region::CancelResponse, start: 0, len: 16, exact: true }, width: None };
                let ranks: Vec<u32> = if mods.contains(&"multicast::cluster::all") {
                    (0..self.id.cluster_dims.iter().product::<u32>()).collect()
                } else {
                    vec![self.id.rank]
                };
                if !self.probe {
                    notes.fixed.insert(line, "clusterlaunchcontrol.try_cancel: written as the bulk copy it acts as (16 response bytes, complete-tx on the barrier)".into());
                }
                let multicast = if ranks.len() > 1 { ".multicast::cluster" } else { "" };
                let mut text = format!("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{multicast} [{{0}}], [{{1}}], 16, [{{2}}]");
                let mut objs = Vec::new();
                for (i, r) in ranks.iter().enumerate() {
                    let cta = self.ctx.cluster_base + r;
                    if i == 0 {
                        objs.extend([on_cta(resp, cta), src, on_cta(bar, cta)]);
                    } else {
                        let n = objs.len();
                        objs.extend([on_cta(resp, cta), on_cta(bar, cta)]);
                        text.push_str(&format!(", ([{{{n}}}], [{{{}}}])", n + 1));
                    }
                }
                Ok(Some(Op { text, objs, class: Class::Sync }))
            }
            _ => Err(unsupported(line, format!("`{}`", instr.op))),
        }
    }
}
