//! "Copy link" and "Copy link to this step": encode the explorer's state into a
//! `#/s/<code>` link, put it on the clipboard, and always show it in a selectable field
//! so a browser without clipboard access still lets the learner copy it by hand.

use fencelab::link::{encode_with_comments, ROUTE};
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use super::restore::payload_of;
use crate::state::use_app_state;

/// The share buttons, the link field and the copy status.
#[component]
pub fn ShareBar() -> impl IntoView {
    let state = use_app_state();
    let link = RwSignal::new(None::<String>);
    let status = RwSignal::new(None::<(bool, String)>);
    let share = move |at_step: bool| {
        let made = payload_of(state, at_step).and_then(|(p, comments)| encode_with_comments(&p, &comments).map_err(|e| e.to_string()));
        match made {
            Ok(code) => {
                let url = format!("{}{ROUTE}{code}", page_base());
                link.set(Some(url.clone()));
                spawn_local(async move {
                    let copied = copy_to_clipboard(&url).await;
                    let _ = status.try_set(Some(match copied {
                        Ok(()) => (true, "link copied".into()),
                        Err(why) => (false, format!("{why}: select the link below and copy it")),
                    }));
                });
            }
            Err(why) => {
                link.set(None);
                status.set(Some((false, format!("cannot make a link: {why}"))));
            }
        }
    };
    view! {
        <div class="share-bar" role="toolbar" aria-label="Share">
            <button type="button" class="copy-link" on:click=move |_| share(false)
                title="Copy a link to this scenario">"Copy link"</button>
            <button type="button" class="copy-step-link" on:click=move |_| share(true)
                title="Copy a link to this scenario at the current step">"Copy link to this step"</button>
            {move || status.get().map(|(ok, text)| view! {
                <span class="share-status" class:ok=ok class:bad=!ok role="status">{text}</span>
            })}
            {move || link.get().map(|url| view! {
                <input class="share-link" type="text" readonly aria-label="Share link"
                    prop:value=url
                    on:focus:target=move |ev| ev.target().select() />
            })}
        </div>
    }
}

/// The page URL without fragment or query, so an embedded page shares a full-app link.
pub fn page_base() -> String {
    let location = window().location();
    let origin = location.origin().unwrap_or_default();
    let path = location.pathname().unwrap_or_default();
    format!("{origin}{path}")
}

async fn copy_to_clipboard(text: &str) -> Result<(), String> {
    let navigator = window().navigator();
    // `navigator.clipboard` is missing outside secure contexts; calling it would throw.
    let available = js_sys::Reflect::get(&navigator, &JsValue::from_str("clipboard"))
        .is_ok_and(|c| !c.is_undefined() && !c.is_null());
    if !available {
        return Err("this browser gives no clipboard access here".into());
    }
    JsFuture::from(navigator.clipboard().write_text(text))
        .await
        .map(|_| ())
        .map_err(|_| "the browser refused clipboard access".into())
}
