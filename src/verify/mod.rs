//! Static checks on a [`Scenario`]: what PTX rejects (errors), legal but suspicious forms
//! (warnings) and facts worth knowing (notes). No semantics run here; the checker does that.
//! Rules cite `/work/shared/reference/ptx-sync.md` sections as "ref §x".

mod barrier;
mod context;
mod copy;
mod decls;
mod forms;
mod mbarrier;
mod memory;
mod patterns;
mod ranges;
mod registers;
mod tensor;

use crate::diag::{Diagnostic, Severity};
use crate::model::{Expect, Scenario};
use crate::syntax::SourceMap;

use context::Ctx;

/// Codes for forms that are undefined behaviour at run time rather than unparseable PTX.
/// When a scenario declares `expect undefined`, these stay visible but become warnings,
/// so a lesson can show the bug and the checker can still run it.
const UB_CODES: &[&str] = &["F0320", "F0321", "F0322", "F0323", "F0330", "F0341"];

/// At most this many findings are listed; a huge generated scenario would otherwise
/// produce thousands of identical warnings.
pub const MAX_DIAGNOSTICS: usize = 200;

/// Every static finding, in source order when spans exist. Works with an empty
/// [`SourceMap`]; diagnostics then carry no labels.
pub fn verify(s: &Scenario, map: &SourceMap) -> Vec<Diagnostic> {
    let mut ctx = Ctx::new(s, map);
    decls::check(&mut ctx);
    memory::check(&mut ctx);
    barrier::check(&mut ctx);
    mbarrier::check(&mut ctx);
    copy::check(&mut ctx);
    tensor::check(&mut ctx);
    registers::check(&mut ctx);
    patterns::check(&mut ctx);
    ranges::check(&mut ctx);
    forms::check(&mut ctx);
    let mut diags = ctx.into_diags();
    if s.expect.iter().any(|e| e.verdict == Expect::Undefined) {
        for d in diags.iter_mut().filter(|d| d.is_error() && UB_CODES.contains(&d.code.as_str())) {
            d.severity = Severity::Warning;
            d.notes.push("reported as a warning because the scenario expects `undefined`".into());
        }
    }
    Diagnostic::sort_in_source_order(&mut diags);
    if diags.len() > MAX_DIAGNOSTICS {
        let hidden = diags.len() - MAX_DIAGNOSTICS;
        let errors = diags.iter().skip(MAX_DIAGNOSTICS).filter(|d| d.is_error()).count();
        diags.truncate(MAX_DIAGNOSTICS);
        let severity = if errors > 0 { Severity::Error } else { Severity::Note };
        diags.push(Diagnostic::new(
            severity,
            "F0004",
            format!("{hidden} more findings not shown ({errors} of them errors)"),
        ));
    }
    diags
}
