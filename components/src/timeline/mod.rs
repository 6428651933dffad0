//! The timeline: a swimlane diagram of the steps taken, with synchronizes-with arrows.

mod diagram;
mod geometry;
mod labels;

use leptos::prelude::*;

use crate::lazy::ChunkLoadFailed;

pub use geometry::async_state_word;

/// The timeline, from the timeline's wasm chunk (`crate::lazy`): it is drawn after the
/// first verdict, so its drawing code need not be in the first load.
#[leptos::wasm_split::wasm_split(timeline, fallible, wasm_split_path = ::leptos::wasm_split)]
pub fn timeline_view() -> Result<AnyView, ChunkLoadFailed> {
    Ok(view! { <diagram::Timeline /> }.into_any())
}
