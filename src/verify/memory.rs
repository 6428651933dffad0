//! `ld`/`st`/`atom`/`red`: semantics and scope rules (ref §1.1, §1.2), state-space
//! qualifiers against where the location lives (ref §2.1), and suspicious scopes.

use std::collections::HashMap;

use super::context::{Ctx, Reach};
use crate::diag::Diagnostic;
use crate::syntax::sem_str;
use crate::model::{AddrSpace, Instr, Location, Scope, Sem, Space};

pub fn check(ctx: &mut Ctx) {
    let mut clamp_noted = false;
    // (location, CTA) of every access; distinct pairs are counted per location below.
    let mut accessed_from: Vec<(&str, usize)> = Vec::new();
    let mut narrow: Vec<(usize, usize, &str)> = Vec::new();
    for (t, i, instr) in ctx.instrs().collect::<Vec<_>>() {
        let (op, sem, scope, space, addr, k) = match instr {
            Instr::Ld { sem, scope, space, addr, .. } => ("ld", sem, scope, space, addr, 1),
            Instr::St { sem, scope, space, addr, .. } => ("st", sem, scope, space, addr, 0),
            Instr::Atom { sem, scope, space, addr, dst, .. } => {
                (if dst.is_some() { "atom" } else { "red" }, sem, scope, space, addr, usize::from(dst.is_some()))
            }
            _ => continue,
        };
        check_sem_scope(ctx, t, i, op, *sem, *scope);
        let Some(loc) = ctx.resolve_location(t, i, k, addr) else { continue };
        check_space(ctx, t, i, k, op, *space, loc);
        if let Some(cta) = ctx.thread_cta(t) {
            accessed_from.push((loc.alias.as_ref().map_or(&loc.name, |a| &a.target), cta));
        }
        if *scope == Some(Scope::Cta) {
            narrow.push((t, i, loc.alias.as_ref().map_or(&loc.name, |a| &a.target)));
        }
        if !clamp_noted && matches!(loc.space, Space::Shared(_)) && matches!(scope, Some(Scope::Gpu | Scope::Sys)) {
            clamp_noted = true;
            ctx.push(
                Diagnostic::note(
                    "F0502",
                    format!("a `{}` scope on shared memory acts as `.cluster`", scope_name(*scope)),
                )
                .with_primary(ctx.at(t, i), "shared memory is only visible inside the cluster")
                .with_note("ref §1.2: the state space clamps the scope; it never widens anything"),
            );
        }
        if let Some(Instr::Wait { .. }) = ctx.s.threads.get(t).and_then(|th| th.program.get(i)) {
            if matches!(sem, None | Some(Sem::Weak)) {
                ctx.push(
                    Diagnostic::warning("F0408", "spinning on a weak load")
                        .with_primary(ctx.at(t, i), "a weak read of a flag races with the write it waits for")
                        .with_help(
                            "use `ld.acquire` (or `ld.relaxed` and a fence) with a scope that covers the writer",
                        ),
                );
            }
        }
    }
    // Sorted and counted rather than a map of sets: the verifier's one map type serves.
    crate::sort::sort(&mut accessed_from);
    accessed_from.dedup();
    let mut ctas_per_location: HashMap<&str, usize> = HashMap::new();
    for (name, _) in &accessed_from {
        *ctas_per_location.entry(name).or_insert(0) += 1;
    }
    for (t, i, name) in narrow {
        let ctas = ctas_per_location.get(name).copied().unwrap_or(0);
        if ctas > 1 {
            ctx.push(
                Diagnostic::warning("F0403", format!("`.cta` scope on `{name}`, which threads of {ctas} CTAs access"))
                    .with_primary(ctx.at(t, i), "this access is only strong towards its own CTA")
                    .with_note(
                        "ref §1.3, §10 #41: accesses from other CTAs are not morally strong with it, so they race",
                    )
                    .with_help("use `.cluster` or `.gpu` so the scope covers every accessing thread"),
            );
        }
    }
}

fn scope_name(scope: Option<Scope>) -> &'static str {
    match scope {
        Some(Scope::Cta) => ".cta",
        Some(Scope::Cluster) => ".cluster",
        Some(Scope::Gpu) => ".gpu",
        Some(Scope::Sys) => ".sys",
        None => "",
    }
}


fn check_sem_scope(ctx: &mut Ctx, t: usize, i: usize, op: &str, sem: Option<Sem>, scope: Option<Scope>) {
    let span = ctx.at(t, i);
    let allowed: &[Sem] = match op {
        "ld" => &[Sem::Weak, Sem::Relaxed, Sem::Acquire, Sem::Volatile, Sem::Mmio],
        "st" => &[Sem::Weak, Sem::Relaxed, Sem::Release, Sem::Volatile, Sem::Mmio],
        "atom" => &[Sem::Relaxed, Sem::Acquire, Sem::Release, Sem::AcqRel],
        _ => &[Sem::Relaxed, Sem::Release],
    };
    if let Some(sem) = sem.filter(|s| !allowed.contains(s)) {
        let (code, why) = match (op, sem) {
            ("ld", Sem::Release | Sem::AcqRel) => ("F0311", "a load cannot release; release is for writes"),
            ("st", Sem::Acquire | Sem::AcqRel) => ("F0311", "a store cannot acquire; acquire is for reads"),
            ("red", Sem::Acquire | Sem::AcqRel) => ("F0334", "`red` returns nothing, so it never acquires (ref §1.5)"),
            _ => ("F0334", "atomics are `.relaxed`, `.acquire`, `.release` or `.acq_rel`"),
        };
        let help = match op {
            "ld" => "use `ld.acquire` on the reading side and `st.release` on the writing side",
            "st" => "use `st.release` on the writing side and `ld.acquire` on the reading side",
            "red" => "use `atom` (or `ld.acquire`) where an acquire is needed",
            _ => "pick one of the atomic semantics",
        };
        ctx.push(
            Diagnostic::error(code, format!("`{op}{}` is not a PTX instruction", sem_str(sem)))
                .with_primary(span, why)
                .with_help(help),
        );
        return;
    }
    match (sem, scope) {
        (Some(Sem::Relaxed | Sem::Acquire | Sem::Release | Sem::AcqRel), None) if op == "ld" || op == "st" => {
            ctx.push(
                Diagnostic::error("F0312", format!("strong `{op}{}` needs a scope", sem.map_or("", sem_str)))
                    .with_primary(span, "no `.cta`, `.cluster`, `.gpu` or `.sys`")
                    .with_note("ref §1.1: every strong operation carries a scope; PTX has no default for `ld`/`st`")
                    .with_help("add the scope that covers both threads, e.g. `.gpu`"),
            );
        }
        (Some(Sem::Mmio), s) if s != Some(Scope::Sys) => {
            ctx.push(
                Diagnostic::error("F0314", format!("`{op}.mmio` needs `.sys` scope"))
                    .with_primary(span, "write `.mmio.relaxed.sys`"),
            );
        }
        (None | Some(Sem::Weak | Sem::Volatile), Some(_)) if op == "ld" || op == "st" => {
            let what = if sem == Some(Sem::Volatile) { "a `.volatile` access" } else { "a weak access" };
            ctx.push(
                Diagnostic::error("F0313", format!("{what} takes no scope"))
                    .with_primary(span, "scope without strong semantics")
                    .with_help("write `.relaxed` (or `.acquire`/`.release`) before the scope, or drop the scope"),
            );
        }
        _ => {}
    }
}

fn check_space(ctx: &mut Ctx, t: usize, i: usize, k: usize, op: &str, space: Option<AddrSpace>, loc: &Location) {
    let span = ctx.operand(t, i, k);
    let reach = ctx.reach_location(t, loc);
    let problem = match (reach, space) {
        (Reach::Tmem, _) => Some((
            "F0335",
            format!("`{op}` cannot access tensor memory `{}`", loc.name),
            "use `tcgen05.ld`/`tcgen05.st` for TMEM".to_string(),
        )),
        (Reach::OtherCluster, _) => Some((
            "F0330",
            format!("`{}` is shared memory of a CTA in another cluster", loc.name),
            "only CTAs of the same cluster can reach it (ref §2.1)".to_string(),
        )),
        (Reach::Global, Some(AddrSpace::SharedCta | AddrSpace::SharedCluster)) => Some((
            "F0315",
            format!("`{}` is global memory", loc.name),
            "drop the `.shared` qualifier or use `.global`".to_string(),
        )),
        (Reach::OwnCta | Reach::PeerCta, Some(AddrSpace::Global)) => Some((
            "F0315",
            format!("`{}` is shared memory", loc.name),
            "use `.shared` (own CTA) or `.shared::cluster` (peer CTA)".to_string(),
        )),
        (Reach::PeerCta, Some(AddrSpace::SharedCta)) => Some((
            "F0315",
            format!("`{}` belongs to another CTA; `.shared::cta` only reaches the own CTA", loc.name),
            "use `.shared::cluster` for a peer CTA's shared memory (ref §2.1)".to_string(),
        )),
        _ => None,
    };
    if let Some((code, message, help)) = problem {
        ctx.push(Diagnostic::error(code, message).with_primary(span, "wrong memory for this access").with_help(help));
    }
}
