//! Line-oriented lexer. A "word" is a dotted PTX name such as
//! `mbarrier.try_wait.parity.shared::cta` and keeps each `.` segment's position, so
//! diagnostics can point at one modifier.

use crate::diag::{Diagnostic, Span};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// Identifier or dotted name; may start with `.` (a lone modifier such as `.u32`).
    Word(String),
    Int(i64),
    LBracket,
    RBracket,
    LParen,
    RParen,
    Comma,
    Colon,
    At,
    Bang,
    /// `+` of a byte offset (`[x+4]`).
    Plus,
    Tilde,
    Assign,
    Cmp(crate::model::CmpOp),
    And,
    Or,
}

impl Tok {
    /// How the token reads in an "expected …, found …" message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("`{w}`"),
            Tok::Int(n) => format!("`{n}`"),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Colon => "`:`".into(),
            Tok::At => "`@`".into(),
            Tok::Bang => "`!`".into(),
            Tok::Plus => "`+`".into(),
            Tok::Tilde => "`~`".into(),
            Tok::Assign => "`=`".into(),
            Tok::Cmp(op) => format!("`{}`", crate::syntax::printer::cmp_str(*op)),
            Tok::And => "`/\\`".into(),
            Tok::Or => "`\\/`".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// One source line after comment stripping.
#[derive(Clone, Debug)]
pub struct Line {
    pub tokens: Vec<Token>,
    /// Span of the whole line's text (without the newline).
    pub span: Span,
    /// Text after `#`, if the line has a comment.
    pub comment: Option<String>,
}

/// Splits `src` into lines and tokenizes each; lexical errors go to `diags`.
pub fn lex(src: &str, diags: &mut Vec<Diagnostic>) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut offset = 0;
    for raw in src.split('\n') {
        let text = raw.strip_suffix('\r').unwrap_or(raw);
        let (code, comment) = match text.find('#') {
            Some(i) => (text.get(..i).unwrap_or(""), text.get(i + 1..).map(str::to_string)),
            None => (text, None),
        };
        let tokens = lex_line(code, offset, diags);
        lines.push(Line { tokens, span: Span::new(offset, offset + text.len()), comment });
        offset += raw.len() + 1;
    }
    lines
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn lex_line(code: &str, base: usize, diags: &mut Vec<Diagnostic>) -> Vec<Token> {
    let bytes: Vec<(usize, char)> = code.char_indices().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let at = |i: usize| bytes.get(i).map(|&(_, c)| c);
    let pos = |i: usize| bytes.get(i).map_or(code.len(), |&(p, _)| p) + base;
    while let Some(c) = at(i) {
        let start = i;
        let simple = |tok: Tok, n: usize| (tok, n);
        let one = match c {
            ' ' | '\t' | ';' => {
                i += 1;
                continue;
            }
            '[' => Some(simple(Tok::LBracket, 1)),
            ']' => Some(simple(Tok::RBracket, 1)),
            '(' => Some(simple(Tok::LParen, 1)),
            ')' => Some(simple(Tok::RParen, 1)),
            ',' => Some(simple(Tok::Comma, 1)),
            '@' => Some(simple(Tok::At, 1)),
            '+' => Some(simple(Tok::Plus, 1)),
            '~' => Some(simple(Tok::Tilde, 1)),
            '/' if at(i + 1) == Some('\\') => Some(simple(Tok::And, 2)),
            '\\' if at(i + 1) == Some('/') => Some(simple(Tok::Or, 2)),
            '&' if at(i + 1) == Some('&') => Some(simple(Tok::And, 2)),
            '|' if at(i + 1) == Some('|') => Some(simple(Tok::Or, 2)),
            '=' if at(i + 1) == Some('=') => Some(simple(Tok::Cmp(crate::model::CmpOp::Eq), 2)),
            '=' => Some(simple(Tok::Assign, 1)),
            '!' if at(i + 1) == Some('=') => Some(simple(Tok::Cmp(crate::model::CmpOp::Ne), 2)),
            '!' => Some(simple(Tok::Bang, 1)),
            '<' if at(i + 1) == Some('=') => Some(simple(Tok::Cmp(crate::model::CmpOp::Le), 2)),
            '<' => Some(simple(Tok::Cmp(crate::model::CmpOp::Lt), 1)),
            '>' if at(i + 1) == Some('=') => Some(simple(Tok::Cmp(crate::model::CmpOp::Ge), 2)),
            '>' => Some(simple(Tok::Cmp(crate::model::CmpOp::Gt), 1)),
            ':' if at(i + 1) != Some(':') => Some(simple(Tok::Colon, 1)),
            _ => None,
        };
        if let Some((tok, n)) = one {
            i += n;
            tokens.push(Token { tok, span: Span::new(pos(start), pos(i)) });
            continue;
        }
        let negative = c == '-' && at(i + 1).is_some_and(|d| d.is_ascii_digit());
        if c.is_ascii_digit() || negative {
            if negative {
                i += 1;
            }
            while at(i).is_some_and(is_word_char) {
                i += 1;
            }
            // `.2d`-style segments never start a token, so a digit run is a number.
            let text = code.get(bytes.get(start).map_or(0, |b| b.0)..pos(i) - base).unwrap_or("");
            let span = Span::new(pos(start), pos(i));
            match parse_int(text) {
                Some(n) => tokens.push(Token { tok: Tok::Int(n), span }),
                None => diags.push(
                    Diagnostic::error("F0102", format!("invalid integer `{text}`"))
                        .with_primary(Some(span), "not a 64-bit decimal or `0x` hex integer"),
                ),
            }
            continue;
        }
        if is_word_char(c) || c == '.' {
            while let Some(c) = at(i) {
                if is_word_char(c) || c == '.' {
                    i += 1;
                } else if c == ':' && at(i + 1) == Some(':') {
                    i += 2;
                } else if c == '(' && at(i + 1) == Some(')') && i > start {
                    // CUDA spellings such as `__syncthreads()` are one word.
                    i += 2;
                    break;
                } else {
                    break;
                }
            }
            let text = code.get(pos(start) - base..pos(i) - base).unwrap_or("");
            tokens.push(Token { tok: Tok::Word(text.to_string()), span: Span::new(pos(start), pos(i)) });
            continue;
        }
        let span = Span::new(pos(start), pos(start + 1));
        diags.push(
            Diagnostic::error("F0101", format!("unexpected character `{}`", c.escape_default()))
                .with_primary(Some(span), "not part of the scenario syntax"),
        );
        i += 1;
    }
    tokens
}

fn parse_int(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        Some(hex) => i128::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<i128>().ok()?,
    };
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok> {
        let mut diags = Vec::new();
        let lines = lex(src, &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
        lines.into_iter().flat_map(|l| l.tokens).map(|t| t.tok).collect()
    }

    #[test]
    fn dotted_words_keep_double_colons() {
        assert_eq!(
            toks("mbarrier.arrive.shared::cta _, [bar]; # c"),
            vec![
                Tok::Word("mbarrier.arrive.shared::cta".into()),
                Tok::Word("_".into()),
                Tok::Comma,
                Tok::LBracket,
                Tok::Word("bar".into()),
                Tok::RBracket,
            ]
        );
    }

    #[test]
    fn integers_and_conditions() {
        assert_eq!(
            toks("t:r0 == -0x10 /\\ ~(x != 3)"),
            vec![
                Tok::Word("t".into()),
                Tok::Colon,
                Tok::Word("r0".into()),
                Tok::Cmp(crate::model::CmpOp::Eq),
                Tok::Int(-16),
                Tok::And,
                Tok::Tilde,
                Tok::LParen,
                Tok::Word("x".into()),
                Tok::Cmp(crate::model::CmpOp::Ne),
                Tok::Int(3),
                Tok::RParen,
            ]
        );
    }

    #[test]
    fn reports_bad_characters_and_overflow() {
        let mut diags = Vec::new();
        lex("st [x], 99999999999999999999 $", &mut diags);
        let codes: Vec<&str> = diags.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["F0102", "F0101"]);
    }
}
