//! Registers, branches and exit (§5.3: exited threads no longer count at barriers).

use super::base::exec::{self, Exec};
use super::base::flow::finish;
use crate::check::machine::AgentKind;
use crate::model::Instr;

pub fn step(ex: &mut Exec, instr: &Instr) -> Result<(), String> {
    match instr {
        Instr::Label(_) => ex.next(),
        Instr::Mov { dst, src } => {
            let v = ex.eval(src);
            ex.set_reg(dst, v)?;
            if ex.explain {
                ex.out.description = format!("{dst} = {v}");
            }
            ex.next()
        }
        Instr::Add { dst, a, b } => {
            let v = ex.eval(a).wrapping_add(ex.eval(b));
            ex.set_reg(dst, v)?;
            if ex.explain {
                ex.out.description = format!("{dst} = {v}");
            }
            ex.next()
        }
        Instr::Branch { target, cond } => {
            let taken = match cond {
                None => true,
                Some((a, op, b)) => op.eval(ex.eval(a), ex.eval(b)),
            };
            if taken {
                let thread = match ex.me()?.kind {
                    AgentKind::Thread(t) => t,
                    AgentKind::Async { .. } => return Err(exec::internal("branch in async agent")),
                };
                let pc = ex
                    .layout
                    .threads
                    .get(thread)
                    .and_then(|t| t.labels.get(target))
                    .copied()
                    .ok_or_else(|| format!("unknown label `{target}`"))?;
                if ex.explain {
                    ex.out.description = format!("branch to {target}");
                }
                ex.goto(pc)
            } else {
                if ex.explain {
                    ex.out.description = "branch not taken".into();
                }
                ex.next()
            }
        }
        Instr::SetP { dst, op, a, b } => {
            let v = i64::from(op.eval(ex.eval(a), ex.eval(b)));
            ex.set_reg(dst, v)?;
            ex.out.description = format!("{dst} = {v}");
            ex.next()
        }
        Instr::Exit => {
            if ex.explain {
                ex.out.description = "exited".into();
            }
            finish(ex)
        }
        _ => Err(exec::internal("control step")),
    }
}

