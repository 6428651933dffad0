//! Which of the reference's classic bugs a lesson scenario shows.
//!
//! A scenario block names a bug of the reference's table (`ptx-sync.md` §10) with a comment
//! line `# ref §10 #N buggy` (the block shows the bug) or `# ref §10 #N fixed` (the block
//! shows its fix); several bugs go in one line: `# ref §10 #14, #15 buggy`. The course is
//! complete when every bug has both kinds of block ([`missing_bugs`]).

use serde::{Deserialize, Serialize};

use super::types::{Block, Lesson, LessonError};
use crate::model::{Expect, Scenario};

/// The number of bugs in the reference's classic-bugs table.
pub const CLASSIC_BUG_COUNT: u8 = 41;

/// What the words after `ref §10` introduce.
const LABEL_PREFIX: &str = "ref §10";

/// Whether a labelled block shows the bug or its fix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BugRole {
    Buggy,
    Fixed,
}

impl BugRole {
    pub fn name(self) -> &'static str {
        match self {
            BugRole::Buggy => "buggy",
            BugRole::Fixed => "fixed",
        }
    }

    fn from_name(word: &str) -> Option<BugRole> {
        [BugRole::Buggy, BugRole::Fixed].into_iter().find(|r| r.name() == word)
    }
}

/// One `ref §10 #N buggy|fixed` label: bug `bug` (1-based, as the reference numbers it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BugLabel {
    pub bug: u8,
    pub role: BugRole,
    /// Lesson line of the comment.
    pub line: usize,
}

/// The labels in a scenario's source whose first line is lesson line `first_line`, and a
/// problem for each comment that mentions `ref §10` but is not a well-formed label.
pub fn bug_labels(source: &str, first_line: usize) -> (Vec<BugLabel>, Vec<LessonError>) {
    let mut labels = Vec::new();
    let mut errors = Vec::new();
    for (offset, text) in source.lines().enumerate() {
        let line = first_line + offset;
        let Some(comment) = text.trim_start().strip_prefix('#') else { continue };
        let Some(rest) = comment.trim().strip_prefix(LABEL_PREFIX) else {
            if comment.contains(LABEL_PREFIX) {
                errors.push(LessonError::new(line, format!("a bug label starts its comment: `# {LABEL_PREFIX} #N buggy|fixed`")));
            }
            continue;
        };
        match parse_label(rest) {
            Ok((bugs, role)) => labels.extend(bugs.into_iter().map(|bug| BugLabel { bug, role, line })),
            Err(problem) => errors.push(LessonError::new(line, format!("malformed bug label `#{comment}`: {problem}"))),
        }
    }
    (labels, errors)
}

/// `#N[, #M…] buggy|fixed` (what follows `ref §10`).
fn parse_label(rest: &str) -> Result<(Vec<u8>, BugRole), String> {
    let words: Vec<&str> = rest.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let Some((last, numbers)) = words.split_last() else { return Err("expected `#N buggy` or `#N fixed`".into()) };
    let role = BugRole::from_name(last).ok_or_else(|| format!("it must end in `buggy` or `fixed`, not `{last}`"))?;
    if numbers.is_empty() {
        return Err("it names no bug (`#N`)".into());
    }
    let bugs = numbers
        .iter()
        .map(|word| {
            word.strip_prefix('#')
                .and_then(|n| n.parse::<u8>().ok())
                .filter(|n| (1..=CLASSIC_BUG_COUNT).contains(n))
                .ok_or_else(|| format!("`{word}` is not a bug of the table (`#1` to `#{CLASSIC_BUG_COUNT}`)"))
        })
        .collect::<Result<Vec<u8>, String>>()?;
    Ok((bugs, role))
}

/// A label that contradicts the block's own claim: a buggy block must expect a verdict
/// other than `correct`, a fixed block must expect `correct` and nothing else.
pub(super) fn label_contradiction(label: &BugLabel, scenario: &Scenario) -> Option<LessonError> {
    let verdicts = || scenario.expect.iter().map(|e| e.verdict);
    let consistent = match label.role {
        BugRole::Buggy => verdicts().any(|v| v != Expect::Correct),
        BugRole::Fixed => verdicts().next().is_some() && verdicts().all(|v| v == Expect::Correct),
    };
    let wanted = match label.role {
        BugRole::Buggy => "must expect `race`, `deadlock` or `undefined`",
        BugRole::Fixed => "must expect `correct` (and nothing else)",
    };
    (!consistent).then(|| LessonError::new(label.line, format!("a block labelled `#{} {}` {wanted}", label.bug, label.role.name())))
}

/// Every (bug, role) pair of the table that no scenario of `lessons` is labelled with, in
/// bug order, buggy before fixed.
pub fn missing_bugs<'a>(lessons: impl IntoIterator<Item = &'a Lesson>) -> Vec<(u8, BugRole)> {
    let mut seen = Vec::new();
    for lesson in lessons {
        for block in &lesson.blocks {
            if let Block::Scenario { source, line, .. } = block {
                seen.extend(bug_labels(source, *line).0.into_iter().map(|l| (l.bug, l.role)));
            }
        }
    }
    (1..=CLASSIC_BUG_COUNT)
        .flat_map(|bug| [(bug, BugRole::Buggy), (bug, BugRole::Fixed)])
        .filter(|pair| !seen.contains(pair))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_one_or_several_bugs_per_label() {
        let (labels, errors) = bug_labels("# title\n# ref §10 #14, #15 buggy\ncta A\n  # ref §10 #3 fixed\n", 10);
        assert_eq!(errors, vec![]);
        let got: Vec<(u8, BugRole, usize)> = labels.iter().map(|l| (l.bug, l.role, l.line)).collect();
        assert_eq!(got, vec![(14, BugRole::Buggy, 11), (15, BugRole::Buggy, 11), (3, BugRole::Fixed, 13)]);
    }

    #[test]
    fn malformed_labels_name_their_line_and_problem() {
        let src = "# ref §10 #42 buggy\n# ref §10 #4 broken\n# ref §10 fixed\n# see ref §10 #4 fixed\n# ref §10 4 fixed\n";
        let (labels, errors) = bug_labels(src, 1);
        assert_eq!(labels, vec![]);
        let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![1, 2, 3, 4, 5], "{errors:?}");
        assert!(errors[0].message.contains("`#42` is not a bug"), "{errors:?}");
        assert!(errors[1].message.contains("not `broken`"), "{errors:?}");
        assert!(errors[2].message.contains("names no bug"), "{errors:?}");
        assert!(errors[3].message.contains("starts its comment"), "{errors:?}");
    }

    #[test]
    fn a_label_must_agree_with_the_blocks_verdict() {
        let scenario = |verdict| Scenario { expect: vec![crate::model::Expectation { mode: None, verdict }], ..Scenario::default() };
        let buggy = BugLabel { bug: 5, role: BugRole::Buggy, line: 3 };
        let fixed = BugLabel { bug: 5, role: BugRole::Fixed, line: 3 };
        assert!(label_contradiction(&buggy, &scenario(Expect::Race)).is_none());
        assert!(label_contradiction(&fixed, &scenario(Expect::Correct)).is_none());
        assert!(label_contradiction(&buggy, &scenario(Expect::Correct)).is_some());
        assert!(label_contradiction(&fixed, &scenario(Expect::Deadlock)).is_some());
        assert!(label_contradiction(&fixed, &Scenario::default()).is_some());
    }

    #[test]
    fn missing_bugs_lists_each_role_not_shown() {
        let src = "---\nid: t\ntitle: T\norder: 1\n---\n```fence\n# ref §10 #1 buggy\ncta A\nexpect race\n```\n";
        let (lesson, errors) = super::super::parse_lesson(src);
        assert_eq!(errors, vec![]);
        let missing = missing_bugs([&lesson]);
        assert_eq!(missing.len(), 2 * usize::from(CLASSIC_BUG_COUNT) - 1);
        assert_eq!(missing[0], (1, BugRole::Fixed));
    }
}
