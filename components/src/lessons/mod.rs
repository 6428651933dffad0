//! The lessons screens: the course list, a lesson with live verdicts and graded
//! exercises, and the instructor preview. Every judgement comes from `fencelab::lesson`.

use std::cell::RefCell;

use wasm_bindgen::JsValue;

mod checks;
mod course;
mod exercise;
mod files;
mod json;
mod list;
mod markdown;
mod page;
mod preview;
mod progress;
mod prose;
mod scenario_card;

pub use list::LessonList;

thread_local! {
    /// The renderer's load, begun with the route (`begin_loading`); taken by `load_course`.
    static RENDERER: RefCell<Option<js_sys::Promise>> = const { RefCell::new(None) };
}

/// Begins fetching the course and the Markdown renderer, unless they are here or on
/// their way: called by the lessons route as it asks for the lessons' code, so the three
/// come side by side. Kept small: it is in the first load.
pub fn begin_loading() {
    course::begin_fetching();
    if !course_loaded() && RENDERER.with(|r| r.borrow().is_none()) {
        // A promise runs from now on, not from its first poll.
        let renderer = wasm_bindgen_futures::future_to_promise(async {
            markdown::finish_loading(markdown::start_loading()).await.map(|()| JsValue::UNDEFINED).map_err(JsValue::from)
        });
        RENDERER.with(|r| *r.borrow_mut() = Some(renderer));
    }
}

/// Fetches the course and the Markdown renderer side by side (once, from where
/// `begin_loading` got); the lessons screens read them only after this has finished.
pub async fn load_course() -> Result<(), String> {
    begin_loading();
    let renderer = RENDERER.with(|r| r.borrow_mut().take());
    course::Course::load().await?;
    let Some(renderer) = renderer else { return Ok(()) };
    match wasm_bindgen_futures::JsFuture::from(renderer).await {
        Ok(_) => Ok(()),
        Err(why) => Err(why.as_string().unwrap_or_else(|| "the lesson text renderer did not load".to_string())),
    }
}

/// Whether `load_course` has already finished.
pub fn course_loaded() -> bool {
    course::Course::is_loaded()
}
pub use page::LessonView;
pub use preview::PreviewPage;
pub use progress::provide_progress;
pub use scenario_card::Source;
