//! Back / step / play controls, the step counter and the keyboard shortcuts.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::state::{use_app_state, AppState};
use crate::tape::{next_step_of, Move};

/// Speeds offered, in ms per step.
const SPEEDS: &[(u32, &str)] = &[(1200, "slow"), (600, "normal"), (200, "fast")];

/// The stepping toolbar.
#[component]
pub fn StepControls(
    /// The explorer's controls: a "?" button listing the keys (the "?" key presses it).
    #[prop(optional)]
    keys: bool,
) -> impl IntoView {
    let state = use_app_state();
    let position = move || state.read_tape(|t| t.position()).unwrap_or(0);
    let length = move || state.read_tape(|t| t.len().max(t.position())).unwrap_or(0);
    let can_move = move || state.read_tape(|t| next_step_of(t).is_some()).unwrap_or(false);
    let no_session = move || state.read_tape(|_| ()).is_none();
    autoplay(state);
    let animate = RwSignal::new(animation_on());
    let keys_open = RwSignal::new(false);
    view! {
        <div class="toolbar step-controls" role="toolbar" aria-label="Stepping">
            <button type="button" title="Back to the start" aria-label="Back to the start"
                disabled=move || position() == 0
                on:click=move |_| { state.playing.set(false); state.with_tape(&[Move::Jump(0)]); }>"⇤"</button>
            <button type="button" title="Step back (←)" aria-label="Step back"
                disabled=move || position() == 0
                on:click=move |_| step_back(state)>"◀"</button>
            <button type="button" title="Step forward (→)" aria-label="Step forward"
                disabled=move || !can_move()
                on:click=move |_| step_forward(state)>"▶"</button>
            <button type="button" class="play" title="Play or pause (space)"
                aria-pressed=move || state.playing.get().to_string()
                disabled=move || no_session() || !can_move() && !state.playing.get()
                on:click=move |_| state.playing.update(|p| *p = !*p)>
                {move || if state.playing.get() { "Pause" } else { "Play" }}
            </button>
            <label class="speed">
                <span class="visually-hidden">"Speed"</span>
                <select on:change:target=move |ev| {
                    if let Ok(ms) = ev.target().value().parse() { state.speed_ms.set(ms) }
                }>
                    {SPEEDS.iter().map(|(ms, name)| view! {
                        <option value=ms.to_string() selected=move || state.speed_ms.get() == *ms>{*name}</option>
                    }).collect_view()}
                </select>
            </label>
            <label class="jump">
                "step "
                <input type="number" min="0" aria-label="Jump to step"
                    prop:max=move || length().to_string()
                    prop:value=move || position().to_string()
                    on:change:target=move |ev| {
                        if let Ok(n) = ev.target().value().parse::<usize>() {
                            state.playing.set(false);
                            state.with_tape(&[Move::Jump(n)]);
                        }
                    } />
                {move || format!(" of {}", length())}
            </label>
            <label class="animate-toggle" title="Show each step's value travelling and edges drawing (under 300 ms); off: steps land at once">
                <input type="checkbox" prop:checked=move || animate.get()
                    on:change:target=move |ev| {
                        let on = ev.target().checked();
                        animate.set(on);
                        set_animation(on);
                    } />
                "animate"
            </label>
            {keys.then_some(keys_open).map(|open| view! {
                <button type="button" class="keys-button" title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts"
                    aria-expanded=move || open.get().to_string()
                    on:click=move |_| open.update(|o| *o = !*o)>"?"</button>
                {move || open.get().then(|| view! {
                    <div class="keys-help" role="note" aria-label="Keyboard shortcuts" data-keys-help="">
                        <dl>
                            <dt><kbd>"→"</kbd>" / "<kbd>"←"</kbd></dt><dd>"step forward / back"</dd>
                            <dt><kbd>"Home"</kbd>" / "<kbd>"End"</kbd></dt><dd>"first / last step"</dd>
                            <dt><kbd>"Space"</kbd></dt><dd>"play or pause"</dd>
                            <dt><kbd>"1"</kbd>"–"<kbd>"9"</kbd></dt><dd>"step that lane's agent"</dd>
                            <dt>"click a line"</dt><dd>"run to the step that executes it"</dd>
                            <dt><kbd>"?"</kbd></dt><dd>"show or hide this list"</dd>
                        </dl>
                    </div>
                })}
            })}
        </div>
    }
}

/// How far End looks for the last step past the tape's end (a run to the end of a line of
/// play that nobody has stepped through yet).
const END_SEARCH: usize = 200;

const ANIMATE_KEY: &str = "fencelab-animate";

/// Whether step animations are on (the learner's stored choice; on by default), applied
/// to the page as `data-animate` on the root element, which the stylesheet reads.
fn animation_on() -> bool {
    let on = crate::storage::get(ANIMATE_KEY).as_deref() != Some("off");
    apply_animation(on);
    on
}

fn set_animation(on: bool) {
    crate::storage::set(ANIMATE_KEY, if on { "on" } else { "off" });
    apply_animation(on);
}

fn apply_animation(on: bool) {
    if let Some(root) = document().document_element() {
        let _ = if on { root.remove_attribute("data-animate") } else { root.set_attribute("data-animate", "off") };
    }
}

pub fn step_forward(state: AppState) {
    state.playing.set(false);
    state.with_tape(&[Move::Forward]);
}

pub fn step_back(state: AppState) {
    state.playing.set(false);
    state.with_tape(&[Move::Back]);
}

/// While playing, one step per tick; stops at the end.
fn autoplay(state: AppState) {
    let handle = StoredValue::new(None::<IntervalHandle>);
    Effect::new(move |_| {
        if let Some(h) = handle.get_value() {
            h.clear();
        }
        handle.set_value(None);
        if !state.playing.get() {
            return;
        }
        let every = std::time::Duration::from_millis(u64::from(state.speed_ms.get()));
        let tick = move || {
            if state.with_tape(&[Move::Forward]) != Some(true) {
                state.playing.set(false);
            }
        };
        handle.set_value(set_interval_with_handle(tick, every).ok());
    });
    on_cleanup(move || {
        if let Some(h) = handle.get_value() {
            h.clear();
        }
    });
}

/// ←/→ step, Home/End go to the first and last step, space plays or pauses, 1–9 steps
/// that lane's agent, "?" lists the keys. Ignored while typing.
pub fn install_shortcuts(state: AppState) {
    let listener = window_event_listener(leptos::ev::keydown, move |ev: KeyboardEvent| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() || typing_in_a_field(&ev) {
            return;
        }
        match ev.key().as_str() {
            // Handled here, so not also the browser's: its arrow keys scroll the last
            // scroller clicked, which is often the lanes strip, sideways off its first lane.
            "ArrowRight" => {
                ev.prevent_default();
                step_forward(state);
            }
            "ArrowLeft" => {
                ev.prevent_default();
                step_back(state);
            }
            "Home" => {
                ev.prevent_default();
                state.playing.set(false);
                state.with_tape(&[Move::Jump(0)]);
            }
            "End" => {
                ev.prevent_default();
                state.playing.set(false);
                // The tape's last step, then on until nothing can move.
                let mut moves = vec![Move::Jump(usize::MAX)];
                moves.extend(std::iter::repeat_n(Move::Forward, END_SEARCH));
                state.with_tape(&moves);
            }
            // The list belongs to the step controls' own button: a signal here would
            // outlive the explorer's panels.
            "?" => {
                let button = document().query_selector(".keys-button").ok().flatten();
                if let Some(button) = button.and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok()) {
                    button.click();
                }
            }
            " " => {
                ev.prevent_default();
                state.playing.update(|p| *p = !*p);
            }
            digit => {
                let Some(n) = digit.parse::<u32>().ok().filter(|n| (1..=9).contains(n)) else { return };
                state.playing.set(false);
                // The first choice; a blocked, finished or missing agent is refused with the reason.
                state.with_tape(&[Move::Take(fencelab::schedule::Step { agent: n - 1, choice: 0 })]);
            }
        }
    });
    on_cleanup(move || listener.remove());
}

fn typing_in_a_field(ev: &KeyboardEvent) -> bool {
    let Some(target) = ev.target() else { return false };
    let Ok(element) = target.dyn_into::<web_sys::Element>() else { return false };
    // Space on a button (or an SVG element acting as one) presses it, not play.
    let is_button = element.tag_name() == "BUTTON" || element.get_attribute("role").as_deref() == Some("button");
    matches!(element.tag_name().as_str(), "TEXTAREA" | "INPUT" | "SELECT") || is_button && ev.key() == " "
}
