//! Registers read before any write (they start at 0, which is rarely what the author
//! meant) and condition registers no instruction writes. Which registers an instruction
//! reads and writes comes from [`crate::model::Facts`], the one register analysis the
//! checker uses too.

use std::collections::HashSet;

use super::context::Ctx;
use super::decls::collect_terms;
use crate::diag::Diagnostic;
use crate::model::Term;

pub fn check(ctx: &mut Ctx) {
    let s = ctx.s;
    // Sets of `&str` borrowed from the scenario, the set type the other passes use.
    let mut written_by: Vec<HashSet<&str>> = Vec::new();
    let mut found = Vec::new();
    for (t, thread) in s.threads.iter().enumerate() {
        let mut written: HashSet<&str> = HashSet::new();
        let mut warned: HashSet<&str> = HashSet::new();
        for (i, instr) in thread.program.iter().enumerate() {
            let facts = instr.facts();
            for r in &facts.reads {
                if !written.contains(r) && warned.insert(*r) {
                    found.push((t, i, *r));
                }
            }
            // An accumulator the wgmma reads starts at 0 on purpose (the first MMA of a
            // tile); that it is written is what a later read needs.
            written.extend(facts.writes.iter().chain(&facts.accumulator).copied());
        }
        written_by.push(written);
    }
    for (t, i, reg) in found {
        ctx.push(
            Diagnostic::warning("F0402", format!("register `{reg}` is read before it is written"))
                .with_primary(ctx.at(t, i), format!("`{reg}` still holds its initial 0 here"))
                .with_help("write it first (e.g. `mov`) or check the name"),
        );
    }
    for (i, fc) in ctx.s.conditions.iter().enumerate() {
        let mut terms = Vec::new();
        collect_terms(&fc.cond, &mut terms, 0);
        for term in terms {
            if let Term::Reg { thread, reg } = term {
                let Some(t) = ctx.thread_index(thread) else { continue };
                if !written_by.get(t).is_some_and(|w| w.contains(reg.as_str())) {
                    ctx.push(
                        Diagnostic::warning("F0411", format!("`{thread}` never writes register `{reg}`"))
                            .with_primary(ctx.map.condition(i), "this condition reads it"),
                    );
                }
            }
        }
    }
}
