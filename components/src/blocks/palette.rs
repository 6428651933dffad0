//! The palette: instruction blocks grouped by family. Click adds to the selected lane;
//! drag drops anywhere in any lane.

use std::sync::Arc;

use fencelab::model::Scenario;
use fencelab::palette::{catalog, Edit};
use leptos::prelude::*;
use web_sys::DragEvent;

use super::{BlockCtx, Dragged};

/// Every family's blocks, with operands defaulted for the selected lane.
#[component]
pub fn Palette(
    /// Block view handles.
    ctx: BlockCtx,
    /// The scenario the blocks will go into.
    scenario: Arc<Scenario>,
) -> impl IntoView {
    let lane_name = {
        let scenario = scenario.clone();
        move || scenario.threads.get(ctx.lane.get()).map(|t| t.name.clone())
    };
    let hint_name = lane_name.clone();
    let groups = move || {
        let lane = ctx.lane.get();
        let target = lane_name().unwrap_or_default();
        catalog(&scenario, lane)
            .into_iter()
            .map(|(family, entries)| {
                let items = entries
                    .into_iter()
                    .map(|entry| {
                        let drag_instr = entry.instr.clone();
                        let instr = entry.instr;
                        let title = fencelab::syntax::instr_text(&instr);
                        let aria = format!("Add {} to {target}", entry.label);
                        view! {
                            <li>
                                <button type="button" class="palette-block" draggable="true"
                                    data-family=family.id() title=title aria-label=aria
                                    on:click=move |_| {
                                        let thread = ctx.lane.get_untracked();
                                        ctx.run(Edit::Insert { thread, at: usize::MAX, instr: instr.clone() });
                                    }
                                    on:dragstart=move |ev: DragEvent| {
                                        start_drag(&ev, "palette");
                                        ctx.dragged.set_value(Some(Dragged::New(drag_instr.clone())));
                                    }
                                    on:dragend=move |_| ctx.dragged.set_value(None)>
                                    {entry.label}
                                </button>
                            </li>
                        }
                    })
                    .collect_view();
                view! {
                    <div class="palette-family" data-family=family.id()>
                        <h3>{family.title()}</h3>
                        <ul>{items}</ul>
                    </div>
                }
            })
            .collect_view()
    };
    view! {
        <nav class="palette" aria-label="Instruction palette">
            <p class="palette-hint">
                {move || match hint_name() {
                    Some(name) => format!("Click adds to “{name}”; drag to place anywhere."),
                    None => "Add a thread first.".to_string(),
                }}
            </p>
            {groups}
        </nav>
    }
}

/// Starts an HTML5 drag. Some browsers only drag when data is set.
pub fn start_drag(ev: &DragEvent, what: &str) {
    if let Some(data) = ev.data_transfer() {
        let _ = data.set_data("text/plain", what);
        data.set_effect_allowed("move");
    }
}
