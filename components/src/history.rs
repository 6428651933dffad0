//! Undo/redo for the editor text. Snapshots, not diffs: scenarios are a few KiB.

/// Past and undone texts around the current one.
#[derive(Clone, Debug, Default)]
pub struct EditHistory {
    undo: Vec<String>,
    redo: Vec<String>,
}

/// Snapshots kept; older ones are dropped.
const LIMIT: usize = 200;

impl EditHistory {
    /// Records that the text is about to change from `before`. With `coalesce`, a run of
    /// typing stays one undo step: only the first edit of the run records.
    pub fn record(&mut self, before: &str, coalesce: bool) {
        self.redo.clear();
        if coalesce && !self.undo.is_empty() {
            return;
        }
        if self.undo.last().map(String::as_str) == Some(before) {
            return;
        }
        if self.undo.len() == LIMIT {
            self.undo.remove(0);
        }
        self.undo.push(before.to_string());
    }

    /// The text to show after undoing from `current`, if there is one.
    pub fn undo(&mut self, current: &str) -> Option<String> {
        let previous = self.undo.pop()?;
        self.redo.push(current.to_string());
        Some(previous)
    }

    /// The text to show after redoing from `current`, if there is one.
    pub fn redo(&mut self, current: &str) -> Option<String> {
        let next = self.redo.pop()?;
        self.undo.push(current.to_string());
        Some(next)
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undo_then_redo_walks_back_and_forth() {
        let mut h = EditHistory::default();
        h.record("a", false);
        h.record("ab", false);
        assert_eq!(h.undo("abc").as_deref(), Some("ab"));
        assert_eq!(h.undo("ab").as_deref(), Some("a"));
        assert_eq!(h.undo("a"), None);
        assert_eq!(h.redo("a").as_deref(), Some("ab"));
        assert_eq!(h.redo("ab").as_deref(), Some("abc"));
        assert!(!h.can_redo());
    }

    #[test]
    fn coalesced_typing_is_one_step() {
        let mut h = EditHistory::default();
        h.record("", false);
        h.record("x", true);
        h.record("xy", true);
        assert_eq!(h.undo("xyz").as_deref(), Some(""));
        assert!(!h.can_undo());
    }

    #[test]
    fn a_new_edit_forgets_redo() {
        let mut h = EditHistory::default();
        h.record("a", false);
        assert!(h.undo("b").is_some());
        assert!(h.can_redo());
        h.record("a", false);
        assert!(!h.can_redo());
    }

    #[test]
    fn history_is_bounded() {
        let mut h = EditHistory::default();
        for i in 0..(LIMIT + 10) {
            h.record(&i.to_string(), false);
        }
        let mut undone = 0;
        let mut cur = String::new();
        while let Some(prev) = h.undo(&cur) {
            cur = prev;
            undone += 1;
        }
        assert_eq!(undone, LIMIT);
        assert_eq!(cur, "10");
    }
}
