//! Diagnostic data, independent of how it is shown.

use serde::{Deserialize, Serialize};

/// A byte range `start..end` in the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start: clamp_u32(start), end: clamp_u32(end.max(start)) }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }

    pub fn len(self) -> u32 {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
}

fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A source range with a short message; the primary label marks the problem itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    pub span: Span,
    pub message: String,
    pub primary: bool,
}

impl Label {
    pub fn primary(span: Span, message: impl Into<String>) -> Label {
        Label { span, message: message.into(), primary: true }
    }

    pub fn secondary(span: Span, message: impl Into<String>) -> Label {
        Label { span, message: message.into(), primary: false }
    }
}

/// One finding about a scenario text or model. Messages are rustc style: lowercase, no
/// trailing period, code in backticks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable code such as `F0203`; see [`super::CODES`].
    pub code: String,
    pub message: String,
    pub labels: Vec<Label>,
    pub notes: Vec<String>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn new(severity: Severity, code: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity,
            code: code.to_string(),
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
            help: None,
        }
    }

    pub fn error(code: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, code, message)
    }

    pub fn warning(code: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, code, message)
    }

    pub fn note(code: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Note, code, message)
    }

    /// Adds a primary label at `span`, if there is a span (models without a source have none).
    #[must_use]
    pub fn with_primary(mut self, span: Option<Span>, message: impl Into<String>) -> Diagnostic {
        if let Some(span) = span {
            self.labels.push(Label::primary(span, message));
        }
        self
    }

    #[must_use]
    pub fn with_secondary(mut self, span: Option<Span>, message: impl Into<String>) -> Diagnostic {
        if let Some(span) = span {
            self.labels.push(Label::secondary(span, message));
        }
        self
    }

    #[must_use]
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    #[must_use]
    pub fn with_help_opt(mut self, help: Option<String>) -> Diagnostic {
        if help.is_some() {
            self.help = help;
        }
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Start of the primary label, for sorting diagnostics in source order.
    pub fn primary_start(&self) -> Option<u32> {
        self.labels.iter().find(|l| l.primary).map(|l| l.span.start)
    }

    /// Sorts `diagnostics` in source order (stably; those without a primary label last).
    /// One shared sort for the parser, the verifier and `load` (a standard sort per call
    /// site is a few KiB of wasm each).
    pub fn sort_in_source_order(diagnostics: &mut [Diagnostic]) {
        crate::sort::sort_by_key(diagnostics, |d| d.primary_start().unwrap_or(u32::MAX));
    }
}
