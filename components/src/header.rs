//! The page header: name, route navigation, the tour and the theme toggle.

use leptos::prelude::*;

use crate::route::{Route, Section};
use crate::state::use_app_state;
use crate::theme::ThemeToggle;

/// Top bar shown on every page.
#[component]
pub fn Header(
    /// The current route, to mark the active nav entry.
    #[prop(into)]
    route: Signal<Route>,
) -> impl IntoView {
    let current = move |section: Section| {
        move || (route.get().section() == section).then_some("page")
    };
    let state = use_app_state();
    // The tour runs on the explorer: go there (it starts on arrival) or start it here.
    let tour = move |_| {
        state.tour_requested.set(true);
        if route.get_untracked().section() != Section::Explore {
            let _ = window().location().set_hash(&Route::Explore.href());
        }
    };
    view! {
        <header class="site-header">
            <a class="brand" href=Route::Explore.href()>
                <svg class="brand-mark" viewBox="0 0 32 32" width="22" height="22" aria-hidden="true">
                    <rect width="32" height="32" rx="6" fill="#1d3b53" />
                    <path d="M8 6v20M16 6v20M24 6v20" stroke="#8fd3ff" stroke-width="3" stroke-linecap="round" />
                    <path d="M5 12h22M5 20h22" stroke="#ffb454" stroke-width="2.5" stroke-linecap="round" />
                </svg>
                <span class="brand-name">"fencelab"</span>
                <span class="brand-tag">"PTX memory model explorer"</span>
            </a>
            <nav aria-label="Main">
                <ul>
                    <li>
                        <a href=Route::Explore.href() aria-current=current(Section::Explore)>
                            "Explore"
                        </a>
                    </li>
                    <li>
                        <a href=Route::Lesson(None).href() aria-current=current(Section::Lessons)>
                            "Lessons"
                        </a>
                    </li>
                </ul>
            </nav>
            <button type="button" class="tour-button" data-tour-restart="" on:click=tour
                title="Take the three-stop tour of the explorer again">"Tour"</button>
            <ThemeToggle />
        </header>
    }
}
