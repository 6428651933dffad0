//! The course compiled into the app (see `build.rs`), parsed once by the core.

use std::sync::OnceLock;

use fencelab::lesson::{parse_index, parse_lesson, Lesson, LessonError};

mod bundle {
    include!(concat!(env!("OUT_DIR"), "/lesson_bundle.rs"));
}

/// One lesson of the course with whatever its parse reported.
pub struct CourseLesson {
    pub file: &'static str,
    pub lesson: Lesson,
    pub errors: Vec<LessonError>,
}

/// A titled group of lessons, in course order.
pub struct CourseSection {
    pub title: String,
    pub lessons: Vec<CourseLesson>,
}

pub struct Course {
    pub sections: Vec<CourseSection>,
}

impl Course {
    /// The bundled course, parsed on first use.
    pub fn get() -> &'static Course {
        static COURSE: OnceLock<Course> = OnceLock::new();
        COURSE.get_or_init(|| Course::from_texts(bundle::INDEX, bundle::LESSONS))
    }

    /// Builds a course from an index text and `(file, text)` pairs; unlisted files are
    /// ignored and listed files without a text are left out.
    pub fn from_texts(index: &str, texts: &[(&'static str, &'static str)]) -> Course {
        let (index, _) = parse_index(index);
        let sections = index
            .sections
            .iter()
            .map(|section| CourseSection {
                title: section.title.clone(),
                lessons: section
                    .files
                    .iter()
                    .filter_map(|name| texts.iter().find(|(file, _)| file == name))
                    .map(|(file, text)| {
                        let (lesson, errors) = parse_lesson(text);
                        CourseLesson { file, lesson, errors }
                    })
                    .collect(),
            })
            .collect();
        Course { sections }
    }

    /// The first bundled lesson's text, as a starting point for the instructor preview.
    pub fn sample_text() -> &'static str {
        bundle::LESSONS.first().map_or("", |(_, text)| *text)
    }

    pub fn lessons(&self) -> impl Iterator<Item = &CourseLesson> {
        self.sections.iter().flat_map(|s| s.lessons.iter())
    }

    pub fn find(&self, id: &str) -> Option<&CourseLesson> {
        self.lessons().find(|l| l.lesson.meta.id == id)
    }

    /// The lessons before and after `id`, for the page's navigation.
    pub fn neighbours(&self, id: &str) -> (Option<&CourseLesson>, Option<&CourseLesson>) {
        let all: Vec<&CourseLesson> = self.lessons().collect();
        let at = all.iter().position(|l| l.lesson.meta.id == id);
        let before = at.and_then(|i| i.checked_sub(1)).and_then(|i| all.get(i).copied());
        let after = at.and_then(|i| all.get(i + 1).copied());
        (before, after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_course_lists_every_lesson_and_each_parses() {
        let course = Course::get();
        let files: Vec<&str> = course.lessons().map(|l| l.file).collect();
        assert_eq!(files.len(), bundle::LESSONS.len());
        assert!(files.len() >= 10, "expected the whole course, got {files:?}");
        for lesson in course.lessons() {
            assert_eq!(lesson.errors, vec![], "{} parses", lesson.file);
            assert!(!lesson.lesson.meta.id.is_empty(), "{} has an id", lesson.file);
        }
    }

    #[test]
    fn neighbours_follow_course_order() {
        let index = "## A\n- a.md\n- b.md\n## B\n- c.md\n";
        let lesson = |id: &str| -> &'static str {
            Box::leak(format!("---\nid: {id}\ntitle: T\norder: 1\n---\nbody\n").into_boxed_str())
        };
        let course = Course::from_texts(index, &[("a.md", lesson("a")), ("b.md", lesson("b")), ("c.md", lesson("c"))]);
        let (before, after) = course.neighbours("b");
        assert_eq!(before.map(|l| l.file), Some("a.md"));
        assert_eq!(after.map(|l| l.file), Some("c.md"));
        assert!(course.neighbours("a").0.is_none());
        assert!(course.neighbours("zzz").1.is_none());
    }
}
