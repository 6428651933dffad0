//! Lesson Markdown on screen, through the core's safe renderer.

use leptos::prelude::*;

use super::course::Course;
use crate::route::Route;

/// Markdown rendered by `fencelab::lesson::render_markdown_linked`, which escapes any HTML
/// the author wrote and neutralises unsafe link targets; that is what makes `inner_html`
/// safe here. A link to another lesson's file opens that lesson's page.
#[component]
pub fn Prose(
    /// Markdown text (lesson prose, an exercise prompt or a hint).
    #[prop(into)]
    markdown: Signal<String>,
    /// Extra class for the wrapper.
    #[prop(optional)]
    class: &'static str,
) -> impl IntoView {
    let html = move || markdown.with(|m| fencelab::lesson::render_markdown_linked(m, &lesson_href));
    view! { <div class=format!("prose {class}") inner_html=html></div> }
}

/// `#/lessons/<id>` for a course lesson's file name.
fn lesson_href(file: &str) -> Option<String> {
    let lesson = Course::get().lessons().find(|l| l.file == file)?;
    Some(Route::Lesson(Some(lesson.lesson.meta.id.clone())).href())
}
