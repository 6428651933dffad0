//! The program editor: a plain textarea over a highlighted copy of the same text, so the
//! browser keeps doing the typing (IME, selection, accessibility) and we only paint.

use leptos::prelude::*;
use web_sys::KeyboardEvent;

use fencelab::diag::Severity;

use crate::analysis::DiagView;
use crate::highlight::highlight_line;
use crate::state::use_app_state;

/// Text editor for the scenario: line numbers, highlighting, undo/redo.
#[component]
pub fn Editor() -> impl IntoView {
    let state = use_app_state();
    let source = state.source;
    let lines = move || source.with(|s| s.split('\n').count());
    // Phones get a read-only editor: stepping works there, typing PTX does not.
    let phone = window()
        .match_media("(max-width: 600px)")
        .ok()
        .flatten()
        .is_some_and(|q| q.matches());
    let marks = move || state.analysis.with(|a| a.line_marks());
    let paint_ref = NodeRef::<leptos::html::Pre>::new();
    let gutter_ref = NodeRef::<leptos::html::Ol>::new();
    let text_ref = NodeRef::<leptos::html::Textarea>::new();
    // The textarea scrolls; the painted copy and the line numbers follow it.
    let sync_scroll = move || {
        let Some(text) = text_ref.get_untracked() else { return };
        if let Some(paint) = paint_ref.get_untracked() {
            paint.set_scroll_top(text.scroll_top());
            paint.set_scroll_left(text.scroll_left());
        }
        if let Some(gutter) = gutter_ref.get_untracked() {
            gutter.set_scroll_top(text.scroll_top());
        }
    };
    Effect::new(move |_| {
        source.track();
        sync_scroll();
    });

    let on_keydown = move |ev: KeyboardEvent| {
        let modifier = ev.ctrl_key() || ev.meta_key();
        let key = ev.key().to_lowercase();
        let undo = modifier && key == "z" && !ev.shift_key();
        let redo = modifier && (key == "y" || key == "z" && ev.shift_key());
        if undo || redo {
            ev.prevent_default();
            if undo { state.undo() } else { state.redo() }
        }
    };

    view! {
        <section class="panel panel-editor" data-region="editor" aria-labelledby="editor-title">
            <div class="panel-head">
                <h2 id="editor-title">"Program"</h2>
                <div class="toolbar" role="toolbar" aria-label="Edit">
                    <label class="templates">
                        <span class="visually-hidden">"New scenario from a template"</span>
                        <select aria-label="New scenario from a template" on:change:target=move |ev| {
                            let select = ev.target();
                            if let Some(t) = crate::templates::find(&select.value()) {
                                state.edit(t.source.to_string(), false);
                            }
                            // Back to the prompt, so picking the same template again reloads it.
                            select.set_value("");
                        }>
                            <option value="" selected>"New scenario…"</option>
                            {crate::templates::TEMPLATES.iter().map(|t| view! {
                                <option value=t.id>{t.title()}</option>
                            }).collect_view()}
                        </select>
                    </label>
                    <button type="button" on:click=move |_| state.undo()
                        disabled=move || !state.history.with(|h| h.can_undo())
                        title="Undo (Ctrl+Z)">"Undo"</button>
                    <button type="button" on:click=move |_| state.redo()
                        disabled=move || !state.history.with(|h| h.can_redo())
                        title="Redo (Ctrl+Shift+Z)">"Redo"</button>
                </div>
            </div>
            <div class="editor">
                <ol class="editor-gutter" aria-hidden="true" node_ref=gutter_ref>
                    {move || {
                        let marks = marks();
                        (1..=lines())
                            .map(|n| {
                                let class = match marks.iter().find(|(l, _)| *l == n).map(|m| m.1) {
                                    Some(Severity::Error) => "has-error",
                                    Some(Severity::Warning) => "has-warning",
                                    _ => "",
                                };
                                view! { <li class=class>{n}</li> }
                            })
                            .collect_view()
                    }}
                </ol>
                <div class="editor-code">
                    <pre class="editor-paint" aria-hidden="true" node_ref=paint_ref>
                        {move || {
                            let marks = marks();
                            source.with(|s| paint(s, &marks))
                        }}
                    </pre>
                    <textarea
                        class="editor-text"
                        aria-label="Scenario source (.fence syntax)"
                        spellcheck="false"
                        autocomplete="off"
                        autocapitalize="off"
                        wrap="off"
                        readonly=phone
                        node_ref=text_ref
                        on:scroll=move |_| sync_scroll()
                        prop:value=move || source.get()
                        on:input:target=move |ev| state.edit(ev.target().value(), true)
                        on:keydown=on_keydown
                    ></textarea>
                </div>
            </div>
            <p class="phone-note">"Read-only on a phone: open fencelab on a wider screen to edit."</p>
            <Diagnostics on_jump=move |offset: u32| {
                let Some(text) = text_ref.get_untracked() else { return };
                let at = source.with_untracked(|s| utf16_offset(s, offset));
                let _ = text.focus();
                let _ = text.set_selection_range(at, at);
            } />
        </section>
    }
}

/// The list of problems under the editor; each jumps to its place.
#[component]
fn Diagnostics(
    /// Called with the byte offset of the problem the user picked.
    #[prop(into)]
    on_jump: Callback<u32>,
) -> impl IntoView {
    let state = use_app_state();
    let diagnostics = move || state.analysis.with(|a| a.diagnostics.clone());
    view! {
        <div class="diagnostics" aria-live="polite">
            {move || {
                let list = diagnostics();
                if list.is_empty() {
                    view! { <p class="diag-ok">"✓ parses and verifies"</p> }.into_any()
                } else {
                    view! {
                        <ul class="diag-list" aria-label="Problems in the scenario">
                            {list.iter().map(|d| diag_item(d, on_jump)).collect_view()}
                        </ul>
                    }
                    .into_any()
                }
            }}
        </div>
    }
}

fn diag_item(d: &DiagView, on_jump: Callback<u32>) -> impl IntoView {
    let place = match (d.line, d.col) {
        (Some(l), Some(c)) => format!("{l}:{c}"),
        _ => "—".to_string(),
    };
    let offset = d.offset;
    let class = format!("diag diag-{}", d.severity_name());
    let headline = format!("{}[{}]: {}", d.severity_name(), d.code, d.message);
    let extra: Vec<String> = d
        .label
        .iter()
        .map(|l| format!("here: {l}"))
        .chain(d.notes.iter().map(|n| format!("note: {n}")))
        .chain(d.help.iter().map(|h| format!("help: {h}")))
        .collect();
    view! {
        <li class=class>
            <button type="button" class="diag-place" disabled=offset.is_none()
                on:click=move |_| if let Some(o) = offset { on_jump.run(o) }
                aria-label=format!("go to line {place}")>{place.clone()}</button>
            <span class="diag-text">
                <span class="diag-headline">{headline}</span>
                {extra.into_iter().map(|e| view! { <span class="diag-extra">{e}</span> }).collect_view()}
            </span>
        </li>
    }
}

/// Textarea selections count UTF-16 units; diagnostics count bytes.
fn utf16_offset(src: &str, byte: u32) -> u32 {
    let mut end = (byte as usize).min(src.len());
    while !src.is_char_boundary(end) {
        end -= 1;
    }
    src.get(..end).map_or(0, |s| s.encode_utf16().count() as u32)
}

/// The highlighted copy of the text, one span per line; lines with errors get a wavy line.
fn paint(source: &str, marks: &[(usize, Severity)]) -> impl IntoView {
    source
        .split('\n')
        .enumerate()
        .map(|(i, line)| {
            let error = marks.iter().any(|(l, s)| *l == i + 1 && *s == Severity::Error);
            let class = if error { "editor-line line-error" } else { "editor-line" };
            let pieces = highlight_line(line)
                .into_iter()
                .map(|(class, text)| view! { <span class=class.css()>{text.to_string()}</span> })
                .collect_view();
            view! { <span class=class>{pieces}"\n"</span> }
        })
        .collect_view()
}
