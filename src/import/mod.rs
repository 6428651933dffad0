//! `fencelab import`: a kernel's synchronization from its PTX (issue 51; docs/import.md).
//!
//! [`import`] reads the PTX (`ptx`), runs every lane of the chosen launch concretely
//! (`exec`), merges lanes into scenario threads (`merge`) and writes a canonical `.fence`
//! scenario whose instructions each carry a `# ptx LINE` comment (`emit`). No IO, no
//! clock; every problem is an [`ImportError`] naming the PTX line.

mod emit;
mod error;
mod exec;
pub mod input;
mod merge;
mod ptx;
mod value;

use std::collections::{BTreeMap, HashMap};

pub use error::{ErrorKind, ImportError};

use crate::diag::Severity;
use crate::model::Scenario;
use crate::syntax::print_with_comments;

/// Largest PTX text accepted (CUTLASS modules run to a few MB).
pub const MAX_INPUT_BYTES: usize = 32 << 20;
/// Deepest `{ }` nesting accepted.
pub const MAX_DEPTH: usize = 64;
/// Most PTX threads the importer runs (CTAs × threads per CTA).
pub const MAX_LANES: u64 = 16_384;

/// `--param NAME+OFFSET=VALUE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamValue {
    /// A parameter's name, a unique part of it, or its index.
    pub name: String,
    pub offset: i64,
    pub value: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportOptions {
    /// The mangled name or a unique part of it.
    pub entry: Option<String>,
    pub cluster: Option<[u32; 3]>,
    /// CTAs to run: a multiple of the cluster size (default one cluster).
    pub ctas: Option<u32>,
    pub threads: Option<[u32; 3]>,
    pub params: Vec<ParamValue>,
    /// Times a loop whose bound is unknown runs.
    pub iterations: u32,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions { entry: None, cluster: None, ctas: None, threads: None, params: Vec::new(), iterations: 2 }
    }
}

/// An imported kernel.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The kernel's mangled name.
    pub entry: String,
    /// The canonical `.fence` text.
    pub text: String,
    pub scenario: Scenario,
    /// Per scenario thread (by name), the PTX line of each instruction.
    pub lines: Vec<(String, Vec<usize>)>,
    /// What the import decided: PTX line → what was fixed there.
    pub fixed: BTreeMap<usize, String>,
    /// Warps left out (no shared memory, no synchronization).
    pub dropped: Vec<String>,
    /// Instructions skipped (no memory, no synchronization).
    pub skipped: u64,
}

impl Imported {
    /// The instructions a checker message names (`` `TEXT` by `THREAD` ``), with their
    /// PTX lines: the instruction whose change fixes a race is named so.
    pub fn named_in(&self, message: &str) -> Vec<(String, usize, usize)> {
        let mut found = Vec::new();
        for (t, thread) in self.scenario.threads.iter().enumerate() {
            for (i, instr) in thread.program.iter().enumerate() {
                // A message names a spin by the instruction it repeats.
                let named = match instr {
                    crate::model::Instr::Wait { instr: inner, .. } => crate::syntax::instr_text(inner),
                    _ => crate::syntax::instr_text(instr),
                };
                let needle = format!("`{named}` by `{}`", thread.name);
                if message.contains(&needle) {
                    if let Some(line) = self.lines.get(t).and_then(|(_, l)| l.get(i)) {
                        found.push((thread.name.clone(), i, *line));
                    }
                }
            }
        }
        found
    }

    /// The PTX line of instruction `instr` of thread `thread`.
    pub fn ptx_line(&self, thread: &str, instr: usize) -> Option<usize> {
        self.lines.iter().find(|(t, _)| t == thread).and_then(|(_, l)| l.get(instr).copied())
    }
}

fn check_text(text: &str) -> Result<(), ImportError> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(ImportError::at(0, ErrorKind::TooLarge { bytes: text.len() }));
    }
    if let Some(pos) = text.bytes().position(|b| b < 0x09 || (0x0e..0x20).contains(&b) || b == 0x7f) {
        let line = 1 + text.as_bytes()[..pos].iter().filter(|b| **b == b'\n').count();
        return Err(ImportError::at(line, ErrorKind::Binary));
    }
    Ok(())
}

/// The kernels (`.entry`) the module defines.
pub fn entries(text: &str) -> Result<Vec<String>, ImportError> {
    check_text(text)?;
    let module = ptx::parse(text)?;
    Ok(module.entries().map(|f| f.name.clone()).collect())
}

fn choose<'m>(module: &'m ptx::Module, wanted: Option<&str>) -> Result<&'m ptx::Func, ImportError> {
    let all: Vec<&ptx::Func> = module.entries().collect();
    if all.is_empty() {
        return Err(ImportError::at(0, ErrorKind::NoEntry));
    }
    let Some(wanted) = wanted else {
        return match all.as_slice() {
            [one] => Ok(one),
            _ => Err(ImportError::at(0, ErrorKind::ChooseEntry(all.iter().map(|f| f.name.clone()).collect()))),
        };
    };
    if let Some(f) = all.iter().find(|f| f.name == wanted) {
        return Ok(f);
    }
    let matching: Vec<&&ptx::Func> = all.iter().filter(|f| f.name.contains(wanted)).collect();
    match matching.as_slice() {
        [one] => Ok(one),
        [] => Err(ImportError::at(0, ErrorKind::UnknownEntry(wanted.to_string()))),
        many => Err(ImportError::at(0, ErrorKind::ChooseEntry(many.iter().map(|f| f.name.clone()).collect()))),
    }
}

fn param_index(func: &ptx::Func, name: &str) -> Result<u32, ImportError> {
    if let Ok(i) = name.parse::<u32>() {
        if (i as usize) < func.params.len() {
            return Ok(i);
        }
    }
    if let Some(i) = func.params.iter().position(|p| p.name == name) {
        return Ok(i as u32);
    }
    let found: Vec<usize> =
        func.params.iter().enumerate().filter(|(_, p)| p.name.ends_with(name) || emit::param_name(&p.name) == name).map(|(i, _)| i).collect();
    match found.as_slice() {
        [i] => Ok(*i as u32),
        _ => Err(ImportError::at(0, ErrorKind::Launch(format!("--param `{name}` names no single parameter")))),
    }
}

/// Imports kernel `options.entry` of the PTX `text`.
pub fn import(text: &str, options: &ImportOptions) -> Result<Imported, ImportError> {
    check_text(text)?;
    let module = ptx::parse(text)?;
    let entry = choose(&module, options.entry.as_deref())?;
    let launch_err = |what: String| ImportError::at(entry.line, ErrorKind::Launch(what));
    let cluster = options.cluster.or(entry.cluster).unwrap_or([1, 1, 1]);
    let threads = options
        .threads
        .or(entry.reqntid)
        .or(entry.maxntid)
        .ok_or_else(|| launch_err("the kernel has no .reqntid or .maxntid: give --threads".into()))?;
    let csize: u32 = cluster.iter().product();
    let nthreads: u32 = threads.iter().product();
    if csize == 0 || nthreads == 0 || csize > 16 {
        return Err(launch_err(format!("cluster {} and {nthreads} threads per CTA", cluster.map(|n| n.to_string()).join(","))));
    }
    let ctas = options.ctas.unwrap_or(csize);
    if ctas == 0 || !ctas.is_multiple_of(csize) {
        return Err(launch_err(format!("--ctas {ctas} is not a multiple of the cluster size {csize}")));
    }
    if u64::from(ctas) * u64::from(nthreads) > MAX_LANES {
        return Err(launch_err(format!("{ctas} CTAs of {nthreads} threads: more than {MAX_LANES} PTX threads")));
    }
    let mut params = HashMap::new();
    for p in &options.params {
        params.insert((param_index(entry, &p.name)?, p.offset), p.value);
    }
    let mut shared: Vec<&str> = entry.shared.iter().map(|d| d.name.as_str()).collect();
    let mut shared_bytes: Vec<Option<u64>> = entry.shared.iter().map(|d| d.bytes).collect();
    shared.extend(module.shared.iter().map(|d| d.name.as_str()));
    shared_bytes.extend(module.shared.iter().map(|d| d.bytes));
    let reg_names = exec::reg_names(&module);
    // The importer's shared layout: static variables in order, then dynamic ones, each
    // at a 1024-byte boundary (what swizzled layouts assume).
    let mut shared_base = Vec::new();
    let mut next = 0i64;
    for static_pass in [true, false] {
        for (i, bytes) in shared_bytes.iter().enumerate() {
            if bytes.is_some() == static_pass {
                shared_base.push((i, next));
                next += (bytes.unwrap_or(exec::DYNAMIC_SHARED as u64) as i64 + 1023) / 1024 * 1024;
            }
        }
    }
    shared_base.sort();
    let shared_base: Vec<i64> = shared_base.into_iter().map(|(_, b)| b).collect();
    let mut notes = exec::Notes::default();
    let mut threads_out: Vec<merge::Thread> = Vec::new();
    let mut dropped = Vec::new();
    for cta in 0..ctas {
        let rank = cta % csize;
        let cl = cta / csize;
        let ctx = exec::Ctx {
            module: &module,
            entry,
            shared: shared.clone(),
            shared_bytes: shared_bytes.clone(),
            params: params.clone(),
            iterations: options.iterations,
            cluster_base: cl * csize,
            reg_names: &reg_names,
            tmem_slots: Default::default(),
            shared_base: shared_base.clone(),
        };
        let rank_in = [rank % cluster[0], (rank / cluster[0]) % cluster[1], rank / (cluster[0] * cluster[1])];
        let warps = nthreads.div_ceil(32);
        let mut per_warp: Vec<Vec<Vec<exec::Event>>> = Vec::new();
        for w in 0..warps {
            let mut decisions = exec::Decisions::new();
            let mut peers: Vec<HashMap<(usize, u32), value::Val>> = Vec::new();
            let mut lanes = Vec::new();
            for l in 0..32 {
                let linear = w * 32 + l;
                if linear >= nthreads {
                    break;
                }
                let tid = [linear % threads[0], (linear / threads[0]) % threads[1], linear / (threads[0] * threads[1])];
                let id = exec::LaneId {
                    rank,
                    cluster: cl,
                    tid,
                    ntid: threads,
                    ctaid: [cl * cluster[0] + rank_in[0], rank_in[1], rank_in[2]],
                    cluster_dims: cluster,
                    rank_in_cluster: rank_in,
                    linear,
                    nctaid: [ctas / csize * cluster[0], cluster[1], cluster[2]],
                    nclusters: ctas / csize,
                };
                let mut lane = exec::Lane::new(&ctx, id);
                lane.run(&mut decisions, &mut notes, &peers)?;
                peers.push(std::mem::take(&mut lane.shfl_out));
                lanes.push(std::mem::take(&mut lane.events));
            }
            per_warp.push(lanes);
        }
        // Units: a warpgroup whose four warps all issue wgmma, else a warp.
        let is_wgmma = |lanes: &Vec<Vec<exec::Event>>| lanes.iter().any(|l| l.iter().any(|e| e.op.text.starts_with("wgmma")));
        let used_ids: Vec<u32> = Vec::new();
        let mut next_free = 15u32;
        let mut barrier_id = || {
            while used_ids.contains(&next_free) && next_free > 0 {
                next_free -= 1;
            }
            let id = next_free;
            next_free = next_free.checked_sub(1)?;
            Some(id)
        };
        let mut w = 0usize;
        while w < per_warp.len() {
            let group = w.is_multiple_of(4) && w + 4 <= per_warp.len() && per_warp[w..w + 4].iter().all(is_wgmma);
            let (name, lanes): (String, Vec<Vec<exec::Event>>) = if group {
                (format!("wg{}", w / 4), per_warp[w..w + 4].concat())
            } else {
                (format!("w{w}"), per_warp[w].clone())
            };
            w += if group { 4 } else { 1 };
            let touches = lanes.iter().any(|l| {
                l.iter().any(|e| {
                    e.op.class != exec::Class::Data
                        || e.op.objs.iter().any(|o| matches!(o, exec::Obj::Mem { span, .. } if matches!(span.region, exec::Region::Shared { .. })))
                })
            });
            if !touches {
                dropped.push(format!("cta{cta} {name}"));
                continue;
            }
            threads_out.extend(merge::merge(cta, &name, &lanes, &mut barrier_id)?);
        }
    }
    let sized = emit::tensor_bytes(&mut threads_out, &shared_bytes)?;
    let (unwritten_lines, unwritten) = merge::drop_unwritten_loads(&mut threads_out);
    let folded = merge::fold_barrier_only(&mut threads_out);
    let mut header = header(entry, cluster, ctas, threads, options, &notes, &dropped, &threads_out);
    if unwritten > 0 {
        header.push(format!(
            "dropped: ptx {}: {unwritten} plain loads of global memory no instruction writes, into registers nothing reads",
            line_list(&unwritten_lines)
        ));
    }
    header.extend(folded.iter().map(|f| format!("merged: {f}")));
    header.extend(sized.iter().map(|f| format!("fixed: {f}")));
    let params: Vec<String> = entry.params.iter().map(|p| p.name.clone()).collect();
    let globals: Vec<String> = module.globals.iter().map(|g| g.name.clone()).collect();
    let names = emit::Names { shared: &shared, shared_bytes: &shared_bytes, params: &params, globals: &globals, ctas };
    let emitted = emit::emit(&threads_out, &names, &header, &|c| c / csize)?;
    let loaded = crate::load(&emitted.text);
    if let Some(d) = loaded.diagnostics.iter().find(|d| d.severity == Severity::Error) {
        return Err(ImportError::at(0, ErrorKind::Emit(d.message.clone())));
    }
    let text = print_with_comments(&loaded.scenario, &loaded.source_map);
    Ok(Imported {
        entry: entry.name.clone(),
        text,
        scenario: loaded.scenario,
        lines: emitted.lines,
        fixed: notes.fixed,
        dropped,
        skipped: notes.skipped,
    })
}

#[allow(clippy::too_many_arguments)]
fn header(
    entry: &ptx::Func,
    cluster: [u32; 3],
    ctas: u32,
    threads: [u32; 3],
    options: &ImportOptions,
    notes: &exec::Notes,
    dropped: &[String],
    out: &[merge::Thread],
) -> Vec<String> {
    let mut h = vec![format!("{} (imported from PTX by fencelab import)", emit::title(&entry.name))];
    h.push(format!("entry: {}", entry.name));
    let source = |given: bool, directive: &str| if given { "option".to_string() } else { directive.to_string() };
    h.push(format!(
        "launch: {ctas} CTA(s) in clusters of {}x{}x{} ({}), {}x{}x{} threads per CTA ({}), loops of unknown bound run {} times",
        cluster[0],
        cluster[1],
        cluster[2],
        source(options.cluster.is_some(), if entry.cluster.is_some() { ".reqnctapercluster" } else { "default" }),
        threads[0],
        threads[1],
        threads[2],
        source(options.threads.is_some(), if entry.reqntid.is_some() { ".reqntid" } else { ".maxntid" }),
        options.iterations
    ));
    for p in &options.params {
        h.push(format!("param: {}+{} = {}", p.name, p.offset, p.value));
    }
    let mut by_what: Vec<(&str, Vec<usize>)> = Vec::new();
    for (line, what) in &notes.fixed {
        match by_what.iter_mut().find(|(w, _)| w == what) {
            Some((_, lines)) => lines.push(*line),
            None => by_what.push((what, vec![*line])),
        }
    }
    for (what, lines) in &by_what {
        h.push(format!("fixed: ptx {}: {what}", line_list(lines)));
    }
    for t in out {
        h.push(format!("thread: cta{} {}: {} lanes", t.cta, t.name, t.lanes));
    }
    for d in dropped {
        h.push(format!("dropped: {d} (no shared memory, no synchronization)"));
    }
    if !notes.dropped_global.is_empty() {
        let lines: Vec<usize> = notes.dropped_global.keys().copied().collect();
        let n: u64 = notes.dropped_global.values().sum();
        h.push(format!("dropped: ptx {}: {n} global accesses at addresses that depend on unknown values", line_list(&lines)));
    }
    for (line, name) in &notes.external_calls {
        h.push(format!("skipped: ptx {line}: call of `{name}`, which the module does not define"));
    }
    h.push(format!("skipped: {} instructions that touch no memory and no synchronization", notes.skipped));
    h
}

/// `3, 5, 9` or `3, 5, 9, … (40 lines)`.
fn line_list(lines: &[usize]) -> String {
    const SHOWN: usize = 6;
    let head: Vec<String> = lines.iter().take(SHOWN).map(usize::to_string).collect();
    if lines.len() > SHOWN {
        format!("{}, … ({} lines)", head.join(", "), lines.len())
    } else {
        head.join(", ")
    }
}
