//! The explorer page: the four regions a scenario is worked in.

use leptos::prelude::*;

use crate::editor::Editor;
use crate::lanes::Lanes;
use crate::machine_view::MachineView;
use crate::verdict_panel::VerdictPanel;

/// Editor and verdict on the left, agent lanes and the machine on the right.
#[component]
pub fn ExplorePage() -> impl IntoView {
    crate::step_controls::install_shortcuts(crate::state::use_app_state());
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
                <crate::share::ShareBar />
                <crate::blocks::ProgramTabs><Editor /></crate::blocks::ProgramTabs>
                <VerdictPanel />
            </div>
            <div class="explore-col explore-col-right">
                {move || right_column.get().then(|| view! { <Lanes /> <MachineView /> })}
            </div>
        </div>
    }
}
