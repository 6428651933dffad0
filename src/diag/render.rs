//! Plain-text rendering in the rustc look:
//!
//! ```text
//! error[F0203]: unknown modifier `.aquire`
//!   --> mp.fence:7:7
//!    |
//!  7 |     ld.aquire.gpu r0, [flag]
//!    |       ^^^^^^^ not a modifier of `ld`
//!    = help: did you mean `.acquire`?
//! ```

use std::fmt::Write;

use super::{Diagnostic, Label};

/// 1-based line and column (in chars) of a byte offset; offsets past the end clamp to it.
pub fn line_col(src: &str, offset: u32) -> (usize, usize) {
    LineIndex::new(src).line_col(offset)
}

/// Line starts of a source text, so many diagnostics render without rescanning it.
pub struct LineIndex<'a> {
    src: &'a str,
    /// Byte offset where each line starts; the first is 0.
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(src: &'a str) -> LineIndex<'a> {
        let starts = std::iter::once(0).chain(src.match_indices('\n').map(|(i, _)| i + 1)).collect();
        LineIndex { src, starts }
    }

    /// 1-based line and column (in chars); offsets past the end clamp to it.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let offset = floor_char_boundary(self.src, offset as usize);
        let line = self.starts.partition_point(|s| *s <= offset).max(1);
        let start = self.starts.get(line - 1).copied().unwrap_or(0);
        let col = self.src.get(start..offset).map_or(0, |s| s.chars().count()) + 1;
        (line, col)
    }

    /// The text of 1-based line `line`, without its newline.
    fn line_text(&self, line: usize) -> &'a str {
        let start = self.starts.get(line.saturating_sub(1)).copied().unwrap_or(self.src.len());
        let end = self.starts.get(line).map_or(self.src.len(), |next| next - 1);
        self.src.get(start..end).unwrap_or("").trim_end_matches('\r')
    }
}

fn floor_char_boundary(src: &str, offset: usize) -> usize {
    let mut offset = offset.min(src.len());
    while !src.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// Renders one diagnostic as plain text ending in a newline.
pub fn render(diag: &Diagnostic, src: &str, file_name: &str) -> String {
    render_indexed(diag, &LineIndex::new(src), file_name)
}

/// [`render`] with a prepared [`LineIndex`], for rendering many diagnostics of one text.
pub fn render_indexed(diag: &Diagnostic, index: &LineIndex, file_name: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}[{}]: {}", diag.severity.as_str(), diag.code, diag.message);
    let mut labels: Vec<&Label> = diag.labels.iter().collect();
    labels.sort_by_key(|l| (!l.primary, l.span.start));
    let primary = labels.first().map(|l| index.line_col(l.span.start));
    let max_line = labels.iter().map(|l| index.line_col(l.span.start).0).max().unwrap_or(1);
    let width = max_line.to_string().len();
    let pad = " ".repeat(width);
    match primary {
        Some((line, col)) => {
            let _ = writeln!(out, "{pad}--> {file_name}:{line}:{col}");
        }
        None => {
            let _ = writeln!(out, "{pad}--> {file_name}");
        }
    }
    labels.sort_by_key(|l| l.span.start);
    if !labels.is_empty() {
        let _ = writeln!(out, "{pad} |");
    }
    let mut shown_line = 0;
    for label in &labels {
        let (line, col) = index.line_col(label.span.start);
        let text = index.line_text(line).replace('\t', " ");
        if line != shown_line {
            let _ = writeln!(out, "{line:>width$} | {text}");
            shown_line = line;
        }
        let (end_line, end_col) = index.line_col(label.span.end);
        let last_col = if end_line == line { end_col } else { text.chars().count() + 1 };
        let marks = last_col.saturating_sub(col).max(1);
        let mark = if label.primary { "^" } else { "-" };
        let underline = format!("{}{}", " ".repeat(col - 1), mark.repeat(marks));
        let message = if label.message.is_empty() { String::new() } else { format!(" {}", label.message) };
        let _ = writeln!(out, "{pad} | {underline}{message}");
    }
    for note in &diag.notes {
        let _ = writeln!(out, "{pad} = note: {note}");
    }
    if let Some(help) = &diag.help {
        let _ = writeln!(out, "{pad} = help: {help}");
    }
    out
}

/// Renders several diagnostics separated by blank lines.
pub fn render_all(diags: &[Diagnostic], src: &str, file_name: &str) -> String {
    let index = LineIndex::new(src);
    diags.iter().map(|d| render_indexed(d, &index, file_name)).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Span;

    #[test]
    fn line_col_is_one_based_and_counts_chars() {
        let src = "ab\ncé d\n";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 3), (2, 1));
        assert_eq!(line_col(src, 6), (2, 3));
        assert_eq!(line_col(src, 1000), (3, 1));
    }

    #[test]
    fn renders_rustc_shape() {
        let src = "cta A\nthread t @A:\n    ld.aquire.gpu r0, [flag]\n";
        let start = src.find(".aquire").unwrap_or(0);
        let diag = Diagnostic::error("F0203", "unknown modifier `.aquire`")
            .with_primary(Some(Span::new(start, start + 7)), "not a modifier of `ld`")
            .with_help("did you mean `.acquire`?");
        let expected = "error[F0203]: unknown modifier `.aquire`
 --> mp.fence:3:7
  |
3 |     ld.aquire.gpu r0, [flag]
  |       ^^^^^^^ not a modifier of `ld`
  = help: did you mean `.acquire`?
";
        assert_eq!(render(&diag, src, "mp.fence"), expected);
    }
}
