//! `fencelab lessons check [DIR]`: parse every lesson listed in `DIR/index.md`, run the
//! checker on every scenario and exercise, and report each claim the checker disagrees
//! with. Exit 0 when all agree, 1 on a mismatch or a claim the checker could not decide,
//! 2 on a malformed lesson or bad usage.
//!
//! `fencelab lessons grade LESSON EXERCISE FILE`: grade one attempt the way the app does.
//! Exit 0 pass, 1 fail (or undecided), 2 bad input.

use std::path::{Path, PathBuf};
use std::time::Instant;

use fencelab::check::Options;
use fencelab::lesson::{
    check_course, check_lesson, check_lesson_links, check_prerequisites, grade, parse_index, parse_lesson, Block, ExerciseKind, Lesson,
    Mismatch, MismatchKind,
};

use crate::input::{read_scenario, read_text, Input, INPUT_ERROR};
use crate::ui::Ui;

const INDEX: &str = "index.md";

/// Work with lesson files
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Verify every claim and exercise of the lessons a directory's index lists
    #[command(long_about = "Verify every claim and exercise of the lessons a directory's index lists.

Parses every lesson DIR/index.md lists, runs the checker on each scenario and exercise,
and prints each claim the checker disagrees with, then a summary line.")]
    #[command(after_help = "\
Examples:
  fencelab lessons check
  fencelab lessons check path/to/lessons

Exit status: 0 all agree, 1 a mismatch or an undecided claim, 2 a malformed lesson or bad usage.")]
    Check {
        /// The lessons directory, holding index.md
        #[arg(default_value = "lessons")]
        dir: PathBuf,
    },
    /// Grade an attempt at one exercise, as the app does
    #[command(long_about = "Grade an attempt at one exercise, as the app does.

Checks the attempt against the exercise's goal: the declarations and the threads outside
`lanes` unchanged, nothing the exercise forbids, no scope wider than its `max-scope`, the
instruction budget, then the checker's verdict and the starting program's conditions.
Prints PASS or FAIL and every reason.")]
    #[command(after_help = "\
Examples:
  fencelab lessons grade lessons/03-scopes.md widen-the-acquire attempt.fence
  fencelab lessons grade lessons/02-release-acquire.md fence-the-relaxed-pair - < attempt.fence

Exit status: 0 pass, 1 fail or undecided, 2 bad input (unreadable or malformed lesson,
unknown exercise, an attempt that does not parse).")]
    Grade {
        /// The lesson file, e.g. lessons/03-scopes.md
        lesson: PathBuf,
        /// The exercise's id in that lesson
        exercise: String,
        /// The attempt: a .fence file (for a predict exercise, a file holding the predicted
        /// verdict), or - for standard input
        #[arg(value_parser = Input::parser())]
        file: Input,
    },
}

pub fn run(args: &Args, ui: Ui) -> u8 {
    match &args.action {
        Action::Check { dir } => check_dir(dir),
        Action::Grade { lesson, exercise, file } => grade_attempt(lesson, exercise, file, ui),
    }
}

fn grade_attempt(lesson_path: &Path, exercise_id: &str, file: &Input, ui: Ui) -> u8 {
    let lesson_input = Input::Path(lesson_path.to_path_buf());
    let Ok(lesson_src) = read_text(&lesson_input, ui) else { return INPUT_ERROR };
    let (lesson, errors) = parse_lesson(&lesson_src);
    if !errors.is_empty() {
        for e in &errors {
            eprintln!("{}:{}: error: {}", lesson_path.display(), e.line, e.message);
        }
        return INPUT_ERROR;
    }
    let exercises: Vec<_> = lesson
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Exercise(ex) => Some(ex),
            Block::Prose(_) | Block::Scenario { .. } => None,
        })
        .collect();
    let Some(exercise) = exercises.iter().find(|ex| ex.id == exercise_id) else {
        let known: Vec<&str> = exercises.iter().map(|ex| ex.id.as_str()).collect();
        ui.error(&format!(
            "`{}` has no exercise `{exercise_id}` (it has: {})",
            lesson_path.display(),
            if known.is_empty() { "none".to_string() } else { known.join(", ") }
        ));
        return INPUT_ERROR;
    };
    // A prediction is a verdict word; a fix is a program, whose parse errors are shown as
    // diagnostics with the attempt's own name and lines.
    let attempt = match exercise.kind {
        ExerciseKind::Predict => read_text(file, ui),
        ExerciseKind::Fix | ExerciseKind::CheapestFix => read_scenario(file, ui).map(|(src, _, _)| src),
    };
    let Ok(attempt) = attempt else { return INPUT_ERROR };
    let result = grade(exercise, &attempt, &Options::default());
    let verdict = match (result.complete, result.passed) {
        (_, true) => "PASS",
        (true, false) => "FAIL",
        (false, false) => "UNDECIDED",
    };
    println!("{verdict} {exercise_id} ({file})");
    for reason in &result.reasons {
        println!("  - {reason}");
    }
    if result.over_cost {
        println!("  `fencelab cost {file}` shows what each instruction costs");
    }
    u8::from(!result.passed)
}

#[derive(Default)]
struct Tally {
    lessons: usize,
    scenarios: usize,
    exercises: usize,
    mismatches: usize,
    unverified: usize,
    malformed: usize,
}

fn check_dir(dir: &Path) -> u8 {
    let started = Instant::now();
    let mut tally = Tally::default();
    let index_path = dir.join(INDEX);
    let Some(index_src) = read(&index_path) else { return 2 };
    let (index, errors) = parse_index(&index_src);
    for e in &errors {
        eprintln!("{}:{}: error: {}", index_path.display(), e.line, e.message);
    }
    tally.malformed += errors.len();
    tally.malformed += unlisted_files(dir, index.files().collect());

    let mut lessons: Vec<(String, Lesson)> = Vec::new();
    for file in index.files() {
        let path = dir.join(file);
        let Some(src) = read(&path) else {
            tally.malformed += 1;
            continue;
        };
        let (lesson, errors) = parse_lesson(&src);
        for e in &errors {
            eprintln!("{}:{}: error: {}", path.display(), e.line, e.message);
        }
        tally.malformed += errors.len();
        lessons.push((file.to_string(), lesson));
    }
    let metas: Vec<(&str, _)> = lessons.iter().map(|(f, l)| (f.as_str(), &l.meta)).collect();
    let linked: Vec<(&str, &Lesson)> = lessons.iter().map(|(f, l)| (f.as_str(), l)).collect();
    for problem in check_course(&metas).into_iter().chain(check_lesson_links(&linked)) {
        eprintln!("{}: error: {problem}", dir.join(problem.file()).display());
        tally.malformed += 1;
    }
    for (file, problem) in check_prerequisites(&linked) {
        eprintln!("{}:{}: error: {}", dir.join(&file).display(), problem.line, problem.message);
        tally.malformed += 1;
    }

    let options = Options::default();
    for (file, lesson) in &lessons {
        tally.lessons += 1;
        for block in &lesson.blocks {
            match block {
                Block::Scenario { .. } => tally.scenarios += 1,
                Block::Exercise(_) => tally.exercises += 1,
                Block::Prose(_) => {}
            }
        }
        for m in check_lesson(lesson, &options) {
            print_mismatch(&dir.join(file), &m);
            match m.kind {
                MismatchKind::Malformed => tally.malformed += 1,
                MismatchKind::Claim | MismatchKind::Exercise => tally.mismatches += 1,
                MismatchKind::Unverified => tally.unverified += 1,
            }
        }
    }
    println!(
        "checked {} lessons ({} scenarios, {} exercises) in {:.1?}: {} mismatches, {} unverified, {} malformed",
        tally.lessons,
        tally.scenarios,
        tally.exercises,
        started.elapsed(),
        tally.mismatches,
        tally.unverified,
        tally.malformed
    );
    if tally.malformed > 0 {
        2
    } else if tally.mismatches + tally.unverified > 0 {
        1
    } else {
        0
    }
}

fn print_mismatch(path: &Path, m: &Mismatch) {
    let what = match m.kind {
        MismatchKind::Malformed => "malformed",
        MismatchKind::Claim => "the checker disagrees with a claim",
        MismatchKind::Exercise => "exercise check failed",
        MismatchKind::Unverified => "the checker could not decide a claim",
    };
    println!("{}:{}: {what} (block {})", path.display(), m.line, m.block);
    println!("  - declared: {}", m.declared);
    println!("  + actual:   {}", m.actual);
}

fn read(path: &Path) -> Option<String> {
    match std::fs::read_to_string(path) {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!("{}: error: cannot read: {e}", path.display());
            None
        }
    }
}

/// Lesson files on disk that the index does not list: they would silently never be shown.
fn unlisted_files(dir: &Path, listed: Vec<&str>) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    let mut unlisted: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n != INDEX && !listed.contains(&n)))
        .collect();
    unlisted.sort();
    for p in &unlisted {
        eprintln!("{}: error: lesson file is not listed in {INDEX}", p.display());
    }
    unlisted.len()
}
