//! Provenance tags in lesson prose: `[spec §1.6]`, `[inferred §4.4]`, `[practice §3.2]`,
//! `[ambiguous §12.5]`, `[seed §13]`. They say where a rule comes from, with the section of
//! the reference (`shared/reference/ptx-sync.md`) that labels it; the renderer shows them as
//! badges and `lessons check` rejects a malformed one.

use std::fmt;
use std::ops::Range;

/// How the reference labels a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provenance {
    /// The PTX specification says so.
    Spec,
    /// Inferred from the specification: a modelling decision, not a quotation.
    Inferred,
    /// What production code (CUTLASS, the Programming Guide) does; not a promise.
    Practice,
    /// The specification is ambiguous or silent.
    Ambiguous,
    /// A claim from the project's seed material.
    Seed,
}

impl Provenance {
    const ALL: [Provenance; 5] =
        [Provenance::Spec, Provenance::Inferred, Provenance::Practice, Provenance::Ambiguous, Provenance::Seed];

    pub fn name(self) -> &'static str {
        match self {
            Provenance::Spec => "spec",
            Provenance::Inferred => "inferred",
            Provenance::Practice => "practice",
            Provenance::Ambiguous => "ambiguous",
            Provenance::Seed => "seed",
        }
    }

    /// The badge's tooltip.
    fn meaning(self) -> &'static str {
        match self {
            Provenance::Spec => "The PTX specification states this",
            Provenance::Inferred => "Inferred from the specification: a modelling decision, not its words",
            Provenance::Practice => "What production code does; the specification does not promise it",
            Provenance::Ambiguous => "The specification is ambiguous or silent here",
            Provenance::Seed => "A claim from the project's seed material",
        }
    }
}

/// A well-formed tag: its label and the reference sections it cites (`1.6`, `10.8`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProvenanceTag {
    pub kind: Provenance,
    pub sections: Vec<String>,
}

impl ProvenanceTag {
    /// The badge, built only from the fixed label names and validated section numbers, so
    /// nothing the author wrote reaches the HTML unescaped.
    pub fn badge_html(&self) -> String {
        let sections: Vec<String> = self.sections.iter().map(|s| format!("§{s}")).collect();
        let sections = sections.join(", ");
        let kind = self.kind.name();
        format!(
            "<span class=\"prov prov-{kind}\" title=\"{} (reference {sections})\">{kind} {sections}</span>",
            self.kind.meaning()
        )
    }
}

/// Sections of the reference a tag may cite. `10.N` is bug N of the classic-bugs table,
/// `12.N` item N of the list of spec silences, `9.N` and `11.N` the numbered items there.
fn is_known_section(section: &str) -> bool {
    let parts: Vec<&str> = section.split('.').collect();
    let (major, minor) = match parts.as_slice() {
        [major] => (*major, None),
        [major, minor] => (*major, Some(*minor)),
        _ => return false,
    };
    let Ok(major) = major.parse::<u32>() else { return false };
    let highest_minor = match major {
        0 | 7 | 13 => 0,
        1 => 11,
        2 | 3 | 5 => 3,
        4 | 6 | 8 => 5,
        9 | 11 => 7,
        10 => 41,
        12 => 19,
        _ => return false,
    };
    match minor {
        None => true,
        Some(m) => m.parse::<u32>().is_ok_and(|m| m >= 1 && m <= highest_minor) && !m.starts_with('0'),
    }
}

/// Every bracketed group in `text` that is, or tries to be, a provenance tag: its byte
/// range and the tag or what is wrong with it. A group tries when it contains `§` or its
/// first word is a label name in any case.
pub fn scan_tags(text: &str) -> Vec<(Range<usize>, Result<ProvenanceTag, TagError>)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(open) = text.get(from..).and_then(|t| t.find('[')).map(|i| i + from) {
        let Some(close) = text.get(open + 1..).and_then(|t| t.find([']', '['])).map(|i| i + open + 1) else { break };
        if text.get(close..close + 1) == Some("[") {
            from = close;
            continue;
        }
        let inner = text.get(open + 1..close).unwrap_or_default();
        if looks_like_tag(inner) {
            found.push((open..close + 1, parse_tag(inner)));
        }
        from = close + 1;
    }
    found
}

fn looks_like_tag(inner: &str) -> bool {
    let first = inner.split_whitespace().next().unwrap_or_default().to_ascii_lowercase();
    inner.contains('§') || Provenance::ALL.iter().any(|p| p.name() == first)
}

/// What is wrong with a bracketed group that tries to be a provenance tag; `tag` is the
/// text between the brackets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TagError {
    /// Not `[label §section, §section...]` with a known label.
    Malformed { tag: String },
    /// Well formed, but cites a section the reference does not have.
    UnknownSection { tag: String, section: String },
}

impl fmt::Display for TagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TagError::Malformed { tag } => write!(
                f,
                "malformed provenance tag `[{tag}]`: write `[spec §1.6]`, `[inferred §4.4]`, `[practice §3.2]`, `[ambiguous §12.5]` or `[seed §13]`"
            ),
            TagError::UnknownSection { tag, section } => {
                write!(f, "provenance tag `[{tag}]` cites §{section}, which the reference does not have")
            }
        }
    }
}

impl std::error::Error for TagError {}

fn parse_tag(inner: &str) -> Result<ProvenanceTag, TagError> {
    let malformed = || TagError::Malformed { tag: inner.to_string() };
    let (kind, rest) = inner.split_once(' ').ok_or_else(malformed)?;
    let kind = Provenance::ALL.into_iter().find(|p| p.name() == kind).ok_or_else(malformed)?;
    let mut sections = Vec::new();
    for cited in rest.split(", ") {
        let section = cited.strip_prefix('§').ok_or_else(malformed)?;
        if section.is_empty() || !section.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return Err(malformed());
        }
        if !is_known_section(section) {
            return Err(TagError::UnknownSection { tag: inner.to_string(), section: section.to_string() });
        }
        sections.push(section.to_string());
    }
    Ok(ProvenanceTag { kind, sections })
}

/// Problems with the tags in a Markdown text whose first line is lesson line `first_line`,
/// as `(line, message)`. Fenced code blocks and inline code spans are skipped, as the
/// renderer skips them.
pub fn tag_problems(markdown: &str, first_line: usize) -> Vec<(usize, TagError)> {
    let mut problems = Vec::new();
    let mut in_fence = false;
    // A code span may run over a line break, but not over a blank line.
    let mut in_span = false;
    for (i, line) in markdown.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if line.trim().is_empty() {
            in_span = false;
        }
        let mut outside_code = String::new();
        for c in line.chars() {
            if c == '`' {
                in_span = !in_span;
                outside_code.push(' ');
            } else if !in_span {
                outside_code.push(c);
            }
        }
        for (_, result) in scan_tags(&outside_code) {
            if let Err(problem) = result {
                problems.push((first_line + i, problem));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_tags_parse_with_their_sections() {
        let tags = scan_tags("a rule [spec §1.6] and another [practice §3.2, §12.2].");
        assert_eq!(tags.len(), 2);
        assert_eq!(tags[0].1, Ok(ProvenanceTag { kind: Provenance::Spec, sections: vec!["1.6".into()] }));
        let second = tags[1].1.clone().expect("two sections");
        assert_eq!((second.kind, second.sections), (Provenance::Practice, vec!["3.2".to_string(), "12.2".to_string()]));
        assert_eq!(&"x [ambiguous §12.5] y"[scan_tags("x [ambiguous §12.5] y")[0].0.clone()], "[ambiguous §12.5]");
    }

    #[test]
    fn malformed_tags_are_errors_and_ordinary_brackets_are_not_tags() {
        for bad in ["[Spec §1.6]", "[spec 1.6]", "[spec§1.6]", "[spec]", "[specs §1.6]", "[spec §1.x]", "[§1.6]"] {
            let tags = scan_tags(bad);
            assert!(matches!(tags.as_slice(), [(_, Err(TagError::Malformed { .. }))]), "{bad}: {tags:?}");
        }
        for unknown in ["[spec §4.9]", "[spec §10.42]", "[inferred §14]", "[spec §1.06]"] {
            let tags = scan_tags(unknown);
            assert!(matches!(tags.as_slice(), [(_, Err(TagError::UnknownSection { .. }))]), "{unknown}: {tags:?}");
        }
        assert!(scan_tags("see [lesson 2](02-scopes.md), x[i], [a] and [1, 2]").is_empty());
        assert_eq!(
            scan_tags("[spec §4.9]")[0].1,
            Err(TagError::UnknownSection { tag: "spec §4.9".into(), section: "4.9".into() })
        );
    }

    #[test]
    fn problems_carry_lines_and_skip_code() {
        let md = "fine [spec §1.6]\n`[spec 9]` in code\n```\n[spec nope]\n```\nbad [inferred 4.4]\nsplit `code\nspan` then [spec x]\n";
        assert_eq!(tag_problems(md, 10).iter().map(|p| p.0).collect::<Vec<_>>(), vec![15, 17]);
    }

    #[test]
    fn badges_are_built_from_fixed_text() {
        let tag = ProvenanceTag { kind: Provenance::Ambiguous, sections: vec!["12.5".into()] };
        assert_eq!(
            tag.badge_html(),
            "<span class=\"prov prov-ambiguous\" title=\"The specification is ambiguous or silent here (reference §12.5)\">ambiguous §12.5</span>"
        );
    }
}
