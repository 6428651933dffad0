//! Lesson Markdown on screen, through the core's safe renderer.

use leptos::prelude::*;

/// Markdown rendered by `fencelab::lesson::render_markdown`, which escapes any HTML the
/// author wrote and neutralises unsafe link targets; that is what makes `inner_html` safe here.
#[component]
pub fn Prose(
    /// Markdown text (lesson prose, an exercise prompt or a hint).
    #[prop(into)]
    markdown: Signal<String>,
    /// Extra class for the wrapper.
    #[prop(optional)]
    class: &'static str,
) -> impl IntoView {
    let html = move || markdown.with(|m| fencelab::lesson::render_markdown(m));
    view! { <div class=format!("prose {class}") inner_html=html></div> }
}
