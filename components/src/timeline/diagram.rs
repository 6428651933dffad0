//! Draws the timeline geometry as SVG: columns, step dots that jump the tape, arrows for
//! synchronization formed (coloured by scope) and failed (dashed, with the reason).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::geometry::{self, Arrow, ArrowKind, Column, Dot, Row, TimelineInput, DOT_RADIUS, GUTTER, ROW_HEIGHT};
use crate::decimal::{coordinate, fixed};
use crate::state::{use_app_state, AppState};
use crate::tape::Move;

const HINT: &str = "Hover or Tab to a dot or an arrow to read it here; Enter on a dot goes to just after that step.";

/// The timeline of the line of play on the tape, steps ahead faded.
#[component]
pub fn Timeline() -> impl IntoView {
    let state = use_app_state();
    let layout = Memo::new(move |_| diagram_of(state));
    // What the pointer or keyboard focus is on, shown under the diagram.
    let caption = RwSignal::new(None::<String>);
    // A redraw replaces the focused element: the key of the one to focus again.
    let refocus = StoredValue::new(None::<String>);
    Effect::new(move |_| {
        layout.track();
        if let Some(key) = refocus.get_value() {
            refocus.set_value(None);
            request_animation_frame(move || focus_key(&key));
        }
    });
    let ui = Ui { state, caption, refocus };
    view! {
        {move || layout.get().map(|tl| view! {
            <figure class="timeline" aria-labelledby="timeline-title">
                <figcaption class="timeline-head">
                    <strong id="timeline-title">"Timeline"</strong>
                    {legend()}
                </figcaption>
                <div class="timeline-scroll">
                    <svg class="timeline-svg" role="group" aria-label="Timeline diagram: one column per agent, one row per step"
                        aria-describedby="timeline-summary"
                        viewBox=format!("0 0 {} {}", fixed(tl.width, 0), fixed(tl.height, 0))
                        width=fixed(tl.width, 0) height=fixed(tl.height, 0)
                        style=format!("--tl-width: {}px", fixed(tl.width, 0))>
                        {tl.rows.iter().map(row_view).collect_view()}
                        {tl.columns.iter().map(|c| column_view(c, tl.height)).collect_view()}
                        {
                            // Arrows ending on the current row (their head stops short of the dot) formed with
                            // the step just taken: they draw in.
                            let now_y = tl.rows.iter().find(|r| r.current && r.index > 0).map(|r| r.y);
                            tl.arrows.iter().enumerate().map(|(i, a)| arrow_view(i, a.clone(), now_y.is_some_and(|y| (a.to.1 - y).abs() < ROW_HEIGHT / 2.0), ui)).collect_view()
                        }
                        {tl.dots.iter().map(|d| dot_view(d.clone(), ui)).collect_view()}
                    </svg>
                </div>
                <p class="timeline-caption" class:timeline-hint=move || caption.with(Option::is_none)>
                    {move || caption.get().unwrap_or_else(|| HINT.to_string())}
                </p>
                <p id="timeline-summary" class="visually-hidden">{tl.summary()}" See the trace below."</p>
            </figure>
        })}
    }
}

/// Signals the drawn pieces share.
#[derive(Clone, Copy)]
struct Ui {
    state: AppState,
    caption: RwSignal<Option<String>>,
    refocus: StoredValue<Option<String>>,
}

fn diagram_of(state: AppState) -> Option<geometry::Timeline> {
    let marks = state.marks.get();
    state.read_tape(|t| {
        // The tape's steps replay by construction; if not, draw what was taken.
        let whole = t.whole_line().unwrap_or_else(|_| t.stepper().clone());
        let all = whole.snapshot();
        let now = t.stepper().snapshot();
        let rings = marks.shown().map(|m| m.ringed_steps(t.steps())).unwrap_or_default();
        geometry::Timeline::of(&TimelineInput {
            agents: &whole.agents(),
            events: whole.history(),
            position: t.position(),
            edges: &all.edges,
            failed: &all.failed_edges,
            async_ops: &now.async_ops,
            rings: &rings,
        })
    })
}

fn legend() -> impl IntoView {
    let scopes = [("cta", ".cta"), ("cluster", ".cluster"), ("gpu", ".gpu"), ("sys", ".sys"), ("none", "no scope")];
    view! {
        <ul class="timeline-legend" aria-label="Legend">
            {scopes.map(|(class, label)| view! {
                <li><span class=format!("swatch scope-{class}") aria-hidden="true"></span>{label}</li>
            }).collect_view()}
            <li><span class="swatch swatch-failed" aria-hidden="true"></span>"failed"</li>
            <li><span class="swatch-ring" aria-hidden="true"></span>"finding access"</li>
        </ul>
    }
}

fn row_view(row: &Row) -> impl IntoView {
    let label = match (row.index, row.current) {
        (0, true) => "▸ start".to_string(),
        (0, false) => "start".to_string(),
        (n, true) => format!("▸ {n}"),
        (n, false) => n.to_string(),
    };
    let top = row.y - ROW_HEIGHT / 2.0;
    view! {
        <g class="tl-row" class:tl-current=row.current class:tl-ahead=row.ahead>
            {row.current.then(|| view! { <rect class="tl-now" x="0" y=coordinate(top) width="100%" height=coordinate(ROW_HEIGHT) rx="4"></rect> })}
            <text class="tl-row-label" x=coordinate(GUTTER - 10.0) y=coordinate(row.y + 4.0) text-anchor="end">{label}</text>
        </g>
    }
}

fn column_view(column: &Column, height: f64) -> impl IntoView {
    let word = column.badge.word();
    let badge_width = word.chars().count() as f64 * 6.4 + 14.0;
    let class = format!("tl-badge tl-badge-{}", word.replace(' ', "-"));
    view! {
        <g class="tl-column">
            <line class="tl-life" x1=coordinate(column.x) x2=coordinate(column.x) y1=coordinate(column.life_from) y2=coordinate(height - 8.0)></line>
            {matches!(column.badge, geometry::ColumnBadge::Thread).then(|| view! {
                <circle class="tl-start" cx=coordinate(column.x) cy=coordinate(geometry::row_y(0)) r="4"></circle>
            })}
            <text class="tl-name" x=coordinate(column.x) y="17" text-anchor="middle">
                <title>{column.name.clone()}</title>
                {column.short_name.clone()}
            </text>
            <g class=class>
                <rect x=coordinate(column.x - badge_width / 2.0) y="25" width=coordinate(badge_width) height="17" rx="8.5"></rect>
                <text x=coordinate(column.x) y="37.5" text-anchor="middle">{word}</text>
            </g>
        </g>
    }
}

fn arrow_view(index: usize, arrow: Arrow, just_formed: bool, ui: Ui) -> impl IntoView {
    let (class, reason) = match &arrow.kind {
        ArrowKind::Formed { scope } => (format!("tl-arrow tl-formed scope-{scope}"), None),
        ArrowKind::Failed { reason } => ("tl-arrow tl-failed".to_string(), Some(reason.clone())),
    };
    let draws_in = just_formed && matches!(arrow.kind, ArrowKind::Formed { .. });
    let key = format!("arrow-{index}");
    let caption = arrow.caption.clone();
    let label = arrow.caption.clone();
    view! {
        <g class=class class:tl-ahead=arrow.ahead class:tl-just-formed=draws_in tabindex="0" role="img" aria-label=label
            data-key=key.clone() data-reason=reason
            on:mouseenter={let c = caption.clone(); move |_| ui.caption.set(Some(c.clone()))}
            on:focus={let c = caption.clone(); move |_| ui.caption.set(Some(c.clone()))}
            on:mouseleave=move |_| ui.caption.set(None)
            on:blur=move |_| ui.caption.set(None)
            on:keydown=move |_| ui.refocus.set_value(Some(key.clone()))>
            <title>{arrow.caption.clone()}</title>
            <path class="tl-hit" d=arrow.path.clone()></path>
            // A unit length lets CSS draw the line in; a dashed (failed) line keeps its dashes.
            <path class="tl-line" d=arrow.path.clone() pathLength=draws_in.then_some("1")></path>
            <polygon class="tl-head" points=arrow.head.clone()></polygon>
        </g>
    }
}

fn dot_view(dot: Dot, ui: Ui) -> impl IntoView {
    let step = dot.step;
    let key = format!("dot-{step}");
    let caption = dot.caption.clone();
    let jump = move || {
        ui.state.playing.set(false);
        ui.state.with_tape(&[Move::Jump(step)]);
    };
    view! {
        <g class="tl-dot" class:tl-ahead=dot.ahead class:tl-current=dot.current class:tl-ringed=dot.ringed
            tabindex="0" role="button" data-key=key.clone() data-step=step.to_string()
            aria-label=format!("{}. Go to just after step {step}", dot.caption)
            on:click=move |_| jump()
            on:mouseenter={let c = caption.clone(); move |_| { ui.caption.set(Some(c.clone())); hover_step_line(ui.state, step) }}
            on:focus={let c = caption.clone(); move |_| { ui.caption.set(Some(c.clone())); hover_step_line(ui.state, step) }}
            on:mouseleave=move |_| { ui.caption.set(None); ui.state.hover_line.set(None) }
            on:blur=move |_| { ui.caption.set(None); ui.state.hover_line.set(None) }
            on:keydown=move |ev| {
                ui.refocus.set_value(Some(key.clone()));
                if matches!(ev.key().as_str(), "Enter" | " ") {
                    // Handled here: space must not also toggle play.
                    ev.prevent_default();
                    ev.stop_propagation();
                    jump();
                }
            }>
            <title>{dot.caption.clone()}</title>
            {dot.ringed.then(|| view! { <circle class="tl-ring" cx=coordinate(dot.x) cy=coordinate(dot.y) r=coordinate(DOT_RADIUS + 5.0)></circle> })}
            <circle class="tl-dot-mark" cx=coordinate(dot.x) cy=coordinate(dot.y) r=coordinate(DOT_RADIUS)></circle>
            <text class="tl-dot-label" x=coordinate(dot.x + DOT_RADIUS + 5.0) y=coordinate(dot.y + 3.5) aria-hidden="true">{dot.label.clone()}</text>
        </g>
    }
}

/// Marks the editor line of step `step` (1-based, on the tape's line of play).
fn hover_step_line(state: AppState, step: usize) {
    let line = state.read_tape(|t| {
        let whole = t.whole_line().ok()?;
        let event = whole.history().get(step.checked_sub(1)?)?;
        state.analysis.with_untracked(|a| {
            (!a.has_errors())
                .then(|| crate::source_link::SourceLines::new(&a.loaded, &a.source).line_of_event(&whole.agents(), event))
                .flatten()
        })
    });
    state.hover_line.set(line.flatten());
}

/// Focuses the drawn element with `data-key` = `key`, if it is still there.
fn focus_key(key: &str) {
    let Some(element) = document().query_selector(&format!(".timeline-svg [data-key=\"{key}\"]")).ok().flatten() else {
        return;
    };
    // SVG elements have `focus()` too, but web-sys only binds it on `HtmlElement`.
    if let Ok(focus) = js_sys::Reflect::get(&element, &"focus".into()) {
        if let Ok(focus) = focus.dyn_into::<js_sys::Function>() {
            let _ = focus.call0(&element);
        }
    }
}
