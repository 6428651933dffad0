//! Declarations and names: indices in range, identifiers, counts, aliases, conditions, and
//! references from instructions to locations, mbarriers and labels.

use std::collections::HashSet;

use super::context::Ctx;
use crate::diag::{closest, Diagnostic};
use crate::model::{Cond, Instr, Object, Proxy, Space, Term, Use, MAX_LANES};

/// Largest mbarrier count (ref §4.1: 1 … 2^20 − 1).
pub const MBAR_MAX: u32 = (1 << 20) - 1;

pub fn check(ctx: &mut Ctx) {
    names(ctx);
    placements(ctx);
    locations(ctx);
    conditions(ctx);
    labels(ctx);
    cluster_scope_note(ctx);
}

/// Without multi-CTA clusters `.cluster` means the CTA (ref §1.2): legal, but worth saying.
fn cluster_scope_note(ctx: &mut Ctx) {
    use crate::model::{Fence, MbarOp, ProxyKind, Scope};
    if ctx.has_clusters() {
        return;
    }
    let uses_cluster = |instr: &Instr| match instr {
        Instr::Ld { scope, .. }
        | Instr::St { scope, .. }
        | Instr::Atom { scope, .. }
        | Instr::Mbar(MbarOp { scope, .. }) => *scope == Some(Scope::Cluster),
        Instr::Fence(Fence::Thread { scope, .. }) | Instr::Fence(Fence::Proxy(ProxyKind::Tensormap { scope, .. })) => {
            *scope == Scope::Cluster
        }
        _ => false,
    };
    if let Some((t, i, _)) = ctx.instrs().find(|(_, _, instr)| uses_cluster(instr)) {
        ctx.push(
            Diagnostic::note("F0501", "no cluster here has more than one CTA, so `.cluster` scope means the CTA")
                .with_primary(ctx.at(t, i), "acts as `.cta`")
                .with_note("ref §1.2: a CTA launched without a multi-CTA cluster is its own cluster"),
        );
    }
}

fn is_ident(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn names(ctx: &mut Ctx) {
    let s = ctx.s;
    let all = s
        .clusters
        .iter()
        .map(|c| ("cluster", &c.name))
        .chain(s.ctas.iter().map(|c| ("CTA", &c.name)))
        .chain(s.locations.iter().map(|l| ("location", &l.name)))
        .chain(s.mbarriers.iter().map(|m| ("mbarrier", &m.name)))
        .chain(s.threads.iter().map(|t| ("thread", &t.name)));
    let bad: Vec<(&str, String)> = all.filter(|(_, n)| !is_ident(n)).map(|(k, n)| (k, n.clone())).collect();
    for (kind, name) in bad {
        ctx.push(
            Diagnostic::error("F0303", format!("{kind} name `{name}` is not an identifier"))
                .with_help("names are letters, digits and `_`, not starting with a digit"),
        );
    }
    let mut seen = HashSet::new();
    let memory = s.locations.iter().map(|l| l.name.as_str()).chain(s.mbarriers.iter().map(|m| m.name.as_str()));
    let dups: Vec<&str> = memory.filter(|n| !seen.insert(*n)).collect();
    let mut seen = HashSet::new();
    let threads: Vec<&str> = s.threads.iter().map(|t| t.name.as_str()).filter(|n| !seen.insert(*n)).collect();
    for name in dups.into_iter().chain(threads) {
        ctx.push(Diagnostic::error("F0106", format!("`{name}` is declared twice")));
    }
}

fn placements(ctx: &mut Ctx) {
    let s = ctx.s;
    let initialised: HashSet<&str> = ctx
        .instrs()
        .flat_map(|(_, _, instr)| instr.facts().names)
        .filter(|named| named.object == Object::Mbarrier && named.how == Use::Init)
        .map(|named| named.name)
        .collect();
    for (i, cta) in s.ctas.iter().enumerate() {
        if cta.cluster >= s.clusters.len() {
            ctx.push(
                Diagnostic::error("F0301", format!("CTA `{}` is placed in a cluster that does not exist", cta.name))
                    .with_primary(ctx.map.cta(i), "unknown cluster"),
            );
        }
    }
    for (t, thread) in s.threads.iter().enumerate() {
        if thread.cta >= s.ctas.len() {
            ctx.push(
                Diagnostic::error("F0302", format!("thread `{}` is placed in a CTA that does not exist", thread.name))
                    .with_primary(ctx.map.thread(t), "unknown CTA"),
            );
        }
        if thread.lanes == 0 || thread.lanes > MAX_LANES {
            ctx.push(
                Diagnostic::error("F0304", format!("thread `{}` has {} lanes", thread.name, thread.lanes))
                    .with_primary(ctx.map.thread(t), format!("lanes must be 1 to {MAX_LANES}")),
            );
        }
    }
    for (i, bar) in s.mbarriers.iter().enumerate() {
        if bar.cta >= s.ctas.len() {
            ctx.push(
                Diagnostic::error("F0302", format!("mbarrier `{}` is placed in a CTA that does not exist", bar.name))
                    .with_primary(ctx.map.mbarrier(i), "unknown CTA"),
            );
        }
        if let Some(count) = bar.count.filter(|c| *c == 0 || *c > MBAR_MAX) {
            ctx.push(
                Diagnostic::error("F0310", format!("mbarrier count {count} is out of range"))
                    .with_primary(ctx.map.mbarrier(i), format!("must be 1 to {MBAR_MAX}"))
                    .with_note("ref §4.1: the expected arrival count is 1 … 2^20 − 1"),
            );
        }
        let has_init = initialised.contains(bar.name.as_str());
        if bar.count.is_none() && !has_init {
            ctx.push(
                Diagnostic::warning("F0401", format!("mbarrier `{}` is never initialised", bar.name))
                    .with_primary(ctx.map.mbarrier(i), "declared without `count` and no thread runs `mbarrier.init`")
                    .with_note("ref §4.2: any mbarrier operation on an uninitialised object is undefined behaviour")
                    .with_help(format!("declare it with `count N` or add `mbarrier.init [{}], N`", bar.name)),
            );
        }
    }
}

fn locations(ctx: &mut Ctx) {
    let s = ctx.s;
    for (i, loc) in s.locations.iter().enumerate() {
        if let Space::Shared(c) | Space::Tmem(c) = loc.space {
            if c >= s.ctas.len() {
                ctx.push(
                    Diagnostic::error(
                        "F0302",
                        format!("location `{}` is placed in a CTA that does not exist", loc.name),
                    )
                    .with_primary(ctx.map.location(i), "unknown CTA"),
                );
            }
        }
        if loc.size == 0 {
            ctx.push(
                Diagnostic::error("F0305", format!("location `{}` has size 0", loc.name))
                    .with_primary(ctx.map.location(i), "a location needs at least one byte"),
            );
        }
        if let Some(alias) = &loc.alias {
            let target = s.locations.iter().find(|l| l.name == alias.target);
            let problem = match target {
                None => Some(format!("alias target `{}` does not exist", alias.target)),
                Some(t) if t.alias.is_some() => Some(format!("`{}` is itself an alias", alias.target)),
                Some(t) if t.space != loc.space => Some("an alias must live where its target lives".to_string()),
                _ if matches!(alias.proxy, Proxy::Async | Proxy::Tensormap) => {
                    Some("aliases go through the generic, texture, surface or constant proxy".to_string())
                }
                _ => None,
            };
            if let Some(problem) = problem {
                ctx.push(
                    Diagnostic::error("F0306", format!("invalid alias `{}`", loc.name))
                        .with_primary(ctx.map.location(i), problem),
                );
            }
        }
    }
}

fn conditions(ctx: &mut Ctx) {
    let s = ctx.s;
    let mut problems = Vec::new();
    for (i, fc) in s.conditions.iter().enumerate() {
        let mut terms = Vec::new();
        collect_terms(&fc.cond, &mut terms, 0);
        for term in terms {
            match term {
                Term::Reg { thread, .. } if ctx.thread_index(thread).is_none() => {
                    let help = closest(thread, s.threads.iter().map(|t| t.name.as_str()))
                        .map(|n| format!("did you mean `{n}`?"));
                    problems.push((i, format!("unknown thread `{thread}` in condition"), help));
                }
                Term::Mem(name) if ctx.location(name).is_none() => {
                    let help = closest(name, s.locations.iter().map(|l| l.name.as_str()))
                        .map(|n| format!("did you mean `{n}`?"));
                    problems.push((i, format!("unknown location `{name}` in condition"), help));
                }
                _ => {}
            }
        }
    }
    for (i, message, help) in problems {
        ctx.push(
            Diagnostic::error("F0307", message)
                .with_primary(ctx.map.condition(i), "in this condition")
                .with_help_opt(help),
        );
    }
}

/// Terms of a condition; depth-limited so a hand-built model cannot overflow the stack.
pub fn collect_terms<'a>(c: &'a Cond, out: &mut Vec<&'a Term>, depth: usize) {
    if depth > 64 {
        return;
    }
    match c {
        Cond::True => {}
        Cond::Cmp(a, _, b) => out.extend([a, b]),
        Cond::Not(inner) => collect_terms(inner, out, depth + 1),
        Cond::And(items) | Cond::Or(items) => items.iter().for_each(|i| collect_terms(i, out, depth + 1)),
    }
}

fn labels(ctx: &mut Ctx) {
    for (t, thread) in ctx.s.threads.iter().enumerate() {
        let mut defined = HashSet::new();
        for (i, instr) in thread.program.iter().enumerate().map(|(i, instr)| (i, instr.unwrapped())) {
            if let Instr::Label(name) = instr {
                if !defined.insert(name.as_str()) {
                    ctx.push(
                        Diagnostic::error(
                            "F0324",
                            format!("label `{name}` is defined twice in thread `{}`", thread.name),
                        )
                        .with_primary(ctx.at(t, i), "second definition"),
                    );
                }
            }
        }
        for (i, instr) in thread.program.iter().enumerate().map(|(i, instr)| (i, instr.unwrapped())) {
            if let Instr::Branch { target, .. } = instr {
                if !defined.contains(target.as_str()) {
                    let help = closest(target, defined.iter().copied()).map(|n| format!("did you mean `{n}`?"));
                    ctx.push(
                        Diagnostic::error("F0308", format!("unknown label `{target}`"))
                            .with_primary(ctx.at(t, i), format!("no `{target}:` in thread `{}`", thread.name))
                            .with_help_opt(help),
                    );
                }
            }
        }
    }
}
