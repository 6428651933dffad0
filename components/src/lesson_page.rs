//! The lessons routes: `#/lessons` (the course), `#/lessons/preview` (instructor preview)
//! and `#/lessons/<id>` (one lesson).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::lazy::ChunkLoadFailed;
use crate::lessons::{course_loaded, load_course, provide_progress, LessonList, LessonView, PreviewPage};

/// Route id of the instructor preview; lesson ids are never this word.
const PREVIEW_ID: &str = "preview";

/// The lessons routes' page, from the lessons' wasm chunk (`crate::lazy`): everything it
/// reaches that the explorer does not (the course, grading, the lesson views) loads with it.
#[leptos::wasm_split::wasm_split(lessons, fallible, wasm_split_path = ::leptos::wasm_split)]
pub fn lesson_page(id: Option<String>) -> Result<AnyView, ChunkLoadFailed> {
    Ok(view! { <LessonPage id=id /> }.into_any())
}

/// A lesson by id, the lesson index, or the instructor preview, once the course has
/// been fetched (the first lessons page of a visit waits for it).
#[component]
pub fn LessonPage(
    /// Lesson id from `#/lessons/<id>`; `None` for the index.
    id: Option<String>,
) -> impl IntoView {
    provide_progress();
    // `None` while loading, then the outcome; later lessons pages find it loaded.
    let course = RwSignal::new(course_loaded().then_some(Ok(())));
    if !course_loaded() {
        spawn_local(async move {
            let loaded = load_course().await;
            // The page renders in a task of its own, not in the one that read the course
            // (docs/loading.md). The learner may have left the lessons by then.
            set_timeout(move || drop(course.try_set(Some(loaded))), std::time::Duration::ZERO);
        });
    }
    move || match course.get() {
        None => view! { <p class="page-message" data-page="lesson-loading" aria-busy="true">"Loading the course…"</p> }.into_any(),
        Some(Err(err)) => view! {
            <section class="page-message" data-page="lesson" role="alert">
                <h1>"The lessons did not load"</h1>
                <p>{err}</p>
            </section>
        }
        .into_any(),
        Some(Ok(())) => page(id.clone()),
    }
}

fn page(id: Option<String>) -> AnyView {
    match id {
        None => view! { <LessonList /> }.into_any(),
        Some(id) if id == PREVIEW_ID => view! { <PreviewPage /> }.into_any(),
        Some(id) => view! { <LessonView id=id /> }.into_any(),
    }
}
