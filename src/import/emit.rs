//! Names the objects the threads touch and writes the `.fence` text: shared memory split
//! at the granularity the kernel uses (one location per distinct byte range), mbarriers
//! from their addresses, parameters' memory and tensor maps as global locations.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::error::{ErrorKind, ImportError};
use super::exec::{Class, Obj, Region, Span};
use super::merge::Thread;

/// Most accesses one lanes' data access is split into (else it names its whole location).
const MAX_CHUNKS: i64 = 16;

/// A location: a byte interval of a region.
#[derive(Clone, Debug)]
struct Loc {
    name: String,
    region: Region,
    start: i64,
    end: i64,
}

pub struct Names<'a> {
    pub shared: &'a [&'a str],
    pub shared_bytes: &'a [Option<u64>],
    pub params: &'a [String],
    pub globals: &'a [String],
    pub ctas: u32,
}

/// `_ZZ14relay_pipelinePKfS0_PfiE9stage_buf` → `stage_buf`; `_ZN7cutlass4smemE` → `smem`.
pub fn short_name(sym: &str) -> String {
    let tail = if let Some(rest) = sym.strip_prefix("_ZZ") {
        rest.rsplit_once('E').map_or(rest, |(_, t)| t)
    } else if let Some(rest) = sym.strip_prefix("_ZN") {
        rest.strip_suffix('E').unwrap_or(rest)
    } else {
        sym
    };
    // The last `<len><name>` component of a mangled name.
    let mut last = None;
    let bytes = tail.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let n: usize = tail[start..i].parse().unwrap_or(0);
            if n > 0 && i + n <= bytes.len() {
                last = Some(&tail[i..i + n]);
                i += n;
                continue;
            }
        } else {
            i += 1;
        }
    }
    let name = last.unwrap_or(tail);
    let clean: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let clean = clean.trim_matches('_').to_string();
    if clean.is_empty() || clean.starts_with(|c: char| c.is_ascii_digit()) {
        format!("v{clean}")
    } else {
        clean
    }
}

/// A kernel's readable name: `_Z14relay_pipelinePKfS0_Pfi` → `relay_pipeline`,
/// `_ZN7cutlass13device_kernelI…` → `cutlass::device_kernel`.
pub fn title(mangled: &str) -> String {
    let Some(rest) = mangled.strip_prefix("_Z") else { return mangled.to_string() };
    let nested = rest.strip_prefix('N');
    let mut parts = Vec::new();
    let mut s = nested.unwrap_or(rest);
    while let Some(len_end) = s.find(|c: char| !c.is_ascii_digit()).filter(|&e| e > 0) {
        let n: usize = s[..len_end].parse().unwrap_or(0);
        let Some(name) = s.get(len_end..len_end + n) else { break };
        parts.push(name.to_string());
        s = &s[len_end + n..];
        if nested.is_none() || !s.starts_with(|c: char| c.is_ascii_digit()) {
            break;
        }
    }
    if parts.is_empty() {
        mangled.to_string()
    } else {
        parts.join("::")
    }
}

/// `..._param_3` → `param3`.
pub fn param_name(name: &str) -> String {
    match name.rsplit_once("_param_") {
        Some((_, n)) if n.bytes().all(|b| b.is_ascii_digit()) => format!("param{n}"),
        _ => short_name(name),
    }
}

/// Bytes each tensor copy moves, and expect-tx counts the PTX reads from parameters.
/// A tensor copy's size is in its tensor map, which is host data: it is the bytes its
/// barrier expects over the copies completing there when that count is known; when the
/// count is a parameter too, each copy moves the distance from its destination to the
/// next tensor destination in the same shared variable (the tile's footprint), and the
/// barrier expects the sum. Returns the header notes for what it fixed.
pub fn tensor_bytes(threads: &mut [Thread], shared_bytes: &[Option<u64>]) -> Result<Vec<String>, ImportError> {
    let mut notes = Vec::new();
    let mut expected: HashMap<Obj, i64> = HashMap::new();
    let mut unknown_expect: HashMap<Obj, usize> = HashMap::new();
    let mut copies: HashMap<Obj, (i64, usize)> = HashMap::new();
    let mut starts: BTreeMap<Region, BTreeSet<i64>> = BTreeMap::new();
    for t in threads.iter() {
        for s in &t.steps {
            if s.op.text.contains("expect_tx") {
                if let Some(b) = s.op.objs.first() {
                    if s.op.text.contains("{expect}") {
                        *unknown_expect.entry(*b).or_insert(0) += 1;
                    } else {
                        let bytes = s.op.text.rsplit(", ").next().and_then(|b| b.parse::<i64>().ok()).unwrap_or(0);
                        *expected.entry(*b).or_insert(0) += bytes;
                    }
                }
            }
            if s.op.text.contains("{tx}") {
                for o in &s.op.objs {
                    match o {
                        Obj::Bar { .. } => copies.entry(*o).or_insert((0, s.line)).0 += 1,
                        Obj::Mem { span, .. } if span.exact && span.len < 0 => {
                            starts.entry(span.region).or_default().insert(span.start);
                        }
                        Obj::Mem { .. } => {}
                    }
                }
            }
        }
    }
    let footprint = |span: &Span| -> Option<i64> {
        let set = starts.get(&span.region)?;
        let next = set.range(span.start + 1..).next().copied();
        let end = match (next, span.region) {
            (Some(n), _) => n,
            (None, Region::Shared { sym, .. }) => match shared_bytes.get(sym as usize).copied().flatten() {
                Some(b) => b as i64,
                // The last tile of a dynamic buffer: as large as the tile before it.
                None => {
                    let prev = set.range(..span.start).next_back().copied()?;
                    span.start + (span.start - prev)
                }
            },
            _ => return None,
        };
        (end > span.start).then_some(end - span.start)
    };
    let mut per_bar: HashMap<Obj, i64> = HashMap::new();
    for (bar, (n, line)) in &copies {
        if unknown_expect.contains_key(bar) {
            continue;
        }
        let total = expected.get(bar).copied().unwrap_or(0);
        if total <= 0 || total % n != 0 {
            return Err(ImportError::at(
                *line,
                ErrorKind::Unknown(format!("the bytes of a tensor copy: its barrier ({bar}) expects {total} bytes over {n} copies")),
            ));
        }
        per_bar.insert(*bar, total / n);
    }
    let mut landing: HashMap<Obj, i64> = HashMap::new();
    for t in threads.iter_mut() {
        for s in &mut t.steps {
            if !s.op.text.contains("{tx}") {
                continue;
            }
            let known = s.op.objs.iter().find_map(|o| per_bar.get(o).copied());
            let bytes = match known {
                Some(b) => b,
                None => {
                    let dst = s.op.objs.iter().find_map(|o| match o {
                        Obj::Mem { span, .. } if span.exact && span.len < 0 => Some(*span),
                        _ => None,
                    });
                    dst.as_ref().and_then(footprint).ok_or_else(|| {
                        ImportError::at(s.line, ErrorKind::Unknown("the bytes of a tensor copy (no count to derive them from)".into()))
                    })?
                }
            };
            if !(1..=1i64 << 32).contains(&bytes) {
                return Err(ImportError::at(s.line, ErrorKind::Unknown(format!("a tensor copy of {bytes} bytes: out of range"))));
            }
            if known.is_none() {
                notes.push(format!("ptx {}: the tensor copy moves {bytes} bytes (its destination's footprint)", s.line));
                for o in &s.op.objs {
                    if let Obj::Bar { .. } = o {
                        *landing.entry(*o).or_insert(0) += bytes;
                    }
                }
            }
            s.op.text = s.op.text.replace("{tx}", &bytes.to_string());
            for o in &mut s.op.objs {
                if let Obj::Mem { span, .. } = o {
                    if span.exact && span.len < 0 {
                        span.len = bytes;
                    }
                }
            }
        }
    }
    for t in threads.iter_mut() {
        for s in &mut t.steps {
            if !s.op.text.contains("{expect}") {
                continue;
            }
            let bar = s.op.objs.first().copied();
            let events = bar.and_then(|b| unknown_expect.get(&b).copied()).unwrap_or(1).max(1) as i64;
            let total = bar.and_then(|b| landing.get(&b).copied()).unwrap_or(0);
            if total <= 0 || total % events != 0 {
                return Err(ImportError::at(s.line, ErrorKind::Unknown("the expect-tx byte count (a parameter; no tensor copy completes on the barrier)".into())));
            }
            let bytes = total / events;
            notes.push(format!("ptx {}: expect-tx bytes (a parameter) set to {bytes}, the bytes the copies bring per phase", s.line));
            s.op.text = s.op.text.replace("{expect}", &bytes.to_string());
        }
    }
    notes.sort();
    notes.dedup();
    Ok(notes)
}

pub struct Emitted {
    pub text: String,
    /// Per thread, the PTX line of each instruction.
    pub lines: Vec<(String, Vec<usize>)>,
}

pub fn emit(threads: &[Thread], names: &Names, header: &[String], cluster_of: &dyn Fn(u32) -> u32) -> Result<Emitted, ImportError> {
    // Locations: exact spans joined where they overlap, per region.
    let mut exact: BTreeMap<Region, Vec<(i64, i64)>> = BTreeMap::new();
    let mut loose: BTreeMap<Region, Vec<i64>> = BTreeMap::new();
    let mut bars: BTreeSet<Obj> = BTreeSet::new();
    let mut tx_bars: BTreeSet<Obj> = BTreeSet::new();
    let mut copy_dst: BTreeSet<(Region, i64)> = BTreeSet::new();
    let mut inits: BTreeSet<Obj> = BTreeSet::new();
    for t in threads {
        for s in &t.steps {
            for o in &s.op.objs {
                match o {
                    Obj::Mem { span, .. } if span.exact && span.len > 0 => exact.entry(span.region).or_default().push((span.start, span.start + span.len)),
                    Obj::Mem { span, .. } => loose.entry(span.region).or_default().push(span.start),
                    Obj::Bar { .. } => {
                        bars.insert(*o);
                    }
                }
            }
            if s.op.text.contains("complete_tx") {
                for o in &s.op.objs {
                    match o {
                        Obj::Bar { .. } => {
                            tx_bars.insert(*o);
                        }
                        Obj::Mem { span, .. } if matches!(span.region, Region::Shared { .. }) && span.exact => {
                            copy_dst.insert((span.region, span.start));
                        }
                        _ => {}
                    }
                }
            }
            if s.op.text.starts_with("mbarrier.init") {
                inits.extend(s.op.objs.iter().copied());
            }
        }
    }
    let mut locs: Vec<Loc> = Vec::new();
    let mut regions: BTreeSet<Region> = exact.keys().copied().collect();
    regions.extend(loose.keys().copied());
    for region in regions {
        let mut spans = exact.get(&region).cloned().unwrap_or_default();
        spans.sort();
        let mut merged: Vec<(i64, i64)> = Vec::new();
        for (s, e) in spans {
            match merged.last_mut() {
                Some(last) if s < last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        for p in loose.get(&region).into_iter().flatten() {
            if !merged.iter().any(|(s, e)| s <= p && p < e) {
                merged.push((*p, p + 1));
            }
        }
        merged.sort();
        // A loose point left alone spans to the next location or the region's end.
        let base = region_name(region, names);
        let n = merged.len();
        let ctas = names.ctas;
        for (k, (s, e)) in merged.iter().enumerate() {
            let role = match region {
                Region::Shared { sym, .. } if names.shared_bytes.get(sym as usize).copied().flatten().is_none() && copy_dst.contains(&(region, *s)) => "tile".to_string(),
                _ => base.clone(),
            };
            let sep = if role.ends_with(|c: char| c.is_ascii_digit()) { "_" } else { "" };
            let mut name = if n > 1 || role != base { format!("{role}{sep}{k}") } else { role };
            if let (Region::Shared { cta, .. } | Region::Tmem { cta }, true) = (region, ctas > 1) {
                name = format!("{name}_c{cta}");
            }
            locs.push(Loc { name, region, start: *s, end: *e });
        }
    }
    dedupe(&mut locs.iter_mut().map(|l| &mut l.name).collect::<Vec<_>>());
    // mbarriers.
    let mut bar_names: BTreeMap<Obj, String> = BTreeMap::new();
    let mut per_sym: BTreeMap<u32, Vec<Obj>> = BTreeMap::new();
    for b in &bars {
        if let Obj::Bar { sym, .. } = b {
            per_sym.entry(*sym).or_default().push(*b);
        }
    }
    for (sym, list) in &per_sym {
        let dynamic = names.shared_bytes.get(*sym as usize).copied().flatten().is_none();
        let base = short_name(names.shared.get(*sym as usize).copied().unwrap_or("bar"));
        let offsets: BTreeSet<i64> = list.iter().filter_map(|b| if let Obj::Bar { off, .. } = b { Some(*off) } else { None }).collect();
        let tx_offsets: BTreeSet<i64> = tx_bars.iter().filter_map(|b| if let Obj::Bar { sym: s, off, .. } = b { (s == sym).then_some(*off) } else { None }).collect();
        for b in list {
            let Obj::Bar { cta, off, .. } = b else { continue };
            let mut name = if dynamic {
                if tx_offsets.contains(off) {
                    format!("full{}", tx_offsets.iter().position(|o| o == off).unwrap_or(0))
                } else {
                    let others: Vec<&i64> = offsets.iter().filter(|o| !tx_offsets.contains(o)).collect();
                    format!("bar{}", others.iter().position(|o| *o == off).unwrap_or(0))
                }
            } else if offsets.len() > 1 {
                format!("{base}{}", offsets.iter().position(|o| o == off).unwrap_or(0))
            } else {
                base.clone()
            };
            if names.ctas > 1 {
                name = format!("{name}_c{cta}");
            }
            bar_names.insert(*b, name);
        }
    }
    {
        let mut all: Vec<&mut String> = locs.iter_mut().map(|l| &mut l.name).collect();
        all.extend(bar_names.values_mut());
        dedupe(&mut all);
    }
    let loc_of = |span: &Span| -> Option<&Loc> {
        locs.iter().find(|l| l.region == span.region && l.start <= span.start && span.start < l.end)
    };
    // The text.
    let mut out = String::new();
    for h in header {
        out.push_str("# ");
        out.push_str(h);
        out.push('\n');
    }
    let header_end = out.len();
    let mut repeats: BTreeSet<usize> = BTreeSet::new();
    let mut repeated = 0usize;
    let cta_name = |c: u32| format!("cta{c}");
    let clusters: BTreeSet<u32> = (0..names.ctas).map(cluster_of).collect();
    for k in &clusters {
        out.push_str(&format!("cluster C{k}\n"));
    }
    for c in 0..names.ctas {
        out.push_str(&format!("cta {} in C{}\n", cta_name(c), cluster_of(c)));
    }
    for l in &locs {
        let size = (l.end - l.start).max(1);
        match l.region {
            Region::Shared { cta, .. } => out.push_str(&format!("shared {} @{} size {size}\n", l.name, cta_name(cta))),
            Region::Tmem { cta } => out.push_str(&format!("tmem {} @{} size {size}\n", l.name, cta_name(cta))),
            _ => out.push_str(&format!("global {} size {size}\n", l.name)),
        }
    }
    for (b, name) in &bar_names {
        if let Obj::Bar { cta, .. } = b {
            let init = if inits.contains(b) { "" } else { " count 1" };
            out.push_str(&format!("mbarrier {name} @{}{init}\n", cta_name(*cta)));
        }
    }
    let mut lines = Vec::new();
    for t in threads {
        let tname = if names.ctas > 1 { format!("c{}_{}", t.cta, t.name) } else { t.name.clone() };
        out.push_str(&format!("\nthread {tname} @{} lanes {}:\n", cta_name(t.cta), t.lanes));
        let mut tl = Vec::new();
        // The last instruction written in full, for `repeat_is_one`.
        let mut last: Option<String> = None;
        for s in &coalesce(&t.steps, &locs) {
            // A data access of several lanes covering part of its location becomes one
            // access per 16 (or W) bytes, so the lanes' bytes stay apart from others'.
            if let (Class::Data, [Obj::Mem { span, width: Some(w) }]) = (s.op.class, s.op.objs.as_slice()) {
                let loc = loc_of(span).ok_or_else(|| ImportError::at(s.line, ErrorKind::Emit("an access outside every location".into())))?;
                let whole = span.start == loc.start && span.start + span.len == loc.end;
                let chunk = if span.len % 16 == 0 { 16 } else { i64::from(*w) };
                if span.exact && !whole && span.len > i64::from(*w) && chunk > 0 && span.len / chunk <= MAX_CHUNKS {
                    let from = format!(".b{}", w * 8);
                    let to = format!(".b{}", chunk * 8);
                    let mut at = span.start;
                    while at < span.start + span.len {
                        let text = s.op.text.replacen(&from, &to, 1).replace("{0}", &format!("{}+{}", loc.name, at - loc.start));
                        out.push_str(&format!("    {text}  # ptx {}\n", s.line));
                        tl.push(s.line);
                        at += chunk;
                    }
                    last = None;
                    continue;
                }
            }
            // A non-bulk `cp.async` of several lanes into part of its location: one copy
            // per aligned piece of the bytes they fill, so lanes split into threads of
            // their own copy bytes apart and do not race with each other.
            if let (Class::Data, [Obj::Mem { span, width: None }, Obj::Mem { span: src, .. }]) = (s.op.class, s.op.objs.as_slice()) {
                let loc = loc_of(span).ok_or_else(|| ImportError::at(s.line, ErrorKind::Emit("an access outside every location".into())))?;
                let whole = span.start == loc.start && span.start + span.len == loc.end;
                let pieces = copy_pieces(span.start - loc.start, span.len).filter(|p| p.len() as i64 <= MAX_CHUNKS);
                if let (true, Some(pieces)) = (s.op.text.starts_with("cp.async.ca.") && span.exact && !whole, pieces) {
                    let src = loc_of(src).map_or_else(|| "src".to_string(), |l| l.name.clone());
                    for (at, len) in pieces {
                        out.push_str(&format!("    cp.async.ca.shared.global [{}+{at}], [{src}], {len}  # ptx {}\n", loc.name, s.line));
                        tl.push(s.line);
                    }
                    last = None;
                    continue;
                }
            }
            let mut text = s.op.text.clone();
            for (i, o) in s.op.objs.iter().enumerate() {
                let rendered = match o {
                    Obj::Bar { .. } => bar_names.get(o).cloned().unwrap_or_else(|| "bar".into()),
                    Obj::Mem { span, width } => {
                        let loc = loc_of(span).ok_or_else(|| ImportError::at(s.line, ErrorKind::Emit("an access outside every location".into())))?;
                        let whole = span.start == loc.start && span.start + span.len == loc.end;
                        match width {
                            Some(w) if span.exact && !whole && matches!(w, 1 | 2 | 4 | 8 | 16) && span.len == i64::from(*w) => {
                                format!("{}+{}", loc.name, span.start - loc.start)
                            }
                            _ => loc.name.clone(),
                        }
                    }
                };
                text = text.replace(&format!("{{{i}}}"), &rendered);
            }
            if let Some(Obj::Mem { span, .. }) = s.op.objs.get(1) {
                let size = loc_of(span).map_or(1, |l| l.end - l.start);
                text = text.replace("{size1}", &size.to_string());
            }
            let count = match s.op.class {
                Class::Arrive(_) if s.count > 1 => format!(", {}", s.count),
                _ => String::new(),
            };
            text = text.replace("{n}", &count);
            // An arrive without a count operand stands once for each lane that made it.
            let times = if matches!(s.op.class, Class::Arrive(_)) && !s.op.text.contains("{n}") { s.count.max(1) } else { 1 };
            if repeat_is_one(&s.op) && last.as_deref() == Some(text.as_str()) {
                repeats.insert(s.line);
                repeated += 1;
                continue;
            }
            for _ in 0..times {
                out.push_str(&format!("    {text}  # ptx {}\n", s.line));
                tl.push(s.line);
            }
            last = Some(text);
        }
        lines.push((tname, tl));
    }
    if repeated > 0 {
        let shown: Vec<String> = repeats.iter().take(8).map(usize::to_string).collect();
        let more = if repeats.len() > 8 { format!(", … ({} lines)", repeats.len()) } else { String::new() };
        let note = format!(
            "# merged: {repeated} repeats of a fence, or of a tcgen05.mma on the same locations, right after the same instruction, into it: ptx {}{more}\n",
            shown.join(", ")
        );
        out.insert_str(header_end, &note);
    }
    Ok(Emitted { text: out, lines })
}

/// Whether an instruction written again right after itself (the same text, so the same
/// locations after naming) is one instruction to the checker: a fence orders the same
/// pairs twice over, and a second tcgen05 MMA is pipelined after the first (reference
/// §8.2), starts from the same knowledge, touches the same locations and completes at the
/// same commit, so any access racing with one races with the other.
fn repeat_is_one(op: &super::exec::Op) -> bool {
    op.text.starts_with("fence.") || op.text.starts_with("tcgen05.mma")
}

/// Runs of a thread's data accesses with nothing between them, of one kind (`ld` or `st`
/// with one width) into one location, each starting where the run so far ends, become
/// one access of the bytes they cover, at the run's first PTX line.
/// Any other thread's access that races with one of them races with the union, and no
/// synchronization sits between them, so findings stay the same; the scenario stays small
/// (a CUTLASS epilogue moves a tile through shared memory 16 bytes a lane at a time).
fn coalesce(steps: &[super::merge::Step], locs: &[Loc]) -> Vec<super::merge::Step> {
    let loc_of = |span: &Span| locs.iter().find(|l| l.region == span.region && l.start <= span.start && span.start < l.end);
    let mut out: Vec<super::merge::Step> = Vec::new();
    for s in steps {
        if let (Some(last), Class::Data, [Obj::Mem { span, width: Some(w) }]) = (out.last_mut(), s.op.class, s.op.objs.as_slice()) {
            let kind = |text: &str| text.split(' ').next().map(str::to_string);
            if let (Class::Data, [Obj::Mem { span: prev, width: Some(pw) }]) = (last.op.class, last.op.objs.as_slice()) {
                let same_loc = match (loc_of(prev), loc_of(span)) {
                    (Some(a), Some(b)) => a.region == b.region && a.start == b.start,
                    _ => false,
                };
                let touching = span.start == prev.start + prev.len;
                if span.exact && prev.exact && pw == w && kind(&last.op.text) == kind(&s.op.text) && same_loc && touching {
                    let end = (prev.start + prev.len).max(span.start + span.len);
                    let merged = Span { len: end - prev.start, ..*prev };
                    last.op.objs = vec![Obj::Mem { span: merged, width: Some(*w) }];
                    continue;
                }
            }
        }
        out.push(s.clone());
    }
    out
}

/// Bytes `start .. start + len` of a location as the aligned 16-, 8- and 4-byte pieces a
/// `cp.async` can copy, (offset, length); `None` if they do not cut so.
fn copy_pieces(start: i64, len: i64) -> Option<Vec<(i64, i64)>> {
    let mut pieces = Vec::new();
    let mut at = start;
    while at < start + len {
        let size = [16, 8, 4].into_iter().find(|size| at % size == 0 && at + size <= start + len)?;
        pieces.push((at, size));
        at += size;
    }
    Some(pieces)
}

fn region_name(region: Region, names: &Names) -> String {
    match region {
        Region::Shared { sym, .. } => short_name(names.shared.get(sym as usize).copied().unwrap_or("smem")),
        Region::ParamPtr { idx, field } => {
            let p = names.params.get(idx as usize).map_or(format!("param{idx}"), |n| param_name(n));
            if field == 0 {
                p
            } else {
                format!("{p}_at{field}")
            }
        }
        Region::Tensormap { idx, field } => {
            let p = names.params.get(idx as usize).map_or(format!("param{idx}"), |n| param_name(n));
            format!("tmap_{p}_at{field}")
        }
        Region::GlobalVar { idx } => names.globals.get(idx as usize).map_or("gmem".to_string(), |n| short_name(n)),
        Region::Tmem { .. } => "tmem".into(),
        Region::CancelResponse => "cancel_response".into(),
    }
}

fn dedupe(names: &mut [&mut String]) {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for n in names.iter_mut() {
        let mut candidate = (**n).clone();
        while seen.contains(&candidate) {
            candidate.push('_');
        }
        seen.insert(candidate.clone());
        **n = candidate;
    }
}
