//! The editor's view of a parse: `fencelab::load` diagnostics placed at line:col.

use std::sync::Arc;

use fencelab::diag::{line_col, Diagnostic, Severity};
use fencelab::Loaded;

/// One diagnostic as the editor shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiagView {
    pub severity: Severity,
    pub code: String,
    pub message: String,
    /// 1-based position of the primary label; `None` when the problem has no place.
    pub line: Option<usize>,
    pub col: Option<usize>,
    /// Byte offset of the primary label, to move the caret there.
    pub offset: Option<u32>,
    /// The primary label's own text (`not a modifier of `ld``), when it has one.
    pub label: Option<String>,
    pub notes: Vec<String>,
    pub help: Option<String>,
}

impl DiagView {
    pub fn from_diagnostic(diag: &Diagnostic, src: &str) -> DiagView {
        let primary = diag.labels.iter().find(|l| l.primary);
        let position = primary.map(|l| line_col(src, l.span.start));
        DiagView {
            severity: diag.severity,
            code: diag.code.clone(),
            message: diag.message.clone(),
            line: position.map(|p| p.0),
            col: position.map(|p| p.1),
            offset: primary.map(|l| l.span.start),
            label: primary.map(|l| l.message.clone()).filter(|m| !m.is_empty()),
            notes: diag.notes.clone(),
            help: diag.help.clone(),
        }
    }

    pub fn severity_name(&self) -> &'static str {
        self.severity.as_str()
    }
}

/// A loaded text. Equality is by text, so a `Memo` re-runs its readers only on real edits.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub source: String,
    pub loaded: Arc<Loaded>,
    pub diagnostics: Arc<Vec<DiagView>>,
}

impl PartialEq for Analysis {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Analysis {
    /// `source` parsed and verified.
    pub fn of(source: &str) -> Analysis {
        Analysis::from_loaded(source, fencelab::load(source))
    }

    /// What the editor shows for `source`: the build's load when it is the starter
    /// scenario's text (`crate::starter::loaded`), so the explorer's first render runs no
    /// parser; a parse otherwise.
    pub fn for_editor(source: &str) -> Analysis {
        if source == crate::state::STARTER_SCENARIO {
            Analysis::from_loaded(source, crate::starter::loaded())
        } else {
            Analysis::of(source)
        }
    }

    fn from_loaded(source: &str, loaded: Loaded) -> Analysis {
        let diagnostics = loaded.diagnostics.iter().map(|d| DiagView::from_diagnostic(d, source)).collect();
        Analysis { source: source.to_string(), loaded: Arc::new(loaded), diagnostics: Arc::new(diagnostics) }
    }

    pub fn has_errors(&self) -> bool {
        self.loaded.has_errors()
    }

    /// Worst severity on each 1-based line, for gutter marks.
    pub fn line_marks(&self) -> Vec<(usize, Severity)> {
        let mut marks: Vec<(usize, Severity)> = Vec::new();
        for d in self.diagnostics.iter() {
            let Some(line) = d.line else { continue };
            match marks.iter_mut().find(|(l, _)| *l == line) {
                Some(mark) => mark.1 = mark.1.max(d.severity),
                None => marks.push((line, d.severity)),
            }
        }
        marks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_scenario_has_no_errors() {
        let analysis = Analysis::of(crate::state::STARTER_SCENARIO);
        assert!(!analysis.has_errors(), "{:?}", analysis.diagnostics);
    }

    #[test]
    fn typo_is_placed_at_its_line_and_column() {
        let src = "cta A\nglobal x = 0\nthread t @A:\n    ld.aquire.gpu r0, [x]\n";
        let analysis = Analysis::of(src);
        assert!(analysis.has_errors());
        let first = analysis.diagnostics.first().expect("a diagnostic");
        assert_eq!(first.line, Some(4));
        assert!(first.col.is_some_and(|c| c >= 5), "column inside the instruction: {first:?}");
        assert!(first.message.contains("aquire"), "{first:?}");
        assert_eq!(analysis.line_marks(), vec![(4, Severity::Error)]);
    }

    #[test]
    fn the_editor_takes_the_starters_load_from_the_build_and_parses_anything_else() {
        let starter = crate::state::STARTER_SCENARIO;
        let editor = Analysis::for_editor(starter);
        let parsed = Analysis::of(starter);
        assert_eq!(*editor.loaded, *parsed.loaded);
        assert_eq!(editor.diagnostics, parsed.diagnostics);
        let typo = format!("{starter}\nthread late @nowhere:\n");
        assert!(Analysis::for_editor(&typo).has_errors(), "an edited text is parsed afresh");
    }

    #[test]
    fn equality_is_by_text() {
        assert_eq!(Analysis::of("cta A\n"), Analysis::of("cta A\n"));
        assert_ne!(Analysis::of("cta A\n"), Analysis::of("cta B\n"));
    }
}
