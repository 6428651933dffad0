//! A block's modifiers as dropdowns. The core offers only legal choices and marks the
//! defaults; picking one replaces the instruction.

use std::sync::Arc;

use fencelab::model::Scenario;
use fencelab::palette::{slots, Edit};
use leptos::prelude::*;

use super::BlockCtx;

/// Dropdowns for every modifier slot of instruction `at` of `thread`.
#[component]
pub fn Chips(
    /// Block view handles.
    ctx: BlockCtx,
    /// The scenario the instruction is in.
    scenario: Arc<Scenario>,
    /// Thread index.
    thread: usize,
    /// Instruction index.
    at: usize,
) -> impl IntoView {
    let slots = slots(&scenario, thread, at);
    if slots.is_empty() {
        return ().into_any();
    }
    let fields = slots
        .into_iter()
        .map(|slot| {
            let title = slot.kind.title();
            let choices = Arc::new(slot.choices);
            let options = choices
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    view! {
                        <option value=i.to_string() selected=c.selected class:default=c.is_default>
                            {c.label.clone()}
                        </option>
                    }
                })
                .collect_view();
            let single = choices.len() < 2;
            view! {
                <label class="chip" class:chip-fixed=single>
                    <span class="chip-name">{title}</span>
                    <select aria-label=title disabled=single on:change:target=move |ev| {
                        let picked = ev.target().value().parse::<usize>().ok();
                        if let Some(choice) = picked.and_then(|i| choices.get(i)) {
                            if !choice.selected {
                                ctx.run(Edit::Replace { thread, at, instr: choice.instr.clone() });
                            }
                        }
                    }>{options}</select>
                </label>
            }
        })
        .collect_view();
    view! { <div class="chips">{fields}</div> }.into_any()
}
