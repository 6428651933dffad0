//! `#/s/<code>`: a scenario shared as a link. Decoding is the core's (`fencelab::link`);
//! a good link opens in the explorer, a bad one says what is wrong with it.

use fencelab::link::{decode, TraceRef};
use leptos::prelude::*;

use crate::explore::ExplorePage;
use crate::route::Route;
use crate::state::use_app_state;

/// Opens a shared scenario link.
#[component]
pub fn SharedPage(
    /// The code after `#/s/`, as written in the URL.
    code: String,
) -> impl IntoView {
    let state = use_app_state();
    match decode(&code) {
        Ok(payload) => {
            let text = fencelab::syntax::print(&payload.scenario);
            let schedule = match payload.view.trace {
                Some(TraceRef::Schedule(schedule)) => Some(schedule),
                _ => None,
            };
            state.pending_schedule.set(schedule);
            state.mode.set(payload.view.mode);
            state.edit(text, false);
            view! {
                <p class="shared-banner" data-page="shared" role="status">
                    "Opened a shared scenario. Edits stay in this tab; share again to send them."
                </p>
                <ExplorePage />
            }
            .into_any()
        }
        Err(err) => view! {
            <section class="page-message" data-page="shared">
                <h1>"This link cannot be opened"</h1>
                <p>{err.to_string()}</p>
                <p class="link-code"><code>{code}</code></p>
                <p><a href=Route::Explore.href()>"Open the explorer"</a></p>
            </section>
        }
        .into_any(),
    }
}
