//! "Did you mean" suggestions by edit distance.

/// Levenshtein distance over chars.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut row = Vec::with_capacity(b.len() + 1);
        row.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let substitute = prev.get(j).copied().unwrap_or(0) + usize::from(ca != *cb);
            let insert = row.last().copied().unwrap_or(0) + 1;
            let delete = prev.get(j + 1).copied().unwrap_or(0) + 1;
            row.push(substitute.min(insert).min(delete));
        }
        prev = row;
    }
    prev.last().copied().unwrap_or(0)
}

/// The candidate closest to `word`, if it is close enough to be a plausible typo
/// (distance at most a third of the word, and at least 1 allowed).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    // ASCII case folding: names and keywords are ASCII, and Unicode's would link its
    // case tables into the wasm (issue 19).
    let word = word.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|c| (edit_distance(&word, &c.to_ascii_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_single_edits() {
        assert_eq!(edit_distance("aquire", "acquire"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("gpu", "gpu"), 0);
    }

    #[test]
    fn closest_picks_typo_and_rejects_far_words() {
        assert_eq!(closest("aquire", ["release", "acquire", "relaxed"]), Some("acquire"));
        assert_eq!(closest("banana", ["release", "acquire"]), None);
    }
}
