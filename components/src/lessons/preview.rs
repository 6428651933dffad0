//! `#/lessons/preview`: an instructor pastes lesson Markdown and sees it rendered and
//! checked in the browser: parse errors and checker mismatches, each with its line.

use fencelab::check::Options;
use fencelab::lesson::{check_lesson, lint_lesson, parse_lesson, Mismatch, MismatchKind};
use leptos::prelude::*;

use super::course::Course;
use super::page::LessonBody;
use super::scenario_card::later;
use crate::route::Route;

/// Typing pause after which the lesson is re-rendered and re-checked.
const SETTLE_MS: u64 = 500;

/// Lesson source on the left, the rendered lesson and its problems on the right.
#[component]
pub fn PreviewPage() -> impl IntoView {
    let text = RwSignal::new(Course::sample_text().to_string());
    let settled = RwSignal::new(text.get_untracked());
    let generation = StoredValue::new(0u64);
    let on_input = move |value: String| {
        text.set(value);
        let ticket = generation.get_value() + 1;
        generation.set_value(ticket);
        later(SETTLE_MS, move || {
            if generation.try_get_value() == Some(ticket) {
                if let Some(now) = text.try_get_untracked() {
                    let _ = settled.try_set(now);
                }
            }
        });
    };
    let parsed = Memo::new(move |_| settled.with(|s| parse_lesson(s)));
    // Problems the parser and the cheap lint find show at once; the checker's come after.
    let quick = Memo::new(move |_| {
        parsed.with(|(lesson, errors)| {
            let mut lines: Vec<(usize, String)> = errors.iter().map(|e| (e.line, e.message.clone())).collect();
            lines.extend(lint_lesson(lesson).iter().map(describe));
            lines
        })
    });
    let checked = RwSignal::new(None::<Vec<(usize, String)>>);
    Effect::new(move |_| {
        let lesson = parsed.with(|(lesson, _)| lesson.clone());
        checked.set(None);
        later(30, move || {
            let found: Vec<(usize, String)> = check_lesson(&lesson, &Options::default())
                .iter()
                .filter(|m| m.kind != MismatchKind::Malformed)
                .map(describe)
                .collect();
            let _ = checked.try_set(Some(found));
        });
    });
    let problems = move || {
        let mut all = quick.get();
        all.extend(checked.get().unwrap_or_default());
        fencelab::sort::sort_by_key(&mut all, |(line, _)| *line);
        all
    };
    view! {
        <div class="preview-page" data-page="lesson-preview">
            <h1>"Lesson preview"</h1>
            <p class="lead">
                "Paste or edit a lesson (the format is in " <code>"docs/lessons.md"</code>
                "). It is rendered and checked here, in your browser; nothing is uploaded. "
                <a href=Route::Lesson(None).href()>"All lessons"</a>
            </p>
            <div class="preview-cols">
                <label class="preview-source">
                    <span>"Lesson Markdown"</span>
                    <textarea class="preview-text" spellcheck="false" wrap="off"
                        prop:value=move || text.get()
                        on:input:target=move |ev| on_input(ev.target().value())></textarea>
                </label>
                <div class="preview-out">
                    <section class="preview-problems" aria-live="polite">
                        <h2>"Problems"</h2>
                        {move || match (problems(), checked.with(Option::is_some)) {
                            (list, done) if list.is_empty() => view! {
                                <p class="ok" data-problems="0">{if done { "✓ no problems: every claim agrees with the checker" } else { "no parse problems; checking claims…" }}</p>
                            }.into_any(),
                            (list, done) => {
                                let count = list.len().to_string();
                                let items = list.into_iter().map(|(line, msg)| view! { <li><span class="problem-line">{format!("line {line}")}</span>": "{msg}</li> }).collect_view();
                                view! {
                                    <ul class="problem-list" data-problems=count>{items}</ul>
                                    {(!done).then(|| view! { <p class="pending">"checking claims…"</p> })}
                                }.into_any()
                            }
                        }}
                    </section>
                    <section class="preview-rendered">
                        {move || parsed.with(|(lesson, _)| view! { <LessonBody lesson=lesson.clone() track=false /> })}
                    </section>
                </div>
            </div>
        </div>
    }
}

fn describe(mismatch: &Mismatch) -> (usize, String) {
    let what = match mismatch.kind {
        MismatchKind::Malformed => "malformed",
        MismatchKind::Claim => "the checker disagrees with a claim",
        MismatchKind::Exercise => "exercise check failed",
        MismatchKind::Unverified => "the checker could not decide this claim",
    };
    (mismatch.line, format!("{what}: declared {}, actual {}", mismatch.declared, mismatch.actual))
}
