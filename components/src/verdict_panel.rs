//! The checker's verdict on the scenario.

use leptos::prelude::*;

/// Verdict, findings and outcomes.
#[component]
pub fn VerdictPanel() -> impl IntoView {
    view! {
        <section class="panel panel-verdict" data-region="verdict" aria-labelledby="verdict-title">
            <h2 id="verdict-title">"Verdict"</h2>
            <p class="panel-empty">
                "The checker is not part of this build yet; verdicts appear here once it is."
            </p>
        </section>
    }
}
