//! The lessons screens: the course list, a lesson with live verdicts and graded
//! exercises, and the instructor preview. Every judgement comes from `fencelab::lesson`.

mod course;
mod exercise;
mod files;
mod list;
mod page;
mod preview;
mod progress;
mod prose;
mod scenario_card;

pub use list::LessonList;
pub use page::LessonView;
pub use preview::PreviewPage;
pub use progress::provide_progress;
pub use scenario_card::Source;
