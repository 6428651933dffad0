//! Block edits on the text as written: a program edit rewrites only the lines it touches,
//! so every other line keeps its spelling, blank lines and comments, and "line 9" still
//! names the same line after the edit. `edit::apply` keeps the spliced text only when it
//! reads as the edited scenario, and prints the scenario otherwise.

use super::Edit;
use crate::model::Scenario;
use crate::syntax::{instr_text, parse, SourceMap};

/// Indentation of a new instruction when its thread has none to copy.
const INDENT: &str = "    ";

/// The text of `src` (parsed as `before` with `map`) after `edit`, whose result is
/// `after`, rewriting only the lines the edit touches; `None` for a machine edit, or a
/// text laid out in a way a line edit cannot follow (two instructions on one line).
pub(super) fn splice(src: &str, map: &SourceMap, before: &Scenario, after: &Scenario, edit: &Edit) -> Option<String> {
    let text = Lines::new(src, map, before)?;
    match edit {
        Edit::Replace { thread, at, instr } => {
            let span = map.instr(*thread, *at)?;
            Some(format!("{}{}{}", src.get(..span.start as usize)?, instr_text(instr), src.get(span.end as usize..)?))
        }
        Edit::Remove { thread, at } => {
            let (first, last) = text.block(*thread, *at)?;
            Some(text.without(first, last + 1))
        }
        Edit::Duplicate { thread, at } => {
            let line = text.instr_line(*thread, *at)?;
            let copy = instr_text(before.threads.get(*thread)?.program.get(*at)?);
            Some(text.inserted(line + 1, &[format!("{}{copy}\n", text.indent(line))]))
        }
        Edit::Insert { thread, at, instr } => {
            let (line, indent) = text.insertion(*thread, *at)?;
            Some(text.inserted(line, &[format!("{indent}{}\n", instr_text(instr))]))
        }
        Edit::Move { thread, at, to_thread, to } => {
            // The instruction's lines (its notes above it, its trailing comment) travel
            // verbatim: cut them out, then insert them where the rest of the text says.
            let (first, last) = text.block(*thread, *at)?;
            let moved: Vec<String> = (first..=last).map(|l| ended(text.line(l))).collect();
            let cut = text.without(first, last + 1);
            let parsed = parse(&cut);
            if parsed.has_errors() {
                return None;
            }
            let rest = Lines::new(&cut, &parsed.source_map, &parsed.scenario)?;
            let to = if to_thread == thread && to > at { to - 1 } else { *to };
            let (line, _) = rest.insertion(*to_thread, to)?;
            Some(rest.inserted(line, &moved))
        }
        Edit::AddThread => {
            let added = after.threads.last()?;
            let cta = after.ctas.get(added.cta)?;
            // After the last thread's last line; what follows (`expect`, conditions) stays.
            let end = text.instrs.iter().flatten().chain(&text.headers).max().map_or(text.lines.len(), |l| l + 1);
            Some(text.inserted(end, &["\n".to_string(), format!("thread {} @{}:\n", added.name, cta.name)]))
        }
        Edit::Machine(_) => None,
    }
}

/// `line` with its `\n` (the text's last line may lack one).
fn ended(line: &str) -> String {
    if line.ends_with('\n') { line.to_string() } else { format!("{line}\n") }
}

/// The source cut into lines (each with its `\n`), and where each instruction sits.
struct Lines<'a> {
    lines: Vec<&'a str>,
    /// Per thread, per instruction: its line.
    instrs: Vec<Vec<usize>>,
    /// Per thread: its `thread …:` line.
    headers: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(src: &'a str, map: &SourceMap, scenario: &Scenario) -> Option<Lines<'a>> {
        let lines: Vec<&str> = src.split_inclusive('\n').collect();
        let mut starts = Vec::with_capacity(lines.len());
        let mut offset = 0;
        for line in &lines {
            starts.push(offset);
            offset += line.len();
        }
        let line_of = |byte: u32| starts.partition_point(|&s| s <= byte as usize).checked_sub(1);
        let instrs: Option<Vec<Vec<usize>>> = scenario
            .threads
            .iter()
            .enumerate()
            .map(|(t, thread)| (0..thread.program.len()).map(|i| line_of(map.instr(t, i)?.start)).collect())
            .collect();
        let instrs = instrs?;
        let headers: Option<Vec<usize>> = (0..scenario.threads.len()).map(|t| line_of(map.thread(t)?.start)).collect();
        let mut all: Vec<usize> = instrs.iter().flatten().copied().collect();
        let count = all.len();
        all.sort_unstable();
        all.dedup();
        // Two instructions on one line: a line edit would take both.
        (all.len() == count).then_some(Lines { lines, instrs, headers: headers? })
    }

    fn line(&self, n: usize) -> &str {
        self.lines.get(n).copied().unwrap_or("")
    }

    fn instr_line(&self, thread: usize, at: usize) -> Option<usize> {
        self.instrs.get(thread)?.get(at).copied()
    }

    /// Instruction `at`'s line and the comment lines right above it (its own notes, as
    /// the parser anchors them), but never the thread's header.
    fn block(&self, thread: usize, at: usize) -> Option<(usize, usize)> {
        let line = self.instr_line(thread, at)?;
        let header = *self.headers.get(thread)?;
        let mut first = line;
        while first > header + 1 && self.line(first - 1).trim_start().starts_with('#') {
            first -= 1;
        }
        Some((first, line))
    }

    fn indent(&self, n: usize) -> &str {
        let line = self.line(n);
        &line[..line.len() - line.trim_start().len()]
    }

    /// Where a new instruction `at` of `thread` goes (the line to insert before) and its
    /// indentation: above instruction `at` and its notes, after the last instruction, or
    /// under the thread's header.
    fn insertion(&self, thread: usize, at: usize) -> Option<(usize, String)> {
        let program = self.instrs.get(thread)?;
        if let Some(&line) = program.get(at) {
            let (first, _) = self.block(thread, at)?;
            return Some((first, self.indent(line).to_string()));
        }
        match program.last() {
            Some(&last) => Some((last + 1, self.indent(last).to_string())),
            None => Some((self.headers.get(thread)? + 1, INDENT.to_string())),
        }
    }

    /// The text without lines `from..to`.
    fn without(&self, from: usize, to: usize) -> String {
        self.lines.iter().enumerate().filter(|(n, _)| *n < from || *n >= to).map(|(_, l)| *l).collect()
    }

    /// The text with `new` (whole lines) inserted before line `at` (at the end past it).
    fn inserted(&self, at: usize, new: &[String]) -> String {
        let mut out = String::new();
        for (n, line) in self.lines.iter().enumerate() {
            if n == at {
                new.iter().for_each(|l| out.push_str(l));
            }
            out.push_str(line);
        }
        if at >= self.lines.len() {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            new.iter().for_each(|l| out.push_str(l));
        }
        out
    }
}
