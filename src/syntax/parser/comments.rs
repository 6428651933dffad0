//! Attaching source comments to the items they describe, so `fencelab fmt` keeps them.

use super::Parser;
use crate::syntax::lexer::Line;
use crate::syntax::source_map::{Anchor, Comment};

/// Sizes of the model before a line is parsed; the difference after names the new item.
pub struct Counts {
    clusters: usize,
    ctas: usize,
    locations: usize,
    mbarriers: usize,
    threads: usize,
    /// Current thread and its program length.
    program: Option<(usize, usize)>,
    expect: usize,
    conditions: usize,
}

impl Counts {
    pub fn of(p: &Parser) -> Counts {
        let s = &p.scenario;
        Counts {
            clusters: s.clusters.len(),
            ctas: s.ctas.len(),
            locations: s.locations.len(),
            mbarriers: s.mbarriers.len(),
            threads: s.threads.len(),
            program: p.thread.map(|t| (t, s.threads.get(t).map_or(0, |th| th.program.len()))),
            expect: s.expect.len(),
            conditions: s.conditions.len(),
        }
    }

    /// The item the line created, if any (the last one when a label shares its line).
    pub fn created(&self, p: &Parser) -> Option<Anchor> {
        let s = &p.scenario;
        let last = |n: usize| n.checked_sub(1);
        if s.ctas.len() > self.ctas {
            return last(s.ctas.len()).map(Anchor::Cta);
        }
        if s.clusters.len() > self.clusters {
            return last(s.clusters.len()).map(Anchor::Cluster);
        }
        if s.locations.len() > self.locations {
            return last(s.locations.len()).map(Anchor::Location);
        }
        if s.mbarriers.len() > self.mbarriers {
            return last(s.mbarriers.len()).map(Anchor::Mbarrier);
        }
        if s.threads.len() > self.threads {
            return last(s.threads.len()).map(Anchor::Thread);
        }
        if s.conditions.len() > self.conditions {
            return last(s.conditions.len()).map(Anchor::Condition);
        }
        if s.expect.len() > self.expect {
            return last(s.expect.len()).map(Anchor::Expect);
        }
        let (t, before) = self.program?;
        let now = s.threads.get(t)?.program.len();
        (now > before).then(|| Anchor::Instr(t, now - 1))
    }
}

#[derive(Default)]
pub struct Comments {
    /// Own-line comments waiting for the next item.
    pending: Vec<String>,
    done: Vec<Comment>,
}

impl Comments {
    pub fn line(&mut self, line: &Line, anchor: Option<Anchor>) {
        let text = line.comment.as_deref().map(str::trim);
        if line.tokens.is_empty() {
            self.pending.extend(text.map(str::to_string));
            return;
        }
        let Some(anchor) = anchor else { return };
        for text in self.pending.drain(..) {
            self.done.push(Comment { anchor, text, trailing: false });
        }
        if let Some(text) = text.map(without_default_note).filter(|t| !t.is_empty()) {
            self.done.push(Comment { anchor, text: text.to_string(), trailing: true });
        }
    }

    pub fn finish(mut self) -> Vec<Comment> {
        for text in self.pending.drain(..) {
            self.done.push(Comment { anchor: Anchor::End, text, trailing: false });
        }
        self.done
    }
}

/// Drops a printer-written `= .release.cta (default)` prefix; the printer writes it again.
fn without_default_note(text: &str) -> &str {
    match (text.starts_with('='), text.find("(default)")) {
        (true, Some(end)) => {
            let rest = text.get(end + "(default)".len()..).unwrap_or("").trim_start();
            rest.strip_prefix('#').unwrap_or(rest).trim()
        }
        _ => text,
    }
}
