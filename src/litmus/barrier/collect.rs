//! Finding every barrier use and what its operands are worth before the run.

use std::collections::{HashMap, HashSet};

use super::{Key, Use};
use crate::litmus::error::LitmusError;
use crate::litmus::instr::{Cell, LitmusInstr};
use crate::model::{Fence, Instr, Operand};

/// A use whose resource id is a register the program writes: known only at run time.
pub struct DynamicUse {
    pub arrive: bool,
    pub thread: usize,
    pub pos: usize,
    pub line: usize,
    pub cta: usize,
    pub instance: i64,
    pub reg: String,
}

pub struct Uses {
    pub fixed: Vec<Use>,
    pub dynamic: Vec<DynamicUse>,
}

pub fn collect(
    programs: &[Vec<Cell>],
    thread_ctas: &[usize],
    reg_inits: &[HashMap<String, i64>],
) -> Result<Uses, LitmusError> {
    let mut uses = Uses {
        fixed: Vec::new(),
        dynamic: Vec::new(),
    };
    for (thread, program) in programs.iter().enumerate() {
        let written = written_registers(program);
        let jumps = jumps(program);
        let empty = HashMap::new();
        let inits = reg_inits.get(thread).unwrap_or(&empty);
        let cta = thread_ctas.get(thread).copied().unwrap_or_default();
        for (pos, cell) in program.iter().enumerate() {
            let LitmusInstr::Barrier(bar) = &cell.instr else {
                continue;
            };
            let line = Some(cell.line);
            if jumps.iter().any(|&(from, to)| (to..=from).contains(&pos)) {
                return Err(LitmusError::unsupported(
                    line,
                    "a barrier inside a loop (Dat3M unrolls it; each pass would need its own barrier)",
                ));
            }
            let quorum = match &bar.quorum {
                None => None,
                Some(operand) => Some(fixed_value(operand, &written, inits).ok_or_else(|| {
                    LitmusError::unsupported(line, "a barrier quorum computed at run time")
                })?),
            };
            if quorum.is_some_and(|q| q < 1) {
                return Err(LitmusError::unsupported(line, "a barrier quorum below 1"));
            }
            let resource = match &bar.resource {
                None => None,
                Some(operand) => match (fixed_value(operand, &written, inits), operand) {
                    (Some(v), _) => Some(v),
                    (None, Operand::Reg(reg)) => {
                        check_dynamic(program, pos, quorum, reg, cell.line)?;
                        let (arrive, instance, reg) = (bar.arrive, bar.instance, reg.clone());
                        uses.dynamic.push(DynamicUse {
                            arrive,
                            thread,
                            pos,
                            line: cell.line,
                            cta,
                            instance,
                            reg,
                        });
                        continue;
                    }
                    (None, Operand::Imm(v)) => Some(*v),
                },
            };
            let key: Key = (cta, bar.instance, resource);
            // A forward jump over the barrier lets the thread finish without reaching it.
            let skippable = jumps.iter().any(|&(from, to)| from < pos && pos < to);
            uses.fixed.push(Use {
                arrive: bar.arrive,
                skippable,
                thread,
                pos,
                line: cell.line,
                key,
                quorum,
            });
        }
    }
    Ok(uses)
}

/// A register never written by the program keeps its initial value.
fn fixed_value(
    operand: &Operand,
    written: &HashSet<String>,
    inits: &HashMap<String, i64>,
) -> Option<i64> {
    match operand {
        Operand::Imm(v) => Some(*v),
        Operand::Reg(r) if !written.contains(r) => Some(inits.get(r).copied().unwrap_or(0)),
        Operand::Reg(_) => None,
    }
}

/// The lowering of a run-time resource id counts the thread's arrival on every barrier of
/// its instance, so the thread must surely get there, and its relaxed arrivals must not
/// become releases (a fence before them would make them one).
fn check_dynamic(
    program: &[Cell],
    pos: usize,
    quorum: Option<i64>,
    reg: &str,
    line: usize,
) -> Result<(), LitmusError> {
    let why = if quorum.is_some() {
        Some("with a quorum")
    } else {
        program.iter().take(pos).find_map(|c| match &c.instr {
            LitmusInstr::Plain(Instr::Branch { .. } | Instr::Label(_)) => Some("after a branch"),
            LitmusInstr::Plain(Instr::Fence(Fence::Thread { .. })) => Some("after a fence"),
            LitmusInstr::Barrier(_) => Some("after another barrier"),
            _ => None,
        })
    };
    match why {
        Some(why) => Err(LitmusError::unsupported(
            Some(line),
            format!("barrier resource id in register `{reg}`, computed at run time, {why}"),
        )),
        None => Ok(()),
    }
}

fn written_registers(program: &[Cell]) -> HashSet<String> {
    program
        .iter()
        .filter_map(|cell| match &cell.instr {
            LitmusInstr::Plain(Instr::Ld { dst, .. })
            | LitmusInstr::Plain(Instr::Mov { dst, .. })
            | LitmusInstr::Plain(Instr::Add { dst, .. }) => Some(dst.clone()),
            LitmusInstr::Plain(Instr::Atom { dst, .. }) => dst.clone(),
            _ => None,
        })
        .collect()
}

/// `(branch position, label position)` of every branch to a known label.
fn jumps(program: &[Cell]) -> Vec<(usize, usize)> {
    let labels: HashMap<&str, usize> = program
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match &c.instr {
            LitmusInstr::Plain(Instr::Label(l)) => Some((l.as_str(), i)),
            _ => None,
        })
        .collect();
    program
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match &c.instr {
            LitmusInstr::Plain(Instr::Branch { target, .. }) => {
                labels.get(target.as_str()).map(|&l| (i, l))
            }
            _ => None,
        })
        .collect()
}
