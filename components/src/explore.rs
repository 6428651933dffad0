//! The explorer page: the four regions a scenario is worked in.

use leptos::prelude::*;

use crate::editor::Editor;
use crate::lanes::Lanes;
use crate::machine_view::MachineView;
use crate::verdict_panel::VerdictPanel;

/// The editor on the left; the verdict, agent lanes and the machine on the right.
#[component]
pub fn ExplorePage() -> impl IntoView {
    let state = crate::state::use_app_state();
    crate::step_controls::install_shortcuts(state);
    // The right column renders in a task of its own, after the editor and the verdict,
    // which shortens the task that first shows the page.
    let right_column = RwSignal::new(false);
    // The page may be gone by then (the learner navigated away at once).
    set_timeout(
        move || {
            let _ = right_column.try_set(true);
        },
        std::time::Duration::ZERO,
    );
    view! {
        <div class="explore" data-page="explore">
            <h1 class="visually-hidden">"Interleaving explorer"</h1>
            <div class="explore-col explore-col-left">
                <crate::guided::GuidedStart state=state />
                {move || state.return_to.get().map(|(href, title)| view! {
                    <p class="return-bar" data-return-to="">
                        <a href=href on:click=move |_| state.return_to.set(None)>{format!("← Back to the lesson: {title}")}</a>
                        <span class="muted">" (Undo brings back the program you had here before.)"</span>
                    </p>
                })}
                <crate::share::ShareBar />
                <crate::blocks::ProgramTabs><Editor /></crate::blocks::ProgramTabs>
            </div>
            // The verdict heads the right column, so it and its findings are on screen
            // at once however tall the program (text or blocks) is.
            <div class="explore-col explore-col-right">
                <VerdictPanel />
                {move || right_column.get().then(|| view! { <Lanes /> <MachineView /> })}
            </div>
        </div>
    }
}
