//! Modifier lists (`.acquire.gpu.shared`): splitting an opcode word into segments and
//! sorting them into semantics, scope, state space and family-specific flags.

use crate::diag::{closest, Diagnostic, Span};
use crate::model::{AddrSpace, Scope, Sem};

/// One `.`-separated segment of an opcode word, without the dot.
#[derive(Clone, Copy, Debug)]
pub struct Seg<'a> {
    pub text: &'a str,
    pub span: Span,
}

/// Splits `ld.acquire.gpu` into `ld`, `acquire`, `gpu`; each span covers the dot too.
pub fn segments(word: &str, span: Span) -> Vec<Seg<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, part) in word.split('.').enumerate() {
        let dot = usize::from(i > 0);
        let from = span.start as usize + start - dot;
        out.push(Seg { text: part, span: Span::new(from, span.start as usize + start + part.len()) });
        start += part.len() + 1;
    }
    out
}

pub const SEMS: &[(&str, Sem)] = &[
    ("weak", Sem::Weak),
    ("relaxed", Sem::Relaxed),
    ("acquire", Sem::Acquire),
    ("release", Sem::Release),
    ("acq_rel", Sem::AcqRel),
    ("volatile", Sem::Volatile),
    ("mmio", Sem::Mmio),
];

pub const SCOPES: &[(&str, Scope)] =
    &[("cta", Scope::Cta), ("cluster", Scope::Cluster), ("gpu", Scope::Gpu), ("sys", Scope::Sys)];

pub const SPACES: &[(&str, AddrSpace)] = &[
    ("global", AddrSpace::Global),
    ("shared", AddrSpace::SharedCta),
    ("shared::cta", AddrSpace::SharedCta),
    ("shared::cluster", AddrSpace::SharedCluster),
];

/// PTX type suffixes, accepted and ignored.
pub fn is_type_suffix(s: &str) -> bool {
    let bits = ["8", "16", "32", "64", "128"];
    let sized = match s.split_at_checked(1) {
        Some(("u" | "s" | "b" | "f", rest)) => bits.contains(&rest),
        _ => false,
    };
    sized || matches!(s, "pred" | "bf16" | "bf16x2" | "f16x2" | "tf32" | "e4m3" | "e5m2" | "v2" | "v4" | "v8")
}

/// What a family accepts.
pub struct Allowed {
    pub sems: &'static [Sem],
    pub scopes: bool,
    pub spaces: &'static [AddrSpace],
    /// Family-specific flags, matched exactly.
    pub flags: &'static [&'static str],
    /// Extra segments accepted and ignored (shapes, cache hints, `.sync`, `.aligned`).
    pub ignored: fn(&str) -> bool,
}

pub fn ignore_sync_aligned(s: &str) -> bool {
    matches!(s, "sync" | "aligned")
}

#[derive(Default, Debug)]
pub struct Mods {
    pub sem: Option<(Sem, Span)>,
    pub scope: Option<(Scope, Span)>,
    pub space: Option<(AddrSpace, Span)>,
    /// Flags in source order.
    pub flags: Vec<(&'static str, Span)>,
}

impl Mods {
    pub fn sem(&self) -> Option<Sem> {
        self.sem.map(|s| s.0)
    }
    pub fn scope(&self) -> Option<Scope> {
        self.scope.map(|s| s.0)
    }
    pub fn space(&self) -> Option<AddrSpace> {
        self.space.map(|s| s.0)
    }
    pub fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|(f, _)| *f == flag)
    }
    pub fn flag_span(&self, flag: &str) -> Option<Span> {
        self.flags.iter().find(|(f, _)| *f == flag).map(|(_, s)| *s)
    }
}

/// Sorts `segs` into a [`Mods`]; unknown or repeated modifiers are reported, not fatal.
pub fn classify(segs: &[Seg], allowed: &Allowed, opcode: &str, diags: &mut Vec<Diagnostic>) -> Mods {
    let mut mods = Mods::default();
    for seg in segs {
        let text = seg.text;
        if let Some(&(_, sem)) = SEMS.iter().find(|(n, s)| *n == text && allowed.sems.contains(s)) {
            set_once(&mut mods.sem, sem, seg, "semantics", diags);
        } else if let Some(&(_, scope)) = SCOPES.iter().find(|(n, _)| *n == text && allowed.scopes) {
            set_once(&mut mods.scope, scope, seg, "scope", diags);
        } else if let Some(&(_, space)) = SPACES.iter().find(|(n, s)| *n == text && allowed.spaces.contains(s)) {
            set_once(&mut mods.space, space, seg, "state space", diags);
        } else if let Some(flag) = allowed.flags.iter().find(|f| **f == text) {
            if mods.has(flag) {
                diags.push(repeated(seg));
            } else {
                mods.flags.push((flag, seg.span));
            }
        } else if !(is_type_suffix(text) || (allowed.ignored)(text)) {
            diags.push(unknown_modifier(seg, allowed, opcode));
        }
    }
    mods
}

fn set_once<T: Copy>(slot: &mut Option<(T, Span)>, value: T, seg: &Seg, what: &str, diags: &mut Vec<Diagnostic>) {
    match slot {
        None => *slot = Some((value, seg.span)),
        Some((_, first)) => diags.push(
            Diagnostic::error("F0204", format!("more than one {what} modifier"))
                .with_primary(Some(seg.span), format!("second {what}"))
                .with_secondary(Some(*first), "first one here"),
        ),
    }
}

fn repeated(seg: &Seg) -> Diagnostic {
    Diagnostic::error("F0204", format!("modifier `.{}` is repeated", seg.text))
        .with_primary(Some(seg.span), "written twice")
}

/// Every modifier name `allowed` accepts, for suggestions.
fn names(allowed: &Allowed) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    out.extend(SEMS.iter().filter(|(_, s)| allowed.sems.contains(s)).map(|(n, _)| *n));
    if allowed.scopes {
        out.extend(SCOPES.iter().map(|(n, _)| *n));
    }
    out.extend(SPACES.iter().filter(|(_, s)| allowed.spaces.contains(s)).map(|(n, _)| *n));
    out.extend(allowed.flags.iter().copied());
    out
}

pub fn unknown_modifier(seg: &Seg, allowed: &Allowed, opcode: &str) -> Diagnostic {
    let candidates = names(allowed);
    let known_elsewhere = SEMS.iter().map(|s| s.0).chain(SCOPES.iter().map(|s| s.0)).any(|n| n == seg.text)
        || SPACES.iter().any(|s| s.0 == seg.text);
    let (message, label) = if known_elsewhere {
        (format!("modifier `.{}` is not allowed on `{opcode}`", seg.text), format!("`{opcode}` does not take this"))
    } else {
        (format!("unknown modifier `.{}`", seg.text), format!("not a modifier of `{opcode}`"))
    };
    let help = closest(seg.text, candidates.iter().copied()).map(|c| format!("did you mean `.{c}`?"));
    let diag = Diagnostic::error("F0203", message).with_primary(Some(seg.span), label);
    match help {
        Some(h) => diag.with_help(h),
        None if !candidates.is_empty() => diag.with_note(format!(
            "`{opcode}` accepts {}",
            candidates.iter().map(|c| format!("`.{c}`")).collect::<Vec<_>>().join(" ")
        )),
        None => diag,
    }
}
