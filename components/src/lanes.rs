//! One lane per agent (thread, TMA engine, tensor core) with its program, its current
//! instruction and the moves it can make now.
//!
//! The explorer and the embed show them from a wasm chunk of their own (`lanes_panel`,
//! `crate::lazy`): they come just after the first verdict, which does not need them.

use fencelab::check::view::{AgentKindView, AgentStatusView, AgentView, AsyncOpState};
use fencelab::schedule::Step;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::lazy::{lazy_panel, ChunkLoadFailed};
use crate::state::{use_app_state, AppState, NoSession};
use crate::export::ExportButtons;
use crate::step_controls::StepControls;
use crate::step_effect::StepEffect;
use crate::tape::Move;
use crate::timeline::{async_state_word, timeline_view};
use crate::trace::Trace;

/// [`Lanes`] from the lanes' wasm chunk.
#[leptos::wasm_split::wasm_split(lanes, fallible, wasm_split_path = ::leptos::wasm_split)]
pub fn lanes_panel(compact: bool) -> Result<AnyView, ChunkLoadFailed> {
    Ok(view! { <Lanes compact=compact /> }.into_any())
}

/// Agent lanes of the current execution, with the step controls and the trace.
#[component]
pub fn Lanes(
    /// A lesson's scenario: the lanes and controls only, no timeline or trace.
    #[prop(optional)]
    compact: bool,
) -> impl IntoView {
    let state = use_app_state();
    let agents = Memo::new(move |_| state.read_tape(|t| t.stepper().agents()).unwrap_or_default());
    let async_ops = Memo::new(move |_| state.read_tape(|t| t.stepper().snapshot().async_ops).unwrap_or_default());
    let programs = Memo::new(move |_| {
        state
            .read_tape(|t| {
                t.scenario()
                    .threads
                    .iter()
                    .map(|th| th.program.iter().map(fencelab::syntax::instr_text).collect::<Vec<_>>())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    });
    let lanes_ref = NodeRef::<leptos::html::Div>::new();
    keep_current_lines_in_view(lanes_ref, agents);
    open_each_program_on_its_first_lane(lanes_ref, programs);
    let effect_ref = NodeRef::<leptos::html::Div>::new();
    show_each_effect_from_its_head(effect_ref, agents);
    view! {
        <section class="panel panel-lanes" class:lanes-compact=compact data-region=if compact { "lesson-lanes" } else { "lanes" }
            aria-labelledby=(!compact).then_some("lanes-title") aria-label=compact.then_some("Step through this scenario")>
            <div class="panel-head">
                {if compact {
                    view! { <h4 class="lanes-compact-title">"Step through it"</h4> }.into_any()
                } else {
                    view! { <h2 id="lanes-title">"Line of play"</h2> }.into_any()
                }}
            </div>
            // One screen per step: the step controls, the step's effect on the machine and
            // the lanes together, in a dock at the foot of the explorer's window (of a
            // phone's too) under the editor's lines; in a lesson, in place.
            <div class="step-dock" class:step-dock-fixed=!compact data-step-dock="">
                <div class="step-dock-controls">
                    <StepControls keys=!compact />
                    {(!compact).then(|| view! { <ExportButtons /> })}
                    {move || state.step_error.get().map(|e| view! { <p class="step-error" role="alert">{e}</p> })}
                </div>
                <div class="step-dock-effect" node_ref=effect_ref><StepEffect /></div>
                <crate::ptx_lines::StepPtxLine />
                {move || session_message(state)}
                {move || state.is_stale().then(|| view! {
                    <p class="stale-note" data-stale="">"The program has errors (see the editor): this is the last version that parsed."</p>
                })}
                <div class="lanes" class:stale=move || state.is_stale() node_ref=lanes_ref>
                    // Every lane changes with each step, so they are simply redrawn.
                    {move || {
                        let ops = async_ops.get();
                        agents.get().into_iter().map(|agent| {
                            let async_state = ops.iter().find(|op| op.agent == agent.id).map(|op| op.state);
                            view! { <Lane agent=agent async_state=async_state programs=programs /> }
                        }).collect_view()
                    }}
                </div>
            </div>
            {(!compact).then(|| view! { <div class:stale=move || state.is_stale()>{lazy_panel("the timeline", timeline_view())}<Trace /></div> })}
        </section>
    }
}

/// After each step, every lane that scrolls its program (a short dock) scrolls so that its
/// next instruction is in its view.
fn keep_current_lines_in_view(lanes: NodeRef<leptos::html::Div>, agents: Memo<Vec<AgentView>>) {
    Effect::new(move |_| {
        agents.track();
        request_animation_frame(move || {
            // The lanes may be gone by the next frame (the learner left the page).
            let Some(lanes) = lanes.try_get_untracked().flatten() else { return };
            let mut lane = lanes.first_element_child();
            while let Some(element) = lane {
                lane = element.next_element_sibling();
                let line = element.query_selector("li.current").ok().flatten().and_then(|l| l.dyn_into::<web_sys::HtmlElement>().ok());
                let (Some(line), Ok(element)) = (line, element.dyn_into::<web_sys::HtmlElement>()) else { continue };
                let (top, height) = (element.scroll_top(), element.client_height());
                let (at, tall) = (line.offset_top(), line.offset_height());
                if at < top || at + tall > top + height {
                    element.set_scroll_top((at - height / 3).max(0));
                }
            }
        });
    });
}

/// A new program opens the strip on its first lane: the strip is kept across programs,
/// and where lanes overflow it sideways (a phone's near-full-width lanes) it would keep
/// the last program's scroll, showing some later lane first.
fn open_each_program_on_its_first_lane(lanes: NodeRef<leptos::html::Div>, programs: Memo<Vec<Vec<String>>>) {
    Effect::new(move |_| {
        programs.track();
        request_animation_frame(move || {
            if let Some(lanes) = lanes.try_get_untracked().flatten() {
                lanes.set_scroll_left(0);
            }
        });
    });
}

/// After each step, the step's effect, where it scrolls inside its box (a phone's dock, a
/// lesson card), shows from its headline: the box keeps its scroll across steps, and a
/// learner who scrolled one step's effect down would not see the next one's start.
fn show_each_effect_from_its_head(effect: NodeRef<leptos::html::Div>, agents: Memo<Vec<AgentView>>) {
    Effect::new(move |_| {
        agents.track();
        request_animation_frame(move || {
            if let Some(effect) = effect.try_get_untracked().flatten() {
                effect.set_scroll_top(0);
            }
        });
    });
}

/// Marks the editor line of instruction `instr` of `thread` while the pointer is on it.
pub fn hover_line(state: AppState, thread: &str, instr: usize) {
    let line = state.analysis.with_untracked(|a| {
        (!a.has_errors()).then(|| crate::source_link::SourceLines::new(&a.loaded, &a.source).line_of(thread, instr)).flatten()
    });
    state.hover_line.set(line);
}

fn session_message(state: AppState) -> Option<AnyView> {
    if state.awaits_stepper() {
        return Some(stepper_loading_note());
    }
    state.tape.with(|tape| match tape {
        None => Some(
            view! { <p class="panel-empty">"Fix the errors in the program to step through it."</p> }
                .into_any(),
        ),
        Some(Err(NoSession::Unrunnable(why))) => Some(
            view! { <p class="panel-empty">"The checker cannot run this scenario: " {why.to_string()}</p> }
                .into_any(),
        ),
        Some(Err(NoSession::StepperNotLoaded)) => Some(
            view! {
                <p class="panel-empty step-error" role="alert">
                    "The stepper's code did not load (the browser's console says why). Edit the text to try again, or reload the page."
                </p>
            }
            .into_any(),
        ),
        Some(Ok(_)) => None,
    })
}

/// What the lanes and the machine panel show while the first session of a visit waits for
/// the stepper's code (`crate::tape`).
pub(crate) fn stepper_loading_note() -> AnyView {
    view! { <p class="panel-empty" aria-busy="true">"Loading the stepper…"</p> }.into_any()
}

/// One agent's lane.
#[component]
fn Lane(
    /// The agent as the stepper sees it now.
    agent: AgentView,
    /// Where an async agent's operation stands: issued, accessing, completed.
    async_state: Option<AsyncOpState>,
    /// Printed programs of the scenario's threads, by thread index.
    #[prop(into)]
    programs: Signal<Vec<Vec<String>>>,
) -> impl IntoView {
    let state = use_app_state();
    let (kind_label, is_thread) = match &agent.kind {
        AgentKindView::Thread { cta } => (format!("thread @{cta}"), true),
        AgentKindView::Async { kind, issuer } => (format!("{kind}, issued by {issuer}"), false),
    };
    let (status_class, status_text) = match &agent.status {
        AgentStatusView::Enabled { .. } => ("lane lane-enabled", "ready".to_string()),
        AgentStatusView::Blocked { .. } => ("lane lane-blocked", "blocked".to_string()),
        AgentStatusView::Done => ("lane lane-done", "done".to_string()),
    };
    let id = agent.id;
    let key_hint = (id < 9).then(|| (id + 1).to_string());
    let program = is_thread.then(|| {
        let pc = agent.instr_index;
        let thread = agent.name.clone();
        move || {
            let marks = state.marks.get();
            let shown = marks.shown();
            programs.with(|p| {
                p.get(id as usize)
                    .map(|lines| {
                        lines
                            .iter()
                            .enumerate()
                            .map(|(i, text)| {
                                let current = pc == Some(i);
                                let marked = shown.map(|m| m.line_marks(&thread, i)).unwrap_or_default();
                                let notes = crate::instr_notes::badges(state.notes, id as usize, &thread, i);
                                let is_marked = !marked.is_empty();
                                let (thread_in, instr) = (thread.clone(), i);
                                view! {
                                    <li class:current=current class:access-marked=is_marked
                                        aria-current=current.then_some("step")
                                        on:mouseenter=move |_| hover_line(state, &thread_in, instr)
                                        on:mouseleave=move |_| state.hover_line.set(None)>
                                        <code>{text.clone()}</code>
                                        {notes}
                                        {marked.into_iter().map(|m| view! { <span class="access-mark">{crate::code_text::code_text(&m)}</span> }).collect_view()}
                                    </li>
                                }
                            })
                            .collect_view()
                    })
                    .unwrap_or_default()
            })
        }
    });
    let current_async = (!is_thread).then(|| agent.instr_text.clone()).flatten();
    let async_name = agent.name.clone();
    let async_marks = move || {
        let marks = state.marks.get();
        let lines = if is_thread { Vec::new() } else { marks.shown().map(|m| m.agent_marks(&async_name)).unwrap_or_default() };
        (!lines.is_empty()).then(|| view! {
            <p class="lane-async access-marked">{lines.into_iter().map(|m| view! { <span class="access-mark">{crate::code_text::code_text(&m)}</span> }).collect_view()}</p>
        })
    };
    let actions = match &agent.status {
        AgentStatusView::Enabled { choices } => {
            let several = choices.len() > 1;
            let name = agent.name.clone();
            view! {
                <div class="lane-actions" role="group" aria-label=format!("moves of {name}")>
                    {choices
                        .iter()
                        .map(|c| {
                            let step = Step { agent: id, choice: c.choice };
                            let label = if several { c.label.clone() } else { format!("Step: {}", c.label) };
                            view! {
                                <button type="button" class="choice"
                                    on:click=move |_| { state.playing.set(false); state.with_tape(&[Move::Take(step)]); }>
                                    // One flex item, so the code pieces flow as one line of text.
                                    <span>{crate::code_text::code_text(&label)}</span>
                                </button>
                            }
                        })
                        .collect_view()}
                </div>
            }
            .into_any()
        }
        AgentStatusView::Blocked { reason } => {
            view! { <p class="lane-why"><strong>"Waiting: "</strong>{crate::code_text::code_text(reason)}</p> }.into_any()
        }
        AgentStatusView::Done => view! { <p class="lane-why">"Finished its program."</p> }.into_any(),
    };
    let registers = (!agent.registers.is_empty()).then(|| {
        let text = agent
            .registers
            .iter()
            .map(|(r, v)| format!("{r} = {v}"))
            .collect::<Vec<_>>()
            .join(", ");
        view! { <p class="lane-regs"><span class="muted">"registers: "</span><code>{text}</code></p> }
    });
    view! {
        <article class=status_class data-agent=agent.name.clone() aria-label=format!("{} ({kind_label})", agent.name)>
            <header class="lane-head">
                {key_hint.map(|k| view! { <kbd title="press this key to step it">{k}</kbd> })}
                <strong class="lane-name">{agent.name.clone()}</strong>
                <span class="badge">{kind_label.clone()}</span>
                {async_state.map(|s| {
                    let word = async_state_word(s);
                    view! { <span class=format!("badge async-state async-{word}") title="state of the asynchronous operation">{word}</span> }
                })}
                <span class="lane-status">{status_text}</span>
            </header>
            {program.map(|p| view! { <ol class="lane-program" start="1">{p}</ol> })}
            {current_async.map(|t| view! { <p class="lane-async"><code>{t}</code></p> })}
            {async_marks}
            {actions}
            {registers}
        </article>
    }
}
