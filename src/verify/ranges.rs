//! Byte ranges (`[x+OFFSET]`, issue 16): each must lie inside its location.

use super::context::Ctx;
use crate::diag::Diagnostic;
use crate::model::{Instr, RangeRole};

/// Operand index (in the parser's operand order) of a range, for the label.
fn operand_index(instr: &Instr, role: RangeRole) -> usize {
    let spun = match instr.unwrapped() {
        Instr::Wait { instr, .. } => instr.unwrapped(),
        other => other,
    };
    match (spun, role) {
        (Instr::Ld { .. }, _) | (Instr::Atom { dst: Some(_), .. }, _) => 1,
        (_, RangeRole::Source) => 1,
        (_, RangeRole::Multicast(n)) => 4 + 2 * n,
        (_, RangeRole::Accessed) => 0,
    }
}

pub fn check(ctx: &mut Ctx) {
    let programs: Vec<(usize, usize, &Instr)> = ctx
        .s
        .threads
        .iter()
        .enumerate()
        .flat_map(|(t, th)| th.program.iter().enumerate().map(move |(i, instr)| (t, i, instr)))
        .collect();
    for (t, i, outer) in programs {
        // A spun-on load keeps its range inside the `wait`.
        let ranged = match outer.unwrapped() {
            Instr::Wait { instr, .. } => instr.as_ref(),
            _ => outer,
        };
        let ranges = match ranged.byte_ranges() {
            Ok(ranges) => ranges,
            Err(other) => {
                ctx.push(
                    Diagnostic::error("F0207", format!("`{}` takes no byte offset", crate::syntax::instr_text(other)))
                        .with_primary(ctx.at(t, i), "offset not allowed here"),
                );
                continue;
            }
        };
        for range in ranges {
            let span = ctx.operand(t, i, operand_index(outer, range.role));
            let Some(loc) = ctx.location(range.name) else { continue };
            let Some(width) = range.width else {
                ctx.push(
                    Diagnostic::error("F0346", format!("`[{}+{}]` has no access width", range.name, range.offset))
                        .with_primary(span, "how many bytes does this access cover?")
                        .with_help("add a type suffix such as `.b32`"),
                );
                continue;
            };
            let end = u64::from(range.offset) + u64::from(width);
            if width == 0 || end > u64::from(loc.size) {
                ctx.push(
                    Diagnostic::error(
                        "F0346",
                        format!("offset outside the location: bytes {}..{end} of `{}`, which holds {} bytes", range.offset, range.name, loc.size),
                    )
                    .with_primary(span, format!("covers bytes {}..{end}", range.offset))
                    .with_help(format!("keep OFFSET + width within {} (or declare `{}` with a larger `size`)", loc.size, range.name)),
                );
            }
        }
    }
}
