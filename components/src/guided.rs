//! The guided start a first visit sees on the explorer: lesson 1, or a three-step tour
//! (editor → verdict → lanes and machine) on a racy message-passing program. Dismissing
//! it, or finishing the tour, is remembered in localStorage; the header's "Tour" button
//! starts the tour again (`AppState::tour_requested`). While it tours, the banner is pinned
//! to the bottom of the window, so its text stays on screen beside each stop's region, and
//! the last stop waits for the learner's first → before it can end.

use leptos::prelude::*;

use crate::route::Route;
use crate::state::AppState;

const STORAGE_KEY: &str = "fencelab-guided-start";
/// The course's first lesson (lessons/index.md).
const FIRST_LESSON: &str = "executed-is-not-visible";
/// The tour's program: the relaxed message-passing template, which races.
const TOUR_TEMPLATE: &str = "mp-relaxed";

/// One stop of the tour: the region it points at and what it says there.
struct Stop {
    region: &'static str,
    title: &'static str,
    text: &'static str,
}

const STOPS: [Stop; 3] = [
    Stop {
        region: "editor",
        title: "1 of 3 · The program",
        text: "A producer stores data, then sets a flag; a consumer waits for the flag, then reads the data. \
               Every access here is relaxed or weak: nothing orders the data before the flag.",
    },
    Stop {
        region: "verdict",
        title: "2 of 3 · The verdict",
        text: "The checker tried every interleaving and found a race: the consumer can see the flag and still read \
               the old data. The finding names what is missing; \"Show me\" replays its witness.",
    },
    Stop {
        region: "lanes",
        title: "3 of 3 · Step through it",
        text: "Each lane is a thread. Press → now (or \"Step forward\"): each press takes one step, the editor \
               marks the line it ran, and the machine shows which values each thread can read.",
    },
];

/// The stop that asks for a step: it ends only once the learner has taken one.
const STEP_STOP: usize = 2;

fn dismissed() -> bool {
    crate::storage::get(STORAGE_KEY).is_some()
}

fn remember(choice: &str) {
    crate::storage::set(STORAGE_KEY, choice);
}

/// Frames the tour keeps looking for a stop's region that is not on the page yet (about
/// ten seconds): long enough for a chunk on a slow link, and a chunk that failed to load
/// does not keep it looking until the tour is closed.
const LOOKS_FOR_REGION: u32 = 600;

/// Marks the region of tour stop `stop` (and unmarks the others). The lanes come from a
/// chunk of their own (`lazy.rs`): while the tour stays on a stop whose region is not on
/// the page yet, it looks again at the next frame, `looks_left` more times.
fn point_at(stop: Option<usize>, current: RwSignal<Option<usize>>, looks_left: u32) {
    let mut found = false;
    for (i, s) in STOPS.iter().enumerate() {
        let Some(el) = document().query_selector(&format!("[data-region=\"{}\"]", s.region)).ok().flatten() else { continue };
        let _ = if Some(i) == stop { el.set_attribute("data-tour-focus", "") } else { el.remove_attribute("data-tour-focus") };
        if Some(i) == stop {
            // Its top at the window's top (`scroll-margin-top`): the banner is pinned below.
            el.scroll_into_view_with_bool(true);
            found = true;
        }
    }
    if stop.is_some() && !found && looks_left > 0 && current.try_get_untracked() == Some(stop) {
        request_animation_frame(move || point_at(stop, current, looks_left - 1));
    }
}

/// The banner, or nothing once it was dismissed.
#[component]
pub fn GuidedStart(state: AppState) -> impl IntoView {
    let open = RwSignal::new(!dismissed());
    let stop = RwSignal::new(None::<usize>);
    // Whether the learner has taken a step since the tour loaded its program.
    let stepped = move || state.read_tape(|t| t.position() > 0).unwrap_or(false);
    Effect::new(move |_| {
        let at = stop.get();
        request_animation_frame(move || point_at(at, stop, LOOKS_FOR_REGION));
    });
    let close = move |choice: &'static str| {
        remember(choice);
        stop.set(None);
        open.set(false);
    };
    let start_tour = move || {
        if let Some(t) = crate::templates::find(TOUR_TEMPLATE) {
            state.edit(t.source.to_string(), false);
        }
        open.set(true);
        stop.set(Some(0));
    };
    // The header's "Tour": here already, or on arriving from another page.
    Effect::new(move |_| {
        if state.tour_requested.get() {
            state.tour_requested.set(false);
            start_tour();
        }
    });
    let next = move |_| match stop.get_untracked() {
        Some(i) if i + 1 < STOPS.len() => stop.set(Some(i + 1)),
        _ => close("toured"),
    };
    let lesson = Route::Lesson(Some(FIRST_LESSON.to_string())).href();
    move || {
        open.get().then(|| {
            let lesson = lesson.clone();
            view! {
                <aside class="guided" data-guided-start="" aria-label="Getting started"
                    data-touring=move || stop.with(Option::is_some).then_some("")>
                    {move || match stop.get().and_then(|i| STOPS.get(i).map(|s| (i, s))) {
                        None => view! {
                            <p class="guided-text"><strong>"New here? "</strong>
                                "fencelab checks every interleaving of a small GPU program and shows why a read can be stale. "
                                "Start with the first lesson, or take a 3-step tour of this page."</p>
                            <div class="guided-actions">
                                <a class="button primary" href=lesson.clone() on:click=move |_| close("lesson")>"Start lesson 1"</a>
                                <button type="button" on:click=move |_| start_tour()>"Take the tour"</button>
                                <button type="button" class="guided-dismiss" on:click=move |_| close("dismissed")>"Dismiss"</button>
                            </div>
                        }
                        .into_any(),
                        Some((i, s)) => view! {
                            <p class="guided-text" data-tour-stop=i.to_string()><strong>{s.title}</strong>" "{s.text}</p>
                            {(i == STEP_STOP).then(|| view! {
                                <p class="guided-step" role="status" data-tour-stepped=move || stepped().to_string()>
                                    {move || if stepped() { "✓ A step ran: its line is marked in the editor. Press → again, or Done." } else { "Waiting for your first → …" }}
                                </p>
                            })}
                            <div class="guided-actions">
                                <button type="button" class="primary" on:click=next
                                    disabled=move || i == STEP_STOP && !stepped()>
                                    {if i + 1 < STOPS.len() { "Next" } else { "Done" }}
                                </button>
                                <button type="button" class="guided-dismiss" on:click=move |_| close("dismissed")>"End the tour"</button>
                            </div>
                        }
                        .into_any(),
                    }}
                </aside>
            }
        })
    }
}
