//! The shipped lessons: well-formed, and every claim they make agrees with the checker.

use std::path::Path;
use std::process::Command;

use fencelab::lesson::{check_course, lint_lesson, parse_index, parse_lesson, Block, Lesson};

fn lessons_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/lessons"))
}

fn load_course() -> Vec<(String, Lesson)> {
    let index_src = std::fs::read_to_string(lessons_dir().join("index.md")).expect("lessons/index.md is readable");
    let (index, errors) = parse_index(&index_src);
    assert_eq!(errors, vec![], "index.md");
    index
        .files()
        .map(|file| {
            let src = std::fs::read_to_string(lessons_dir().join(file)).expect("listed lesson is readable");
            let (lesson, errors) = parse_lesson(&src);
            assert_eq!(errors, vec![], "{file}");
            (file.to_string(), lesson)
        })
        .collect()
}

#[test]
fn every_lesson_is_well_formed() {
    let course = load_course();
    assert!(course.len() >= 14, "the curriculum has at least 14 lessons");
    let metas: Vec<_> = course.iter().map(|(f, l)| (f.as_str(), &l.meta)).collect();
    assert_eq!(check_course(&metas), vec![]);
    for (file, lesson) in &course {
        let problems = lint_lesson(lesson);
        assert!(problems.is_empty(), "{file}: {problems:#?}");
        let exercises = lesson.blocks.iter().filter(|b| matches!(b, Block::Exercise(_))).count();
        let scenarios = lesson.blocks.iter().filter(|b| matches!(b, Block::Scenario { .. })).count();
        assert!(exercises >= 1 && scenarios >= 1, "{file} needs a scenario and an exercise");
    }
}

#[test]
fn lessons_check_agrees_with_the_checker() {
    let out = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args(["lessons", "check"])
        .arg(lessons_dir())
        .output()
        .expect("fencelab runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("0 mismatches, 0 malformed"), "{text}");
}
