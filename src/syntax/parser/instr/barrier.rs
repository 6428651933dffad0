//! `bar` / `barrier{.cta}` / `__syncthreads()` and `barrier.cluster`.

use super::super::cursor::{Cursor, PResult};
use super::super::mods::{classify, ignore_sync_aligned, Allowed, Seg};
use super::bad_form;
use crate::diag::Diagnostic;
use crate::model::{BarKind, Instr, Operand, Sem, Sugar};

pub fn sync_threads() -> Instr {
    Instr::Bar { kind: BarKind::Sync, id: Operand::Imm(0), count: None, sugar: Some(Sugar::SyncThreads) }
}

/// `bar.*` and `barrier.*` (including `barrier.cluster.*`).
pub fn bar(c: &mut Cursor, segs: &[Seg], diags: &mut Vec<Diagnostic>) -> PResult<Instr> {
    let head = segs.first().map_or("bar", |s| s.text);
    let mut rest = segs.get(1..).unwrap_or(&[]);
    let word_span = segs.first().map(|f| segs.last().map_or(f.span, |l| f.span.to(l.span)));
    if head == "barrier" {
        match rest.first().map(|s| s.text) {
            Some("cluster") => return cluster(rest.get(1..).unwrap_or(&[]), word_span, diags),
            Some("cta") => rest = rest.get(1..).unwrap_or(&[]),
            _ => {}
        }
    }
    let allowed = Allowed {
        sems: &[],
        scopes: false,
        spaces: &[],
        flags: &["sync", "arrive", "red"],
        ignored: |s| s == "aligned",
    };
    let mods = classify(rest, &allowed, head, diags);
    let kinds: Vec<BarKind> = mods
        .flags
        .iter()
        .map(|(f, _)| match *f {
            "arrive" => BarKind::Arrive,
            "red" => BarKind::Red,
            _ => BarKind::Sync,
        })
        .collect();
    let kind = match kinds.as_slice() {
        [kind] => *kind,
        _ => {
            return Err(bad_form(
                word_span,
                &format!("`{head}` needs exactly one of `.sync`, `.arrive`, `.red`"),
                "write e.g. `bar.sync 0`",
            ))
        }
    };
    let id = c.value("a barrier id")?;
    let count = if c.eat(&crate::syntax::lexer::Tok::Comma) { Some(c.value("a thread count")?) } else { None };
    if kind == BarKind::Arrive && count.is_none() {
        return Err(bad_form(word_span, "`bar.arrive` needs a thread count", "write `bar.arrive id, count`"));
    }
    Ok(Instr::Bar { kind, id, count, sugar: None })
}

fn cluster(segs: &[Seg], word_span: Option<crate::diag::Span>, diags: &mut Vec<Diagnostic>) -> PResult<Instr> {
    let allowed = Allowed {
        sems: &[Sem::Release, Sem::Relaxed, Sem::Acquire],
        scopes: false,
        spaces: &[],
        flags: &["arrive", "wait"],
        ignored: ignore_sync_aligned,
    };
    let mods = classify(segs, &allowed, "barrier.cluster", diags);
    match (mods.has("arrive"), mods.has("wait"), mods.sem()) {
        (true, false, None | Some(Sem::Release | Sem::Relaxed)) => Ok(Instr::ClusterArrive { sem: mods.sem() }),
        (false, true, None | Some(Sem::Acquire)) => Ok(Instr::ClusterWait),
        (true, false, _) => Err(bad_form(
            mods.sem.map(|s| s.1),
            "`barrier.cluster.arrive` is `.release` (default) or `.relaxed`",
            "remove the semantics or use `.relaxed`",
        )),
        (false, true, _) => {
            Err(bad_form(mods.sem.map(|s| s.1), "`barrier.cluster.wait` is always `.acquire`", "remove the semantics"))
        }
        _ => Err(bad_form(
            word_span,
            "`barrier.cluster` needs exactly one of `.arrive` or `.wait`",
            "write `barrier.cluster.arrive` or `barrier.cluster.wait`",
        )),
    }
}
