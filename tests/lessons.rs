//! The shipped lessons: well-formed, and every claim they make agrees with the checker.

use std::path::Path;
use std::process::Command;

use fencelab::check::Options;
use fencelab::lesson::{check_course, check_lesson, lint_lesson, missing_bugs, parse_index, parse_lesson, Block, Lesson};

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
        let predicts = lesson
            .blocks
            .iter()
            .filter(|b| matches!(b, Block::Exercise(ex) if ex.kind == fencelab::lesson::ExerciseKind::Predict))
            .count();
        assert!(predicts >= 1 && predicts < exercises, "{file} needs a predict exercise and a fix exercise");
    }
}

/// A lesson's scenario card is named by its scenario's title, read without a full parse:
/// every scenario has one, and it is the title the parser gives the scenario.
#[test]
fn every_lesson_scenario_has_the_title_its_card_shows() {
    for (file, lesson) in load_course() {
        for block in &lesson.blocks {
            let Block::Scenario { source, line, .. } = block else { continue };
            let title = fencelab::syntax::title(source);
            assert!(title.as_deref().is_some_and(|t| !t.is_empty()), "{file}:{line}: a scenario without a `# title` line");
            assert_eq!(title, fencelab::load(source).scenario.title, "{file}:{line}");
        }
    }
    assert_eq!(fencelab::syntax::title("cta A\n# not a title: a declaration came first\n"), None);
    assert_eq!(fencelab::syntax::title("\n#   \n# Handoff\ncta A\n").as_deref(), Some("Handoff"));
}

/// Every classic bug of the reference (§10) is shown to a learner, broken and mended, in a
/// scenario block labelled `# ref §10 #N buggy` / `fixed`; `lint_lesson` (above) has
/// already checked that each label agrees with its block's declared verdict.
#[test]
fn every_classic_bug_has_a_buggy_and_a_fixed_scenario() {
    let course = load_course();
    let missing: Vec<String> =
        missing_bugs(course.iter().map(|(_, l)| l)).iter().map(|(bug, role)| format!("#{bug} {}", role.name())).collect();
    assert!(missing.is_empty(), "no lesson scenario is labelled `ref §10` with: {}", missing.join(", "));
}

#[test]
fn every_claim_agrees_with_the_checker() {
    for (file, lesson) in load_course() {
        let found = check_lesson(&lesson, &Options::default());
        let text: Vec<String> = found
            .iter()
            .map(|m| format!("{file}:{} {:?}\n  - declared: {}\n  + actual:   {}", m.line, m.kind, m.declared, m.actual))
            .collect();
        assert!(text.is_empty(), "{}", text.join("\n"));
    }
}

#[test]
fn the_cli_reports_a_clean_course() {
    let out = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args(["lessons", "check"])
        .arg(lessons_dir())
        .output()
        .expect("fencelab runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{text}");
    let summary = text.lines().last().unwrap_or_default();
    assert!(summary.ends_with(": 0 mismatches, 0 unverified, 0 malformed"), "{text}");
}

/// Runs `lessons check` on a one-lesson course holding lesson 1 with `edit` applied; the
/// exit code, stdout, stderr, and the 1-based line of the first line containing `marker`.
fn check_edited_lesson_1(tag: &str, edit: impl Fn(&str) -> String, marker: &str) -> (Option<i32>, String, String, usize) {
    let dir = std::env::temp_dir().join(format!("fencelab-lessons-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let lesson = std::fs::read_to_string(lessons_dir().join("01-executed-is-not-visible.md")).expect("lesson 1");
    let edited = edit(&lesson);
    assert_ne!(edited, lesson, "the edit applies to lesson 1");
    let line = edited.lines().position(|l| l.contains(marker)).map_or(0, |i| i + 1);
    std::fs::write(dir.join("01-executed-is-not-visible.md"), edited).expect("write lesson");
    std::fs::write(dir.join("index.md"), "## One\n- 01-executed-is-not-visible.md\n").expect("write index");
    let out = Command::new(env!("CARGO_BIN_EXE_fencelab")).args(["lessons", "check"]).arg(&dir).output().expect("runs");
    let _ = std::fs::remove_dir_all(&dir);
    let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
    (out.status.code(), text(&out.stdout), text(&out.stderr), line)
}

#[test]
fn the_cli_flags_a_wrong_claim() {
    // Claim the relaxed handoff is correct (dropping its `buggy` label, which would make the
    // lesson malformed first): the checker must object, with the line.
    let (code, text, _, line) = check_edited_lesson_1(
        "claim",
        |l| l.replacen("expect race", "expect correct", 1).replacen("# ref §10 #5 buggy\n", "", 1),
        "# Relaxed arrive and relaxed wait",
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains(&format!("01-executed-is-not-visible.md:{line}:")), "{text}");
    assert!(text.contains("- declared: expect correct") && text.contains("+ actual:   verdict race"), "{text}");
}

#[test]
fn the_cli_flags_a_bug_label_that_contradicts_its_block() {
    // The relaxed handoff races; calling it the fix of bug 5 makes the lesson malformed.
    let (code, text, _, line) =
        check_edited_lesson_1("label", |l| l.replacen("# ref §10 #5 buggy", "# ref §10 #5 fixed", 1), "# ref §10 #5 fixed");
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains(&format!("01-executed-is-not-visible.md:{line}:")), "{text}");
    assert!(text.contains("labelled `#5 fixed` must expect `correct`"), "{text}");
}

#[test]
fn every_provenance_tag_in_the_prose_renders_as_a_badge() {
    let mut tags = 0;
    for (file, lesson) in load_course() {
        for block in &lesson.blocks {
            let Block::Prose(prose) = block else { continue };
            // Tags outside code spans; a tag the Markdown parser swallowed (as a link, say)
            // would be missing from the HTML.
            let outside_code: String = prose.split('`').step_by(2).collect::<Vec<_>>().join(" ");
            let written = fencelab::lesson::scan_tags(&outside_code).into_iter().filter(|(_, t)| t.is_ok()).count();
            let html = fencelab::lesson::render_markdown(prose);
            assert_eq!(html.matches("<span class=\"prov prov-").count(), written, "{file}: {html}");
            tags += written;
        }
    }
    assert!(tags >= 100, "the course tags its rules with their provenance ({tags} tags)");
}

#[test]
fn the_cli_rejects_a_malformed_provenance_tag() {
    let (code, _, stderr, line) =
        check_edited_lesson_1("tag", |l| l.replacen("[spec §1.5]", "[spec 1.5]", 1), "[spec 1.5]");
    assert_eq!(code, Some(2), "{stderr}");
    let expected = format!("01-executed-is-not-visible.md:{line}: error: malformed provenance tag `[spec 1.5]`");
    assert!(stderr.contains(&expected), "{stderr}");
}
