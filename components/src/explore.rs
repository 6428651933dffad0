//! The explorer page: the four regions a scenario is worked in.

use std::time::Duration;

use leptos::prelude::*;

use crate::editor::Editor;
use crate::lanes::lanes_panel;
use crate::lazy::{lazy_panel, ChunkGate};
use crate::machine_view::machine_panel;
use crate::verdict_panel::VerdictPanel;

/// The editor on the left; the verdict, agent lanes and the machine on the right.
#[component]
pub fn ExplorePage() -> impl IntoView {
    let state = crate::state::use_app_state();
    crate::step_controls::install_shortcuts(state);
    // The page renders in tasks of its own, one after the other: the verdict first, and
    // the left column's head, the editor, then the lanes and the machine, only after a
    // frame has shown it. No one task of the load is then long (> 50 ms): neither the
    // rendering nor the layout of the whole page happens at once. The first check
    // (`CheckClient`) runs before them all, so the verdict panel renders with its answer
    // and the next frame puts it on screen.
    let verdict = RwSignal::new(false);
    let left_column = RwSignal::new(false);
    let editor = RwSignal::new(false);
    let right_column = RwSignal::new(false);
    // The chunks the verdict's panels want start their fetches in a task after that frame
    // too (`ChunkGate`), or at once if the page goes before then.
    let chunks = use_context::<ChunkGate>();
    if let Some(gate) = chunks {
        gate.hold_for_verdict();
    }
    let verdict_shown = move || chunks.into_iter().for_each(ChunkGate::verdict_shown);
    on_cleanup(verdict_shown);
    // The page may be gone by then (the learner navigated away at once).
    let show = move |stage: RwSignal<bool>| {
        let _ = stage.try_set(true);
    };
    set_timeout(
        move || {
            show(verdict);
            request_animation_frame(move || {
                set_timeout(verdict_shown, Duration::ZERO);
                set_timeout(move || show(left_column), Duration::ZERO);
                set_timeout(move || show(editor), Duration::ZERO);
                set_timeout(move || show(right_column), Duration::ZERO);
            });
        },
        Duration::ZERO,
    );
    view! {
        <div class="explore" data-page="explore">
            <h1 class="visually-hidden">"Interleaving explorer"</h1>
            <div class="explore-col explore-col-left">
                {move || left_column.get().then(|| view! {
                    <crate::guided::GuidedStart state=state />
                    {move || state.return_to.get().map(|(href, title)| view! {
                        <p class="return-bar" data-return-to="">
                            <a href=href on:click=move |_| state.return_to.set(None)>{format!("← Back to the lesson: {title}")}</a>
                            <span class="muted">" (Undo brings back the program you had here before.)"</span>
                        </p>
                    })}
                    <crate::share::ShareBar />
                    <crate::open_kernel::OpenKernel />
                    {move || editor.get().then(|| view! { <crate::blocks::ProgramTabs><Editor /></crate::blocks::ProgramTabs> })}
                })}
            </div>
            // The verdict heads the right column, so it and its findings are on screen
            // at once however tall the program (text or blocks) is.
            <div class="explore-col explore-col-right">
                {move || verdict.get().then(|| view! { <VerdictPanel /> })}
                {move || right_column.get().then(|| view! { {lazy_panel("the lanes", lanes_panel(false))} {lazy_panel("the machine", machine_panel())} })}
            </div>
        </div>
    }
}
