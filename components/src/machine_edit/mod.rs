//! The machine panel's "Edit layout" mode: small controls that add, place and remove
//! clusters, CTAs, threads, locations and mbarriers. Like the block view, every action
//! is a core [`MachineEdit`] on the text that goes through [`AppState::edit`], so
//! undo/redo and the text editor stay in step.

mod boxes;
mod targets;

use std::sync::Arc;

use fencelab::diag::Severity;
use fencelab::model::Scenario;
use fencelab::palette::{apply, Edit, Item, MachineEdit};
use leptos::prelude::*;
use web_sys::DragEvent;

use crate::analysis::Analysis;
use crate::state::AppState;

pub use boxes::{cluster_controls, cta_controls, gpu_controls};
pub use targets::{cta_targets, location_targets, mbarrier_targets, thread_targets, Target};

/// sessionStorage key: the mode stays on for the browser tab, not across visits.
const STORAGE_KEY: &str = "fencelab.machine-edit";

/// Edit-mode handles shared by every control in the panel.
#[derive(Clone, Copy)]
pub struct EditCtx {
    state: AppState,
    pub on: RwSignal<bool>,
    /// The last action's outcome worth a word: a refusal, or a warning that the edit
    /// left the text with errors. Cleared by the next action that needs no word.
    pub status: RwSignal<Option<Status>>,
    /// The text `status` speaks about; any other text makes it stale.
    status_text: StoredValue<Option<String>>,
    /// The thread chip being dragged onto another CTA box.
    dragged: StoredValue<Option<String>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub text: String,
    /// The edit was refused (nothing changed), as opposed to applied with a warning.
    pub refused: bool,
}

impl EditCtx {
    pub fn new(state: AppState) -> EditCtx {
        let ctx = EditCtx {
            state,
            on: RwSignal::new(stored()),
            status: RwSignal::new(None),
            status_text: StoredValue::new(None),
            dragged: StoredValue::new(None),
        };
        // Typing, undo or a template replaces the text: the last word no longer applies.
        Effect::new(move |_| {
            let stale = state.source.with(|s| ctx.status_text.with_value(|t| t.as_deref() != Some(s.as_str())));
            if stale {
                ctx.status.set(None);
            }
        });
        ctx
    }

    pub fn toggle(self) {
        let on = !self.on.get_untracked();
        self.on.set(on);
        self.status.set(None);
        if let Ok(Some(storage)) = window().session_storage() {
            // A refused write only forgets the choice on reload.
            let _ = storage.set_item(STORAGE_KEY, if on { "on" } else { "off" });
        }
    }

    pub fn run(self, edit: MachineEdit) {
        let source = self.state.source.get_untracked();
        match apply(&source, &Edit::Machine(edit)) {
            Ok(text) => {
                self.status_text.set_value(Some(text.clone()));
                self.status.set(new_error(&source, &text));
                self.state.edit(text, false);
            }
            Err(why) => {
                self.status_text.set_value(Some(source));
                self.status.set(Some(Status { text: format!("Not changed: {why}"), refused: true }));
            }
        }
    }
}

/// Makes a thread chip draggable onto CTA boxes (the pointer path; "Move to…" is the
/// keyboard one).
pub fn drag_thread(ctx: EditCtx, thread: String) -> impl Fn(DragEvent) {
    move |ev: DragEvent| {
        if let Some(data) = ev.data_transfer() {
            // Some browsers start a drag only with data set.
            let _ = data.set_data("text/plain", &thread);
            data.set_effect_allowed("move");
        }
        ctx.dragged.set_value(Some(thread.clone()));
    }
}

/// Drop handlers of a CTA box: accept a dragged thread chip from another CTA.
pub fn drop_on_cta(ctx: EditCtx, scenario: Arc<Scenario>, cta: String) -> (impl Fn(DragEvent), impl Fn(DragEvent)) {
    let elsewhere = move |thread: &str| {
        let here = scenario.cta(&cta);
        let from = scenario.thread(thread).and_then(|t| scenario.threads.get(t)).map(|t| t.cta);
        (from != here).then(|| cta.clone())
    };
    let elsewhere = Arc::new(elsewhere);
    let over = {
        let elsewhere = elsewhere.clone();
        move |ev: DragEvent| {
            if ctx.dragged.with_value(|d| d.as_deref().is_some_and(|t| elsewhere(t).is_some())) {
                ev.prevent_default();
            }
        }
    };
    let drop = move |ev: DragEvent| {
        let Some(thread) = ctx.dragged.try_update_value(Option::take).flatten() else { return };
        ev.prevent_default();
        if let Some(cta) = elsewhere(&thread) {
            ctx.run(MachineEdit::MoveThread { thread, cta });
        }
    };
    (over, drop)
}

fn stored() -> bool {
    let storage = window().session_storage().ok().flatten();
    storage.and_then(|s| s.get_item(STORAGE_KEY).ok().flatten()).is_some_and(|v| v == "on")
}

/// A warning when `after` has more errors than `before`: a placement the verifier rejects.
fn new_error(before: &str, after: &str) -> Option<Status> {
    let count = |a: &Analysis| a.diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
    let (old, new) = (Analysis::of(before), Analysis::of(after));
    if count(&new) <= count(&old) {
        return None;
    }
    let first = new.diagnostics.iter().find(|d| d.severity == Severity::Error)?;
    let line = first.line.map_or(String::new(), |l| format!(" (line {l})"));
    Some(Status {
        text: format!(
            "Done, but the text now has an error{line}: {}. The editor marks it; Undo takes the change back.",
            first.message
        ),
        refused: false,
    })
}

/// The items' current scenario, for the "Move to…" lists, with the panel's handles.
#[derive(Clone)]
pub struct Editing {
    pub ctx: EditCtx,
    pub scenario: Arc<Scenario>,
}

/// "Edit layout" on/off.
pub fn toggle_button(ctx: EditCtx) -> impl IntoView {
    view! {
        <button type="button" class="medit-toggle" aria-pressed=move || ctx.on.get().to_string()
            title="Add, move and remove clusters, CTAs, threads, locations and mbarriers"
            on:click=move |_| ctx.toggle()>"Edit layout"</button>
    }
}

/// Why the last action did nothing, or what it broke; announced to screen readers.
pub fn status_line(ctx: EditCtx) -> impl IntoView {
    let status = move || ctx.status.get();
    view! {
        <p class="medit-status" role="status" hidden=move || status().is_none() || !ctx.on.get()
            class:medit-refused=move || status().is_some_and(|s| s.refused)>
            {move || status().map(|s| s.text).unwrap_or_default()}
        </p>
    }
}

/// A labelled "+ …" button; `aria` says where the new item goes.
pub fn add_button(ctx: EditCtx, text: &'static str, aria: String, edit: MachineEdit) -> impl IntoView {
    view! {
        <button type="button" class="medit-add" aria-label=aria.clone() title=aria
            on:click=move |_| ctx.run(edit.clone())>{text}</button>
    }
}

/// A "Move to…" list (when there is somewhere to go) and a remove button for one item;
/// `what` names it ("thread producer").
pub fn item_controls(ctx: EditCtx, what: String, targets: Vec<Target>, item: Item) -> impl IntoView {
    let remove_label = format!("Remove {what}");
    let select = (!targets.is_empty()).then(|| {
        let targets = Arc::new(targets);
        let options = targets
            .iter()
            .enumerate()
            .map(|(i, t)| view! { <option value=i.to_string()>{t.label.clone()}</option> })
            .collect_view();
        view! {
            <select class="medit-move" aria-label=format!("Move {what} to") title=format!("Move {what} to…")
                on:change=move |ev| {
                    let picked = event_target_value(&ev).parse::<usize>().ok().and_then(|i| targets.get(i));
                    if let Some(target) = picked {
                        ctx.run(target.edit.clone());
                    }
                    // Back to the prompt: a refused move leaves the item where it was.
                    event_target::<web_sys::HtmlSelectElement>(&ev).set_value("");
                }>
                <option value="" selected>"Move to…"</option>
                {options}
            </select>
        }
    });
    view! {
        <span class="medit-item">
            {select}
            <button type="button" class="medit-remove" aria-label=remove_label.clone() title=remove_label
                on:click=move |_| ctx.run(MachineEdit::Remove(item.clone()))>"×"</button>
        </span>
    }
}
