//! One lane per thread: its blocks in program order, each with move/duplicate/delete
//! buttons (the keyboard path) and drag handles (the pointer path).

use std::sync::Arc;

use fencelab::model::Scenario;
use fencelab::palette::Edit;
use fencelab::syntax::{default_note, instr_text};
use leptos::prelude::*;
use web_sys::DragEvent;

use super::chips::Chips;
use super::palette::start_drag;
use super::{BlockCtx, Dragged};

/// A thread's program as blocks, and a drop zone after the last one.
#[component]
pub fn Lane(
    /// Block view handles.
    ctx: BlockCtx,
    /// The scenario the lane belongs to.
    scenario: Arc<Scenario>,
    /// Thread index.
    thread: usize,
) -> impl IntoView {
    let Some(th) = scenario.threads.get(thread) else { return ().into_any() };
    let cta = scenario.ctas.get(th.cta).map_or("?", |c| c.name.as_str());
    let heading = format!("{} @{cta}", th.name);
    let count = th.program.len();
    let blocks = (0..count)
        .map(|at| view! { <Block ctx=ctx scenario=scenario.clone() thread=thread at=at /> })
        .collect_view();
    let selected = move || ctx.lane.get() == thread;
    let select_label = format!("Add palette blocks to {}", th.name);
    view! {
        <section class="block-lane" class:selected=selected data-thread=th.name.clone()
            aria-label=format!("Thread {}", th.name)>
            <header class="block-lane-head">
                <h3>{heading}</h3>
                <button type="button" class="lane-select" aria-pressed=move || selected().to_string()
                    aria-label=select_label on:click=move |_| ctx.lane.set(thread)>
                    {move || if selected() { "adding here" } else { "add here" }}
                </button>
            </header>
            <ol class="block-list">{blocks}</ol>
            <div class="block-drop-end"
                on:dragover=|ev: DragEvent| ev.prevent_default()
                on:drop=move |ev: DragEvent| {
                    ev.prevent_default();
                    ctx.drop_at(thread, count);
                }>
                {if count == 0 { "Drop or click blocks to add them" } else { "Drop here to append" }}
            </div>
        </section>
    }
    .into_any()
}

/// One instruction: its text, its modifier choices and its actions.
#[component]
fn Block(ctx: BlockCtx, scenario: Arc<Scenario>, thread: usize, at: usize) -> impl IntoView {
    let program_len = scenario.threads.get(thread).map_or(0, |t| t.program.len());
    let Some(instr) = scenario.threads.get(thread).and_then(|t| t.program.get(at)) else {
        return ().into_any();
    };
    let text = instr_text(instr);
    let name = scenario.threads.get(thread).map_or_else(String::new, |t| t.name.clone());
    let note = default_note(instr).map(|n| format!("= {n} (default)"));
    let over = RwSignal::new(false);
    let last_thread = scenario.threads.len().saturating_sub(1);
    let action = |label: &'static str, icon: &'static str, disabled: bool, edit: Edit| {
        view! {
            <button type="button" class="block-action" aria-label=format!("{label} {text}")
                title=label disabled=disabled on:click=move |_| ctx.run(edit.clone())>{icon}</button>
        }
    };
    view! {
        <li class="block" class:drop-over=move || over.get() draggable="true"
            data-index=at.to_string()
            on:dragstart=move |ev: DragEvent| {
                start_drag(&ev, "block");
                ctx.dragged.set_value(Some(Dragged::Placed { thread, at }));
            }
            on:dragend=move |_| ctx.dragged.set_value(None)
            on:dragover=move |ev: DragEvent| {
                ev.prevent_default();
                over.set(true);
            }
            on:dragleave=move |_| over.set(false)
            on:drop=move |ev: DragEvent| {
                ev.prevent_default();
                over.set(false);
                ctx.drop_at(thread, at);
            }>
            <div class="block-head">
                <span class="block-grip" aria-hidden="true">"⋮⋮"</span>
                <code class="block-text">{text.clone()}</code>
                {move || crate::instr_notes::badges(ctx.state.notes, thread, &name, at)}
                <span class="block-actions">
                    {action("Move up", "↑", at == 0, Edit::Move { thread, at, to_thread: thread, to: at.saturating_sub(1) })}
                    {action("Move down", "↓", at + 1 >= program_len, Edit::Move { thread, at, to_thread: thread, to: at + 2 })}
                    {(last_thread > 0).then(|| {
                        let to_thread = if thread == last_thread { 0 } else { thread + 1 };
                        action("Move to next thread", "→", false, Edit::Move { thread, at, to_thread, to: usize::MAX })
                    })}
                    {action("Duplicate", "⊕", false, Edit::Duplicate { thread, at })}
                    {action("Delete", "✕", false, Edit::Remove { thread, at })}
                </span>
            </div>
            {note.map(|n| view! { <p class="block-note">{n}</p> })}
            <Chips ctx=ctx scenario=scenario.clone() thread=thread at=at />
        </li>
    }
    .into_any()
}
