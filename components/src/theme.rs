//! Light and dark themes: the system preference until the user picks one, then that
//! choice, kept in localStorage. CSS reads `data-theme` on `<html>`.

use leptos::prelude::*;

const STORAGE_KEY: &str = "fencelab-theme";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

impl Theme {
    pub fn name(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    pub fn from_name(name: &str) -> Option<Theme> {
        match name {
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }

    pub fn other(self) -> Theme {
        match self {
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::Light,
        }
    }
}

/// The stored choice, else what the system prefers.
pub fn initial_theme() -> Theme {
    let stored = window()
        .local_storage()
        .ok()
        .flatten()
        .and_then(|storage| storage.get_item(STORAGE_KEY).ok().flatten())
        .and_then(|name| Theme::from_name(&name));
    stored.unwrap_or_else(|| {
        let dark = window()
            .match_media("(prefers-color-scheme: dark)")
            .ok()
            .flatten()
            .is_some_and(|query| query.matches());
        if dark {
            Theme::Dark
        } else {
            Theme::Light
        }
    })
}

/// Marks `<html>` so the stylesheet switches palettes.
pub fn apply_theme(theme: Theme) {
    if let Some(root) = document().document_element() {
        // Failing to set an attribute only leaves the previous palette; nothing to report.
        let _ = root.set_attribute("data-theme", theme.name());
    }
}

fn store_theme(theme: Theme) {
    if let Ok(Some(storage)) = window().local_storage() {
        // Private browsing may refuse storage; the toggle still works for this visit.
        let _ = storage.set_item(STORAGE_KEY, theme.name());
    }
}

/// A button switching between light and dark; the choice survives reloads.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let theme = RwSignal::new(initial_theme());
    Effect::new(move |_| apply_theme(theme.get()));
    let toggle = move |_| {
        let next = theme.get_untracked().other();
        store_theme(next);
        theme.set(next);
    };
    let label = move || format!("Switch to {} theme", theme.get().other().name());
    view! {
        <button
            type="button"
            class="theme-toggle"
            on:click=toggle
            aria-label=label
            title=label
        >
            <span aria-hidden="true">{move || if theme.get() == Theme::Dark { "☾" } else { "☀" }}</span>
            <span class="theme-name">{move || theme.get().name()}</span>
        </button>
    }
}
