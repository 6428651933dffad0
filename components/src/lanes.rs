//! One lane per agent (thread, TMA engine, tensor core) with its current instruction.

use leptos::prelude::*;

/// Agent lanes of the current execution.
#[component]
pub fn Lanes() -> impl IntoView {
    view! {
        <section class="panel panel-lanes" data-region="lanes" aria-labelledby="lanes-title">
            <h2 id="lanes-title">"Threads and agents"</h2>
            <p class="panel-empty">
                "Each thread and asynchronous agent gets a lane here once the scenario parses."
            </p>
        </section>
    }
}
