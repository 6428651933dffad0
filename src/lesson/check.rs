//! Verifying a lesson: every scenario's declared expectations against the checker, every
//! exercise's start (must fail its goal) and reference solution (must pass).

use serde::{Deserialize, Serialize};

use super::bugs::{bug_labels, label_contradiction};
use super::engine::{load, run};
use super::grade::{grade, partial_reason};
use super::types::{Block, Exercise, ExerciseKind, Lesson, LessonError};
use crate::check::{stated_modes, Mode, Options, Verdict};
use crate::model::Scenario;
use crate::syntax::{condition_text, expect_str, expectation_text};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MismatchKind {
    /// The lesson itself is broken: a program that does not parse, a scenario that
    /// declares nothing, an `expect` inside an exercise.
    Malformed,
    /// A scenario's declared expectation differs from what the checker finds.
    Claim,
    /// An exercise's start already passes, or its reference solution fails.
    Exercise,
    /// The checker could not decide (state cap, or an instruction it cannot model yet), so
    /// the claim is neither confirmed nor refuted.
    Unverified,
}

/// One disagreement between what a lesson says and what the checker finds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mismatch {
    pub kind: MismatchKind,
    /// Lesson line of the block (or of the offending line, for parse errors).
    pub line: usize,
    /// Index into `Lesson::blocks`.
    pub block: usize,
    pub declared: String,
    pub actual: String,
}

/// Checks every claim `lesson` makes. An empty result means the lesson is consistent with
/// the checker.
pub fn check_lesson(lesson: &Lesson, options: &Options) -> Vec<Mismatch> {
    visit(lesson, Some(options))
}

/// The checks that need no checker run: every program parses, every scenario declares
/// something, no exercise program declares `expect`. Cheap enough for a live preview.
pub fn lint_lesson(lesson: &Lesson) -> Vec<Mismatch> {
    visit(lesson, None)
}

fn visit(lesson: &Lesson, options: Option<&Options>) -> Vec<Mismatch> {
    let mut out = Vec::new();
    for (block, b) in lesson.blocks.iter().enumerate() {
        match b {
            Block::Prose(_) => {}
            Block::Scenario { source, line, mode } => {
                let Some(scenario) = load_scenario(source, *line, block, &mut out) else { continue };
                let (labels, label_errors) = bug_labels(source, *line);
                out.extend(malformed(label_errors, block));
                out.extend(malformed(labels.iter().filter_map(|l| label_contradiction(l, &scenario)).collect(), block));
                if let Some(pinned) = mode {
                    if let Some(e) = scenario.expect.iter().find(|e| !e.holds_in(*pinned)) {
                        let message = format!("`{}` is never judged: the block pins {} mode", expectation_text(e), pinned.name());
                        out.extend(malformed(vec![LessonError::new(*line, message)], block));
                        continue;
                    }
                }
                if let Some(options) = options {
                    // A pinned mode (```` ```fence strict ````) is the block's own choice, like
                    // `--mode`; otherwise the block's `expect` lines say where they hold.
                    let modes = mode.map_or_else(|| stated_modes(&scenario), |m| vec![m]);
                    for mode in modes {
                        check_claims(&scenario, *line, mode, options, block, &mut out);
                    }
                }
            }
            Block::Exercise(ex) => {
                if load_exercise(ex, block, &mut out) {
                    if let Some(options) = options {
                        check_exercise(ex, options, block, &mut out);
                    }
                }
            }
        }
    }
    out
}

fn malformed(errors: Vec<LessonError>, block: usize) -> impl Iterator<Item = Mismatch> {
    errors.into_iter().map(move |e| Mismatch {
        kind: MismatchKind::Malformed,
        line: e.line,
        block,
        declared: "a well-formed program".into(),
        actual: e.message,
    })
}

fn load_scenario(source: &str, line: usize, block: usize, out: &mut Vec<Mismatch>) -> Option<Scenario> {
    let scenario = match load(source, line) {
        Ok(s) => s,
        Err(errors) => {
            out.extend(malformed(errors, block));
            return None;
        }
    };
    if scenario.expect.is_empty() && scenario.conditions.is_empty() {
        let e = LessonError::new(line, "a lesson scenario must declare `expect …` or a final condition");
        out.extend(malformed(vec![e], block));
        return None;
    }
    Some(scenario)
}

fn check_claims(scenario: &Scenario, line: usize, mode: Mode, options: &Options, block: usize, out: &mut Vec<Mismatch>) {
    let report = run(scenario, mode, options);
    if report.verdict == Verdict::Partial {
        let stated: Vec<String> = scenario.expect.iter().filter(|e| e.holds_in(mode)).map(expectation_text).collect();
        let declared = if stated.is_empty() { "a complete exploration".into() } else { stated.join(", ") };
        out.push(Mismatch { kind: MismatchKind::Unverified, line, block, declared, actual: partial_reason(&report, options) });
        return;
    }
    for expectation in scenario.expect.iter().filter(|e| e.holds_in(mode)) {
        if expect_str(expectation.verdict) != report.verdict.name() {
            let why = report.findings.first().map(|f| format!(": {}", f.message)).unwrap_or_default();
            out.push(Mismatch {
                kind: MismatchKind::Claim,
                line,
                block,
                declared: format!("{} ({} mode)", expectation_text(expectation), mode.name()),
                actual: format!("verdict {}{why}", report.verdict.name()),
            });
        }
    }
    for (index, cond) in scenario.conditions.iter().enumerate() {
        let holds = report.conditions.iter().find(|c| c.index == index).map(|c| c.holds);
        if holds != Some(true) {
            out.push(Mismatch {
                kind: MismatchKind::Claim,
                line,
                block,
                declared: condition_text(cond),
                actual: if holds.is_none() { "not evaluated".into() } else { "does not hold".into() },
            });
        }
    }
}

/// Whether the programs of `ex` (a predict exercise has no solution) load and leave the
/// verdict to the goal.
fn load_exercise(ex: &Exercise, block: usize, out: &mut Vec<Mismatch>) -> bool {
    let mut broken = false;
    let parts = match ex.kind {
        ExerciseKind::Fix | ExerciseKind::CheapestFix => vec![&ex.start, &ex.solution],
        ExerciseKind::Predict => vec![&ex.start],
    };
    for part in parts {
        match load(&part.source, part.line) {
            Ok(s) if !s.expect.is_empty() => {
                broken = true;
                let e = LessonError::new(part.line, format!("exercise `{}` declares `expect`; its `goal:` sets the verdict", ex.id));
                out.extend(malformed(vec![e], block));
            }
            Ok(_) => {}
            Err(errors) => {
                broken = true;
                out.extend(malformed(errors, block));
            }
        }
    }
    !broken
}

fn check_exercise(ex: &Exercise, options: &Options, block: usize, out: &mut Vec<Mismatch>) {
    if ex.kind == ExerciseKind::Predict {
        let answer = grade(ex, expect_str(ex.goal.verdict), options);
        if !answer.passed {
            let kind = if answer.complete { MismatchKind::Exercise } else { MismatchKind::Unverified };
            out.push(Mismatch {
                kind,
                line: ex.start.line,
                block,
                declared: format!("exercise `{}`: the checker's verdict is `{}`", ex.id, expect_str(ex.goal.verdict)),
                actual: answer.reasons.join("; "),
            });
        }
        return;
    }
    let start = grade(ex, &ex.start.source, options);
    let solution = grade(ex, &ex.solution.source, options);
    let checks = [
        (start.passed || !start.complete, &start, ex.start.line, "the starting program fails its goal"),
        (!solution.passed, &solution, ex.solution.line, "the reference solution passes its goal"),
    ];
    for (wrong, grade, line, claim) in checks {
        if !wrong {
            continue;
        }
        let (kind, actual) = match (grade.complete, grade.passed) {
            (false, _) => (MismatchKind::Unverified, grade.reasons.join("; ")),
            (true, true) => (MismatchKind::Exercise, "it passes".to_string()),
            (true, false) => (MismatchKind::Exercise, grade.reasons.join("; ")),
        };
        out.push(Mismatch { kind, line, block, declared: format!("exercise `{}`: {claim}", ex.id), actual });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::parse_lesson;

    fn lint(body: &str) -> Vec<Mismatch> {
        let (lesson, errors) = parse_lesson(&format!("---\nid: t\ntitle: T\norder: 1\n---\n{body}"));
        assert_eq!(errors, vec![]);
        lint_lesson(&lesson)
    }

    #[test]
    fn parse_errors_point_at_the_lesson_line() {
        // Fence on line 6, so the bad instruction is on line 9.
        let found = lint("```fence\ncta A\nthread t @A:\n    ld.bogus r0, [x]\nexpect correct\n```\n");
        assert!(!found.is_empty());
        assert!(found.iter().all(|m| m.kind == MismatchKind::Malformed), "{found:#?}");
        assert!(found.iter().any(|m| m.line == 9), "{found:#?}");
    }

    #[test]
    fn a_scenario_must_claim_something() {
        let found = lint("```fence\ncta A\nthread t @A:\n    exit\n```\n");
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(found[0].actual.contains("must declare"), "{found:#?}");
    }

    #[test]
    fn exercise_programs_leave_the_verdict_to_the_goal() {
        let found = lint(
            "```exercise\nid: e\nprompt: p\ngoal: correct\nhint: h\n--- start\ncta A\nthread t @A:\n    exit\nexpect correct\n\
--- solution\ncta A\nthread t @A:\n    exit\n```\n",
        );
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(found[0].actual.contains("declares `expect`"), "{found:#?}");
        assert_eq!(found[0].line, 12);
    }
}
