//! The `.fence` parser. It never fails: each line either parses or yields diagnostics and
//! is skipped, so one run reports every error in the file.

mod comments;
mod cond;
mod cursor;
mod decl;
mod instr;
mod mods;

use std::collections::HashMap;

use crate::diag::{Diagnostic, Span};
use crate::model::Scenario;
use crate::syntax::lexer::{lex, Line, Tok};
use crate::syntax::SourceMap;
use comments::{Comments, Counts};

pub use instr::branch_name;

/// Inputs above this size are refused before lexing (a scenario is a few hundred lines).
pub const MAX_INPUT_BYTES: usize = 1 << 20;
/// After this many errors the parser stops reporting; the rest is noise.
pub const MAX_ERRORS: usize = 100;
/// Deepest parenthesis / negation nesting allowed in a condition.
pub const MAX_COND_DEPTH: usize = 32;

/// The result of parsing: always a scenario (possibly partial), its source map, and
/// every diagnostic found.
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    pub scenario: Scenario,
    pub source_map: SourceMap,
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

pub fn parse(src: &str) -> Parsed {
    let mut parser = Parser::default();
    if src.len() > MAX_INPUT_BYTES {
        parser.diags.push(
            Diagnostic::error("F0001", format!("input is too large ({} bytes)", src.len()))
                .with_note(format!("scenarios are limited to {MAX_INPUT_BYTES} bytes")),
        );
        return parser.finish();
    }
    if let Some(at) = src.find('\0') {
        parser.diags.push(
            Diagnostic::error("F0002", "input contains a NUL byte")
                .with_primary(Some(Span::new(at, at + 1)), "NUL byte here")
                .with_note("a `.fence` file is UTF-8 text; this looks like a binary file"),
        );
        return parser.finish();
    }
    let lines = lex(src, &mut parser.diags);
    let title_line = title_line(&lines);
    parser.scenario.title =
        title_line.and_then(|i| lines.get(i)).and_then(|l| l.comment.as_deref()).map(crate::syntax::printer::title_text);
    // Machine declarations first, so threads and memory may name CTAs declared later.
    let mut anchors = vec![None; lines.len()];
    for (keyword, form) in [("cluster", Parser::cluster_decl as LineForm), ("cta", Parser::cta_decl)] {
        for (line, anchor) in lines.iter().zip(anchors.iter_mut()) {
            if first_word(line) == Some(keyword) {
                let before = Counts::of(&parser);
                parser.run_line(line, form);
                *anchor = before.created(&parser);
            }
        }
    }
    let mut comments = Comments::default();
    for (n, line) in lines.iter().enumerate() {
        if parser.error_count() >= MAX_ERRORS {
            parser.diags.push(Diagnostic::error("F0003", format!("too many errors; stopped after {MAX_ERRORS}")));
            break;
        }
        let anchor = if matches!(first_word(line), Some("cluster" | "cta")) {
            // Parsed in the first passes; here it only ends the open thread.
            parser.thread = None;
            parser.skip_program = false;
            anchors.get(n).copied().flatten()
        } else {
            let before = Counts::of(&parser);
            parser.line(line);
            before.created(&parser)
        };
        if Some(n) != title_line {
            comments.line(line, anchor);
        }
    }
    parser.map.comments = comments.finish();
    parser.finish()
}

/// The scenario's title (`Scenario::title`) without parsing the rest: what a list of
/// scenarios names each one by. `None` for a text the parser would refuse outright.
pub fn title(src: &str) -> Option<String> {
    if src.len() > MAX_INPUT_BYTES || src.contains('\0') {
        return None;
    }
    let lines = lex(src, &mut Vec::new());
    let line = lines.get(title_line(&lines)?)?;
    line.comment.as_deref().map(crate::syntax::printer::title_text)
}

type LineForm = fn(&mut Parser, &Line) -> cursor::PResult<()>;

/// Index of the title line: the first non-empty comment line before any token.
fn title_line(lines: &[Line]) -> Option<usize> {
    for (i, line) in lines.iter().enumerate() {
        if !line.tokens.is_empty() {
            return None;
        }
        if line.comment.as_deref().is_some_and(|t| !t.trim().is_empty()) {
            return Some(i);
        }
    }
    None
}

fn first_word(line: &Line) -> Option<&str> {
    match line.tokens.first().map(|t| &t.tok) {
        Some(Tok::Word(w)) => Some(w.as_str()),
        _ => None,
    }
}

#[derive(Default)]
struct Parser {
    scenario: Scenario,
    map: SourceMap,
    diags: Vec<Diagnostic>,
    /// The thread whose program the following instruction lines belong to.
    thread: Option<usize>,
    names: Names,
    /// Set after a `thread` line failed to parse: its instruction lines are skipped quietly.
    skip_program: bool,
}

impl Parser {
    fn error_count(&self) -> usize {
        self.diags.iter().filter(|d| d.is_error()).count()
    }

    fn run_line(&mut self, line: &Line, form: fn(&mut Parser, &Line) -> cursor::PResult<()>) {
        if let Err(diag) = form(self, line) {
            self.diags.push(*diag);
        }
    }

    fn line(&mut self, line: &Line) {
        let Some(word) = first_word(line) else {
            if let Some(first) = line.tokens.first() {
                if first.tok == Tok::Tilde {
                    self.thread = None;
                    self.run_line(line, Parser::condition);
                } else if self.thread.is_some() {
                    self.run_line(line, Parser::instruction_line);
                } else if !self.skip_program {
                    self.diags.push(outside_thread(first.span));
                }
            }
            return;
        };
        let declaration: Option<fn(&mut Parser, &Line) -> cursor::PResult<()>> = match word {
            "global" | "shared" | "tmem" => Some(Parser::location_decl),
            "alias" => Some(Parser::alias_decl),
            "mbarrier" => Some(Parser::mbarrier_decl),
            "thread" => Some(Parser::thread_decl),
            "expect" => Some(Parser::expect_decl),
            "exists" | "forall" => Some(Parser::condition),
            _ => None,
        };
        match declaration {
            Some(form) => {
                self.thread = None;
                let errors = self.error_count();
                self.run_line(line, form);
                // A broken `thread` line would make each of its instructions an error too.
                self.skip_program = word == "thread" && self.error_count() > errors;
            }
            None if self.thread.is_some() => self.run_line(line, Parser::instruction_line),
            None if self.skip_program => {}
            None => {
                let span = line.tokens.first().map_or(line.span, |t| t.span);
                self.diags.push(outside_thread(span));
            }
        }
    }

    fn finish(mut self) -> Parsed {
        Diagnostic::sort_in_source_order(&mut self.diags);
        Parsed { scenario: self.scenario, source_map: self.map, diagnostics: self.diags }
    }
}

/// Name lookups to indices in the scenario, so large inputs parse in linear time. One
/// map type for all: each type of hash map is its own copy of the hashing code in the wasm.
#[derive(Default)]
struct Names {
    /// Clusters declared with `cluster` (not the implicit ones of lone CTAs), by index.
    clusters: HashMap<String, usize>,
    ctas: HashMap<String, usize>,
    locations: HashMap<String, usize>,
    mbarriers: HashMap<String, usize>,
    threads: HashMap<String, usize>,
}

fn outside_thread(span: Span) -> Diagnostic {
    Diagnostic::error("F0104", "expected a declaration")
        .with_primary(Some(span), "not a declaration, and no `thread` is open")
        .with_help("instructions go below a `thread NAME @CTA:` line")
}
