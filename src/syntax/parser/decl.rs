//! Machine, memory, thread and expectation declarations.

use super::cursor::{Cursor, PResult};
use super::Parser;
use crate::diag::{closest, Diagnostic, Span};
use crate::model::{Alias, Cluster, Cta, Expect, Expectation, Location, Mbarrier, Mode, Proxy, Space, Thread};
use crate::syntax::lexer::{Line, Tok};

/// Default size of a location in bytes.
const DEFAULT_SIZE: u32 = 4;
/// Default `lanes` of a thread: one warp.
const DEFAULT_LANES: u32 = 32;

impl Parser {
    pub(super) fn cluster_decl(&mut self, line: &Line) -> PResult<()> {
        let mut c = Cursor::new(&line.tokens, line.span);
        c.bump();
        let (name, span) = c.ident("a cluster name")?;
        let gpu = if c.eat_keyword("gpu") { c.u32("a GPU index")?.0 } else { 0 };
        c.finish("the cluster declaration")?;
        check_unique("cluster", &name, span, self.names.clusters.contains_key(&name))?;
        self.names.clusters.insert(name.clone(), self.scenario.clusters.len());
        self.scenario.clusters.push(Cluster { name, gpu });
        self.map.clusters.push(line_span(line));
        Ok(())
    }

    pub(super) fn cta_decl(&mut self, line: &Line) -> PResult<()> {
        let mut c = Cursor::new(&line.tokens, line.span);
        c.bump();
        let (name, span) = c.ident("a CTA name")?;
        let cluster = if c.eat_keyword("in") {
            let (cluster, cspan) = c.ident("a cluster name")?;
            match self.names.clusters.get(&cluster) {
                Some(i) => Some(*i),
                None => {
                    let help = closest(&cluster, self.names.clusters.keys().map(String::as_str))
                        .map(|n| format!("did you mean `{n}`?"));
                    return Err(Box::new(
                        Diagnostic::error("F0108", format!("unknown cluster `{cluster}`"))
                            .with_primary(Some(cspan), "no `cluster` declaration has this name")
                            .with_help(help.unwrap_or_else(|| format!("declare it with `cluster {cluster}`"))),
                    ));
                }
            }
        } else {
            None
        };
        c.finish("the CTA declaration")?;
        check_unique("CTA", &name, span, self.names.ctas.contains_key(&name))?;
        let cluster = match cluster {
            Some(i) => i,
            None => {
                // A lone CTA gets its own cluster of size 1, named after it.
                if self.names.clusters.contains_key(&name) {
                    return Err(Box::new(
                        Diagnostic::error(
                            "F0106",
                            format!("CTA `{name}` needs a cluster of its own, but a cluster `{name}` already exists"),
                        )
                        .with_primary(Some(span), "a CTA without `in` gets an implicit cluster named after it")
                        .with_help(format!("write `cta {name} in {name}` or rename one of them")),
                    ));
                }
                self.scenario.clusters.push(Cluster { name: name.clone(), gpu: 0 });
                self.map.clusters.push(line_span(line));
                self.scenario.clusters.len() - 1
            }
        };
        self.names.ctas.insert(name.clone(), self.scenario.ctas.len());
        self.scenario.ctas.push(Cta { name, cluster });
        self.map.ctas.push(line_span(line));
        Ok(())
    }

    /// `@A`: a CTA reference.
    fn placement(&self, c: &mut Cursor) -> PResult<usize> {
        c.expect(&Tok::At, "`@` and a CTA name")?;
        let (name, span) = c.ident("a CTA name")?;
        self.names.ctas.get(&name).copied().ok_or_else(|| {
            let help = closest(&name, self.scenario.ctas.iter().map(|c| c.name.as_str()))
                .map_or_else(|| format!("declare it with `cta {name}`"), |n| format!("did you mean `{n}`?"));
            Box::new(
                Diagnostic::error("F0107", format!("unknown CTA `{name}`"))
                    .with_primary(Some(span), "no `cta` declaration has this name")
                    .with_help(help),
            )
        })
    }

    pub(super) fn location_decl(&mut self, line: &Line) -> PResult<()> {
        let mut c = Cursor::new(&line.tokens, line.span);
        let kind = match c.bump().map(|t| &t.tok) {
            Some(Tok::Word(w)) => w.clone(),
            _ => return Err(c.error_here("a declaration")),
        };
        let (name, span) = c.ident("a location name")?;
        let space = match kind.as_str() {
            "global" => Space::Global,
            "shared" => Space::Shared(self.placement(&mut c)?),
            _ => Space::Tmem(self.placement(&mut c)?),
        };
        let init = if c.eat(&Tok::Assign) { c.int("an initial value")?.0 } else { 0 };
        let size = if c.eat_keyword("size") { c.u32("a size in bytes")?.0 } else { DEFAULT_SIZE };
        c.finish("the location declaration")?;
        self.check_memory_name(&name, span)?;
        self.names.locations.insert(name.clone(), self.scenario.locations.len());
        self.scenario.locations.push(Location { name, space, size, init, alias: None });
        self.map.locations.push(line_span(line));
        Ok(())
    }

    pub(super) fn alias_decl(&mut self, line: &Line) -> PResult<()> {
        let mut c = Cursor::new(&line.tokens, line.span);
        c.bump();
        let (name, span) = c.ident("an alias name")?;
        c.expect(&Tok::Assign, "`=`")?;
        let (target, tspan) = c.ident("the aliased location")?;
        if !c.eat_keyword("via") {
            return Err(c.error_here("`via` and a proxy"));
        }
        let (proxy_name, pspan) = c.ident("a proxy")?;
        c.finish("the alias declaration")?;
        let proxies = [
            ("generic", Proxy::Generic),
            ("texture", Proxy::Texture),
            ("surface", Proxy::Surface),
            ("constant", Proxy::Constant),
        ];
        let Some(&(_, proxy)) = proxies.iter().find(|(n, _)| *n == proxy_name) else {
            let help = closest(&proxy_name, proxies.iter().map(|p| p.0)).map(|n| format!("did you mean `{n}`?"));
            return Err(Box::new(
                Diagnostic::error("F0112", format!("unknown proxy `{proxy_name}`"))
                    .with_primary(Some(pspan), "expected `generic`, `texture`, `surface` or `constant`")
                    .with_help_opt(help),
            ));
        };
        let target_loc = self.names.locations.get(&target).and_then(|i| self.scenario.locations.get(*i));
        let Some(target_loc) = target_loc.filter(|l| l.alias.is_none()) else {
            return Err(Box::new(
                Diagnostic::error("F0112", format!("alias target `{target}` is not a location declared above"))
                    .with_primary(Some(tspan), "declare the location before its alias"),
            ));
        };
        let location = Location {
            name: name.clone(),
            space: target_loc.space,
            size: target_loc.size,
            init: target_loc.init,
            alias: Some(Alias { target, proxy }),
        };
        self.check_memory_name(&name, span)?;
        self.names.locations.insert(name, self.scenario.locations.len());
        self.scenario.locations.push(location);
        self.map.locations.push(line_span(line));
        Ok(())
    }

    pub(super) fn mbarrier_decl(&mut self, line: &Line) -> PResult<()> {
        let mut c = Cursor::new(&line.tokens, line.span);
        c.bump();
        let (name, span) = c.ident("an mbarrier name")?;
        let cta = self.placement(&mut c)?;
        let count = if c.eat_keyword("count") { Some(c.u32("an expected arrival count")?.0) } else { None };
        c.finish("the mbarrier declaration")?;
        self.check_memory_name(&name, span)?;
        self.names.mbarriers.insert(name.clone(), self.scenario.mbarriers.len());
        self.scenario.mbarriers.push(Mbarrier { name, cta, count });
        self.map.mbarriers.push(line_span(line));
        Ok(())
    }

    pub(super) fn thread_decl(&mut self, line: &Line) -> PResult<()> {
        let mut c = Cursor::new(&line.tokens, line.span);
        c.bump();
        let (name, span) = c.ident("a thread name")?;
        let cta = self.placement(&mut c)?;
        let lanes = if c.eat_keyword("lanes") { c.u32("a lane count")?.0 } else { DEFAULT_LANES };
        c.expect(&Tok::Colon, "`:` ending the thread line")?;
        c.finish("the thread declaration")?;
        check_unique("thread", &name, span, self.names.threads.contains_key(&name))?;
        self.names.threads.insert(name.clone(), self.scenario.threads.len());
        self.scenario.threads.push(Thread { name, cta, lanes, program: Vec::new() });
        self.map.threads.push(line_span(line));
        self.map.instrs.push(Vec::new());
        self.map.operands.push(Vec::new());
        self.thread = Some(self.scenario.threads.len() - 1);
        Ok(())
    }

    /// `expect [strict|pragmatic] VERDICT`: at most one line per mode, and a line without a
    /// mode (every mode) stands alone.
    pub(super) fn expect_decl(&mut self, line: &Line) -> PResult<()> {
        let mut c = Cursor::new(&line.tokens, line.span);
        c.bump();
        let kinds = [
            ("correct", Expect::Correct),
            ("race", Expect::Race),
            ("deadlock", Expect::Deadlock),
            ("undefined", Expect::Undefined),
        ];
        let (mut word, mut span) = c.ident("`correct`, `race`, `deadlock` or `undefined`")?;
        let mode = Mode::from_name(&word);
        if mode.is_some() {
            (word, span) = c.ident("`correct`, `race`, `deadlock` or `undefined` after the mode")?;
        }
        let Some(&(_, verdict)) = kinds.iter().find(|(n, _)| *n == word) else {
            let names = kinds.iter().map(|k| k.0).chain(["strict", "pragmatic"]);
            let help = closest(&word, names).map(|n| format!("did you mean `{n}`?"));
            return Err(Box::new(
                Diagnostic::error("F0110", format!("unknown expectation `{word}`"))
                    .with_primary(Some(span), "expected `correct`, `race`, `deadlock` or `undefined`, optionally after `strict` or `pragmatic`")
                    .with_help_opt(help),
            ));
        };
        c.finish("the expectation")?;
        let clash = self.scenario.expect.iter().position(|e| e.mode.is_none() || mode.is_none() || e.mode == mode);
        if let Some(first) = clash {
            let label = match mode {
                Some(m) => format!("second expectation for {} mode", m.name()),
                None => "second expectation".into(),
            };
            return Err(Box::new(
                Diagnostic::error("F0109", "more than one `expect` line for the same mode")
                    .with_primary(Some(line_span(line)), label)
                    .with_secondary(self.map.expect.get(first).copied(), "first one here")
                    .with_help("write one `expect VERDICT` for every mode, or one `expect strict VERDICT` and one `expect pragmatic VERDICT`"),
            ));
        }
        self.scenario.expect.push(Expectation { mode, verdict });
        self.map.expect.push(line_span(line));
        Ok(())
    }

    /// Locations and mbarriers share one namespace: both appear inside `[...]`.
    fn check_memory_name(&self, name: &str, span: Span) -> PResult<()> {
        let taken = self.names.locations.contains_key(name) || self.names.mbarriers.contains_key(name);
        check_unique("location or mbarrier", name, span, taken)
    }
}

fn check_unique(what: &str, name: &str, span: Span, exists: bool) -> PResult<()> {
    if exists {
        return Err(Box::new(
            Diagnostic::error("F0106", format!("{what} `{name}` is declared twice"))
                .with_primary(Some(span), "name already used")
                .with_help("give each declaration its own name"),
        ));
    }
    Ok(())
}

/// The span of a line's tokens (its text without the comment).
pub(super) fn line_span(line: &Line) -> Span {
    match (line.tokens.first(), line.tokens.last()) {
        (Some(first), Some(last)) => first.span.to(last.span),
        _ => line.span,
    }
}
