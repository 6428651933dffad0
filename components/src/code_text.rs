//! Checker text quotes code in backticks (`` `ld.acquire.gpu` ``); the app shows those
//! pieces as code instead of raw backticks. Everything stays text: nothing becomes markup.

use leptos::prelude::*;

/// `text` split into (is_code, piece); an unpaired backtick stays as written.
pub fn code_pieces(text: &str) -> Vec<(bool, &str)> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else { break };
        if open > 0 {
            pieces.push((false, &rest[..open]));
        }
        pieces.push((true, &rest[open + 1..open + 1 + len]));
        rest = &rest[open + 2 + len..];
    }
    if !rest.is_empty() {
        pieces.push((false, rest));
    }
    pieces
}

/// `text` with its backticked pieces as `<code>`.
pub fn code_text(text: &str) -> impl IntoView {
    code_pieces(text)
        .into_iter()
        .map(|(code, piece)| {
            let piece = piece.to_string();
            if code { view! { <code>{piece}</code> }.into_any() } else { piece.into_any() }
        })
        .collect_view()
}

#[cfg(test)]
mod tests {
    use super::code_pieces;

    #[test]
    fn backticked_pieces_become_code() {
        assert_eq!(
            code_pieces("release on `bar` at `.cta` scope"),
            [(false, "release on "), (true, "bar"), (false, " at "), (true, ".cta"), (false, " scope")]
        );
        assert_eq!(code_pieces("`x`"), [(true, "x")]);
        assert_eq!(code_pieces("no code"), [(false, "no code")]);
        assert_eq!(code_pieces("odd ` tick"), [(false, "odd ` tick")], "an unpaired backtick stays");
        assert_eq!(code_pieces(""), Vec::<(bool, &str)>::new());
    }
}
