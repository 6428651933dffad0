//! Keeps the layers of `src/check/semantics` (its module doc) and of `src/check/machine`:
//!
//! 0. `machine/`: the state; it imports nothing from `semantics`;
//! 1. `semantics/base/`: machinery every family shares;
//! 2. the families: every other file or folder of `semantics/` (`ld_st.rs`, `tcgen05/`...);
//! 3. `semantics/async_op.rs`: hands asynchronous agents to their family;
//! 4. `semantics/mod.rs`: hands thread instructions to their family.
//!
//! A file may import only from its own layer or lower ones, a family only from itself
//! (never another family), and the semantics files must have no import cycle. Imports are
//! read from the source: `use` trees and `crate::`/`super::`/`self::` paths in code, plus
//! child modules named directly.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

type Module = Vec<String>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    Machine,
    Base,
    Family,
    AsyncDispatch,
    Dispatch,
}

impl Layer {
    fn name(self) -> &'static str {
        match self {
            Layer::Machine => "machine",
            Layer::Base => "semantics/base",
            Layer::Family => "a family",
            Layer::AsyncDispatch => "the async dispatch",
            Layer::Dispatch => "the thread dispatch",
        }
    }
}

/// The layer of a module under `check`, and its family for layer 2.
fn layer_of(module: &[String]) -> Option<(Layer, Option<&str>)> {
    let rest: Vec<&str> = module.iter().map(String::as_str).collect();
    match rest.as_slice() {
        ["check", "machine", ..] => Some((Layer::Machine, None)),
        ["check", "semantics"] => Some((Layer::Dispatch, None)),
        ["check", "semantics", "async_op"] => Some((Layer::AsyncDispatch, None)),
        ["check", "semantics", "base", ..] => Some((Layer::Base, None)),
        ["check", "semantics", family, ..] => Some((Layer::Family, Some(family))),
        _ => None,
    }
}

/// `check/semantics/base/exec.rs` → `check::semantics::base::exec`; `mod.rs` names its folder.
fn module_of(path: &str) -> Module {
    let mut parts: Vec<String> = path.trim_end_matches(".rs").split('/').map(String::from).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The source without comments, string and character literals (their text is no import);
/// line breaks stay where they were, so line numbers still match the file.
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    // Replaces `chars[from..to]` by its line breaks only.
    let blank = |out: &mut String, from: usize, to: usize| {
        out.extend(chars.get(from..to.min(chars.len())).unwrap_or_default().iter().filter(|c| **c == '\n'));
    };
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while chars.get(i).is_some_and(|&c| c != '\n') {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let start = i;
            let mut depth = 0;
            while let Some(&c) = chars.get(i) {
                let n = chars.get(i + 1).copied();
                if c == '/' && n == Some('*') {
                    depth += 1;
                    i += 2;
                } else if c == '*' && n == Some('/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
            blank(&mut out, start, i);
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !chars.get(i.wrapping_sub(1)).is_some_and(|p| p.is_alphanumeric() || *p == '_') {
            // Raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            let start = i;
            loop {
                match chars.get(j) {
                    None => break,
                    Some('"') if (1..=hashes).all(|h| chars.get(j + h) == Some(&'#')) => {
                        j += 1 + hashes;
                        break;
                    }
                    Some(_) => j += 1,
                }
            }
            out.push_str("\"\"");
            blank(&mut out, start, j);
            i = j;
        } else if c == '"' {
            let start = i;
            i += 1;
            while let Some(&c) = chars.get(i) {
                i += 1;
                match c {
                    '\\' => i += 1,
                    '"' => break,
                    _ => {}
                }
            }
            out.push_str("\"\"");
            blank(&mut out, start, i);
        } else if c == '\'' {
            // A character literal ('x', '\n'), else a lifetime or label.
            if next == Some('\\') {
                i += 3;
                while chars.get(i).is_some_and(|&c| c != '\'') {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// One path a file refers to.
struct Reference {
    line: usize,
    path: Vec<String>,
    /// Inline modules (`mod tests { .. }`) the reference sits in, outermost first.
    inline: Vec<String>,
    /// The name a `pub use` re-exports the path under; such a line is no use of the item.
    reexport: Option<String>,
}

fn line_at(code: &str, offset: usize) -> usize {
    code.get(..offset).map_or(0, |s| s.matches('\n').count()) + 1
}

/// Splits a `use` tree (the text between `use` and `;`) into full paths, each with the name
/// it is imported under.
fn expand_use(tree: &str) -> Vec<(Vec<String>, String)> {
    fn tokens(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut word = String::new();
        for c in text.chars() {
            if c.is_alphanumeric() || c == '_' {
                word.push(c);
                continue;
            }
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            if matches!(c, '{' | '}' | ',' | '*') {
                out.push(c.to_string());
            }
        }
        if !word.is_empty() {
            out.push(word);
        }
        out
    }
    // A tree is `seg seg ... [{ tree, tree }]`; `::` separators were dropped by `tokens`.
    fn parse(toks: &[String], pos: &mut usize, prefix: &[String], out: &mut Vec<(Vec<String>, String)>) {
        let mut path = prefix.to_vec();
        let mut alias = None;
        while let Some(t) = toks.get(*pos) {
            match t.as_str() {
                "{" => {
                    *pos += 1;
                    while toks.get(*pos).is_some_and(|t| t != "}") {
                        parse(toks, pos, &path, out);
                        if toks.get(*pos).is_some_and(|t| t == ",") {
                            *pos += 1;
                        }
                    }
                    *pos += 1;
                    return;
                }
                "," | "}" => break,
                "as" => {
                    alias = toks.get(*pos + 1).cloned();
                    *pos += 2;
                }
                "*" => *pos += 1,
                // `{self, ..}` names the prefix itself; a leading `self::` is kept for `resolve`.
                "self" if !path.is_empty() => *pos += 1,
                seg => {
                    path.push(seg.to_string());
                    *pos += 1;
                }
            }
        }
        let name = alias.or_else(|| path.last().cloned()).unwrap_or_default();
        out.push((path, name));
    }
    let toks = tokens(tree);
    let mut out = Vec::new();
    let mut pos = 0;
    parse(&toks, &mut pos, &[], &mut out);
    out
}

/// The inline modules (`mod name { .. }`) of `code`, as byte ranges with their names.
fn inline_modules(code: &str) -> Vec<(std::ops::Range<usize>, String)> {
    let mut found = Vec::new();
    let mut search = 0;
    while let Some(at) = code.get(search..).and_then(|s| s.find("mod ")).map(|k| k + search) {
        search = at + 4;
        let boundary = at == 0 || code.get(..at).and_then(|s| s.chars().last()).is_some_and(|c| !(c.is_alphanumeric() || c == '_'));
        let after = code.get(at + 4..).unwrap_or_default();
        let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let open = after.get(name.len()..).unwrap_or_default().trim_start();
        if !boundary || name.is_empty() || !open.starts_with('{') {
            continue;
        }
        let start = code.len() - open.len();
        let mut depth = 0;
        let mut end = code.len();
        for (k, c) in code.get(start..).unwrap_or_default().char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = start + k;
                        break;
                    }
                }
                _ => {}
            }
        }
        found.push((start..end, name));
    }
    found
}

/// Every path the code refers to: `use` trees, then `crate::`/`super::`/`self::` paths and
/// `name::` prefixes elsewhere (a prefix counts only where it names a child module).
fn references(source: &str) -> Vec<Reference> {
    let code = code_only(source);
    let modules = inline_modules(&code);
    let inline_at = |offset: usize| -> Vec<String> {
        modules.iter().filter(|(range, _)| range.contains(&offset)).map(|(_, name)| name.clone()).collect()
    };
    let mut refs = Vec::new();
    let mut rest = String::with_capacity(code.len());
    let mut i = 0;
    while i < code.len() {
        let tail = code.get(i..).unwrap_or_default();
        let before = code.get(..i).unwrap_or_default();
        let at_word_start = before.chars().last().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        if at_word_start && tail.starts_with("use ") {
            let end = tail.find(';').unwrap_or(tail.len());
            let tree = tail.get(4..end).unwrap_or_default();
            let line = line_at(&code, i);
            let before = before.trim_end();
            let public = before.ends_with("pub") || before.ends_with(')') && before.rsplit_once("pub").is_some_and(|(_, r)| r.trim_start().starts_with('(') && !r.contains(';'));
            let inline = inline_at(i);
            refs.extend(expand_use(tree).into_iter().map(|(path, name)| Reference {
                line,
                path,
                inline: inline.clone(),
                reexport: public.then_some(name),
            }));
            rest.extend(tail.get(..end).unwrap_or_default().chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
            i += end;
            continue;
        }
        let c = tail.chars().next().unwrap_or(' ');
        rest.push(c);
        i += c.len_utf8();
    }
    // Paths in code: maximal runs of `ident::ident::...` starting at a word boundary.
    let chars: Vec<char> = rest.chars().collect();
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut j = 0;
    let mut offset = 0;
    while j < chars.len() {
        let starts = chars.get(j).is_some_and(|&c| is_ident(c))
            && (j == 0 || chars.get(j - 1).is_some_and(|&p| !is_ident(p) && p != ':'));
        if !starts {
            offset += chars.get(j).map_or(0, |c| c.len_utf8());
            j += 1;
            continue;
        }
        let start_offset = offset;
        let mut path = Vec::new();
        let mut word = String::new();
        while let Some(&c) = chars.get(j) {
            if is_ident(c) {
                word.push(c);
            } else if c == ':' && chars.get(j + 1) == Some(&':') && !word.is_empty() {
                path.push(std::mem::take(&mut word));
                offset += 1;
                j += 1;
            } else {
                break;
            }
            offset += c.len_utf8();
            j += 1;
        }
        if !path.is_empty() {
            if !word.is_empty() {
                path.push(word);
            }
            refs.push(Reference { line: line_at(&rest, start_offset), path, inline: inline_at(start_offset), reexport: None });
        }
    }
    refs
}

/// What each module re-exports (`pub use`): (module, name) → the module the name comes from.
type Reexports = BTreeMap<(Module, String), Module>;

/// The module a path from `from` lands in: the longest known module prefix, followed
/// through a re-export when the next segment is one (`machine::Layout` is `machine/layout.rs`).
fn resolve(from: &Module, path: &[String], modules: &BTreeSet<Module>, reexports: &Reexports) -> Option<Module> {
    let mut base: Module = from.clone();
    let mut segs = path.iter().peekable();
    match segs.peek().map(|s| s.as_str()) {
        Some("crate") => {
            base.clear();
            segs.next();
        }
        Some("self") => {
            segs.next();
        }
        Some("super") => {
            while segs.peek().is_some_and(|s| *s == "super") {
                base.pop();
                segs.next();
            }
        }
        Some(first) => {
            // A child module named directly; anything else is an item, a crate or an alias
            // that a `use` line already counted.
            let mut child = from.clone();
            child.push(first.to_string());
            if !modules.contains(&child) {
                return None;
            }
        }
        None => return None,
    }
    let mut full = base;
    full.extend(segs.cloned());
    let n = (1..=full.len()).rev().find(|&n| modules.contains(&full[..n].to_vec()))?;
    let found = full[..n].to_vec();
    match full.get(n).and_then(|name| reexports.get(&(found.clone(), name.clone()))) {
        Some(origin) => Some(origin.clone()),
        None => Some(found),
    }
}

/// What is wrong with the imports among `files` (path under `src/`, source text).
fn problems(files: &[(String, String)]) -> Vec<String> {
    let modules: BTreeSet<Module> = files.iter().map(|(p, _)| module_of(p)).collect();
    let path_of: BTreeMap<Module, &str> = files.iter().map(|(p, _)| (module_of(p), p.as_str())).collect();
    let refs: Vec<(Module, Vec<Reference>)> = files.iter().map(|(p, s)| (module_of(p), references(s))).collect();
    // A module's scope for `super`/`self` includes the inline module a reference sits in.
    let scope = |module: &Module, r: &Reference| -> Module { module.iter().chain(&r.inline).cloned().collect() };
    let mut reexports = Reexports::new();
    for (module, list) in &refs {
        for r in list {
            let Some(name) = &r.reexport else { continue };
            if let Some(origin) = resolve(&scope(module, r), &r.path, &modules, &Reexports::new()) {
                reexports.insert((module.clone(), name.clone()), origin);
            }
        }
    }
    let mut problems = Vec::new();
    // from → to → the first line and path naming it.
    let mut edges: BTreeMap<Module, BTreeMap<Module, (usize, String)>> = BTreeMap::new();
    for (from, list) in &refs {
        for r in list.iter().filter(|r| r.reexport.is_none()) {
            let Some(to) = resolve(&scope(from, r), &r.path, &modules, &reexports) else { continue };
            if to == *from {
                continue;
            }
            edges.entry(from.clone()).or_default().entry(to).or_insert((r.line, r.path.join("::")));
        }
    }
    for (from, targets) in &edges {
        let Some((from_layer, from_family)) = layer_of(from) else { continue };
        for (to, (line, text)) in targets {
            let Some((to_layer, to_family)) = layer_of(to) else { continue };
            let at = format!("src/{}:{line}: `{text}`", path_of.get(from).copied().unwrap_or("?"));
            let target = path_of.get(to).copied().unwrap_or("?");
            if to_layer > from_layer {
                problems.push(format!("{at} imports upward, from {} into {} ({target})", from_layer.name(), to_layer.name()));
            } else if from_layer == Layer::Family && to_layer == Layer::Family && from_family != to_family {
                problems.push(format!(
                    "{at} imports sideways: family `{}` uses family `{}` ({target}); move what they share into semantics/base",
                    from_family.unwrap_or("?"),
                    to_family.unwrap_or("?")
                ));
            }
        }
    }
    // Cycles among semantics files. The machine is one layer whose files may import each
    // other (the state and its fingerprints do); since it imports nothing above it, no
    // cycle through semantics can pass through it.
    let in_semantics = |m: &Module| layer_of(m).is_some_and(|(l, _)| l != Layer::Machine);
    let semantics_edges: BTreeMap<Module, BTreeMap<Module, (usize, String)>> = edges
        .iter()
        .filter(|(from, _)| in_semantics(from))
        .map(|(from, targets)| (from.clone(), targets.iter().filter(|(to, _)| in_semantics(to)).map(|(k, v)| (k.clone(), v.clone())).collect()))
        .collect();
    for (cycle, tangled) in cycles(&semantics_edges) {
        let mut names: Vec<String> = cycle.iter().map(|m| format!("src/{}", path_of.get(m).copied().unwrap_or("?"))).collect();
        names.extend(names.first().cloned());
        let closing: Vec<String> = cycle
            .iter()
            .zip(cycle.iter().cycle().skip(1))
            .filter_map(|(a, b)| {
                let (line, text) = semantics_edges.get(a)?.get(b)?;
                Some(format!("src/{}:{line} `{text}`", path_of.get(a).copied().unwrap_or("?")))
            })
            .collect();
        problems.push(format!(
            "import cycle: {} (through {}); {tangled} files reach one another through imports",
            names.join(" → "),
            closing.join(", ")
        ));
    }
    problems
}

/// One cycle per strongly connected component of more than one module (Tarjan), with the
/// component's size.
fn cycles(edges: &BTreeMap<Module, BTreeMap<Module, (usize, String)>>) -> Vec<(Vec<Module>, usize)> {
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeMap<Module, (usize, String)>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on_stack: BTreeSet<&'a Module>,
        components: Vec<Vec<&'a Module>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Module) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        let targets: Vec<&'a Module> = s.edges.get(v).map(|t| t.keys().collect()).unwrap_or_default();
        for w in targets {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(lw));
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.components.push(component);
        }
    }
    let mut s = State { edges, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on_stack: BTreeSet::new(), components: Vec::new() };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    // Name one actual cycle through each component: walk edges inside it until a repeat.
    s.components
        .iter()
        .filter(|c| c.len() > 1)
        .map(|component| {
            let inside: BTreeSet<&Module> = component.iter().copied().collect();
            let mut walk: Vec<&Module> = vec![component[0]];
            loop {
                let last = walk[walk.len() - 1];
                let next = edges.get(last).and_then(|t| t.keys().find(|m| inside.contains(m))).unwrap_or(component[0]);
                if let Some(pos) = walk.iter().position(|m| *m == next) {
                    // Start at the smallest module, so the message does not depend on the walk.
                    let mut cycle: Vec<Module> = walk[pos..].iter().map(|m| (*m).clone()).collect();
                    let first = cycle.iter().enumerate().min_by_key(|(_, m)| *m).map_or(0, |(i, _)| i);
                    cycle.rotate_left(first);
                    return (cycle, component.len());
                }
                walk.push(next);
            }
        })
        .collect()
}

fn read_tree(root: &Path, dir: &str, out: &mut Vec<(String, String)>) {
    let Ok(entries) = fs::read_dir(root.join(dir)) else { return };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = format!("{dir}/{name}");
        if entry.path().is_dir() {
            read_tree(root, &rel, out);
        } else if name.ends_with(".rs") {
            let source = fs::read_to_string(entry.path()).unwrap_or_default();
            out.push((rel, source));
        }
    }
}

fn checker_files() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    read_tree(&src, "check/machine", &mut files);
    read_tree(&src, "check/semantics", &mut files);
    files
}

#[test]
fn semantics_and_machine_are_layered_without_cycles() {
    let files = checker_files();
    // The test reads what it should: both folders, every layer, and imports in them.
    let layers: BTreeSet<Layer> = files.iter().filter_map(|(p, _)| layer_of(&module_of(p)).map(|(l, _)| l)).collect();
    assert_eq!(layers.len(), 5, "expected files in every layer, found {layers:?}");
    let exec = module_of("check/semantics/base/exec.rs");
    let modules: BTreeSet<Module> = files.iter().map(|(p, _)| module_of(p)).collect();
    let ld_st = files.iter().find(|(p, _)| p == "check/semantics/ld_st.rs").map(|(_, s)| s.as_str()).unwrap_or_default();
    assert!(
        references(ld_st).iter().any(|r| resolve(&module_of("check/semantics/ld_st.rs"), &r.path, &modules, &Reexports::new()) == Some(exec.clone())),
        "the import reader no longer sees ld_st.rs use base/exec.rs"
    );
    let problems = problems(&files);
    assert!(problems.is_empty(), "semantics layering broken:\n{}", problems.join("\n"));
}

fn fixture(files: &[(&str, &str)]) -> Vec<String> {
    problems(&files.iter().map(|(p, s)| (p.to_string(), s.to_string())).collect::<Vec<_>>())
}

#[test]
fn catches_an_import_cycle() {
    let found = fixture(&[
        ("check/semantics/base/mod.rs", "pub mod a;\npub mod b;\n"),
        ("check/semantics/base/a.rs", "use super::b::helper;\n"),
        ("check/semantics/base/b.rs", "pub fn helper() { super::a::other(); }\n"),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("import cycle: src/check/semantics/base/a.rs → src/check/semantics/base/b.rs → src/check/semantics/base/a.rs"),
        "{found:?}"
    );
    assert!(found[0].contains("src/check/semantics/base/b.rs:1 `super::a::other`"), "{found:?}");
}

#[test]
fn catches_a_family_using_another() {
    let found = fixture(&[
        ("check/semantics/mod.rs", "pub mod base;\npub mod tma;\npub mod wgmma;\n"),
        ("check/semantics/tma.rs", "pub fn covered() {}\n"),
        ("check/semantics/wgmma.rs", "fn f() {\n    let upto = super::tma::covered();\n}\n"),
    ]);
    assert_eq!(found, vec![
        "src/check/semantics/wgmma.rs:2: `super::tma::covered` imports sideways: family `wgmma` uses family `tma` (check/semantics/tma.rs); move what they share into semantics/base".to_string()
    ]);
}

#[test]
fn catches_upward_imports() {
    let found = fixture(&[
        ("check/machine/state.rs", "use crate::check::semantics::AsyncOp;\n"),
        ("check/semantics/mod.rs", "pub struct AsyncOp;\n"),
        ("check/semantics/base/access.rs", "use crate::check::semantics::async_op::{pragmatic, self};\n"),
        ("check/semantics/async_op.rs", "pub fn pragmatic() {}\n"),
        ("check/semantics/tcgen05/alloc.rs", "use super::super::async_op;\n"),
    ]);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found.iter().any(|p| p.starts_with("src/check/machine/state.rs:1: `crate::check::semantics::AsyncOp` imports upward")), "{found:?}");
    assert!(
        found.iter().any(|p| p.starts_with("src/check/semantics/base/access.rs:1:") && p.contains("from semantics/base into the async dispatch")),
        "{found:?}"
    );
    assert!(found.iter().any(|p| p.starts_with("src/check/semantics/tcgen05/alloc.rs:1:")), "{found:?}");
}

#[test]
fn reads_past_comments_and_strings() {
    let found = fixture(&[
        ("check/semantics/base/exec.rs", "//! See [`super::super::tma`].\nfn f() -> &'static str { let c = 'x'; \"super::super::tma::issue\" }\n/* crate::check::semantics::tma */\n"),
        ("check/semantics/tma.rs", "pub fn issue() {}\n"),
    ]);
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn a_family_folder_may_use_its_own_modules() {
    let found = fixture(&[
        ("check/semantics/tcgen05/mod.rs", "mod alloc;\nfn f() { alloc::alloc(); }\n"),
        ("check/semantics/tcgen05/alloc.rs", "use crate::check::semantics::base::exec::Exec;\npub fn alloc() {}\n"),
        ("check/semantics/base/exec.rs", "pub struct Exec;\n"),
    ]);
    assert!(found.is_empty(), "{found:?}");
}
