//! The app state every panel reads, provided once at the root.

use leptos::prelude::*;

use crate::history::EditHistory;

/// The scenario shown when the app opens: the intra-CTA handoff from `docs/syntax.md`.
pub const STARTER_SCENARIO: &str = "\
# Intra-CTA handoff through an mbarrier
cta A
shared x @A = 0
mbarrier bar @A count 1

thread producer @A:
    st.shared [x], 42
    mbarrier.arrive.release.cta.shared::cta [bar]

thread consumer @A:
    wait mbarrier.try_wait.parity.acquire.cta.shared::cta [bar], 0
    ld.shared r0, [x]

expect correct
forall (consumer:r0 == 42)
";

/// A pause in typing longer than this starts a new undo step.
const TYPING_PAUSE_MS: f64 = 1000.0;

/// Shared, root-owned signals. Panels read them; only the explorer page writes.
#[derive(Clone, Copy)]
pub struct AppState {
    /// The `.fence` text in the editor: the user's work, never rewritten behind their back.
    pub source: RwSignal<String>,
    /// Undo/redo snapshots of `source`.
    pub history: RwSignal<EditHistory>,
    /// When the last keystroke edit happened (ms), so a burst of typing is one undo step.
    last_typing_ms: StoredValue<Option<f64>>,
}

impl AppState {
    /// Replaces the text, recording the old one for undo. `typing` joins a run of
    /// keystrokes into one undo step.
    pub fn edit(self, text: String, typing: bool) {
        let before = self.source.get_untracked();
        if before == text {
            return;
        }
        let now = js_sys::Date::now();
        let recent = self.last_typing_ms.get_value().is_some_and(|at| now - at < TYPING_PAUSE_MS);
        self.history.update(|h| h.record(&before, typing && recent));
        self.last_typing_ms.set_value(typing.then_some(now));
        self.source.set(text);
    }

    pub fn undo(self) {
        let current = self.source.get_untracked();
        if let Some(text) = self.history.try_update(|h| h.undo(&current)).flatten() {
            self.last_typing_ms.set_value(None);
            self.source.set(text);
        }
    }

    pub fn redo(self) {
        let current = self.source.get_untracked();
        if let Some(text) = self.history.try_update(|h| h.redo(&current)).flatten() {
            self.last_typing_ms.set_value(None);
            self.source.set(text);
        }
    }
}

pub fn provide_app_state() {
    provide_context(AppState {
        source: RwSignal::new(STARTER_SCENARIO.to_string()),
        history: RwSignal::new(EditHistory::default()),
        last_typing_ms: StoredValue::new(None),
    });
}

pub fn use_app_state() -> AppState {
    // Provided by `App` before any page mounts; a missing context is a wiring bug.
    expect_context::<AppState>()
}
