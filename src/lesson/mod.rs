//! Lessons: Markdown files whose scenarios and exercises the checker verifies.
//!
//! [`parse_lesson`] reads a lesson, [`render_markdown`] turns its prose into safe HTML,
//! [`grade`] judges a learner's attempt at an exercise and [`check_lesson`] verifies every
//! claim a lesson makes. The format is described in `docs/lessons.md`.

mod bugs;
mod check;
mod concepts;
mod diagram;
mod engine;
mod exercise;
mod forbid;
mod front;
mod grade;
mod index;
mod keep;
mod markdown;
mod parse;
mod provenance;
mod types;

pub use bugs::{bug_labels, missing_bugs, BugLabel, BugRole, CLASSIC_BUG_COUNT};
pub use diagram::{diagram_problem, Diagram};
pub use concepts::{check_prerequisites, concepts_of, Concept};
pub use check::{check_lesson, lint_lesson, Mismatch, MismatchKind};
pub use forbid::{instruction_count, is_forbidden};
pub use grade::grade;
pub use index::{check_course, check_lesson_links, parse_index, CourseProblem, Index, Section};
pub use markdown::{is_safe_url, lesson_file_link, lesson_file_links, render_markdown, render_markdown_linked};
pub use parse::parse_lesson;
pub use provenance::{scan_tags, tag_problems, Provenance, ProvenanceTag, TagError};
pub use types::{Block, Exercise, ExerciseKind, Forbid, Goal, Grade, Lesson, LessonError, LessonMeta, Part};
