//! What the machine edits need to know about a scenario: who uses a declaration (so a
//! removal can refuse and say where), and fresh readable names for new ones.

use crate::diag::line_col;
use crate::model::{Cond, Scenario, Space, Term};
use crate::syntax::SourceMap;

/// The source text and its map, to point a refusal at a line.
pub(super) struct Lines<'a> {
    pub src: &'a str,
    pub map: &'a SourceMap,
}

impl Lines<'_> {
    fn at(&self, span: Option<crate::diag::Span>) -> String {
        span.map_or(String::new(), |s| format!(" (line {})", line_col(self.src, s.start).0))
    }
}

/// The first instruction that names the location or mbarrier `name` (by its facts), as
/// "`thread` (line n)".
pub(super) fn instr_user(s: &Scenario, lines: &Lines, name: &str) -> Option<String> {
    s.threads.iter().enumerate().find_map(|(t, thread)| {
        let at = thread.program.iter().position(|i| i.facts().names.iter().any(|n| n.name == name))?;
        Some(format!("`{}`{}", thread.name, lines.at(lines.map.instr(t, at))))
    })
}

/// The first final condition that mentions `matches`, as "the final condition (line n)".
pub(super) fn condition_user(s: &Scenario, lines: &Lines, matches: impl Fn(&Term) -> bool) -> Option<String> {
    let at = s.conditions.iter().position(|c| mentions(&c.cond, &matches))?;
    Some(format!("the final condition{}", lines.at(lines.map.condition(at))))
}

fn mentions(cond: &Cond, matches: &impl Fn(&Term) -> bool) -> bool {
    match cond {
        Cond::True => false,
        Cond::Cmp(a, _, b) => matches(a) || matches(b),
        Cond::Not(inner) => mentions(inner, matches),
        Cond::And(items) | Cond::Or(items) => items.iter().any(|c| mentions(c, matches)),
    }
}

/// Who still uses location or mbarrier `name`: an instruction, a final condition, or an alias.
pub(super) fn memory_user(s: &Scenario, lines: &Lines, name: &str) -> Option<String> {
    instr_user(s, lines, name)
        .or_else(|| condition_user(s, lines, |t| matches!(t, Term::Mem(m) if m == name)))
        .or_else(|| {
            let at = s.locations.iter().position(|l| l.alias.as_ref().is_some_and(|a| a.target == name))?;
            let alias = s.locations.get(at)?;
            Some(format!("alias `{}`{}", alias.name, lines.at(lines.map.location(at))))
        })
}

/// Who still uses thread `name`: a final condition reading its registers.
pub(super) fn thread_user(s: &Scenario, lines: &Lines, name: &str) -> Option<String> {
    condition_user(s, lines, |t| matches!(t, Term::Reg { thread, .. } if thread == name))
}

/// What a CTA still holds: a thread, a location or an mbarrier placed in it.
pub(super) fn cta_content(s: &Scenario, lines: &Lines, cta: usize) -> Option<String> {
    let thread = s.threads.iter().position(|t| t.cta == cta).and_then(|i| {
        let t = s.threads.get(i)?;
        Some(format!("thread `{}`{}", t.name, lines.at(lines.map.thread(i))))
    });
    let location = || {
        let i = s.locations.iter().position(|l| l.alias.is_none() && space_cta(l.space) == Some(cta))?;
        let l = s.locations.get(i)?;
        Some(format!("location `{}`{}", l.name, lines.at(lines.map.location(i))))
    };
    let mbarrier = || {
        let i = s.mbarriers.iter().position(|m| m.cta == cta)?;
        let m = s.mbarriers.get(i)?;
        Some(format!("mbarrier `{}`{}", m.name, lines.at(lines.map.mbarrier(i))))
    };
    thread.or_else(location).or_else(mbarrier)
}

/// The first CTA of a cluster, as "CTA `A` (line n)".
pub(super) fn cluster_content(s: &Scenario, lines: &Lines, cluster: usize) -> Option<String> {
    let i = s.ctas.iter().position(|c| c.cluster == cluster)?;
    let cta = s.ctas.get(i)?;
    Some(format!("CTA `{}`{}", cta.name, lines.at(lines.map.cta(i))))
}

/// `base` if free, else `base2`, `base3`, … (the first free one).
pub(super) fn fresh(base: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(base) {
        return base.to_string();
    }
    numbered(base, 2, taken)
}

/// `base{first}`, `base{first+1}`, …: the first free one.
pub(super) fn numbered(base: &str, first: usize, taken: impl Fn(&str) -> bool) -> String {
    (first..).map(|n| format!("{base}{n}")).find(|n| !taken(n)).unwrap_or_default()
}

/// A name without its trailing digits (`C0` → `C`, `bar2` → `bar`); `fallback` when
/// nothing is left or there is no name.
pub(super) fn stem<'a>(name: Option<&'a str>, fallback: &'a str) -> &'a str {
    name.map(|n| n.trim_end_matches(|c: char| c.is_ascii_digit())).filter(|n| !n.is_empty()).unwrap_or(fallback)
}

/// A fresh CTA name: the next free capital letter after the last single-letter CTA
/// (`A` → `B`), else a numbered stem.
pub(super) fn fresh_cta(s: &Scenario) -> String {
    let taken = |n: &str| s.ctas.iter().any(|c| c.name == n) || s.clusters.iter().any(|c| c.name == n);
    let last = s.ctas.last().map(|c| c.name.as_str());
    let start = match last.map(str::as_bytes) {
        Some([letter]) if letter.is_ascii_uppercase() => letter - b'A' + 1,
        Some(_) => return fresh(stem(last, "A"), taken),
        None => 0,
    };
    (0..26u8)
        .map(|k| char::from(b'A' + (start + k) % 26).to_string())
        .find(|n| !taken(n))
        .unwrap_or_else(|| numbered("A", 2, taken))
}

/// A fresh name in the memory namespace (locations and mbarriers share it).
pub(crate) fn fresh_memory(s: &Scenario, base: &str) -> String {
    fresh(base, |n| s.location(n).is_some() || s.mbarrier(n).is_some())
}

/// The CTA owning memory in `space`; `None` for global memory.
pub(super) fn space_cta(space: Space) -> Option<usize> {
    match space {
        Space::Global => None,
        Space::Shared(c) | Space::Tmem(c) => Some(c),
    }
}
