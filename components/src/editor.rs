//! The program editor: a plain textarea over a highlighted copy of the same text, so the
//! browser keeps doing the typing (IME, selection, accessibility) and we only paint.

use leptos::prelude::*;
use web_sys::KeyboardEvent;

use crate::highlight::highlight_line;
use crate::state::use_app_state;

/// Text editor for the scenario: line numbers, highlighting, undo/redo.
#[component]
pub fn Editor() -> impl IntoView {
    let state = use_app_state();
    let source = state.source;
    let lines = move || source.with(|s| s.split('\n').count());
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
                    {move || (1..=lines()).map(|n| view! { <li>{n}</li> }).collect_view()}
                </ol>
                <div class="editor-code">
                    <pre class="editor-paint" aria-hidden="true" node_ref=paint_ref>
                        {move || source.with(|s| paint(s))}
                    </pre>
                    <textarea
                        class="editor-text"
                        aria-label="Scenario source (.fence syntax)"
                        spellcheck="false"
                        autocomplete="off"
                        autocapitalize="off"
                        wrap="off"
                        node_ref=text_ref
                        on:scroll=move |_| sync_scroll()
                        prop:value=move || source.get()
                        on:input:target=move |ev| state.edit(ev.target().value(), true)
                        on:keydown=on_keydown
                    ></textarea>
                </div>
            </div>
        </section>
    }
}

/// The highlighted copy of the text: one block per line so line heights match exactly.
fn paint(source: &str) -> impl IntoView {
    source
        .split('\n')
        .map(|line| {
            let pieces = highlight_line(line)
                .into_iter()
                .map(|(class, text)| view! { <span class=class.css()>{text.to_string()}</span> })
                .collect_view();
            view! { <span class="editor-line">{pieces}"\n"</span> }
        })
        .collect_view()
}
