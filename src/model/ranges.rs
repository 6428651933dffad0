//! Which byte ranges an instruction's `[x+OFF]` operands name (issue 16), read by the
//! verifier (ranges inside their locations) and the checker's layout (byte segments).

use super::Instr;

/// Which operand of the instruction a byte range belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeRole {
    /// The accessed location, or a copy's destination.
    Accessed,
    /// A copy's source.
    Source,
    /// The `n`-th extra destination of a multicast copy (same offset as the first).
    Multicast(usize),
}

/// One `[name+offset]` operand and the bytes it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteRange<'a> {
    pub name: &'a str,
    pub offset: u32,
    /// The access width (type suffix) or a copy's byte count; `None` when a load, store or
    /// atomic carries an offset without a width (only a hand-built model can).
    pub width: Option<u32>,
    pub role: RangeRole,
}

/// The instruction a byte range applies to: under a `wait`, the spun-on load.
fn spun(instr: &Instr) -> &Instr {
    match instr {
        Instr::Wait { instr, .. } => instr,
        other => other,
    }
}

impl Instr {
    /// The byte ranges this instruction names, through its guard; `Err` with the
    /// instruction when offsets sit on one that takes none.
    pub fn byte_ranges<'s>(&'s self) -> Result<Vec<ByteRange<'s>>, &'s Instr> {
        let (instr, at, src_at, width) = match self {
            Instr::Guarded { instr, .. } => return instr.byte_ranges(),
            Instr::Ranged { instr, at, src_at, width } => (spun(instr), *at, *src_at, *width),
            _ => return Ok(Vec::new()),
        };
        let range = |name: &'s str, offset: u32, width: Option<u32>, role| ByteRange { name, offset, width, role };
        let mut out = Vec::new();
        match instr {
            Instr::Ld { addr, .. } | Instr::St { addr, .. } | Instr::Atom { addr, .. } | Instr::StAsync { addr, .. } => {
                out.extend(at.map(|off| range(addr, off, width, RangeRole::Accessed)));
            }
            Instr::CpAsync { dst, src, bytes } => {
                out.extend(at.map(|off| range(dst, off, Some(*bytes), RangeRole::Accessed)));
                out.extend(src_at.map(|off| range(src, off, Some(*bytes), RangeRole::Source)));
            }
            Instr::Bulk { dst, src, bytes, multicast, .. } => {
                if let Some(off) = at {
                    out.push(range(dst, off, Some(*bytes), RangeRole::Accessed));
                    out.extend(multicast.iter().enumerate().map(|(n, (d, _))| range(d, off, Some(*bytes), RangeRole::Multicast(n))));
                }
                out.extend(src_at.map(|off| range(src, off, Some(*bytes), RangeRole::Source)));
            }
            other => return Err(other),
        }
        Ok(out)
    }
}
