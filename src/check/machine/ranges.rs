//! Byte ranges (issue 16): a location that some instruction addresses at a byte offset
//! (`ld.b32 r, [x+4]`) is split, once, into the byte segments those accesses name, and
//! each segment is a memory cell of its own. A location no offset names stays one cell,
//! so whole-location accesses cost what they always did.
//!
//! Every `[x+OFF]` operand gets a layout entry of its own (named `x+OFF`) that covers the
//! segments inside its range; the thread programs the checker runs name those entries
//! instead of carrying the offsets, so the instruction semantics stay unchanged.
//!
//! Value model, deliberately simple: each segment holds one value. A write covering
//! several segments writes its value into each; a read covering several returns the value
//! of its lowest segment (where its read choice is made) and reads every other segment at
//! the oldest write it may still return, so each segment is checked for races and keeps
//! its own coherence order. Conditions naming a location read its lowest segment.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::layout::LocInfo;
use crate::model::{ByteRange, Instr, RangeRole, Scenario};

/// What the split decided: the extra cells and the entry naming each range.
pub struct Ranges {
    /// For each cell, the location whose initial value it starts with.
    pub cell_owner: Vec<usize>,
    /// For each cell of a split location, the bytes it holds.
    pub cell_bytes: Vec<Option<(u32, u32)>>,
    /// `(location, offset, width)` → the name of its layout entry.
    names: HashMap<(String, u32, u32), String>,
}

/// Every byte range in `instr`, through guards and spins, with a width.
fn collect<'a>(instr: &'a Instr, out: &mut Vec<ByteRange<'a>>) -> Result<(), String> {
    let ranges = instr.byte_ranges().map_err(|other| format!("`{}` takes no byte offset", crate::check::text::instr(other)))?;
    for range in &ranges {
        if range.width.is_none() {
            return Err(format!("`[{}+{}]` has no access width", range.name, range.offset));
        }
    }
    out.extend(ranges);
    match instr {
        Instr::Guarded { instr, .. } | Instr::Wait { instr, .. } | Instr::Ranged { instr, .. } => collect(instr, out),
        _ => Ok(()),
    }
}

/// Splits the locations the programs address at byte offsets and appends one entry per
/// range to `locs` (and `loc_index`). Errors name a range outside its location.
pub fn split(scenario: &Scenario, locs: &mut Vec<LocInfo>, loc_index: &mut super::layout::NameIndex) -> Result<Ranges, String> {
    let mut used = Vec::new();
    for instr in scenario.threads.iter().flat_map(|t| &t.program) {
        collect(instr, &mut used)?;
    }
    let whole = locs.len();
    let mut cell_owner: Vec<usize> = (0..whole).collect();
    // Boundaries per cell, from every range of every name of it.
    let mut bounds: BTreeMap<usize, BTreeSet<u32>> = BTreeMap::new();
    let mut distinct: BTreeSet<(usize, u32, u32)> = BTreeSet::new();
    for &ByteRange { name, offset: off, width, .. } in &used {
        let width = width.unwrap_or(0);
        let idx = *loc_index.get(name).ok_or_else(|| format!("unknown location `{name}`"))?;
        let info = locs.get(idx).ok_or_else(|| format!("unknown location `{name}`"))?;
        let end = off.checked_add(width).filter(|end| width > 0 && *end <= info.size);
        let Some(end) = end else {
            return Err(format!(
                "`[{name}+{off}]` covers {width} bytes from offset {off}, outside `{name}` ({} bytes)",
                info.size
            ));
        };
        let size = locs.get(info.cell).map_or(info.size, |root| root.size.max(info.size));
        bounds.entry(info.cell).or_insert_with(|| BTreeSet::from([0, size])).extend([off, end]);
        distinct.insert((idx, off, width));
    }
    // Each cell's segments `(start, end, cell)`: the first keeps the cell, the others are new.
    let mut segments: BTreeMap<usize, Vec<(u32, u32, usize)>> = BTreeMap::new();
    for (cell, points) in &bounds {
        let points: Vec<u32> = points.iter().copied().collect();
        let mut segs = Vec::new();
        for (k, pair) in points.windows(2).enumerate() {
            let (Some(&start), Some(&end)) = (pair.first(), pair.get(1)) else { continue };
            let id = if k == 0 {
                *cell
            } else {
                cell_owner.push(*cell);
                cell_owner.len() - 1
            };
            segs.push((start, end, id));
        }
        segments.insert(*cell, segs);
    }
    let mut cell_bytes = vec![None; cell_owner.len()];
    for &(start, end, cell) in segments.values().flatten() {
        if let Some(slot) = cell_bytes.get_mut(cell) {
            *slot = Some((start, end));
        }
    }
    for info in locs.iter_mut() {
        info.segs = match segments.get(&info.cell) {
            Some(segs) => segs.iter().map(|s| s.2).collect(),
            None => vec![info.cell],
        };
    }
    let mut names = HashMap::new();
    for &(idx, off, width) in &distinct {
        let Some(base) = locs.get(idx).cloned() else { continue };
        let end = off + width;
        let shared_start = distinct.iter().filter(|(i, o, _)| *i == idx && *o == off).count() > 1;
        let name = if shared_start { format!("{}+{off}..{end}", base.name) } else { format!("{}+{off}", base.name) };
        let segs = match segments.get(&base.cell) {
            Some(all) => all.iter().filter(|(s, e, _)| *s >= off && *e <= end).map(|s| s.2).collect(),
            None => vec![base.cell],
        };
        names.insert((base.name.clone(), off, width), name.clone());
        loc_index.insert(name.clone(), locs.len());
        locs.push(LocInfo { name, size: width, segs, range: Some((off, end)), ..base });
    }
    Ok(Ranges { cell_owner, cell_bytes, names })
}

impl Ranges {
    /// `instr` as the checker runs it: each byte range replaced by the entry naming it.
    pub fn rewrite(&self, instr: &Instr) -> Instr {
        match instr {
            Instr::Guarded { pred, negated, instr } => {
                Instr::Guarded { pred: pred.clone(), negated: *negated, instr: Box::new(self.rewrite(instr)) }
            }
            Instr::Ranged { instr: inner, .. } => {
                let ranges = instr.byte_ranges().unwrap_or_default();
                let mut out = self.rewrite(inner);
                let entry = |role: RangeRole, name: &mut String| {
                    let range = ranges.iter().find(|r| r.role == role);
                    if let Some(new) = range.and_then(|r| self.names.get(&(r.name.to_string(), r.offset, r.width.unwrap_or(0)))) {
                        name.clone_from(new);
                    }
                };
                match spun_mut(&mut out) {
                    Instr::Ld { addr, .. } | Instr::St { addr, .. } | Instr::Atom { addr, .. } | Instr::StAsync { addr, .. } => {
                        entry(RangeRole::Accessed, addr);
                    }
                    Instr::CpAsync { dst, src, .. } => {
                        entry(RangeRole::Accessed, dst);
                        entry(RangeRole::Source, src);
                    }
                    Instr::Bulk { dst, src, multicast, .. } => {
                        entry(RangeRole::Accessed, dst);
                        entry(RangeRole::Source, src);
                        for (n, (d, _)) in multicast.iter_mut().enumerate() {
                            entry(RangeRole::Multicast(n), d);
                        }
                    }
                    // `byte_ranges` found no range on any other kind (the split refused it).
                    _ => {}
                }
                out
            }
            Instr::Wait { instr: inner, until } => Instr::Wait { instr: Box::new(self.rewrite(inner)), until: until.clone() },
            other => other.clone(),
        }
    }
}

/// The instruction a byte range applies to: under a `wait`, the spun-on load.
fn spun_mut(instr: &mut Instr) -> &mut Instr {
    match instr {
        Instr::Wait { instr, .. } => instr,
        other => other,
    }
}
