//! The release wasm is built with `-Zfmt-debug=none` (Makefile, docs/loading.md): there,
//! `{:?}` prints nothing. So code the browser runs (the core outside the CLI, the app, the
//! protocol, the engine and the Markdown renderer) must not build text with `Debug`: a
//! message would lose its words in the browser alone, where the native tests never look.
//! Test modules, whose texts only the native tests print, are exempt.

use std::fs;
use std::path::{Path, PathBuf};

/// Source folders compiled into the browser's wasm, and folders below them that are not.
const BROWSER_SOURCES: &[&str] = &["src", "components/src", "protocol/src", "engine/src", "markdown/src"];
const NATIVE_ONLY: &[&str] = &["src/bin"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let relative = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(&path);
        if NATIVE_ONLY.iter().any(|n| relative == Path::new(n)) {
            continue;
        }
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether a file holds only tests (`tests.rs`, `machine_tests.rs`, `tests/…`).
fn test_file(path: &Path) -> bool {
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    name == "tests" || name.ends_with("_tests") || path.components().any(|c| c.as_os_str() == "tests")
}

/// A `Debug` format spec in `line`: `{:?}`, `{x:?}`, `{:#?}`, `{0:>8?}`..., or `dbg!`.
fn debug_format(line: &str) -> Option<&str> {
    if let Some(at) = line.find("dbg!(") {
        return Some(&line[at..at + 5]);
    }
    let bytes = line.as_bytes();
    let mut open = None;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'{' => open = Some(i),
            b'}' => {
                if let Some(start) = open.take() {
                    let spec = &line[start + 1..i];
                    if let Some((_, format)) = spec.split_once(':') {
                        if format.ends_with('?') && !format.contains(char::is_whitespace) {
                            return Some(&line[start..=i]);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// The lines of `text` outside `#[cfg(test)] mod … { … }` blocks (rustfmt closes a
/// top-level module with a `}` in the first column).
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let mut lines = Vec::new();
    let mut in_tests = false;
    let mut after_cfg_test = false;
    for (number, line) in text.lines().enumerate() {
        if in_tests {
            in_tests = line != "}";
            continue;
        }
        let module = line.starts_with("mod ") || (line.starts_with("pub") && line.contains(" mod "));
        if after_cfg_test && module && line.ends_with('{') {
            in_tests = true;
            after_cfg_test = false;
            continue;
        }
        after_cfg_test = line.trim() == "#[cfg(test)]";
        lines.push((number + 1, line));
    }
    lines
}

#[test]
fn code_the_browser_runs_builds_no_text_with_debug() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in BROWSER_SOURCES {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 100, "found only {} source files under {BROWSER_SOURCES:?}", files.len());
    let mut found = Vec::new();
    for path in files.iter().filter(|p| !test_file(p)) {
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (number, line) in code_lines(&text) {
            if line.trim_start().starts_with("//") {
                continue;
            }
            if let Some(spec) = debug_format(line) {
                found.push(format!("{}:{number}: {spec}", path.strip_prefix(root).unwrap_or(path).display()));
            }
        }
    }
    assert!(found.is_empty(), "Debug formatting prints nothing in the release wasm; write the text with Display instead:\n{}", found.join("\n"));
}

#[test]
fn the_scan_sees_debug_specs_and_skips_test_modules() {
    for spec in ["{:?}", "{x:?}", "{:#?}", "{0:>8?}", "{self:x?}"] {
        assert_eq!(debug_format(&format!("write!(f, \"a {spec} b\")")), Some(spec), "{spec}");
    }
    assert_eq!(debug_format("dbg!(x);"), Some("dbg!("));
    for plain in ["{}", "{x}", "{:>8}", "{x:.1}", "if a { b } else { c? }", "let s = \"{\"; x?;"] {
        assert_eq!(debug_format(plain), None, "{plain}");
    }
    let text = "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn b() { format!(\"{:?}\", 1); }\n}\nfn c() {}\n";
    let kept: Vec<usize> = code_lines(text).iter().map(|(n, _)| *n).collect();
    assert_eq!(kept, [1, 2, 6]);
    let shared = "#[cfg(test)]\npub(super) mod tests {\n    fn b() { format!(\"{:?}\", 1); }\n}\nfn c() {}\n";
    let kept: Vec<usize> = code_lines(shared).iter().map(|(n, _)| *n).collect();
    assert_eq!(kept, [1, 5]);
    let declared = "#[cfg(test)]\nmod machine_tests;\nfn d() {}\n";
    assert_eq!(code_lines(declared).len(), 3);
}
