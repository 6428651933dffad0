//! Grading a learner's attempt at an exercise.
//!
//! The goal's verdict and the starting program's final conditions are imposed on the
//! attempt, so deleting a condition or writing a different `expect` changes nothing.

use super::engine::{load, run};
use super::keep::kept_instructions_missing;
use super::forbid::{instruction_count, is_forbidden, scope_name, synchronizing_scope};
use super::exercise::parse_verdict;
use super::types::{Exercise, ExerciseKind, Grade};
use crate::check::{Options, Report, Verdict};
use crate::model::{Expect, Expectation, Scenario};
use crate::syntax::{condition_text, expect_str, instr_text};

/// Grades `learner_source` against `exercise`'s goal. `options` gives the checker's caps;
/// the mode comes from the goal.
///
/// For a [`ExerciseKind::Predict`] exercise `learner_source` is the predicted verdict
/// (`race`), and the grade says whether the checker agrees, and why it decided so.
pub fn grade(exercise: &Exercise, learner_source: &str, options: &Options) -> Grade {
    if exercise.kind == ExerciseKind::Predict {
        return grade_prediction(exercise, learner_source, options);
    }
    let start = match load(&exercise.start.source, exercise.start.line) {
        Ok(s) => s,
        Err(_) => return failed(vec!["this exercise's starting program does not parse (a lesson bug)".into()]),
    };
    let mut attempt = match load(learner_source, 1) {
        Ok(s) => s,
        Err(errors) => {
            return failed(errors.into_iter().map(|e| format!("line {}: {}", e.line, e.message)).collect());
        }
    };
    let mut reasons = same_machine(&start, &attempt);
    reasons.extend(lanes_respected(exercise, &start, &attempt));
    reasons.extend(kept_instructions_missing(&exercise.goal, &start, &attempt));
    reasons.extend(forbidden_instructions(exercise, &attempt));
    reasons.extend(scopes_too_wide(exercise, &attempt));
    let over_cost = too_costly(exercise, &attempt);
    let priced = over_cost.is_some();
    reasons.extend(over_cost);
    if let Some(max) = exercise.goal.max_instructions {
        let count = instruction_count(attempt.threads.iter().map(|t| &t.program));
        if count > max {
            reasons.push(format!("the program has {count} instructions; this exercise allows at most {max}"));
        }
    }
    // Rule breaks are cheap to report; the checker run is not, so it waits for a legal attempt.
    if !reasons.is_empty() {
        return Grade { over_cost: priced, ..failed(reasons) };
    }
    attempt.expect = vec![Expectation::every_mode(exercise.goal.verdict)];
    attempt.conditions = start.conditions.clone();
    let (complete, reasons) = checker_reasons(exercise, &attempt, options);
    Grade { passed: complete && reasons.is_empty(), complete, reasons, over_cost: false }
}

fn grade_prediction(exercise: &Exercise, answer: &str, options: &Options) -> Grade {
    let Some(predicted) = parse_verdict(answer.trim()) else {
        return failed(vec!["answer with one verdict: `correct`, `race`, `deadlock` or `undefined`".into()]);
    };
    let program = match load(&exercise.start.source, exercise.start.line) {
        Ok(s) => s,
        Err(_) => return failed(vec!["this exercise's program does not parse (a lesson bug)".into()]),
    };
    let report = run(&program, exercise.goal.mode, options);
    if report.verdict == Verdict::Partial {
        return Grade { passed: false, complete: false, reasons: vec![partial_reason(&report, options)], over_cost: false };
    }
    let why = report.findings.first().map(|f| format!(": {}", f.message)).unwrap_or_default();
    let said = format!("the checker says {}{why}", report.verdict.name());
    if verdict_matches(predicted, report.verdict) {
        Grade { passed: true, complete: true, reasons: vec![said], over_cost: false }
    } else {
        failed(vec![format!("you predicted {}; {said}", expect_str(predicted))])
    }
}

fn failed(reasons: Vec<String>) -> Grade {
    Grade { passed: false, complete: true, reasons, over_cost: false }
}

/// Declarations are part of the exercise: changing an initial value or moving a thread
/// would sidestep the question.
fn same_machine(start: &Scenario, attempt: &Scenario) -> Vec<String> {
    let mut reasons = Vec::new();
    let parts = [
        ("clusters", start.clusters == attempt.clusters),
        ("CTAs", start.ctas == attempt.ctas),
        ("memory locations", start.locations == attempt.locations),
        ("mbarriers", start.mbarriers == attempt.mbarriers),
    ];
    for (what, same) in parts {
        if !same {
            reasons.push(format!("the {what} were changed; this exercise keeps the declarations as given"));
        }
    }
    let placement = |s: &Scenario| s.threads.iter().map(|t| (t.name.clone(), t.cta, t.lanes)).collect::<Vec<_>>();
    if placement(start) != placement(attempt) {
        reasons.push("the threads were renamed, added, removed or moved; keep them as given".into());
    }
    reasons
}

fn lanes_respected(exercise: &Exercise, start: &Scenario, attempt: &Scenario) -> Vec<String> {
    let Some(lanes) = &exercise.goal.lanes else { return Vec::new() };
    start
        .threads
        .iter()
        .filter(|t| !lanes.contains(&t.name))
        .filter(|t| attempt.threads.iter().find(|a| a.name == t.name).is_some_and(|a| a.program != t.program))
        .map(|t| format!("only {} may change, but `{}` was changed", names(lanes), t.name))
        .collect()
}

fn names(lanes: &[String]) -> String {
    lanes.iter().map(|l| format!("`{l}`")).collect::<Vec<_>>().join(", ")
}

fn forbidden_instructions(exercise: &Exercise, attempt: &Scenario) -> Vec<String> {
    let mut reasons = Vec::new();
    for class in &exercise.goal.forbid {
        for thread in &attempt.threads {
            for instr in thread.program.iter().filter(|i| is_forbidden(i, *class)) {
                reasons.push(format!(
                    "`{}` in `{}` is not allowed here (`forbid: {}`): {}",
                    instr_text(instr),
                    thread.name,
                    class.name(),
                    class.why()
                ));
            }
        }
    }
    reasons
}

/// Over-synchronizing is not the lesson: a `.sys` fence makes most handoffs correct.
fn scopes_too_wide(exercise: &Exercise, attempt: &Scenario) -> Vec<String> {
    let Some(max) = exercise.goal.max_scope else { return Vec::new() };
    let mut reasons = Vec::new();
    for thread in &attempt.threads {
        for instr in &thread.program {
            if let Some(scope) = synchronizing_scope(instr).filter(|s| *s > max) {
                reasons.push(format!(
                    "`{}` in `{}` synchronizes at `.{}`, wider than this exercise allows (`max-scope: {}`): the point is \
the narrowest scope that holds both threads, and every wider scope costs more [spec §1.2]",
                    instr_text(instr),
                    thread.name,
                    scope_name(scope),
                    scope_name(max)
                ));
            }
        }
    }
    reasons
}

/// The most an answer may cost: `max-cost`, and for a `cheapest-fix` exercise the
/// solution's own cost (whichever is lower).
fn cost_limit(exercise: &Exercise) -> Option<u32> {
    let solution = match exercise.kind {
        ExerciseKind::CheapestFix => load(&exercise.solution.source, exercise.solution.line).ok().map(|s| crate::cost::cost(&s).total),
        ExerciseKind::Fix | ExerciseKind::Predict => None,
    };
    match (exercise.goal.max_cost, solution) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A correct answer that pays for a GPU-wide fence where a narrower one holds misses the
/// point of a "cheapest fix" exercise; the cost model says what it pays for. Where to see
/// the prices is the caller's to say (`Grade::over_cost`): the CLI and the app differ.
fn too_costly(exercise: &Exercise, attempt: &Scenario) -> Option<String> {
    let max = cost_limit(exercise)?;
    let cost = crate::cost::cost(attempt);
    (cost.total > max).then(|| {
        let sass: Vec<String> = cost.sass.iter().map(|s| format!("{}× {}", s.count, s.op)).collect();
        format!(
            "the program costs {} on the sm_90a cost model ({}); this exercise allows at most {max}: a cheaper \
synchronization holds here",
            cost.total,
            if sass.is_empty() { "no synchronization SASS".to_string() } else { sass.join(", ") }
        )
    })
}

/// Whether the run finished, and why the attempt fails the goal.
fn checker_reasons(exercise: &Exercise, attempt: &Scenario, options: &Options) -> (bool, Vec<String>) {
    let report = run(attempt, exercise.goal.mode, options);
    let mut reasons = Vec::new();
    if report.verdict == Verdict::Partial {
        return (false, vec![partial_reason(&report, options)]);
    }
    if !verdict_matches(exercise.goal.verdict, report.verdict) {
        reasons.push(format!(
            "the checker's verdict is {}, the goal is `{}`",
            report.verdict.name(),
            expect_str(exercise.goal.verdict)
        ));
        reasons.extend(report.findings.iter().take(3).map(|f| f.message.clone()));
    }
    for result in report.conditions.iter().filter(|c| !c.holds) {
        if let Some(cond) = attempt.conditions.get(result.index) {
            reasons.push(format!("`{}` does not hold", condition_text(cond)));
        }
    }
    (true, reasons)
}

fn verdict_matches(goal: Expect, verdict: Verdict) -> bool {
    verdict.expect() == Some(goal)
}

/// Why a run proved nothing, in the report's own words when it gives them.
pub fn partial_reason(report: &Report, options: &Options) -> String {
    if report.stats.memory_cap {
        format!("the checker stopped at its memory cap (about {} MiB), so nothing was proven", options.max_bytes >> 20)
    } else if report.stats.states >= options.max_states {
        format!("the checker stopped at its cap of {} states, so nothing was proven", options.max_states)
    } else {
        let note = report.mode_note.as_deref().unwrap_or("the exploration did not finish");
        format!("nothing was proven: {note}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::types::{Forbid, Goal, Part};

    const START: &str = "cta A\nshared x @A = 0\nmbarrier bar @A count 1\n\nthread producer @A:\n    st.shared [x], 42\n    mbarrier.arrive.relaxed.cta.shared::cta [bar]\n\nthread consumer @A:\n    wait mbarrier.try_wait.parity.relaxed.cta.shared::cta [bar], 0\n    ld.shared r0, [x]\n\nforall (consumer:r0 == 42)\n";

    fn exercise(goal: Goal) -> Exercise {
        Exercise {
            id: "e".into(),
            goal,
            start: Part { source: START.into(), line: 10 },
            solution: Part { source: START.into(), line: 30 },
            ..Exercise::default()
        }
    }

    fn attempt(edit: impl Fn(&str) -> String) -> String {
        edit(START)
    }

    #[test]
    fn a_prediction_is_graded_against_the_checker_with_its_reason() {
        let predict = Exercise { kind: ExerciseKind::Predict, ..exercise(Goal { verdict: Expect::Race, ..Goal::default() }) };
        let right = grade(&predict, " race\n", &Options::default());
        assert!(right.passed && right.complete, "{:?}", right.reasons);
        assert!(right.reasons[0].starts_with("the checker says race: "), "{:?}", right.reasons);
        let wrong = grade(&predict, "correct", &Options::default());
        assert!(!wrong.passed && wrong.complete);
        assert!(wrong.reasons[0].starts_with("you predicted correct; the checker says race"), "{:?}", wrong.reasons);
        let nonsense = grade(&predict, "maybe", &Options::default());
        assert!(!nonsense.passed && nonsense.reasons[0].starts_with("answer with one verdict"), "{:?}", nonsense.reasons);
    }

    #[test]
    fn syntax_errors_are_reported_with_learner_lines() {
        let g = grade(&exercise(Goal::default()), &attempt(|s| s.replace("st.shared [x], 42", "st.shraed [x], 42")), &Options::default());
        assert!(!g.passed);
        assert!(g.reasons.iter().any(|r| r.starts_with("line 6: error")), "{:?}", g.reasons);
    }

    #[test]
    fn only_listed_lanes_may_change() {
        let goal = Goal { lanes: Some(vec!["producer".into()]), ..Goal::default() };
        let g = grade(&exercise(goal), &attempt(|s| s.replace("relaxed.cta.shared::cta [bar], 0", "shared::cta [bar], 0")), &Options::default());
        assert!(!g.passed);
        assert_eq!(g.reasons, vec!["only `producer` may change, but `consumer` was changed"]);
    }

    #[test]
    fn declarations_are_fixed() {
        let g = grade(&exercise(Goal::default()), &attempt(|s| s.replace("shared x @A = 0", "shared x @A = 42")), &Options::default());
        assert!(!g.passed);
        assert!(g.reasons.iter().any(|r| r.contains("memory locations were changed")), "{:?}", g.reasons);
    }

    #[test]
    fn forbidden_classes_and_instruction_budget_are_enforced() {
        let goal = Goal { forbid: vec![Forbid::ThreadFence], max_instructions: Some(4), ..Goal::default() };
        let src = attempt(|s| s.replace("    st.shared [x], 42\n", "    st.shared [x], 42\n    fence.release.cta\n"));
        let g = grade(&exercise(goal), &src, &Options::default());
        assert!(!g.passed);
        assert!(g.reasons.iter().any(|r| r.contains("(`forbid: thread-fence`)") && r.contains("`producer`")), "{:?}", g.reasons);
        assert!(g.reasons.iter().any(|r| r.contains("5 instructions") && r.contains("at most 4")), "{:?}", g.reasons);
    }

    #[test]
    fn a_correct_attempt_passes() {
        let fixed = attempt(|s| {
            s.replace("arrive.relaxed.cta.shared::cta [bar]", "arrive.shared::cta [bar]")
                .replace("try_wait.parity.relaxed.cta.shared::cta", "try_wait.parity.shared::cta")
        });
        let g = grade(&exercise(Goal::default()), &fixed, &Options::default());
        assert_eq!(g.reasons, Vec::<String>::new());
        assert!(g.passed && g.complete);
    }

    #[test]
    fn the_learner_cannot_rewrite_the_goal() {
        // Dropping the condition and claiming a race does not turn the racy start into a pass.
        let cheat = attempt(|s| s.replace("forall (consumer:r0 == 42)", "expect race"));
        let g = grade(&exercise(Goal::default()), &cheat, &Options::default());
        assert!(!g.passed && g.complete);
        assert!(g.reasons.iter().any(|r| r.contains("verdict is race")), "{:?}", g.reasons);
        assert!(g.reasons.iter().any(|r| r.contains("`forall (consumer:r0 == 42)` does not hold")), "{:?}", g.reasons);
    }
}
