//! Embed mode (`index.html?embed#/s/<code>`): for iframes in course pages. No site chrome,
//! no editing: the scenario, its stepper and verdict, and a link out to the full explorer.

use leptos::prelude::*;

use super::button::page_base;
use crate::lanes::lanes_panel;
use crate::lessons::Source;
use crate::lazy::lazy_panel;
use crate::machine_view::machine_panel;
use crate::state::use_app_state;
use crate::verdict_panel::VerdictPanel;

/// Whether the page was opened with `?embed` (any value) in its query.
pub fn is_embed() -> bool {
    let search = window().location().search().unwrap_or_default();
    search.trim_start_matches('?').split('&').any(|pair| pair.split('=').next() == Some("embed"))
}

/// The embedded explorer for the scenario already in the app state.
#[component]
pub fn EmbedView() -> impl IntoView {
    let state = use_app_state();
    let hash = window().location().hash().unwrap_or_default();
    let full = format!("{}{hash}", page_base());
    let machine = RwSignal::new(false);
    view! {
        <div class="embed" data-page="embed">
            <div class="embed-bar">
                <span class="brand-name">"fencelab"</span>
                <a class="embed-out" href=full target="_blank" rel="noopener noreferrer">"Open in the full explorer ↗"</a>
            </div>
            // The verdict first: it is what a reader of the course page came for.
            <VerdictPanel />
            <div class="embed-cols">
                <section class="panel embed-source" aria-label="Scenario">
                    {move || view! { <Source text=state.source.get() /> }}
                </section>
                <div class="embed-right">
                    {lazy_panel("the lanes", lanes_panel(true))}
                </div>
            </div>
            <button type="button" class="embed-machine-toggle" aria-pressed=move || machine.get().to_string()
                on:click=move |_| machine.update(|m| *m = !*m)>
                {move || if machine.get() { "Hide the machine" } else { "Show the machine" }}
            </button>
            {move || machine.get().then(|| lazy_panel("the machine", machine_panel()))}
        </div>
    }
}
