//! "Copy link" and "Copy link to this step": encode the explorer's state into a
//! `#/s/<code>` link, put it on the clipboard, and always show it in a selectable field
//! so a browser without clipboard access still lets the learner copy it by hand.
//!
//! The encoder (`fencelab::link::encode_with_source` and the deflate it runs) is a wasm
//! chunk of its own (`crate::lazy`, docs/loading.md): only a copy needs it, so the first
//! click fetches it and the status says so meanwhile.

use fencelab::link::{encode_with_source, ROUTE};
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use super::restore::{payload_of, Shared};
use crate::state::use_app_state;

/// Why a link was not made.
enum LinkFailure {
    /// The encoder's chunk did not load (the browser's console has the network's reason).
    ChunkLoadFailed,
    /// The scenario cannot be shared (errors in the program, too large).
    Unshareable(String),
}

impl From<leptos::wasm_split::SplitLoaderError> for LinkFailure {
    fn from(_: leptos::wasm_split::SplitLoaderError) -> LinkFailure {
        LinkFailure::ChunkLoadFailed
    }
}

/// The link code for `payload`, from the share chunk.
#[leptos::wasm_split::wasm_split(share, fallible, wasm_split_path = ::leptos::wasm_split)]
fn encode_link(shared: Shared) -> Result<String, LinkFailure> {
    encode_with_source(&shared.payload, &shared.comments, &shared.source).map_err(|e| LinkFailure::Unshareable(e.to_string()))
}

/// What the share bar says after a click.
#[derive(Clone)]
enum ShareStatus {
    /// The encoder's chunk is on its way (the first copy of a visit).
    Loading,
    Copied,
    Failed(String),
    ChunkLoadFailed,
}

/// The share buttons, the link field and the copy status.
#[component]
pub fn ShareBar() -> impl IntoView {
    let state = use_app_state();
    let link = RwSignal::new(None::<String>);
    let status = RwSignal::new(None::<ShareStatus>);
    let share = move |at_step: bool| {
        let shared = match payload_of(state, at_step) {
            Ok(made) => made,
            Err(why) => {
                link.set(None);
                status.set(Some(ShareStatus::Failed(format!("cannot make a link: {why}"))));
                return;
            }
        };
        link.set(None);
        status.set(Some(ShareStatus::Loading));
        spawn_local(async move {
            let code = match encode_link(shared).await {
                Ok(code) => code,
                Err(failure) => {
                    let _ = status.try_set(Some(match failure {
                        LinkFailure::ChunkLoadFailed => ShareStatus::ChunkLoadFailed,
                        LinkFailure::Unshareable(why) => ShareStatus::Failed(format!("cannot make a link: {why}")),
                    }));
                    return;
                }
            };
            let url = format!("{}{ROUTE}{code}", page_base());
            // The learner may have left the explorer while the chunk loaded.
            if link.try_set(Some(url.clone())).is_some() {
                return;
            }
            let copied = copy_to_clipboard(&url).await;
            let _ = status.try_set(Some(match copied {
                Ok(()) => ShareStatus::Copied,
                Err(why) => ShareStatus::Failed(format!("{why}: select the link below and copy it")),
            }));
        });
    };
    view! {
        <div class="share-bar" role="toolbar" aria-label="Share">
            <button type="button" class="copy-link" on:click=move |_| share(false)
                title="Copy a link to this scenario">"Copy link"</button>
            <button type="button" class="copy-step-link" on:click=move |_| share(true)
                title="Copy a link to this scenario at the current step">"Copy link to this step"</button>
            {move || status.get().map(|status| match status {
                ShareStatus::Loading => view! {
                    <span class="share-status lazy-loading" data-lazy-loading="the link maker" aria-busy="true" role="status">"Loading the link maker…"</span>
                }.into_any(),
                ShareStatus::Copied => view! { <span class="share-status ok" role="status">"link copied"</span> }.into_any(),
                ShareStatus::Failed(why) => view! { <span class="share-status bad" role="status">{why}</span> }.into_any(),
                ShareStatus::ChunkLoadFailed => view! {
                    <span class="share-status bad lazy-failed" data-lazy-failed="the link maker" role="alert">
                        "The code for the link maker did not load (see the browser's console). Click again to try again."
                    </span>
                }.into_any(),
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
