//! `lessons/index.md`: the course outline. `## Title` starts a section; each `- file.md`
//! line under it adds a lesson, in order. Other lines (a `#` title, prose) are ignored.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::markdown::lesson_file_links;
use super::types::{Block, Lesson, LessonError, LessonMeta};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    pub title: String,
    /// Lesson file names relative to the index, in course order.
    pub files: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Index {
    pub sections: Vec<Section>,
}

impl Index {
    /// Every lesson file, in course order.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.sections.iter().flat_map(|s| s.files.iter().map(String::as_str))
    }
}

pub fn parse_index(src: &str) -> (Index, Vec<LessonError>) {
    let mut index = Index::default();
    let mut errors = Vec::new();
    for (i, raw) in src.lines().enumerate() {
        let line = raw.trim();
        if let Some(title) = line.strip_prefix("## ") {
            index.sections.push(Section { title: title.trim().to_string(), files: Vec::new() });
        } else if let Some(file) = line.strip_prefix("- ") {
            let file = file.trim();
            let well_formed = file.ends_with(".md") && !file.contains(['/', '\\', ' ']) && !file.starts_with('.');
            if !well_formed {
                errors.push(LessonError::new(i + 1, format!("`{file}` is not a lesson file name (`name.md`, no directories)")));
            } else if index.files().any(|f| f == file) {
                errors.push(LessonError::new(i + 1, format!("`{file}` is listed twice")));
            } else if let Some(section) = index.sections.last_mut() {
                section.files.push(file.to_string());
            } else {
                errors.push(LessonError::new(i + 1, "a lesson is listed before any `## section`"));
            }
        }
    }
    if index.files().next().is_none() {
        errors.push(LessonError::new(1, "the index lists no lessons"));
    }
    (index, errors)
}

/// A problem of the course as a whole, found in lesson `file` (a name from the index).
/// `Display` says what is wrong; [`CourseProblem::file`] says where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CourseProblem {
    /// The lesson's `order` is not above the previous listed lesson's.
    OrderNotIncreasing { file: String, order: u32 },
    DuplicateId { file: String, id: String },
    /// A prerequisite that is not the id of a lesson listed before this one.
    PrerequisiteNotEarlier { file: String, prerequisite: String },
    /// Prose links to a lesson file the index does not list.
    UnlistedLink { file: String, target: String },
}

impl CourseProblem {
    pub fn file(&self) -> &str {
        match self {
            CourseProblem::OrderNotIncreasing { file, .. }
            | CourseProblem::DuplicateId { file, .. }
            | CourseProblem::PrerequisiteNotEarlier { file, .. }
            | CourseProblem::UnlistedLink { file, .. } => file,
        }
    }
}

impl fmt::Display for CourseProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CourseProblem::OrderNotIncreasing { order, .. } => write!(f, "`order: {order}` does not follow the index order"),
            CourseProblem::DuplicateId { id, .. } => write!(f, "lesson id `{id}` is used twice"),
            CourseProblem::PrerequisiteNotEarlier { prerequisite, .. } => {
                write!(f, "prerequisite `{prerequisite}` is not an earlier lesson")
            }
            CourseProblem::UnlistedLink { target, .. } => {
                write!(f, "links to `{target}`, which is not a lesson listed in the index")
            }
        }
    }
}

impl std::error::Error for CourseProblem {}

/// Checks that lessons listed in course order have increasing `order`, unique ids, and
/// prerequisites that name earlier lessons. `lessons` is in index order.
pub fn check_course(lessons: &[(&str, &LessonMeta)]) -> Vec<CourseProblem> {
    let mut problems = Vec::new();
    let mut earlier: Vec<&str> = Vec::new();
    let mut last_order: Option<u32> = None;
    for (file, meta) in lessons {
        let file = file.to_string();
        if last_order.is_some_and(|o| meta.order <= o) {
            problems.push(CourseProblem::OrderNotIncreasing { file: file.clone(), order: meta.order });
        }
        last_order = Some(meta.order);
        if earlier.contains(&meta.id.as_str()) {
            problems.push(CourseProblem::DuplicateId { file: file.clone(), id: meta.id.clone() });
        }
        for p in &meta.prerequisites {
            if !earlier.contains(&p.as_str()) {
                problems.push(CourseProblem::PrerequisiteNotEarlier { file: file.clone(), prerequisite: p.clone() });
            }
        }
        earlier.push(&meta.id);
    }
    problems
}

/// Links in lesson prose to lesson files the course does not list: in the app they would
/// lead nowhere. `lessons` is `(file, lesson)` for every listed lesson.
pub fn check_lesson_links(lessons: &[(&str, &Lesson)]) -> Vec<CourseProblem> {
    let listed: Vec<&str> = lessons.iter().map(|(file, _)| *file).collect();
    let mut problems = Vec::new();
    for (file, lesson) in lessons {
        let prose = lesson.blocks.iter().filter_map(|b| match b {
            Block::Prose(markdown) => Some(markdown),
            _ => None,
        });
        for target in prose.flat_map(|markdown| lesson_file_links(markdown)) {
            if !listed.contains(&target.as_str()) {
                problems.push(CourseProblem::UnlistedLink { file: file.to_string(), target });
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sections_in_order() {
        let (index, errors) = parse_index("# Course\n\n## Basics\n- a.md\n- b.md\n\n## Hopper\n- c.md\n");
        assert_eq!(errors, vec![]);
        assert_eq!(index.sections.len(), 2);
        assert_eq!(index.files().collect::<Vec<_>>(), vec!["a.md", "b.md", "c.md"]);
    }

    #[test]
    fn rejects_paths_duplicates_and_orphans() {
        let (_, errors) = parse_index("- early.md\n## S\n- ../etc/passwd.md\n- a.md\n- a.md\n");
        let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![1, 3, 5], "{errors:?}");
    }

    #[test]
    fn course_order_and_prerequisites_are_checked() {
        let meta = |id: &str, order, pre: &[&str]| LessonMeta {
            id: id.into(),
            order,
            prerequisites: pre.iter().map(|s| s.to_string()).collect(),
            ..LessonMeta::default()
        };
        let (a, b, c) = (meta("a", 1, &[]), meta("b", 1, &["a"]), meta("c", 3, &["d"]));
        let problems = check_course(&[("a.md", &a), ("b.md", &b), ("c.md", &c)]);
        assert_eq!(
            problems,
            vec![
                CourseProblem::OrderNotIncreasing { file: "b.md".into(), order: 1 },
                CourseProblem::PrerequisiteNotEarlier { file: "c.md".into(), prerequisite: "d".into() },
            ]
        );
        assert_eq!(problems[1].to_string(), "prerequisite `d` is not an earlier lesson");
    }

    #[test]
    fn links_to_unlisted_lessons_are_reported() {
        let (linking, _) = crate::lesson::parse_lesson(
            "---\nid: a\ntitle: A\norder: 1\n---\nSee [b](b.md) and [gone](gone.md).\n",
        );
        let (other, _) = crate::lesson::parse_lesson("---\nid: b\ntitle: B\norder: 2\n---\nBack to [a](./a.md#top).\n");
        let problems = check_lesson_links(&[("a.md", &linking), ("b.md", &other)]);
        assert_eq!(problems, vec![CourseProblem::UnlistedLink { file: "a.md".into(), target: "gone.md".into() }]);
        assert_eq!(problems[0].to_string(), "links to `gone.md`, which is not a lesson listed in the index");
    }
}
