//! A lesson's scenario: its source, read-only and highlighted, with the checker's verdict
//! computed live in the browser, stepping in place (its own lanes and controls), each
//! finding's "Show me", and a way to open it in the explorer and come back.

use std::time::Duration;

use fencelab::check::{check, Mode, Options, Report, Verdict};
use leptos::context::Provider;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::execution_graph::{graph_slot, has_unreached, open_button, GraphOf};
use crate::highlight::highlight_line;
use crate::lanes::Lanes;
use crate::source_link::LineMarks;
use crate::route::Route;
use crate::state::{use_app_state, AppState};
use crate::verdict_panel::finding_view;

/// What the checker said about one source.
#[derive(Clone, Debug, PartialEq)]
pub enum Checked {
    /// The text does not load; the first error, with its line.
    Broken(String),
    Ran(Box<Report>),
}

/// Loads and checks `source`, as the CLI's `lessons check` does (outcomes and final
/// conditions completed by the axioms).
pub fn check_source(source: &str, mode: Mode) -> Checked {
    let loaded = fencelab::load(source);
    if let Some(diag) = loaded.diagnostics.iter().find(|d| d.is_error()) {
        let line = diag.primary_start().map_or(0, |at| fencelab::diag::line_col(source, at).0);
        return Checked::Broken(format!("line {line}: {}", diag.message));
    }
    let mut report = check(&loaded.scenario, &Options { mode, ..Options::default() });
    fencelab::axiom::table::complete_outcomes(&loaded.scenario, &mut report);
    Checked::Ran(Box::new(report))
}

/// Runs `work` after `delay`, so the page paints before the checker runs.
pub fn later(delay_ms: u64, work: impl FnOnce() + 'static) {
    set_timeout(work, Duration::from_millis(delay_ms));
}

/// Its children, `delay_ms` after the task that renders it (so that one first paints).
#[component]
pub fn AfterPaint(delay_ms: u64, children: ChildrenFn) -> impl IntoView {
    let ready = RwSignal::new(false);
    later(delay_ms, move || {
        // Gone by now when the learner left the page.
        let _ = ready.try_set(true);
    });
    move || ready.get().then(|| children())
}

/// One ```` ```fence ```` block of a lesson.
#[component]
pub fn ScenarioCard(
    /// The `.fence` source, as written in the lesson.
    source: String,
    /// Checker mode pinned by the block; `None` is the default mode.
    mode: Option<Mode>,
    /// Lesson line of the source's first line (`data-lesson-line`, for an author).
    line: usize,
    /// Position among the lesson's scenarios, to stagger the sessions and the checks' parses.
    order: usize,
) -> impl IntoView {
    let checked = RwSignal::new(None::<Checked>);
    let mode = mode.unwrap_or_default();
    // The card is named by its scenario, as the learner reads it; every lesson scenario
    // has a title (`tests/lessons.rs`), and a preview's untitled one is named by its place.
    let name = fencelab::syntax::title(&source).unwrap_or_else(|| format!("Scenario {order}"));
    let label = name.clone();
    // Its parse too waits for the lesson's first paint; the check is the worker's.
    let to_check = source.clone();
    later(20 + 10 * order as u64, move || super::checks::check_in_worker(to_check, mode, checked));
    let app = use_app_state();
    let to_open = source.clone();
    let session_source = source.clone();
    let source_for_graphs = source.clone();
    let open = move |_| open_in_explorer(app, &to_open, mode);
    // The source marks the lines the card's stepping just ran and runs next.
    let line_marks = RwSignal::new(LineMarks::default());
    let findings = move |local: AppState| {
        move || match checked.get() {
            Some(Checked::Ran(report)) if !report.findings.is_empty() => Some(view! {
                <div class="findings lesson-findings">
                    {report.findings.iter().enumerate().map(|(i, f)| finding_view(i, f.clone(), local)).collect_view()}
                </div>
            }),
            _ => None,
        }
    };
    view! {
        <figure class="scenario-card" data-block="scenario" data-lesson-scenario="" data-lesson-line=line.to_string()
            aria-label=label>
            <Source text=source marks=line_marks />
            <figcaption class="scenario-foot">
                <span class="scenario-name" data-scenario-name="">{name}</span>
                <span class="scenario-mode">{mode.name()}</span>
                <VerdictLine checked=checked />
                <button type="button" class="open-explorer" on:click=open
                    title="Opens this scenario in the explorer; a link there brings you back here">"Open in explorer"</button>
            </figcaption>
            <UnreachedOutcomes checked=checked source=source_for_graphs mode=mode />
            // The card's own stepping session: its lanes and "Show me" leave the explorer
            // alone. Only the card's own panels see its state (a Provider, so siblings keep
            // theirs). Built after the page has painted, one card after another: with every
            // card's and exercise's parse, session and lanes in the lesson's first render, a
            // first visit's lesson came in one task of 85-120 ms of work
            // (benches/results/2026-11-25-loading-rounds.md).
            // The state (its parse and session) and the lanes take a task each.
            <AfterPaint delay_ms=10 * order as u64>
                {
                    let local = AppState::local(session_source.clone(), mode);
                    Effect::new(move |_| line_marks.set(crate::editor::execution_marks(local)));
                    view! {
                        <Provider value=local>
                            <AfterPaint delay_ms=0>
                                <Lanes compact=true />
                                {findings(local)}
                            </AfterPaint>
                        </Provider>
                    }
                }
            </AfterPaint>
        </figure>
    }
}

/// The outcomes only the axioms reach (no interleaving does), each with a button opening
/// its execution graph (`crate::execution_graph`): a card cannot step through them.
#[component]
fn UnreachedOutcomes(checked: RwSignal<Option<Checked>>, source: String, mode: Mode) -> impl IntoView {
    let open = RwSignal::new(None::<GraphOf>);
    move || match checked.get() {
        Some(Checked::Ran(report)) if has_unreached(&report) => {
            let rows = report
                .outcomes
                .iter()
                .filter(|o| o.unreached)
                .map(|o| {
                    let values: Vec<String> = o.values.iter().map(|(term, v)| format!("{term}={v}")).collect();
                    view! { <li><code>{values.join(" ")}</code>" " {open_button(o.values.clone(), open)}</li> }
                })
                .collect_view();
            Some(view! {
                <div class="card-unreached" data-card-unreached="">
                    <p class="muted">"Allowed by the PTX axioms, reached by no interleaving:"</p>
                    <ul>{rows}</ul>
                    {graph_slot(fencelab::load(&source).scenario, mode, open)}
                </div>
            })
        }
        _ => None,
    }
}

/// Read-only highlighted `.fence` text.
#[component]
pub fn Source(
    /// The text to show.
    text: String,
    /// The "just ran" and "next" lines of a session stepping this text.
    #[prop(optional)]
    marks: Option<RwSignal<LineMarks>>,
) -> impl IntoView {
    let marked = move |line: usize, which: fn(&LineMarks) -> Option<usize>| marks.is_some_and(|m| m.with(|m| which(m) == Some(line)));
    let lines = text
        .trim_end_matches('\n')
        .split('\n')
        .enumerate()
        .map(|(i, line)| {
            let pieces = highlight_line(line)
                .into_iter()
                .map(|(class, piece)| view! { <span class=class.css()>{piece.to_string()}</span> })
                .collect_view();
            let (just_ran, next) = (move || marked(i + 1, |m| m.just_ran), move || marked(i + 1, |m| m.next));
            view! {
                <span class="editor-line" class:just-ran=just_ran class:next-line=next
                    data-just-ran=move || just_ran().then_some("") data-next=move || next().then_some("")>{pieces}"\n"</span>
            }
        })
        .collect_view();
    let source = NodeRef::<leptos::html::Pre>::new();
    if let Some(marks) = marks {
        keep_marked_lines_in_view(source, marks);
    }
    view! { <pre class="scenario-source" node_ref=source><code>{lines}</code></pre> }
}

/// After each step, a source taller than its box (a wide screen's card gives it at most the
/// window's height) scrolls itself, not the page, so its just-ran and next lines are in view.
fn keep_marked_lines_in_view(source: NodeRef<leptos::html::Pre>, marks: RwSignal<LineMarks>) {
    Effect::new(move |_| {
        marks.track();
        request_animation_frame(move || {
            // The card may be gone by the next frame (the learner left the page).
            let Some(pre) = source.try_get_untracked().flatten() else { return };
            let line_box = |selector: &str| {
                let line = pre.query_selector(selector).ok().flatten()?.dyn_into::<web_sys::HtmlElement>().ok()?;
                // The lines and the `pre` share an offset parent, so the difference is the
                // line's place in the scrolled text.
                Some((line.offset_top() - pre.offset_top(), line.offset_height()))
            };
            let marked: Vec<(i32, i32)> = ["[data-just-ran]", "[data-next]"].iter().filter_map(|s| line_box(s)).collect();
            let Some(first) = marked.iter().map(|(top, _)| *top).min() else { return };
            let last = marked.iter().map(|(top, tall)| top + tall).max().unwrap_or(first);
            let (top, height) = (pre.scroll_top(), pre.client_height());
            if first >= top && last <= top + height {
                return;
            }
            // Both lines in the middle of the view when they fit, else the first near its top.
            let span = last - first;
            let to = if span < height { first - (height - span) / 2 } else { first };
            pre.set_scroll_top(to.max(0));
        });
    });
}

/// The verdict and the declared expectations, or "checking…" until the run is done.
#[component]
fn VerdictLine(checked: RwSignal<Option<Checked>>) -> impl IntoView {
    move || match checked.get() {
        None => view! { <span class="verdict-chip pending" data-verdict="pending">"checking…"</span> }.into_any(),
        Some(Checked::Broken(message)) => view! {
            <span class="verdict-chip broken" data-verdict="broken">{message}</span>
        }
        .into_any(),
        Some(Checked::Ran(report)) => {
            let all_ok = report.expectations.iter().all(|e| e.ok);
            let expectations = report
                .expectations
                .iter()
                .map(|e| {
                    let text = match (e.ok, e.actual.is_empty()) {
                        (true, true) => format!("✓ {}", e.declared),
                        // A condition the axioms answered says how (`axiom::table`).
                        (true, false) => format!("✓ {} ({})", e.declared, e.actual),
                        (false, _) => format!("✗ {} (found {})", e.declared, e.actual),
                    };
                    view! { <li class:ok=e.ok class:bad=!e.ok>{text}</li> }
                })
                .collect_view();
            let name = report.verdict.name();
            let label = if report.verdict == Verdict::Partial { "partial (caps hit)" } else { name };
            view! {
                <span class=format!("verdict-chip verdict-{name}") data-verdict=label>
                    {label}
                </span>
                <ul class="expectations" class:all-ok=all_ok>{expectations}</ul>
            }
            .into_any()
        }
    }
}


/// Puts `source` into the explorer (as an undoable edit) and goes there, remembering the
/// lesson so the explorer offers the way back.
pub fn open_in_explorer(state: AppState, source: &str, mode: Mode) {
    remember_return(state);
    state.edit(source.to_string(), false);
    state.mode.set(mode);
    let _ = window().location().set_hash(&Route::Explore.href());
}

/// Records the page shown now (a lesson) as where "Back to the lesson" leads.
pub fn remember_return(state: AppState) {
    let hash = window().location().hash().unwrap_or_default();
    let title = document()
        .query_selector(".lesson-page h1")
        .ok()
        .flatten()
        .and_then(|h| h.text_content())
        .unwrap_or_else(|| "the lesson".to_string());
    state.return_to.set(Some((hash, title)));
}
