//! The machine: GPU ⊃ cluster ⊃ CTA boxes, memory and mbarriers.

use leptos::prelude::*;

/// Nested scope boxes with the machine state at the current step.
#[component]
pub fn MachineView() -> impl IntoView {
    view! {
        <section class="panel panel-machine" data-region="machine" aria-labelledby="machine-title">
            <h2 id="machine-title">"Machine"</h2>
            <p class="panel-empty">
                "The GPU, its clusters and CTAs, memory and mbarriers are drawn here."
            </p>
        </section>
    }
}
