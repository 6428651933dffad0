//! `#/lessons`: the course in order, by section, with each lesson's progress, and the
//! progress export/import.

use fencelab::lesson::{Block, Lesson};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::course::Course;
use super::files::{download, read_picked};
use super::page::tags;
use super::progress::{use_progress, Progress, MAX_IMPORT_BYTES};
use crate::route::Route;

/// Every lesson of the course, grouped by section.
#[component]
pub fn LessonList() -> impl IntoView {
    let progress = use_progress();
    let sections = Course::get()
        .sections
        .iter()
        .map(|section| {
            let items = section
                .lessons
                .iter()
                .map(|entry| {
                    let lesson = &entry.lesson;
                    let href = Route::Lesson(Some(lesson.meta.id.clone())).href();
                    let keys = exercise_keys(lesson);
                    let total = keys.len();
                    let state = Memo::new(move |_| {
                        progress.with(|p| mark(keys.iter().filter(|k| p.get(k).passed).count(), total))
                    });
                    view! {
                        <li class="lesson-item" data-lesson=lesson.meta.id.clone()>
                            <span class="lesson-mark" class:done=move || state.get().0 == "✓" aria-hidden="true">{move || state.get().0}</span>
                            <a href=href class="lesson-title">{format!("{}. {}", lesson.meta.order, lesson.meta.title)}</a>
                            {tags(lesson)}
                            <span class="lesson-progress">{move || state.get().1}</span>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <section class="lesson-section">
                    <h2>{section.title.clone()}</h2>
                    <ol class="lesson-items">{items}</ol>
                </section>
            }
        })
        .collect_view();
    view! {
        <div class="lesson-list" data-page="lesson">
            <h1>"Lessons"</h1>
            <p class="lead">
                "Each lesson's scenarios are checked live by the same checker the explorer uses. "
                "Exercises are graded as you type; your progress stays in this browser."
            </p>
            {sections}
            <ProgressFile />
            <p class="preview-link"><a href=Route::Lesson(Some("preview".into())).href()>"Instructor preview"</a>
                " — paste a lesson's Markdown and see it rendered and checked."</p>
        </div>
    }
}

/// Export/import of progress as a JSON file.
#[component]
fn ProgressFile() -> impl IntoView {
    let progress = use_progress();
    let message = RwSignal::new(None::<(bool, String)>);
    let export = move |_| {
        let outcome = download("fencelab-progress.json", &progress.with_untracked(Progress::to_json));
        message.set(outcome.err().map(|e| (false, format!("could not export: {e}"))));
    };
    let on_pick = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        spawn_local(async move {
            let read = read_picked(&input, MAX_IMPORT_BYTES).await;
            input.set_value("");
            match read.and_then(|text| Progress::from_json(&text)) {
                Ok(imported) => {
                    progress.set(imported);
                    message.set(Some((true, "progress imported".into())));
                }
                Err(err) => message.set(Some((false, format!("nothing was imported: {err}")))),
            }
        });
    };
    view! {
        <section class="progress-file" aria-labelledby="progress-file-title">
            <h2 id="progress-file-title">"Your progress"</h2>
            <div class="toolbar">
                <button type="button" class="export-progress" on:click=export>"Export progress"</button>
                <label class="button import-progress">
                    "Import progress…"
                    <input type="file" accept="application/json,.json" class="visually-hidden" on:change=on_pick />
                </label>
            </div>
            {move || message.get().map(|(ok, text)| view! {
                <p class="progress-message" class:ok=ok class:bad=!ok role="status">{text}</p>
            })}
        </section>
    }
}

fn exercise_keys(lesson: &Lesson) -> Vec<String> {
    lesson
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Exercise(ex) => Some(Progress::key(&lesson.meta.id, &ex.id)),
            _ => None,
        })
        .collect()
}

/// The list mark and the progress text for `done` of `total` exercises.
fn mark(done: usize, total: usize) -> (&'static str, String) {
    match (done, total) {
        (_, 0) => ("·", "reading".into()),
        (d, t) if d >= t => ("✓", format!("{t}/{t} exercises")),
        (0, t) => ("○", format!("0/{t} exercises")),
        (d, t) => ("◐", format!("{d}/{t} exercises")),
    }
}
