//! Every instruction is a form of the table in `syntax::forms`: a form PTX lacks is an
//! error naming the nearest real one, and a model-only form (Dat3M's litmus proxies) is a
//! warning, so a learner never copies a non-PTX form into a kernel.

use super::context::{Ctx, Reach};
use crate::diag::Diagnostic;
use crate::model::{Instr, MbarOp};
use crate::syntax::forms::{form_of, nearest_ptx, opcode_words, Origin};

pub fn check(ctx: &mut Ctx) {
    // A large scenario repeats its few wrong forms; each hint searches the whole table once.
    let mut hints: std::collections::HashMap<String, Option<String>> = std::collections::HashMap::new();
    for (t, thread) in ctx.s.threads.iter().enumerate() {
        for (i, instr) in thread.program.iter().enumerate() {
            for word in opcode_words(instr) {
                match form_of(&word).map(|f| (f.origin, f.isa)) {
                    Some((Origin::Ptx | Origin::Spelling, _)) => {}
                    Some((Origin::Undefined, _)) if waits_on_peer(ctx, t, instr) => {}
                    Some((Origin::ModelOnly, isa)) => ctx.push(
                        Diagnostic::warning("F0421", format!("`{word}` is a model-only form, not PTX"))
                            .with_primary(ctx.at(t, i), "fencelab and Dat3M's litmus tests only")
                            .with_note(format!("PTX ISA: {isa}")),
                    ),
                    Some((Origin::Undefined, _)) | None => ctx.push(
                        Diagnostic::error("F0347", format!("`{word}` is not a PTX instruction form"))
                            .with_primary(ctx.at(t, i), "PTX has no such form")
                            .with_help_opt(hints.entry(word.clone()).or_insert_with(|| nearest_help(&word)).clone())
                            .with_note("docs/syntax.md lists every form with its PTX ISA section"),
                    ),
                }
            }
        }
    }
}

/// A wait on another CTA's mbarrier, which the verifier reports as undefined behaviour
/// (F0320) rather than as a missing form.
fn waits_on_peer(ctx: &Ctx, t: usize, instr: &Instr) -> bool {
    let core = match instr.unwrapped() {
        Instr::Wait { instr, .. } => instr.unwrapped(),
        other => other,
    };
    let Instr::Mbar(MbarOp { bar, .. }) = core else { return false };
    ctx.mbarrier(bar).is_some_and(|b| ctx.reach_cta(t, b.cta) != Reach::OwnCta)
}

fn nearest_help(word: &str) -> Option<String> {
    let nearest = nearest_ptx(word);
    let list = nearest.iter().map(|w| format!("`{w}`")).collect::<Vec<_>>();
    match list.as_slice() {
        [] => None,
        [one] => Some(format!("the nearest PTX form is {one}")),
        more => Some(format!("the nearest PTX forms are {}", more.join(", "))),
    }
}
