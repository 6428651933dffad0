//! Lesson Markdown on screen, through the core's safe renderer.

use leptos::prelude::*;

use super::course::Course;
use crate::route::Route;

/// Markdown rendered by `fencelab::lesson::render_markdown_linked` (in the renderer wasm,
/// `super::markdown`), which escapes any HTML the author wrote and neutralises unsafe link
/// targets; that is what makes `inner_html` safe here. A link to another lesson's file opens that lesson's page.
#[component]
pub fn Prose(
    /// Markdown text (lesson prose, an exercise prompt or a hint).
    #[prop(into)]
    markdown: Signal<String>,
    /// Extra class for the wrapper.
    #[prop(optional)]
    class: &'static str,
) -> impl IntoView {
    let html = move || markdown.with(|m| super::markdown::render(m, &lesson_links()));
    view! { <div class=format!("prose {class}") inner_html=html></div> }
}

/// `(file name, #/lessons/<id>)` for every course lesson.
fn lesson_links() -> Vec<(String, String)> {
    Course::get().lessons().map(|l| (l.file.clone(), Route::Lesson(Some(l.lesson.meta.id.clone())).href())).collect()
}
