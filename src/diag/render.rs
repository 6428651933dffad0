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

use super::{Diagnostic, Label, Severity};

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

/// How a rendering looks. Whether the text ends up on a terminal is the caller's
/// question: the core only formats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    #[default]
    Plain,
    /// ANSI colours in rustc's scheme: the level in its colour, the gutter blue, the
    /// primary carets in the level's colour.
    Ansi,
}

/// The parts of a diagnostic that get a colour of their own.
#[derive(Clone, Copy)]
enum Part {
    Level(Severity),
    Message,
    Gutter,
    NoteLabel,
    HelpLabel,
}

impl Part {
    /// SGR parameters of the part.
    fn sgr(self) -> &'static str {
        match self {
            Part::Level(Severity::Error) => "1;31",
            Part::Level(Severity::Warning) => "1;33",
            Part::Level(Severity::Note) => "1;32",
            Part::Message | Part::NoteLabel => "1",
            Part::Gutter => "1;34",
            Part::HelpLabel => "1;36",
        }
    }
}

impl Style {
    /// `text` wrapped in the part's colour; plain text unchanged, and nothing added
    /// around an empty text.
    fn paint(self, part: Part, text: &str) -> String {
        match self {
            Style::Ansi if !text.is_empty() => format!("\x1b[{}m{text}\x1b[0m", part.sgr()),
            Style::Ansi | Style::Plain => text.to_string(),
        }
    }

    /// The severity's name (`error`, `warning`, `note`) in its colour, for messages
    /// printed outside a diagnostic, such as `error: 2 errors`.
    pub fn severity(self, severity: Severity) -> String {
        self.paint(Part::Level(severity), severity.as_str())
    }
}

/// Renders one diagnostic as plain text ending in a newline.
pub fn render(diag: &Diagnostic, src: &str, file_name: &str) -> String {
    render_indexed(diag, &LineIndex::new(src), file_name)
}

/// [`render`] with a prepared [`LineIndex`], for rendering many diagnostics of one text.
pub fn render_indexed(diag: &Diagnostic, index: &LineIndex, file_name: &str) -> String {
    render_styled(diag, index, file_name, Style::Plain)
}

/// [`render_indexed`] in a chosen [`Style`]; [`Style::Plain`] gives exactly its text.
pub fn render_styled(diag: &Diagnostic, index: &LineIndex, file_name: &str, style: Style) -> String {
    let level = Part::Level(diag.severity);
    let gutter = |text: &str| style.paint(Part::Gutter, text);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}{}",
        style.paint(level, &format!("{}[{}]", diag.severity.as_str(), diag.code)),
        style.paint(Part::Message, &format!(": {}", diag.message))
    );
    let mut labels: Vec<&Label> = diag.labels.iter().collect();
    labels.sort_by_key(|l| (!l.primary, l.span.start));
    let primary = labels.first().map(|l| index.line_col(l.span.start));
    let max_line = labels.iter().map(|l| index.line_col(l.span.start).0).max().unwrap_or(1);
    let width = max_line.to_string().len();
    let pad = " ".repeat(width);
    let arrow = gutter("-->");
    match primary {
        Some((line, col)) => {
            let _ = writeln!(out, "{pad}{arrow} {file_name}:{line}:{col}");
        }
        None => {
            let _ = writeln!(out, "{pad}{arrow} {file_name}");
        }
    }
    labels.sort_by_key(|l| l.span.start);
    let bar = gutter("|");
    if !labels.is_empty() {
        let _ = writeln!(out, "{pad} {bar}");
    }
    let mut shown_line = 0;
    for label in &labels {
        let (line, col) = index.line_col(label.span.start);
        let text = index.line_text(line).replace('\t', " ");
        if line != shown_line {
            let _ = writeln!(out, "{} {text}", gutter(&format!("{line:>width$} |")));
            shown_line = line;
        }
        let (end_line, end_col) = index.line_col(label.span.end);
        let last_col = if end_line == line { end_col } else { text.chars().count() + 1 };
        let marks = last_col.saturating_sub(col).max(1);
        let (mark, part) = if label.primary { ("^", level) } else { ("-", Part::Gutter) };
        let message = if label.message.is_empty() { String::new() } else { format!(" {}", label.message) };
        let marked = style.paint(part, &format!("{}{message}", mark.repeat(marks)));
        let _ = writeln!(out, "{pad} {bar} {}{marked}", " ".repeat(col - 1));
    }
    let equals = gutter("=");
    for note in &diag.notes {
        let _ = writeln!(out, "{pad} {equals} {}: {note}", style.paint(Part::NoteLabel, "note"));
    }
    if let Some(help) = &diag.help {
        let _ = writeln!(out, "{pad} {equals} {}: {help}", style.paint(Part::HelpLabel, "help"));
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

    #[test]
    fn ansi_style_colours_the_parts_and_strips_back_to_plain() {
        let src = "cta A\nthread t @A:\n    ld.aquire.gpu r0, [flag]\n    st [x], 1\n";
        let start = src.find(".aquire").unwrap_or(0);
        let other = src.find("st [x]").unwrap_or(0);
        let diag = Diagnostic::warning("F0203", "unknown modifier `.aquire`")
            .with_primary(Some(Span::new(start, start + 7)), "not a modifier of `ld`")
            .with_secondary(Some(Span::new(other, other + 2)), "later")
            .with_note("a note")
            .with_help("did you mean `.acquire`?");
        let index = LineIndex::new(src);
        let plain = render_styled(&diag, &index, "mp.fence", Style::Plain);
        assert_eq!(plain, render(&diag, src, "mp.fence"));
        let coloured = render_styled(&diag, &index, "mp.fence", Style::Ansi);
        assert!(coloured.starts_with("\x1b[1;33mwarning[F0203]\x1b[0m\x1b[1m: unknown"), "{coloured}");
        assert!(coloured.contains("\x1b[1;33m^^^^^^^ not a modifier of `ld`\x1b[0m"), "{coloured}");
        assert!(coloured.contains("\x1b[1;34m-- later\x1b[0m"), "{coloured}");
        assert!(coloured.contains("\x1b[1;34m3 |\x1b[0m"), "{coloured}");
        assert!(coloured.contains("\x1b[1;36mhelp\x1b[0m: did you mean"), "{coloured}");
        assert_eq!(strip_ansi(&coloured), plain);
    }

    /// The text without its SGR escapes.
    fn strip_ansi(text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find("\x1b[") {
            out.push_str(&rest[..at]);
            rest = &rest[at..];
            rest = rest.find('m').map_or("", |end| &rest[end + 1..]);
        }
        out.push_str(rest);
        out
    }
}
