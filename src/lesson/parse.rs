//! Splits a lesson file into front matter, prose, scenarios and exercises.
//!
//! Parsing never fails: it returns what it could read plus every problem, with its line.

use super::exercise::parse_exercise;
use super::front::parse_front_matter;
use super::diagram::diagram_problem;
use super::markdown::diagram_name;
use super::provenance::tag_problems;
use super::types::{Block, Lesson, LessonError};
use crate::check::Mode;

/// Info strings of the fenced blocks lessons give a meaning to.
const SCENARIO_FENCE: &str = "fence";
const EXERCISE_FENCE: &str = "exercise";

/// Parses a lesson. Scenario sources are not parsed here (see [`super::check_lesson`]).
pub fn parse_lesson(src: &str) -> (Lesson, Vec<LessonError>) {
    let lines: Vec<&str> = src.lines().collect();
    let mut errors = Vec::new();
    let (meta, body_start) = parse_front_matter(&lines, &mut errors);
    let mut blocks = Vec::new();
    let mut prose: Vec<&str> = Vec::new();
    let mut prose_line = body_start + 1;
    let mut i = body_start;
    while let Some(line) = lines.get(i) {
        let fence_line = i + 1;
        let Some((info, mode)) = special_fence(line) else {
            if prose.is_empty() {
                prose_line = fence_line;
            }
            prose.push(line);
            i += 1;
            continue;
        };
        check_tags(&prose, prose_line, &mut errors);
        flush_prose(&mut prose, &mut blocks);
        let end = closing_fence(&lines, i + 1);
        let body = lines.get(i + 1..end).unwrap_or_default();
        if end >= lines.len() {
            errors.push(LessonError::new(fence_line, format!("```{info} block is not closed")));
        }
        if info == SCENARIO_FENCE {
            blocks.push(Block::Scenario { source: join(body), line: fence_line + 1, mode });
        } else {
            if mode.is_some() {
                errors.push(LessonError::new(fence_line, "an exercise sets its mode with `mode:` in its header"));
            }
            blocks.push(Block::Exercise(parse_exercise(body, fence_line, &mut errors)));
        }
        i = end + 1;
    }
    check_tags(&prose, prose_line, &mut errors);
    flush_prose(&mut prose, &mut blocks);
    check_exercise_ids(&blocks, &mut errors);
    (Lesson { meta, blocks }, errors)
}

/// The kind and optional mode of a fence opening a scenario or exercise block, if `line`
/// is one (```` ```fence ````, ```` ```fence strict ````, ```` ```exercise ````).
fn special_fence(line: &str) -> Option<(&'static str, Option<Mode>)> {
    let mut words = line.trim_end().strip_prefix("```")?.split_whitespace();
    let first = words.next()?;
    let kind = [SCENARIO_FENCE, EXERCISE_FENCE].into_iter().find(|k| *k == first)?;
    let mode = match (words.next(), words.next()) {
        (None, _) => None,
        (Some(word), None) => Some(Mode::from_name(word)?),
        _ => return None,
    };
    Some((kind, mode))
}


/// Index of the line closing the block whose body starts at `from` (or `lines.len()`).
fn closing_fence(lines: &[&str], from: usize) -> usize {
    (from..lines.len()).find(|&j| lines.get(j).is_some_and(|l| l.trim() == "```")).unwrap_or(lines.len())
}

fn join(body: &[&str]) -> String {
    body.iter().flat_map(|l| [*l, "\n"]).collect()
}

/// Provenance tags (`[spec §1.6]`) and diagram names (```` ```diagram scopes ````) in
/// prose whose first line is lesson line `first_line`.
fn check_tags(prose: &[&str], first_line: usize, errors: &mut Vec<LessonError>) {
    for (line, problem) in tag_problems(&join(prose), first_line) {
        errors.push(LessonError::new(line, problem.to_string()));
    }
    for (offset, text) in prose.iter().enumerate() {
        let Some(info) = text.trim_start().strip_prefix("```") else { continue };
        if info.split_whitespace().next() != Some("diagram") {
            continue;
        }
        let problem = match diagram_name(info) {
            Some(name) => diagram_problem(name),
            None => Some("a diagram block names one diagram: ```diagram NAME".to_string()),
        };
        errors.extend(problem.map(|p| LessonError::new(first_line + offset, p)));
    }
}

fn flush_prose(prose: &mut Vec<&str>, blocks: &mut Vec<Block>) {
    let text = join(prose);
    prose.clear();
    if !text.trim().is_empty() {
        blocks.push(Block::Prose(text.trim_matches('\n').to_string() + "\n"));
    }
}

fn check_exercise_ids(blocks: &[Block], errors: &mut Vec<LessonError>) {
    let mut seen: Vec<&str> = Vec::new();
    for block in blocks {
        if let Block::Exercise(ex) = block {
            if seen.contains(&ex.id.as_str()) {
                errors.push(LessonError::new(ex.line, format!("exercise id `{}` is used twice", ex.id)));
            }
            seen.push(&ex.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LESSON: &str = "---\nid: demo\ntitle: Demo\norder: 1\n---\n# Hello\n\nSome prose.\n\n\
```fence\ncta A\nexpect correct\n```\n\nMore.\n\n```rust\nfn main() {}\n```\n\n\
```exercise\nid: e1\nprompt: do it\ngoal: correct\nhint: h\n--- start\ncta A\n--- solution\ncta A\n```\n";

    #[test]
    fn splits_prose_scenarios_and_exercises() {
        let (lesson, errors) = parse_lesson(LESSON);
        assert_eq!(errors, vec![]);
        assert_eq!(lesson.meta.id, "demo");
        assert_eq!(lesson.blocks.len(), 4, "{:#?}", lesson.blocks);
        assert_eq!(lesson.blocks[0], Block::Prose("# Hello\n\nSome prose.\n".into()));
        assert_eq!(lesson.blocks[1], Block::Scenario { source: "cta A\nexpect correct\n".into(), line: 11, mode: None });
        // Other code blocks stay prose.
        assert!(matches!(&lesson.blocks[2], Block::Prose(p) if p.contains("```rust")));
        let Block::Exercise(ex) = &lesson.blocks[3] else { panic!("not an exercise") };
        assert_eq!(ex.line, 21);
        assert_eq!(ex.start.line, 27);
    }

    #[test]
    fn malformed_provenance_tags_are_errors_with_their_lines() {
        let src = "---\nid: d\ntitle: D\norder: 1\n---\nGood [spec §1.6].\n\nBad [spec 1.6].\n```fence\ncta A\n```\n\nAlso bad [practice §99].\n";
        let (_, errors) = parse_lesson(src);
        let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![8, 13], "{errors:?}");
        assert!(errors[0].message.contains("malformed provenance tag `[spec 1.6]`"), "{errors:?}");
    }

    #[test]
    fn a_scenario_fence_may_pin_the_mode() {
        let (lesson, errors) = parse_lesson("---\nid: d\ntitle: D\norder: 1\n---\n```fence strict\ncta A\n```\n```fence loud\n```\n");
        assert_eq!(errors, vec![]);
        assert!(matches!(lesson.blocks[0], Block::Scenario { mode: Some(Mode::Strict), .. }));
        // An unknown word makes it an ordinary code block.
        assert!(matches!(&lesson.blocks[1], Block::Prose(p) if p.contains("fence loud")));
    }

    #[test]
    fn unclosed_block_and_duplicate_ids_are_reported() {
        let src = "---\nid: d\ntitle: D\norder: 1\n---\n```exercise\nid: a\nprompt: p\ngoal: correct\nhint: h\n\
--- start\n--- solution\n```\n```exercise\nid: a\nprompt: p\ngoal: correct\nhint: h\n--- start\n--- solution\n\n```fence\n";
        let (_, errors) = parse_lesson(src);
        assert!(errors.iter().any(|e| e.line == 14 && e.message.contains("used twice")), "{errors:?}");
        assert!(errors.iter().any(|e| e.message.contains("not closed")), "{errors:?}");
    }

    #[test]
    fn diagram_blocks_must_name_a_known_diagram() {
        let src = "---\nid: d\ntitle: D\norder: 1\n---\n```diagram scopes\n```\n\n```diagram clocks\n```\n```diagram\n```\n";
        let (_, errors) = parse_lesson(src);
        let found: Vec<(usize, bool)> = errors.iter().map(|e| (e.line, e.message.contains("diagram"))).collect();
        assert_eq!(found, vec![(9, true), (11, true)], "{errors:?}");
        assert!(errors[0].message.contains("unknown diagram `clocks`"), "{errors:?}");
    }

}
