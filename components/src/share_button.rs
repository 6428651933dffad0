//! "Share": encodes the scenario, mode and current steps as a link (`fencelab::link`).

use fencelab::link::{share_url, SharePayload, TraceRef};
use leptos::prelude::*;

use crate::state::use_app_state;

/// Makes a link to what is on screen and shows it, ready to copy.
#[component]
pub fn ShareButton() -> impl IntoView {
    let state = use_app_state();
    let link = RwSignal::new(None::<Result<String, String>>);
    let make = move |_| {
        let made = state.analysis.with_untracked(|a| {
            if a.has_errors() {
                return Err("fix the errors in the program before sharing it".to_string());
            }
            let mut payload = SharePayload::scenario_only(a.loaded.scenario.clone());
            payload.view.mode = state.mode.get_untracked();
            let steps = state.read_tape(|t| (t.stepper().schedule(), t.position()));
            if let Some((schedule, position)) = steps.filter(|(s, _)| !s.steps.is_empty()) {
                payload.view.trace = Some(TraceRef::Schedule(schedule));
                payload.view.step = u32::try_from(position).ok();
            }
            let base = window().location().href().unwrap_or_default();
            share_url(&base, &payload).map_err(|e| e.to_string())
        });
        link.set(Some(made));
    };
    view! {
        <button type="button" on:click=make title="Make a link to this scenario and its steps">"Share"</button>
        {move || link.get().map(|made| match made {
            Ok(url) => view! {
                <input class="share-link" type="text" readonly aria-label="Link to this scenario"
                    prop:value=url on:focus:target=move |ev| ev.target().select() />
            }.into_any(),
            Err(why) => view! { <span class="step-error" role="alert">{why}</span> }.into_any(),
        })}
    }
}
