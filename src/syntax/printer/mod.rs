//! Canonical text for a [`Scenario`]: declarations in a fixed order, modifiers in the
//! order of docs/syntax.md, and a `# = … (default)` comment after each instruction whose
//! semantics or scope were left to their defaults.

mod instr;

use std::fmt::Write;

use crate::model::{CmpOp, Cond, Expect, Expectation, FinalCondition, Location, Proxy, Quantifier, Scenario, Space, Term};
use crate::syntax::source_map::{Anchor, SourceMap};

pub use instr::{default_note, instr_text, scope_str, sem_str};

pub fn cmp_str(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

/// Whether cluster `i` is the implicit cluster of a lone CTA (printed as plain `cta A`).
pub(crate) fn is_implicit_cluster(s: &Scenario, i: usize) -> bool {
    let mut members = s.ctas.iter().filter(|c| c.cluster == i);
    match (members.next(), members.next(), s.clusters.get(i)) {
        (Some(cta), None, Some(cluster)) => cluster.gpu == 0 && cluster.name == cta.name,
        _ => false,
    }
}

/// Canonical text of `s` (no comments except the title and default notes).
pub fn print(s: &Scenario) -> String {
    print_inner(s, None)
}

/// Canonical text of `s` keeping the source comments recorded in `map` next to their items.
pub fn print_with_comments(s: &Scenario, map: &SourceMap) -> String {
    print_inner(s, Some(map))
}

/// Writes one item: its leading comments, its text, and its trailing comment.
fn item(out: &mut String, map: Option<&SourceMap>, anchor: Anchor, indent: &str, text: &str) {
    if let Some(map) = map {
        for c in map.comments_at(anchor, false) {
            let _ = writeln!(out, "{indent}{}", comment(c));
        }
    }
    let trailing: Vec<&str> = map.map(|m| m.comments_at(anchor, true).collect()).unwrap_or_default();
    let sep = if text.contains(" # ") || text.contains("  # ") { " " } else { "  " };
    match trailing.as_slice() {
        [] => {
            let _ = writeln!(out, "{text}");
        }
        texts => {
            let _ = writeln!(out, "{text}{sep}{}", comment(&texts.join(" ")));
        }
    }
}

fn comment(text: &str) -> String {
    if text.is_empty() {
        "#".into()
    } else {
        format!("# {text}")
    }
}

/// A title as one trimmed line: the printer writes it so and the parser reads it so, since
/// a link's title may hold line breaks, and a lone `\r` does not end a `.fence` line.
pub(crate) fn title_text(raw: &str) -> String {
    raw.replace(['\n', '\r'], " ").trim().to_string()
}

fn print_inner(s: &Scenario, map: Option<&SourceMap>) -> String {
    let mut out = String::new();
    if let Some(title) = s.title.as_deref().map(title_text).filter(|t| !t.is_empty()) {
        let _ = writeln!(out, "# {title}\n");
    }
    for (i, cluster) in s.clusters.iter().enumerate() {
        if !is_implicit_cluster(s, i) {
            let gpu = if cluster.gpu == 0 { String::new() } else { format!(" gpu {}", cluster.gpu) };
            item(&mut out, map, Anchor::Cluster(i), "", &format!("cluster {}{gpu}", cluster.name));
        }
    }
    for (i, cta) in s.ctas.iter().enumerate() {
        let text = match s.clusters.get(cta.cluster) {
            Some(cluster) if !is_implicit_cluster(s, cta.cluster) => format!("cta {} in {}", cta.name, cluster.name),
            _ => format!("cta {}", cta.name),
        };
        item(&mut out, map, Anchor::Cta(i), "", &text);
    }
    for (i, location) in s.locations.iter().enumerate() {
        item(&mut out, map, Anchor::Location(i), "", &location_text(s, location));
    }
    for (i, bar) in s.mbarriers.iter().enumerate() {
        let count = bar.count.map_or(String::new(), |c| format!(" count {c}"));
        item(
            &mut out,
            map,
            Anchor::Mbarrier(i),
            "",
            &format!("mbarrier {} @{}{count}", bar.name, cta_name(s, bar.cta)),
        );
    }
    for (t, thread) in s.threads.iter().enumerate() {
        let lanes = if thread.lanes == 32 { String::new() } else { format!(" lanes {}", thread.lanes) };
        out.push('\n');
        item(
            &mut out,
            map,
            Anchor::Thread(t),
            "",
            &format!("thread {} @{}{lanes}:", thread.name, cta_name(s, thread.cta)),
        );
        for (i, instr) in thread.program.iter().enumerate() {
            item(&mut out, map, Anchor::Instr(t, i), "    ", &instr::line(instr));
        }
    }
    if !s.expect.is_empty() || !s.conditions.is_empty() {
        out.push('\n');
    }
    for (i, expectation) in s.expect.iter().enumerate() {
        item(&mut out, map, Anchor::Expect(i), "", &expectation_text(expectation));
    }
    for (i, condition) in s.conditions.iter().enumerate() {
        item(&mut out, map, Anchor::Condition(i), "", &condition_text(condition));
    }
    if let Some(map) = map {
        let end: Vec<&str> = map.comments_at(Anchor::End, false).collect();
        if !end.is_empty() {
            out.push('\n');
        }
        for c in end {
            let _ = writeln!(out, "{}", comment(c));
        }
    }
    out
}

fn cta_name(s: &Scenario, cta: usize) -> &str {
    s.ctas.get(cta).map_or("?", |c| c.name.as_str())
}

fn location_text(s: &Scenario, l: &Location) -> String {
    if let Some(alias) = &l.alias {
        let proxy = match alias.proxy {
            Proxy::Generic => "generic",
            Proxy::Texture => "texture",
            Proxy::Surface => "surface",
            Proxy::Constant => "constant",
            Proxy::Async => "async",
            Proxy::Tensormap => "tensormap",
        };
        return format!("alias {} = {} via {proxy}", l.name, alias.target);
    }
    let place = match l.space {
        Space::Global => "global".to_string(),
        Space::Shared(c) => format!("shared {} @{}", l.name, cta_name(s, c)),
        Space::Tmem(c) => format!("tmem {} @{}", l.name, cta_name(s, c)),
    };
    let place = if l.space == Space::Global { format!("{place} {}", l.name) } else { place };
    let size = if l.size == 4 { String::new() } else { format!(" size {}", l.size) };
    format!("{place} = {}{size}", l.init)
}

pub fn expect_str(e: Expect) -> &'static str {
    match e {
        Expect::Correct => "correct",
        Expect::Race => "race",
        Expect::Deadlock => "deadlock",
        Expect::Undefined => "undefined",
    }
}

/// An `expect` line: `expect correct` or `expect strict race`.
pub fn expectation_text(e: &Expectation) -> String {
    match e.mode {
        Some(mode) => format!("expect {} {}", mode.name(), expect_str(e.verdict)),
        None => format!("expect {}", expect_str(e.verdict)),
    }
}

pub fn condition_text(c: &FinalCondition) -> String {
    let q = match c.quantifier {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    };
    format!("{q} ({})", cond_text(&c.cond))
}

pub fn cond_text(c: &Cond) -> String {
    match c {
        Cond::True => "true".into(),
        Cond::Cmp(a, op, b) => format!("{} {} {}", term_text(a), cmp_str(*op), term_text(b)),
        Cond::Not(inner) => format!("~({})", cond_text(inner)),
        Cond::And(items) if items.is_empty() => "true".into(),
        Cond::Or(items) if items.is_empty() => "~(true)".into(),
        Cond::And(items) => join(items, " /\\ ", |i| matches!(i, Cond::And(_) | Cond::Or(_))),
        Cond::Or(items) => join(items, " \\/ ", |i| matches!(i, Cond::Or(_))),
    }
}

fn join(items: &[Cond], sep: &str, needs_parens: fn(&Cond) -> bool) -> String {
    items
        .iter()
        .map(|i| if needs_parens(i) { format!("({})", cond_text(i)) } else { cond_text(i) })
        .collect::<Vec<_>>()
        .join(sep)
}

pub fn term_text(t: &Term) -> String {
    match t {
        Term::Imm(n) => n.to_string(),
        Term::Reg { thread, reg } => format!("{thread}:{reg}"),
        Term::Mem(name) => name.clone(),
    }
}
