//! `#/lessons/<id>`: one lesson, its prose, live scenario verdicts and exercises.

use fencelab::lesson::{Block, Lesson};
use leptos::prelude::*;

use super::course::{Course, CourseLesson};
use super::exercise::ExerciseCard;
use super::prose::Prose;
use super::scenario_card::{AfterPaint, ScenarioCard};
use crate::route::Route;

/// A bundled lesson by id, or a message naming the unknown id.
#[component]
pub fn LessonView(
    /// The lesson id from the URL.
    id: String,
) -> impl IntoView {
    let course = Course::get();
    let Some(found) = course.find(&id) else {
        return view! {
            <section class="page-message" data-page="lesson">
                <h1>"No such lesson"</h1>
                <p>"There is no lesson " <code>{id}</code> "."</p>
                <p><a href=Route::Lesson(None).href()>"All lessons"</a></p>
            </section>
        }
        .into_any();
    };
    let (before, after) = course.neighbours(&id);
    view! {
        <article class="lesson-page" data-page="lesson" data-lesson=id.clone()>
            <nav class="lesson-crumbs" aria-label="Lesson">
                <a href=Route::Lesson(None).href()>"All lessons"</a>
                {tags(&found.lesson)}
            </nav>
            {(!found.errors.is_empty()).then(|| view! {
                <ul class="lesson-errors" role="alert">
                    {found.errors.iter().map(|e| view! { <li>{format!("{}:{}: {}", found.file, e.line, e.message)}</li> }).collect_view()}
                </ul>
            })}
            <LessonBody lesson=found.lesson.clone() track=true />
            <nav class="lesson-pager" aria-label="Next and previous lessons">
                {before.map(|l| pager_link(l, "← "))}
                <span class="spacer"></span>
                {after.map(|l| pager_link(l, "Next: "))}
            </nav>
        </article>
    }
    .into_any()
}

/// The blocks of a lesson in order. `track` records exercise progress (off in preview).
#[component]
pub fn LessonBody(
    /// The parsed lesson.
    lesson: Lesson,
    /// Whether exercises record progress.
    track: bool,
) -> impl IntoView {
    let lesson_id = lesson.meta.id.clone();
    let mut scenarios = 0;
    let mut exercises = 0;
    lesson
        .blocks
        .into_iter()
        .map(|block| match block {
            Block::Prose(markdown) => view! { <Prose markdown=markdown /> }.into_any(),
            Block::Scenario { source, line, mode } => {
                scenarios += 1;
                view! { <ScenarioCard source=source mode=mode line=line order=scenarios /> }.into_any()
            }
            Block::Exercise(exercise) => {
                exercises += 1;
                // Each exercise loads its start into an editor and a session of its own: in a
                // task of its own after the lesson's first paint (and the cards' sessions, which
                // `ScenarioCard` builds 10 ms apart), as the cards do.
                let delay_ms = 10 * (scenarios + exercises) as u64;
                let lesson_id = lesson_id.clone();
                view! {
                    <AfterPaint delay_ms=delay_ms>
                        {
                            let (lesson_id, exercise) = (lesson_id.clone(), exercise.clone());
                            view! { <ExerciseCard lesson_id=lesson_id exercise=exercise track=track /> }
                        }
                    </AfterPaint>
                }
                .into_any()
            }
        })
        .collect_view()
}

/// The lesson's tags as small labels.
pub fn tags(lesson: &Lesson) -> impl IntoView {
    let tags = lesson.meta.tags.iter().map(|t| view! { <li class="tag">{t.clone()}</li> }).collect_view();
    view! { <ul class="tags" aria-label="Tags">{tags}</ul> }
}

fn pager_link(lesson: &CourseLesson, prefix: &str) -> impl IntoView {
    let href = Route::Lesson(Some(lesson.lesson.meta.id.clone())).href();
    view! { <a href=href>{format!("{prefix}{}", lesson.lesson.meta.title)}</a> }
}
