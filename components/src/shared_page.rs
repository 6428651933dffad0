//! `#/s/<code>`: a scenario shared as a link. A link is untrusted input: it is decoded by
//! `fencelab::link` (which bounds size and nesting), and every text from it reaches the
//! page as a text node, never as markup.

use leptos::prelude::*;

use crate::explore::ExplorePage;
use crate::share::{is_embed, restore, EmbedView};
use crate::state::use_app_state;

/// Opens a shared scenario in the explorer (or the embed view), or says why it cannot.
#[component]
pub fn SharedPage(
    /// The code after `#/s/`, as written in the URL.
    code: String,
) -> impl IntoView {
    let state = use_app_state();
    let problem = match fencelab::link::decode_full(&code) {
        Ok(decoded) => {
            restore(state, decoded);
            None
        }

        Err(err) => {
            // An empty explorer, so nothing on screen pretends to be what the link held.
            state.edit(String::new(), false);
            Some(err.to_string())
        }
    };
    let embed = is_embed();
    let body = if embed { view! { <EmbedView /> }.into_any() } else { view! { <ExplorePage /> }.into_any() };
    view! {
        <div class="shared-page" data-page=problem.is_none().then_some("shared")>
            {(problem.is_none() && !embed).then(|| view! {
                <p class="shared-banner" role="status">
                    "Opened a shared scenario. Edits stay in this tab; share again to send them."
                </p>
            })}
            {problem.clone().map(|message| view! {
                <div class="link-error" data-page="shared" role="alert">
                    <h1>"This link cannot be opened"</h1>
                    <p class="link-error-message">{message}</p>
                    <p>"The explorer below starts empty. Ask for the link again, or write a scenario."</p>
                </div>
            })}
            {body}
        </div>
    }
}
