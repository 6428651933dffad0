//! The lessons screens: the course list, a lesson with live verdicts and graded
//! exercises, and the instructor preview. Every judgement comes from `fencelab::lesson`.

mod course;
mod exercise;
mod files;
mod json;
mod list;
mod page;
mod preview;
mod progress;
mod prose;
mod scenario_card;

pub use list::LessonList;

/// Fetches the course (once); the lessons screens read it only after this has finished.
pub async fn load_course() -> Result<(), String> {
    course::Course::load().await.map(|_| ())
}

/// Whether `load_course` has already finished.
pub fn course_loaded() -> bool {
    course::Course::is_loaded()
}
pub use page::LessonView;
pub use preview::PreviewPage;
pub use progress::provide_progress;
pub use scenario_card::Source;
