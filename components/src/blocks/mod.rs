//! The block builder: a palette of instruction blocks and one lane per thread. Blocks
//! never hold state of their own: every action becomes a core [`Edit`] on the text,
//! which goes through [`AppState::edit`] like typing, so undo/redo covers both views.

mod chips;
mod lane;
mod palette;

use std::sync::Arc;

use fencelab::palette::{apply, Edit};
use fencelab::syntax::{parse, Parsed};
use leptos::prelude::*;

use crate::lazy::{lazy_panel, ChunkLoadFailed};
use crate::state::{use_app_state, AppState};

use lane::Lane;
use palette::Palette;

/// What is being dragged: a palette block (its instruction) or a placed one.
#[derive(Clone, Debug)]
enum Dragged {
    New(fencelab::model::Instr),
    Placed { thread: usize, at: usize },
}

/// The block view's shared handles, given to lanes and the palette.
#[derive(Clone, Copy)]
struct BlockCtx {
    state: AppState,
    /// The lane a palette click adds to.
    lane: RwSignal<usize>,
    dragged: StoredValue<Option<Dragged>>,
    /// Why the last block action did nothing, until the next one.
    error: RwSignal<Option<String>>,
}

impl BlockCtx {
    fn run(self, edit: Edit) {
        let source = self.state.source.get_untracked();
        match apply(&source, &edit) {
            Ok(text) => {
                self.error.set(None);
                self.state.edit(text, false);
            }
            Err(err) => self.error.set(Some(err.to_string())),
        }
    }

    /// Drops what is being dragged before instruction `at` of `thread`.
    fn drop_at(self, thread: usize, at: usize) {
        match self.dragged.get_value() {
            Some(Dragged::New(instr)) => self.run(Edit::Insert { thread, at, instr }),
            Some(Dragged::Placed { thread: from, at: from_at }) => {
                self.run(Edit::Move { thread: from, at: from_at, to_thread: thread, to: at })
            }
            None => {}
        }
        self.dragged.set_value(None);
    }
}

/// A parse of the editor text; equal by text so views re-render only on real edits.
#[derive(Clone)]
struct Model {
    source: String,
    parsed: Arc<Parsed>,
}

impl PartialEq for Model {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tab {
    Text,
    Blocks,
}

/// "Text | Blocks" tabs around the program editor; the editor stays mounted.
#[component]
pub fn ProgramTabs(children: Children) -> impl IntoView {
    let tab = RwSignal::new(Tab::Text);
    let tab_button = move |which: Tab, label: &'static str| {
        view! {
            <button type="button" role="tab" class="program-tab"
                aria-selected=move || (tab.get() == which).to_string()
                on:click=move |_| tab.set(which)>{label}</button>
        }
    };
    view! {
        <div class="program-tabs" role="tablist" aria-label="Program view">
            {tab_button(Tab::Text, "Text")}
            {tab_button(Tab::Blocks, "Blocks")}
        </div>
        <div class="program-tab-panel" hidden=move || tab.get() != Tab::Text>{children()}</div>
        {move || (tab.get() == Tab::Blocks).then(|| lazy_panel("the block editor", block_view()))}
    }
}

/// The block view, from the blocks' wasm chunk (`crate::lazy`): the palette, the lanes
/// and the core's block edits load with the first "Blocks" tab.
#[leptos::wasm_split::wasm_split(blocks, fallible, wasm_split_path = ::leptos::wasm_split)]
fn block_view() -> Result<AnyView, ChunkLoadFailed> {
    Ok(view! { <BlockView /> }.into_any())
}

/// Palette and lanes for the scenario in the editor.
#[component]
fn BlockView() -> impl IntoView {
    let state = use_app_state();
    let model = Memo::new(move |_| {
        state.source.with(|s| Model { source: s.clone(), parsed: Arc::new(parse(s)) })
    });
    let ctx = BlockCtx {
        state,
        lane: RwSignal::new(0),
        dragged: StoredValue::new(None),
        error: RwSignal::new(None),
    };
    view! {
        <section class="panel panel-blocks" data-region="blocks" aria-labelledby="blocks-title">
            <div class="panel-head">
                <h2 id="blocks-title">"Program blocks"</h2>
                <div class="toolbar" role="toolbar" aria-label="Blocks">
                    <button type="button" on:click=move |_| ctx.run(Edit::AddThread)
                        disabled=move || model.with(|m| m.parsed.has_errors())>"Add thread"</button>
                    <button type="button" on:click=move |_| state.undo()
                        disabled=move || !state.history.with(|h| h.can_undo())>"Undo"</button>
                    <button type="button" on:click=move |_| state.redo()
                        disabled=move || !state.history.with(|h| h.can_redo())>"Redo"</button>
                </div>
            </div>
            <p class="blocks-error" role="status" hidden=move || ctx.error.with(Option::is_none)>
                {move || ctx.error.get().unwrap_or_default()}
            </p>
            {move || model.with(|m| body(ctx, &m.parsed))}
        </section>
    }
}

fn body(ctx: BlockCtx, parsed: &Parsed) -> AnyView {
    if parsed.has_errors() {
        return view! {
            <p class="blocks-blocked" role="status">
                "Fix the errors in the text to edit blocks. Your text is kept as it is."
            </p>
        }
        .into_any();
    }
    let scenario = Arc::new(parsed.scenario.clone());
    let lane_count = scenario.threads.len();
    if ctx.lane.get_untracked() >= lane_count.max(1) {
        ctx.lane.set(0);
    }
    let lanes = (0..lane_count)
        .map(|t| view! { <Lane ctx=ctx scenario=scenario.clone() thread=t /> })
        .collect_view();
    view! {
        <div class="blocks">
            <Palette ctx=ctx scenario=scenario.clone() />
            <div class="block-lanes">
                {(lane_count == 0).then(|| view! {
                    <p class="blocks-empty">"No threads yet: use “Add thread”."</p>
                })}
                {lanes}
            </div>
        </div>
    }
    .into_any()
}
