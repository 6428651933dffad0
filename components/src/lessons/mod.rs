//! The lessons screens: the course list, a lesson with live verdicts and graded
//! exercises, and the instructor preview. Every judgement comes from `fencelab::lesson`.

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

/// Fetches the course and the Markdown renderer side by side (once); the lessons screens
/// read them only after this has finished.
pub async fn load_course() -> Result<(), String> {
    let renderer = markdown::start_loading();
    course::Course::load().await?;
    markdown::finish_loading(renderer).await
}

/// Whether `load_course` has already finished.
pub fn course_loaded() -> bool {
    course::Course::is_loaded()
}
pub use page::LessonView;
pub use preview::PreviewPage;
pub use progress::provide_progress;
pub use scenario_card::Source;
