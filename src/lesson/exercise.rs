//! The ```` ```exercise ```` block: a header of `key: value` lines, then `--- start` and
//! `--- solution` sections holding `.fence` programs.
//!
//! ```text
//! id: widen-the-release
//! prompt: Make every read of `x` see 42.
//! goal: correct
//! lanes: producer
//! keep-data: true
//! forbid: membar-gpu
//! max-instructions: 6
//! mode: strict
//! hint: Which thread's scope must include which?
//! --- start
//! cta A ...
//! --- solution
//! cta A ...
//! ```

use crate::check::Mode;
use super::forbid::scope_from_name;
use super::front::is_valid_id;
use super::provenance::tag_problems;
use super::types::{Exercise, ExerciseKind, Forbid, Goal, LessonError, Part};
use crate::model::Expect;

#[derive(PartialEq)]
enum Section {
    Header,
    Start,
    Solution,
}

/// Parses the body of an exercise block whose opening fence is on lesson line `fence_line`.
pub fn parse_exercise(body: &[&str], fence_line: usize, errors: &mut Vec<LessonError>) -> Exercise {
    let first_line = fence_line + 1;
    let mut ex = Exercise { line: fence_line, ..Exercise::default() };
    let mut section = Section::Header;
    let (mut start, mut solution): (Option<Part>, Option<Part>) = (None, None);
    let mut seen_goal = false;
    let mut prompt: Vec<&str> = Vec::new();
    for (i, raw) in body.iter().enumerate() {
        let line_no = first_line + i;
        let trimmed = raw.trim();
        if let Some(name) = trimmed.strip_prefix("--- ") {
            let part = Part { source: String::new(), line: line_no + 1 };
            match name.trim() {
                "start" if start.is_none() && section == Section::Header => {
                    start = Some(part);
                    section = Section::Start;
                }
                "solution" if solution.is_none() && section == Section::Start => {
                    solution = Some(part);
                    section = Section::Solution;
                }
                other => errors.push(LessonError::new(
                    line_no,
                    format!("unexpected section `--- {other}` (an exercise has `--- start` then `--- solution`)"),
                )),
            }
            continue;
        }
        let target = match section {
            Section::Header => None,
            Section::Start => start.as_mut(),
            Section::Solution => solution.as_mut(),
        };
        if let Some(part) = target {
            part.source.push_str(raw);
            part.source.push('\n');
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            errors.push(LessonError::new(line_no, format!("expected `key: value` in the exercise header, found `{trimmed}`")));
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "id" => ex.id = value.to_string(),
            "kind" => match [ExerciseKind::Fix, ExerciseKind::Predict, ExerciseKind::CheapestFix].into_iter().find(|k| k.name() == value) {
                Some(kind) => ex.kind = kind,
                None => errors.push(LessonError::new(line_no, format!("unknown exercise kind `{value}` (expected `fix`, `predict` or `cheapest-fix`)"))),
            },
            "prompt" => {
                check_tags(value, line_no, errors);
                prompt.push(value);
            }
            "hint" => {
                check_tags(value, line_no, errors);
                ex.hints.push(value.to_string());
            }
            "goal" => {
                seen_goal = true;
                match parse_verdict(value) {
                    Some(v) => ex.goal.verdict = v,
                    None => errors.push(LessonError::new(
                        line_no,
                        format!("unknown goal `{value}` (expected `correct`, `race`, `deadlock` or `undefined`)"),
                    )),
                }
            }
            "lanes" => ex.goal.lanes = Some(split_names(value)),
            "keep-data" => match value {
                "true" => ex.goal.keep_data = true,
                "false" => ex.goal.keep_data = false,
                _ => errors.push(LessonError::new(line_no, format!("`keep-data` is `true` or `false`, found `{value}`"))),
            },
            "mode" => match Mode::from_name(value) {
                Some(mode) => ex.goal.mode = mode,
                None => errors.push(LessonError::new(line_no, format!("unknown mode `{value}` (expected `strict` or `pragmatic`)"))),
            },
            "forbid" => parse_forbid(value, line_no, &mut ex.goal, errors),
            "max-instructions" => match value.parse() {
                Ok(n) => ex.goal.max_instructions = Some(n),
                Err(_) => errors.push(LessonError::new(line_no, format!("`max-instructions` must be a number, found `{value}`"))),
            },
            "max-cost" => match value.parse::<u32>() {
                Ok(cost) => ex.goal.max_cost = Some(cost),
                Err(_) => errors.push(LessonError::new(line_no, format!("`max-cost` needs a whole number, found `{value}`"))),
            },
            "max-scope" => match scope_from_name(value) {
                Some(scope) => ex.goal.max_scope = Some(scope),
                None => errors.push(LessonError::new(
                    line_no,
                    format!("unknown scope `{value}` in `max-scope` (expected `cta`, `cluster`, `gpu` or `sys`)"),
                )),
            },
            other => errors.push(LessonError::new(
                line_no,
                format!("unknown exercise key `{other}` (expected `id`, `kind`, `prompt`, `goal`, `lanes`, `keep-data`, `forbid`, `max-instructions`, `max-scope`, `max-cost`, `mode` or `hint`)"),
            )),
        }
    }
    ex.prompt = prompt.join("\n");
    check_complete(&ex, seen_goal, start.is_some(), solution.is_some(), errors);
    ex.start = start.unwrap_or_default();
    ex.solution = solution.unwrap_or_default();
    ex
}

fn check_complete(ex: &Exercise, seen_goal: bool, has_start: bool, has_solution: bool, errors: &mut Vec<LessonError>) {
    let line = ex.line;
    if !is_valid_id(&ex.id) {
        errors.push(LessonError::new(line, format!("exercise id `{}` must be lowercase letters, digits and `-`", ex.id)));
    }
    let fix = ex.kind != ExerciseKind::Predict;
    for (missing, what) in [
        (!seen_goal, "a `goal:`"),
        (ex.prompt.is_empty(), "a `prompt:`"),
        (ex.hints.is_empty(), "a `hint:`"),
        (!has_start, "a `--- start` section"),
        (fix && !has_solution, "a `--- solution` section"),
    ] {
        if missing {
            errors.push(LessonError::new(line, format!("exercise `{}` lacks {what}", ex.id)));
        }
    }
    let goal = &ex.goal;
    let edits_rules = goal.lanes.is_some() || goal.keep_data || !goal.forbid.is_empty() || goal.max_instructions.is_some() || goal.max_scope.is_some() || goal.max_cost.is_some();
    if !fix && (has_solution || edits_rules) {
        errors.push(LessonError::new(
            line,
            format!(
                "predict exercise `{}` has no `--- solution`, `lanes`, `keep-data`, `forbid`, `max-instructions`, `max-scope` or `max-cost`: the program is not edited, and `goal:` is the answer",
                ex.id
            ),
        ));
    }
}

fn check_tags(value: &str, line_no: usize, errors: &mut Vec<LessonError>) {
    for (line, problem) in tag_problems(value, line_no) {
        errors.push(LessonError::new(line, problem.to_string()));
    }
}

pub fn parse_verdict(value: &str) -> Option<Expect> {
    match value {
        "correct" => Some(Expect::Correct),
        "race" => Some(Expect::Race),
        "deadlock" => Some(Expect::Deadlock),
        "undefined" => Some(Expect::Undefined),
        _ => None,
    }
}

fn split_names(value: &str) -> Vec<String> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

fn parse_forbid(value: &str, line_no: usize, goal: &mut Goal, errors: &mut Vec<LessonError>) {
    for name in split_names(value) {
        match Forbid::from_name(&name) {
            Some(f) if !goal.forbid.contains(&f) => goal.forbid.push(f),
            Some(_) => {}
            None => {
                let known: Vec<&str> = Forbid::ALL.iter().map(|f| f.name()).collect();
                errors.push(LessonError::new(
                    line_no,
                    format!("unknown forbidden class `{name}` (known: {})", known.join(", ")),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: &str = "id: fix-it\nprompt: Make it right.\ngoal: correct\nlanes: producer, consumer\n\
forbid: membar-gpu, fence-sc\nmax-instructions: 7\nmax-scope: cluster\nhint: first\nhint: second\n--- start\ncta A\n\
--- solution\ncta B\n";

    #[test]
    fn parses_header_and_sections_with_lines() {
        let body: Vec<&str> = BLOCK.lines().collect();
        let mut errors = Vec::new();
        let ex = parse_exercise(&body, 10, &mut errors);
        assert_eq!(errors, vec![]);
        assert_eq!(ex.id, "fix-it");
        assert_eq!(ex.goal.lanes, Some(vec!["producer".to_string(), "consumer".to_string()]));
        assert_eq!(ex.goal.forbid, vec![Forbid::MembarGpu, Forbid::FenceSc]);
        assert_eq!(ex.goal.max_instructions, Some(7));
        assert_eq!(ex.goal.max_scope, Some(crate::model::Scope::Cluster));
        assert_eq!(ex.hints, vec!["first", "second"]);
        // Fence on line 10, so `--- start` is on line 20 and the program starts on 21.
        assert_eq!(ex.start, Part { source: "cta A\n".into(), line: 21 });
        assert_eq!(ex.solution, Part { source: "cta B\n".into(), line: 23 });
    }

    #[test]
    fn a_predict_exercise_needs_no_solution_and_takes_no_edit_rules() {
        let body: Vec<&str> = "id: p\nkind: predict\nprompt: What will it say?\ngoal: race\nhint: h\n--- start\ncta A\n".lines().collect();
        let mut errors = Vec::new();
        let ex = parse_exercise(&body, 1, &mut errors);
        assert_eq!(errors, vec![]);
        assert_eq!((ex.kind, ex.goal.verdict), (ExerciseKind::Predict, Expect::Race));
        let body: Vec<&str> = "id: p\nkind: predict\nprompt: p\ngoal: race\nlanes: a\nhint: h\n--- start\n--- solution\n".lines().collect();
        parse_exercise(&body, 1, &mut errors);
        assert!(errors.iter().any(|e| e.message.contains("predict exercise `p` has no `--- solution`")), "{errors:?}");
        let body: Vec<&str> = "id: p\nkind: guess\n".lines().collect();
        parse_exercise(&body, 1, &mut errors);
        assert!(errors.iter().any(|e| e.message.contains("unknown exercise kind `guess`")), "{errors:?}");
    }

    #[test]
    fn missing_parts_and_unknown_words_are_errors() {
        let body: Vec<&str> = "id: x\ngoal: fast\nforbid: magic\ncolour: red\n--- solution\nmax-scope: warp\n".lines().collect();
        let mut errors = Vec::new();
        parse_exercise(&body, 1, &mut errors);
        let text: Vec<String> = errors.iter().map(|e| format!("{}: {}", e.line, e.message)).collect();
        for needle in ["3: unknown goal `fast`", "4: unknown forbidden class `magic`", "5: unknown exercise key `colour`",
            "6: unexpected section `--- solution`", "7: unknown scope `warp`", "lacks a `prompt:`", "lacks a `hint:`", "lacks a `--- start`"] {
            assert!(text.iter().any(|t| t.contains(needle)), "missing {needle:?} in {text:#?}");
        }
    }
}
