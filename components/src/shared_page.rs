//! `#/s/<code>`: a scenario shared as a link. The link codec (`fencelab::link`) is being
//! written separately; until it lands the page says it cannot open the code yet.

use leptos::prelude::*;

use crate::route::Route;

/// Opens a shared scenario link.
#[component]
pub fn SharedPage(
    /// The code after `#/s/`, as written in the URL.
    code: String,
) -> impl IntoView {
    view! {
        <section class="page-message" data-page="shared">
            <h1>"Shared scenario"</h1>
            <p>
                "This build cannot open shared links yet: the link decoder is not part of it. "
                "The code is kept below so nothing is lost."
            </p>
            <p class="link-code"><code>{code}</code></p>
            <p><a href=Route::Explore.href()>"Open the explorer"</a></p>
        </section>
    }
}
