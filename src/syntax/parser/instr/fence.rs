//! Thread fences, restricted fences, proxy fences and their CUDA/`membar` spellings.

use super::super::cursor::{Cursor, PResult};
use super::super::mods::{unknown_modifier, Allowed, Seg, SCOPES};
use super::bad_form;
use crate::diag::{Diagnostic, Span};
use crate::model::{AddrSpace, Fence, FenceSem, Instr, ProxyKind, Scope, Sugar, SyncRestrict};

const FENCE_WORDS: &[&str] = &[
    "sc",
    "acq_rel",
    "acquire",
    "release",
    "cta",
    "cluster",
    "gpu",
    "sys",
    "sync_restrict::shared::cta",
    "sync_restrict::shared::cluster",
    "proxy",
    "mbarrier_init",
];
const FENCE_WORDS_ALLOWED: Allowed =
    Allowed { sems: &[], scopes: false, spaces: &[], flags: FENCE_WORDS, ignored: |_| false };

/// The pieces a fence word can hold, before deciding which fence it is.
#[derive(Default)]
struct FenceParts {
    sem: Option<(FenceSem, Span)>,
    scope: Option<(Scope, Span)>,
    restrict: Option<(SyncRestrict, Span)>,
}

pub fn sugar(head: &str, segs: &[Seg], diags: &mut Vec<Diagnostic>) -> PResult<Instr> {
    let span = segs.first().map(|s| s.span);
    let thread = |scope, sugar| {
        Instr::Fence(Fence::Thread { sem: Some(FenceSem::Sc), scope, restrict: None, sugar: Some(sugar) })
    };
    match head {
        "__threadfence()" => Ok(thread(Scope::Gpu, Sugar::ThreadFence)),
        "__threadfence_block()" => Ok(thread(Scope::Cta, Sugar::ThreadFenceBlock)),
        _ => {
            // `membar.{cta,gl,sys}`
            let scopes = [("cta", Scope::Cta), ("gl", Scope::Gpu), ("sys", Scope::Sys)];
            let level = segs.get(1);
            match (level.and_then(|l| scopes.iter().find(|(n, _)| *n == l.text)), segs.len()) {
                (Some(&(_, scope)), 2) => Ok(thread(scope, Sugar::Membar)),
                _ => {
                    if let Some(extra) = segs.get(1) {
                        let allowed = Allowed {
                            sems: &[],
                            scopes: false,
                            spaces: &[],
                            flags: &["cta", "gl", "sys"],
                            ignored: |_| false,
                        };
                        diags.push(unknown_modifier(extra, &allowed, "membar"));
                    }
                    Err(bad_form(span, "`membar` needs one level: `.cta`, `.gl` or `.sys`", "write e.g. `membar.gl`"))
                }
            }
        }
    }
}

pub fn fence(c: &mut Cursor, segs: &[Seg], diags: &mut Vec<Diagnostic>) -> PResult<Instr> {
    let word_span = segs.first().map(|s| s.span).and_then(|f| segs.last().map(|l| f.to(l.span)));
    let rest = segs.get(1..).unwrap_or(&[]);
    match rest.first().map(|s| s.text) {
        Some("proxy") => proxy_fence(c, rest.get(1..).unwrap_or(&[]), word_span, diags),
        Some("mbarrier_init") => {
            let parts = parts(rest.get(1..).unwrap_or(&[]), diags);
            let ok = matches!(parts.sem, Some((FenceSem::Release, _)) | None)
                && matches!(parts.scope, Some((Scope::Cluster, _)) | None)
                && parts.restrict.is_none();
            if ok {
                Ok(Instr::Fence(Fence::MbarrierInit))
            } else {
                Err(bad_form(
                    word_span,
                    "`fence.mbarrier_init` only exists as `fence.mbarrier_init.release.cluster`",
                    "write `fence.mbarrier_init.release.cluster`",
                ))
            }
        }
        _ => {
            let parts = parts(rest, diags);
            let Some((scope, _)) = parts.scope else {
                return Err(Box::new(
                    Diagnostic::error("F0207", "`fence` needs a scope")
                        .with_primary(word_span, "no `.cta`, `.cluster`, `.gpu` or `.sys`")
                        .with_help("add a scope, e.g. `fence.acq_rel.gpu`"),
                ));
            };
            Ok(Instr::Fence(Fence::Thread {
                sem: parts.sem.map(|s| s.0),
                scope,
                restrict: parts.restrict.map(|r| r.0),
                sugar: None,
            }))
        }
    }
}

fn parts(segs: &[Seg], diags: &mut Vec<Diagnostic>) -> FenceParts {
    let sems = [
        ("sc", FenceSem::Sc),
        ("acq_rel", FenceSem::AcqRel),
        ("acquire", FenceSem::Acquire),
        ("release", FenceSem::Release),
    ];
    let restricts = [
        ("sync_restrict::shared::cta", SyncRestrict::SharedCta),
        ("sync_restrict::shared::cluster", SyncRestrict::SharedCluster),
    ];
    let mut parts = FenceParts::default();
    for seg in segs {
        let duplicate = if let Some(&(_, sem)) = sems.iter().find(|(n, _)| *n == seg.text) {
            parts.sem.replace((sem, seg.span)).is_some()
        } else if let Some(&(_, scope)) = SCOPES.iter().find(|(n, _)| *n == seg.text) {
            parts.scope.replace((scope, seg.span)).is_some()
        } else if let Some(&(_, r)) = restricts.iter().find(|(n, _)| *n == seg.text) {
            parts.restrict.replace((r, seg.span)).is_some()
        } else {
            diags.push(unknown_modifier(seg, &FENCE_WORDS_ALLOWED, "fence"));
            false
        };
        if duplicate {
            diags.push(
                Diagnostic::error("F0204", "conflicting fence modifiers")
                    .with_primary(Some(seg.span), "a second semantics, scope or restriction"),
            );
        }
    }
    parts
}

fn proxy_fence(c: &mut Cursor, segs: &[Seg], word_span: Option<Span>, diags: &mut Vec<Diagnostic>) -> PResult<Instr> {
    let kind = segs.first().map(|s| s.text);
    let rest = segs.get(1..).unwrap_or(&[]);
    let no_extra = |diags: &mut Vec<Diagnostic>| {
        for seg in rest {
            diags.push(unknown_modifier(
                seg,
                &Allowed { sems: &[], scopes: false, spaces: &[], flags: &[], ignored: |_| false },
                "fence.proxy",
            ));
        }
    };
    let simple = match kind {
        Some("alias") => Some(ProxyKind::Alias),
        Some("texture") => Some(ProxyKind::Texture),
        Some("surface") => Some(ProxyKind::Surface),
        Some("constant") => Some(ProxyKind::Constant),
        _ => None,
    };
    if let Some(kind) = simple {
        no_extra(diags);
        return Ok(Instr::Fence(Fence::Proxy(kind)));
    }
    match kind {
        Some("async") => {
            let spaces = [
                ("global", AddrSpace::Global),
                ("shared::cta", AddrSpace::SharedCta),
                ("shared::cluster", AddrSpace::SharedCluster),
            ];
            let space = match rest {
                [] => None,
                [seg] => match spaces.iter().find(|(n, _)| *n == seg.text) {
                    Some(&(_, s)) => Some(s),
                    None => {
                        let allowed = Allowed {
                            sems: &[],
                            scopes: false,
                            spaces: &[],
                            flags: &["global", "shared::cta", "shared::cluster"],
                            ignored: |_| false,
                        };
                        diags.push(unknown_modifier(seg, &allowed, "fence.proxy.async"));
                        None
                    }
                },
                _ => {
                    return Err(bad_form(
                        word_span,
                        "`fence.proxy.async` takes at most one state space",
                        "write e.g. `fence.proxy.async.shared::cta`",
                    ))
                }
            };
            Ok(Instr::Fence(Fence::Proxy(ProxyKind::Async { space })))
        }
        Some("async::generic") => {
            let parts = parts(rest, diags);
            // Which restriction goes with which half is checked against the forms table
            // by the verifier, so every model prints and parses back.
            match (parts.sem, parts.restrict, parts.scope) {
                (
                    Some((sem @ (FenceSem::Release | FenceSem::Acquire), _)),
                    Some((restrict, _)),
                    Some((Scope::Cluster, _)),
                ) => Ok(Instr::Fence(Fence::Proxy(ProxyKind::AsyncGeneric { sem, restrict }))),
                _ => Err(bad_form(
                    word_span,
                    "`fence.proxy.async::generic` needs `.release` or `.acquire`, a `.sync_restrict::…` and `.cluster`",
                    "write e.g. `fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster`",
                )),
            }
        }
        Some("tensormap::generic") => {
            let parts = parts(rest, diags);
            match (parts.sem, parts.scope, parts.restrict) {
                (Some((sem @ (FenceSem::Release | FenceSem::Acquire), _)), Some((scope, _)), None) => {
                    if sem == FenceSem::Acquire {
                        tensormap_operands(c)?;
                    }
                    Ok(Instr::Fence(Fence::Proxy(ProxyKind::Tensormap { sem, scope })))
                }
                _ => Err(bad_form(
                    word_span,
                    "`fence.proxy.tensormap::generic` needs `.release` or `.acquire` and a scope",
                    "write e.g. `fence.proxy.tensormap::generic.acquire.gpu`",
                )),
            }
        }
        _ => {
            let allowed = Allowed {
                sems: &[],
                scopes: false,
                spaces: &[],
                flags: &["alias", "texture", "surface", "constant", "async", "async::generic", "tensormap::generic"],
                ignored: |_| false,
            };
            match segs.first() {
                Some(seg) => Err(Box::new(unknown_modifier(seg, &allowed, "fence.proxy"))),
                None => Err(bad_form(word_span, "`fence.proxy` needs a proxy kind", "write e.g. `fence.proxy.async`")),
            }
        }
    }
}

/// The acquire's `[addr], 128` (PTX ISA §9.7.13.4): accepted and dropped, because the
/// model does not say which tensor map a fence names.
fn tensormap_operands(c: &mut Cursor) -> PResult<()> {
    if c.at_end() {
        return Ok(());
    }
    c.address("the tensor map")?;
    c.comma()?;
    let (size, span) = c.u32("the tensor map size")?;
    if size != 128 {
        return Err(bad_form(Some(span), "a tensor map is 128 bytes", "write `[tmap], 128`"));
    }
    Ok(())
}
