//! Panels whose code is not in the first load: each lives in a wasm chunk of its own
//! (split off by `scripts/split-app-wasm.sh`, docs/loading.md), fetched the first time the
//! panel is shown. Until then the panel's place says it is loading; if its chunk cannot be
//! fetched, it says so, and a later showing tries again.
//!
//! A split function is declared with `#[leptos::wasm_split::wasm_split(CHUNK, fallible,
//! wasm_split_path = ::leptos::wasm_split)]` and returns `Result<AnyView, ChunkLoadFailed>`:
//! calling it fetches CHUNK (once) and then runs it. Its arguments and result cross an
//! `extern "C"` boundary, so they are concrete types and it must not panic.

use std::future::Future;

use leptos::prelude::*;
use send_wrapper::SendWrapper;

/// A panel's chunk did not load (the browser's console has the network's reason).
#[derive(Clone, Copy, Debug)]
pub struct ChunkLoadFailed;

impl From<leptos::wasm_split::SplitLoaderError> for ChunkLoadFailed {
    fn from(_: leptos::wasm_split::SplitLoaderError) -> ChunkLoadFailed {
        ChunkLoadFailed
    }
}

/// The view a split function builds, once its chunk is here. `what` names the panel in
/// the loading and failure messages ("the lessons"). Once the chunk has loaded, the
/// future is ready at its first poll and the panel renders with no loading state.
pub fn lazy_panel(what: &'static str, panel: impl Future<Output = Result<AnyView, ChunkLoadFailed>> + 'static) -> impl IntoView {
    // The page's futures never leave its one thread; Suspend asks for `Send` because
    // server rendering would.
    let panel = SendWrapper::new(panel);
    view! {
        <Suspense fallback=move || view! { <p class="lazy-loading" data-lazy-loading=what aria-busy="true">{format!("Loading {what}…")}</p> }>
            {Suspend::new(async move {
                match panel.await {
                    Ok(view) => view,
                    Err(ChunkLoadFailed) => view! {
                        <p class="step-error lazy-failed" data-lazy-failed=what role="alert">
                            {format!("The code for {what} did not load (see the browser's console). Reload the page to try again.")}
                        </p>
                    }
                    .into_any(),
                }
            })}
        </Suspense>
    }
}
