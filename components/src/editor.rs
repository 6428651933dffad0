//! The program editor: a plain textarea over a highlighted copy of the same text, so the
//! browser keeps doing the typing (IME, selection, accessibility) and we only paint.

use leptos::prelude::*;
use web_sys::KeyboardEvent;

use fencelab::diag::Severity;

use crate::analysis::DiagView;
use crate::highlight::highlight_line;
use crate::instr_notes::{chip_text, StepKind};
use crate::source_link::{LineMarks, SourceLines};
use crate::state::{use_app_state, AppState};
use crate::tape::Move;

/// Text editor for the scenario: line numbers, highlighting, undo/redo, and the lines the
/// current step and the shown finding touch. A click on an instruction's line goes to the
/// step that runs it.
#[component]
pub fn Editor(
    /// An exercise's editor: no template menu.
    #[prop(optional)]
    compact: bool,
    /// The accessible name of the text area.
    #[prop(optional, into)]
    label: Option<String>,
) -> impl IntoView {
    let state = use_app_state();
    let label = label.unwrap_or_else(|| "Scenario source (.fence syntax)".to_string());
    let source = state.source;
    let lines = move || source.with(|s| s.split('\n').count());
    // Phones get a read-only explorer editor: stepping works there, typing PTX does not. An
    // exercise's editor is the exercise itself, so it stays editable.
    let phone = window()
        .match_media("(max-width: 600px)")
        .ok()
        .flatten()
        .is_some_and(|q| q.matches());
    let marks = move || state.analysis.with(|a| a.line_marks());
    // An exercise's editor has no stepping beside it: nothing to mark or jump to.
    let linked = Memo::new(move |_| if compact { LineMarks::default() } else { execution_marks(state) });
    // An exercise's state has no step marks, but its cost chips show when asked for.
    let notes = Memo::new(move |_| line_notes(state));
    // Lines a click runs to: those an instruction starts on.
    let runnable = Memo::new(move |_| if compact { Vec::new() } else { instruction_lines(state) });
    // The gutter line under the pointer that a click would run to, said under the editor.
    let run_hint = RwSignal::new(None::<usize>);
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
    // Not on the first run: nothing has scrolled yet. Later, in the next frame's callbacks,
    // whose layout the frame needs anyway: read in the edit's own task, `scroll_top` forced
    // a layout of the page the frame then did again (a long task at load, 4-5 ms per edit).
    Effect::new(move |first: Option<()>| {
        source.track();
        if first.is_some() {
            request_animation_frame(sync_scroll);
        }
    });

    // The "next" and "just ran" lines stay in the text area's view as the learner steps,
    // and when a resize changes the text area's height.
    let show_marked_lines = move || {
        let LineMarks { just_ran, next, .. } = linked.get_untracked();
        let Some(line) = next.or(just_ran) else { return };
        request_animation_frame(move || {
            // The editor may be gone by the next frame (the learner left the page).
            let Some(text) = text_ref.try_get_untracked().flatten() else { return };
            let (top, height) = (text.scroll_top(), text.client_height());
            let at = (line as i32 - 1) * LINE_HEIGHT_PX;
            let lines = [just_ran, next].into_iter().flatten().map(|l| (l as i32 - 1) * LINE_HEIGHT_PX);
            let (first, last) = (lines.clone().min().unwrap_or(at), lines.max().unwrap_or(at));
            if first < top || last + 2 * LINE_HEIGHT_PX > top + height {
                // Both lines in the middle of the view when they fit, else the first near its top.
                let span = last + LINE_HEIGHT_PX - first;
                let to = if span + 2 * LINE_HEIGHT_PX <= height { first - (height - span) / 2 } else { first - LINE_HEIGHT_PX };
                text.set_scroll_top(to.max(0));
                sync_scroll();
            }
        });
    };
    Effect::new(move |_| {
        linked.track();
        show_marked_lines();
    });
    let resized = window_event_listener(leptos::ev::resize, move |_| show_marked_lines());
    on_cleanup(move || resized.remove());

    let on_keydown = move |ev: KeyboardEvent| {
        let modifier = ev.ctrl_key() || ev.meta_key();
        // The shortcuts are ASCII letters (Unicode lowercasing would link its case tables).
        let key = ev.key().to_ascii_lowercase();
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
                    {(!compact).then(|| view! {
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
                    })}
                    <button type="button" on:click=move |_| state.undo()
                        disabled=move || !state.history.with(|h| h.can_undo())
                        title="Undo (Ctrl+Z)">"Undo"</button>
                    <button type="button" on:click=move |_| state.redo()
                        disabled=move || !state.history.with(|h| h.can_redo())
                        title="Redo (Ctrl+Shift+Z)">"Redo"</button>
                </div>
            </div>
            <div class="editor" class:with-notes=move || notes.with(|n| !n.is_empty())>
                <ol class="editor-gutter" aria-hidden="true" node_ref=gutter_ref
                    class:with-steps=move || notes.with(|n| n.iter().any(|n| n.mark.is_some()))>
                    <For
                        each=move || {
                            let (marks, linked, notes) = (marks(), linked.get(), notes.get());
                            runnable.with(|runnable| {
                                (1..=lines()).map(|n| (line_look(n, &marks, &linked, &notes), runnable.contains(&n))).collect::<Vec<_>>()
                            })
                        }
                        key=|line| line.clone()
                        children=move |(look, runs)| gutter_line(look, runs.then_some((state, run_hint)))
                    />
                </ol>
                <div class="editor-code">
                    <pre class="editor-paint" aria-hidden="true" node_ref=paint_ref>
                        <For
                            each=move || {
                                let marks = marks();
                                let linked = linked.get();
                                let hovered = state.hover_line.get();
                                let notes = notes.get();
                                source.with(|s| painted_lines(s, &marks, &linked, hovered, &notes))
                            }
                            key=|line| line.clone()
                            children=paint_line
                        />
                    </pre>
                    <textarea
                        class="editor-text"
                        aria-label=label
                        spellcheck="false"
                        autocomplete="off"
                        autocapitalize="off"
                        wrap="off"
                        readonly=phone && !compact
                        node_ref=text_ref
                        on:scroll=move |_| sync_scroll()
                        prop:value=move || source.get()
                        on:input:target=move |ev| state.edit(ev.target().value(), true)
                        on:keydown=on_keydown
                        on:click:target=move |ev| {
                            let text = ev.target();
                            let (Ok(Some(start)), Ok(Some(end))) = (text.selection_start(), text.selection_end()) else { return };
                            if start == end && !compact {
                                let line = source.with_untracked(|s| line_at_utf16(s, start));
                                go_to_line(state, line);
                            }
                        }
                    ></textarea>
                </div>
            </div>
            {(!compact).then(|| view! {
                <p class="run-hint muted" data-run-hint="">
                    {move || run_hint.get().map(|n| format!("Click to run to line {n}: the step that executes it"))}
                </p>
            })}
            {(!compact).then(|| view! { <p class="phone-note">"Read-only on a phone: open fencelab on a wider screen to edit."</p> })}
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
        <div class="diagnostics">
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
                <span class="diag-headline">{crate::code_text::code_text(&headline)}</span>
                {extra.into_iter().map(|e| view! { <span class="diag-extra">{crate::code_text::code_text(&e)}</span> }).collect_view()}
            </span>
        </li>
    }
}

/// The current step's line and the shown finding's lines, for the session on screen. None
/// while the text has errors: the session on screen then belongs to an older text.
pub(crate) fn execution_marks(state: AppState) -> LineMarks {
    let shown = state.marks.get();
    state.analysis.with(|a| {
        if a.has_errors() {
            return LineMarks::default();
        }
        let lines = SourceLines::new(&a.loaded, &a.source);
        state.read_tape(|t| crate::source_link::marks(&lines, t, shown.shown())).flatten().unwrap_or_default()
    })
}

/// One line's step mark (kind, why) and cost chip (text, SASS), and whether the fix just
/// applied from the fix panel changed it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct LineNote {
    line: usize,
    mark: Option<(StepKind, String)>,
    cost: Option<(String, String)>,
    changed: bool,
}

impl LineNote {
    fn title(&self) -> String {
        let changed = self.changed.then_some("changed by the fix you applied");
        let parts: Vec<&str> = [self.mark.as_ref().map(|m| m.1.as_str()), self.cost.as_ref().map(|c| c.1.as_str()), changed].into_iter().flatten().collect();
        parts.join("\n")
    }

    /// The words at the end of the painted line, after the code.
    fn inlay(&self) -> impl IntoView {
        view! {
            <span class="line-note">
                {self.mark.as_ref().map(|(kind, _)| {
                    let (glyph, word) = kind.label();
                    view! { <span class=format!("step-mark step-{}", kind.css()) data-step=kind.css()>{format!("{glyph} {word}")}</span> }
                })}
                {self.cost.as_ref().map(|(text, _)| view! { <span class="cost-chip" data-cost-chip="">{text.clone()}</span> })}
            </span>
        }
    }
}

/// The step marks and cost chips of the text in the editor, by line; none while it has errors.
fn line_notes(state: AppState) -> Vec<LineNote> {
    let steps = state.notes.steps();
    let costs = state.notes.costs();
    let applied = state.notes.applied();
    if steps.is_none() && costs.is_none() && applied.is_none() {
        return Vec::new();
    }
    state.analysis.with(|a| {
        if a.has_errors() {
            return Vec::new();
        }
        let lines = SourceLines::new(&a.loaded, &a.source);
        let mut notes = Vec::new();
        for (t, thread) in a.loaded.scenario.threads.iter().enumerate() {
            for i in 0..thread.program.len() {
                let mark = steps.as_ref().and_then(|s| s.at(&thread.name, i).map(|m| (m.kind, s.title(m))));
                let cost = costs.as_ref().and_then(|c| c.instr(t, i)).map(chip_text);
                if let (Some(line), true) = (lines.line_of(&thread.name, i), mark.is_some() || cost.is_some()) {
                    notes.push(LineNote { line, mark, cost, changed: false });
                }
            }
        }
        for &line in applied.iter().flat_map(|fix| &fix.lines) {
            match notes.iter_mut().find(|note| note.line == line) {
                Some(note) => note.changed = true,
                None => notes.push(LineNote { line, mark: None, cost: None, changed: true }),
            }
        }
        notes
    })
}

/// The painted copy's line height (`.editor-line` in the stylesheet).
const LINE_HEIGHT_PX: i32 = 20;

/// The lines an instruction starts on, for the session's text; none while it has errors.
fn instruction_lines(state: AppState) -> Vec<usize> {
    state.analysis.with(|a| {
        if a.has_errors() {
            return Vec::new();
        }
        let index = fencelab::diag::LineIndex::new(&a.source);
        a.loaded.source_map.instrs.iter().flatten().map(|span| index.line_col(span.start).0).collect()
    })
}

/// Goes to the step that runs the instruction on `line` (1-based), if the line holds one.
fn go_to_line(state: AppState, line: usize) {
    if state.is_stale() {
        return;
    }
    let Some((thread, instr)) = state.analysis.with_untracked(|a| SourceLines::new(&a.loaded, &a.source).instr_at(line)) else {
        return;
    };
    state.playing.set(false);
    if state.with_tape(&[Move::RunTo(&thread, instr)]) == Some(false) {
        state.step_error.set(Some(format!("line {line} ({thread}) does not run on this line of play: it waits for something that never happens here")));
    }
}

/// The 1-based line holding UTF-16 offset `at` (a textarea caret).
fn line_at_utf16(src: &str, at: u32) -> usize {
    let mut units = 0u32;
    let mut line = 1;
    for c in src.chars() {
        if units >= at {
            break;
        }
        units += c.len_utf16() as u32;
        if c == '\n' {
            line += 1;
        }
    }
    line
}

/// Textarea selections count UTF-16 units; diagnostics count bytes.
fn utf16_offset(src: &str, byte: u32) -> u32 {
    let mut end = (byte as usize).min(src.len());
    while !src.is_char_boundary(end) {
        end -= 1;
    }
    src.get(..end).map_or(0, |s| s.encode_utf16().count() as u32)
}

/// What the marks say of one line, the key (with the text) of its painted copy and its
/// line number. The copy and the gutter are keyed lists, so a keystroke, a step or the
/// pointer re-renders only the lines it changed: repainting every line re-set about 1,600
/// attributes per edit of a 70-line program, main-thread work that ran beside the worker's
/// check on its core (docs/performance.md, twenty-fifth session).
#[derive(Clone, PartialEq, Eq, Hash)]
struct LineLook {
    n: usize,
    /// The worst diagnostic on the line (`Analysis::line_marks` keeps one per line).
    severity: Option<Severity>,
    current: bool,
    /// The step just taken ran this line ("just ran" arrow).
    just_ran: bool,
    /// The step `forward` takes runs this line ("next" arrow).
    next: bool,
    /// What the shown finding does on this line.
    access: Option<String>,
    note: Option<LineNote>,
}

fn line_look(n: usize, marks: &[(usize, Severity)], linked: &LineMarks, notes: &[LineNote]) -> LineLook {
    LineLook {
        n,
        severity: marks.iter().find(|(l, _)| *l == n).map(|m| m.1),
        current: linked.current == Some(n),
        just_ran: linked.just_ran == Some(n),
        next: linked.next == Some(n),
        access: linked.accesses.iter().find(|(l, _)| *l == n).map(|(_, what)| what.clone()),
        note: notes.iter().find(|note| note.line == n).cloned(),
    }
}

/// One line of the highlighted copy.
#[derive(Clone, PartialEq, Eq, Hash)]
struct PaintedLine {
    look: LineLook,
    text: String,
    hovered: bool,
}

/// The highlighted copy's lines; lines with errors get a wavy line, the current step's
/// line and a finding's access lines a band.
fn painted_lines(source: &str, marks: &[(usize, Severity)], linked: &LineMarks, hovered: Option<usize>, notes: &[LineNote]) -> Vec<PaintedLine> {
    source
        .split('\n')
        .enumerate()
        .map(|(i, text)| PaintedLine { look: line_look(i + 1, marks, linked, notes), text: text.to_string(), hovered: hovered == Some(i + 1) })
        .collect()
}

fn paint_line(line: PaintedLine) -> impl IntoView {
    let PaintedLine { look, text, hovered } = line;
    let class = if look.severity == Some(Severity::Error) { "editor-line line-error" } else { "editor-line" };
    let pieces = highlight_line(&text)
        .into_iter()
        .map(|(class, text)| view! { <span class=class.css()>{text.to_string()}</span> })
        .collect_view();
    view! {
        <span class=class data-line=look.n class:current-step=look.current class:finding-access=look.access.is_some()
            class:hover-linked=hovered class:just-ran=look.just_ran class:next-line=look.next
            class:fix-changed=look.note.as_ref().is_some_and(|n| n.changed)
            data-just-ran=look.just_ran.then_some("") data-next=look.next.then_some("")
            data-current-step=look.current.then_some("") data-finding-access=look.access
            data-fix-changed=look.note.as_ref().is_some_and(|n| n.changed).then_some("")>{pieces}{look.note.as_ref().map(LineNote::inlay)}</span>
        // Outside the line's box, so a marked line's band spans the width without
        // the newline making it two lines tall.
        "\n"
    }
}

/// A gutter line; `run_to` (the app's state, and where the hint shows) when a click on it
/// runs to its instruction.
fn gutter_line(look: LineLook, run_to: Option<(AppState, RwSignal<Option<usize>>)>) -> impl IntoView {
    let class = match look.severity {
        Some(Severity::Error) => "has-error",
        Some(Severity::Warning) => "has-warning",
        _ => "",
    };
    // The painted notes sit under the text area; their line number is where the pointer
    // finds why.
    let step = look.note.as_ref().and_then(|note| note.mark.as_ref()).map(|(kind, _)| *kind);
    let n = look.n;
    let note = look.note.as_ref().map(LineNote::title).filter(|t| !t.is_empty());
    let arrow = match (look.just_ran, look.next) {
        (true, true) => Some(("gutter-arrow arrow-both", "⇉", "just ran and next")),
        (true, false) => Some(("gutter-arrow arrow-ran", "→", "just ran")),
        (false, true) => Some(("gutter-arrow arrow-next", "→", "next")),
        (false, false) => None,
    };
    view! {
        <li class=class class:has-access=look.access.is_some() class:is-current=look.current class:runnable=run_to.is_some()
            class:just-ran=look.just_ran class:next-line=look.next
            class:fix-changed=look.note.as_ref().is_some_and(|n| n.changed)
            title=note data-step=step.map(StepKind::css)
            on:click=move |_| if let Some((state, _)) = run_to { go_to_line(state, n) }
            on:mouseenter=move |_| if let Some((_, hint)) = run_to { hint.set(Some(n)) }
            on:mouseleave=move |_| if let Some((_, hint)) = run_to { hint.set(None) }>
            {arrow.map(|(class, glyph, words)| view! { <span class=class title=words>{glyph}</span> })}
            {look.n}
            {step.map(|kind| view! { <span class=format!("gutter-step step-{}", kind.css())>{kind.label().0}</span> })}
        </li>
    }
}
