//! The lessons routes: `#/lessons` (the course), `#/lessons/preview` (instructor preview)
//! and `#/lessons/<id>` (one lesson).

use leptos::prelude::*;

use crate::lessons::{provide_progress, LessonList, LessonView, PreviewPage};

/// Route id of the instructor preview; lesson ids are never this word.
const PREVIEW_ID: &str = "preview";

/// A lesson by id, the lesson index, or the instructor preview.
#[component]
pub fn LessonPage(
    /// Lesson id from `#/lessons/<id>`; `None` for the index.
    id: Option<String>,
) -> impl IntoView {
    provide_progress();
    match id {
        None => view! { <LessonList /> }.into_any(),
        Some(id) if id == PREVIEW_ID => view! { <PreviewPage /> }.into_any(),
        Some(id) => view! { <LessonView id=id /> }.into_any(),
    }
}
