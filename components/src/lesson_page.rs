//! The lessons route. Lessons are Markdown files in `lessons/`, written and checked by
//! the lessons work; until they are bundled into the app this page says so.

use leptos::prelude::*;

use crate::route::Route;

/// A lesson by id, or the lesson index.
#[component]
pub fn LessonPage(
    /// Lesson id from `#/lessons/<id>`; `None` for the index.
    id: Option<String>,
) -> impl IntoView {
    let heading = match &id {
        Some(id) => format!("Lesson `{id}`"),
        None => "Lessons".to_string(),
    };
    view! {
        <section class="page-message" data-page="lesson">
            <h1>{heading}</h1>
            <p>
                "Lessons are not bundled into this build yet. Meanwhile the explorer takes any "
                "scenario: write one, or start from the built-in example."
            </p>
            <p><a href=Route::Explore.href()>"Open the explorer"</a></p>
        </section>
    }
}
