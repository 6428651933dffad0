//! Front matter: `key: value` lines between two `---` lines at the top of a lesson.
//! Lists are written `[a, b]`. Only the keys below exist; anything else is an error.

use super::types::{LessonError, LessonMeta};

/// Parses the front matter starting at the first line of `lines` (numbered from 1).
/// Returns the metadata and the index of the first line after the closing `---`.
pub fn parse_front_matter<'a>(lines: &[&'a str], errors: &mut Vec<LessonError>) -> (LessonMeta, usize) {
    let mut meta = LessonMeta::default();
    if lines.first().map(|l| l.trim()) != Some("---") {
        errors.push(LessonError::new(1, "a lesson must start with front matter (`---`)"));
        return (meta, 0);
    }
    let mut seen: Vec<&'a str> = Vec::new();
    for (i, raw) in lines.iter().enumerate().skip(1) {
        let line_no = i + 1;
        let line = raw.trim();
        if line == "---" {
            require_fields(&meta, &seen, errors);
            return (meta, i + 1);
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            errors.push(LessonError::new(line_no, format!("expected `key: value`, found `{line}`")));
            continue;
        };
        let (key, value) = (key.trim(), unquote(value.trim()));
        if seen.contains(&key) {
            errors.push(LessonError::new(line_no, format!("`{key}` is given twice")));
            continue;
        }
        match key {
            "id" => meta.id = value.to_string(),
            "title" => meta.title = value.to_string(),
            "order" => match value.parse() {
                Ok(n) => meta.order = n,
                Err(_) => errors.push(LessonError::new(line_no, format!("`order` must be a number, found `{value}`"))),
            },
            "prerequisites" => meta.prerequisites = parse_list(value, line_no, errors),
            "tags" => meta.tags = parse_list(value, line_no, errors),
            other => {
                errors.push(LessonError::new(
                    line_no,
                    format!("unknown front matter key `{other}` (expected `id`, `title`, `order`, `prerequisites` or `tags`)"),
                ));
                continue;
            }
        }
        seen.push(key);
    }
    errors.push(LessonError::new(lines.len().max(1), "front matter is not closed by `---`"));
    (meta, lines.len())
}

fn require_fields(meta: &LessonMeta, seen: &[&str], errors: &mut Vec<LessonError>) {
    for key in ["id", "title", "order"] {
        if !seen.contains(&key) {
            errors.push(LessonError::new(1, format!("front matter lacks `{key}`")));
        }
    }
    if seen.contains(&"id") && !is_valid_id(&meta.id) {
        errors.push(LessonError::new(1, format!("lesson id `{}` must be lowercase letters, digits and `-`", meta.id)));
    }
}

/// `"text"` → `text`, so titles may contain `:`.
fn unquote(value: &str) -> &str {
    value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value)
}

/// Ids appear in URLs and storage keys: keep them to `[a-z0-9-]`.
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty() && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn parse_list(value: &str, line_no: usize, errors: &mut Vec<LessonError>) -> Vec<String> {
    let Some(inner) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) else {
        errors.push(LessonError::new(line_no, format!("expected a list `[a, b]`, found `{value}`")));
        return Vec::new();
    };
    inner.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> (LessonMeta, usize, Vec<LessonError>) {
        let lines: Vec<&str> = src.lines().collect();
        let mut errors = Vec::new();
        let (meta, next) = parse_front_matter(&lines, &mut errors);
        (meta, next, errors)
    }

    #[test]
    fn reads_every_key() {
        let (meta, next, errors) =
            parse("---\nid: scopes\ntitle: \"Scopes: both ways\"\norder: 2\nprerequisites: [intro]\ntags: [scope, basics]\n---\nbody");
        assert_eq!(errors, vec![]);
        assert_eq!(next, 7);
        assert_eq!(meta.id, "scopes");
        assert_eq!(meta.title, "Scopes: both ways");
        assert_eq!(meta.order, 2);
        assert_eq!(meta.prerequisites, vec!["intro"]);
        assert_eq!(meta.tags, vec!["scope", "basics"]);
    }

    #[test]
    fn reports_bad_lines_with_their_numbers() {
        let (_, _, errors) = parse("---\nid: Bad Id\ntitle: x\norder: two\ncolour: red\n---\n");
        assert!(errors.iter().any(|e| e.line == 4 && e.message.contains("number")), "{errors:?}");
        assert!(errors.iter().any(|e| e.line == 5 && e.message.contains("`colour`")), "{errors:?}");
        assert!(errors.iter().any(|e| e.message.contains("`Bad Id`")), "{errors:?}");
    }

    #[test]
    fn unclosed_front_matter_is_an_error() {
        let (_, _, errors) = parse("---\nid: a\n");
        assert!(errors.iter().any(|e| e.message.contains("not closed")), "{errors:?}");
    }
}
