//! Tokens of Dat3M's PTX litmus syntax.
//!
//! Opcodes keep their dots (`ld.acquire.gpu` is one word) so the instruction parser can
//! split modifiers itself. Quoted strings and `(* ... *)` comments are skipped.

use super::error::LitmusError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// Identifier or dotted opcode: `x`, `r0`, `P1`, `ld.weak`, `LC00`.
    Word(String),
    Num(i64),
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Semi,
    Bar,
    Comma,
    Colon,
    At,
    Tilde,
    /// `=` or `==`
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `/\` or `&&`
    And,
    /// `\/` or `||`
    Or,
    /// `!`
    Bang,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub line: usize,
}

/// Splits `src` into tokens, or names the line of the first character it cannot read.
pub fn lex(src: &str) -> Result<Vec<Token>, LitmusError> {
    let chars: Vec<char> = src.chars().collect();
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied();
    while let Some(c) = at(i) {
        let next = at(i + 1);
        let start_line = line;
        let mut push = |tok: Tok, len: usize, i: &mut usize| {
            tokens.push(Token {
                tok,
                line: start_line,
            });
            *i += len;
        };
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            c if c.is_whitespace() => i += 1,
            '"' => {
                i += 1;
                loop {
                    match at(i) {
                        None => return Err(LitmusError::syntax(start_line, "unterminated string")),
                        Some('"') => break,
                        Some('\n') => line += 1,
                        Some(_) => {}
                    }
                    i += 1;
                }
                i += 1;
            }
            '(' if next == Some('*') => {
                i += 2;
                loop {
                    match at(i) {
                        None => {
                            return Err(LitmusError::syntax(
                                start_line,
                                "unterminated `(*` comment",
                            ))
                        }
                        Some('*') if at(i + 1) == Some(')') => break,
                        Some('\n') => line += 1,
                        Some(_) => {}
                    }
                    i += 1;
                }
                i += 2;
            }
            '{' => push(Tok::LBrace, 1, &mut i),
            '}' => push(Tok::RBrace, 1, &mut i),
            '(' => push(Tok::LParen, 1, &mut i),
            ')' => push(Tok::RParen, 1, &mut i),
            '[' => push(Tok::LBracket, 1, &mut i),
            ']' => push(Tok::RBracket, 1, &mut i),
            ';' => push(Tok::Semi, 1, &mut i),
            ',' => push(Tok::Comma, 1, &mut i),
            ':' => push(Tok::Colon, 1, &mut i),
            '@' => push(Tok::At, 1, &mut i),
            '~' => push(Tok::Tilde, 1, &mut i),
            '|' if next == Some('|') => push(Tok::Or, 2, &mut i),
            '|' => push(Tok::Bar, 1, &mut i),
            '&' if next == Some('&') => push(Tok::And, 2, &mut i),
            '/' if next == Some('\\') => push(Tok::And, 2, &mut i),
            '\\' if next == Some('/') => push(Tok::Or, 2, &mut i),
            '=' if next == Some('=') => push(Tok::Eq, 2, &mut i),
            '=' => push(Tok::Eq, 1, &mut i),
            '!' if next == Some('=') => push(Tok::Ne, 2, &mut i),
            '!' => push(Tok::Bang, 1, &mut i),
            '<' if next == Some('=') => push(Tok::Le, 2, &mut i),
            '<' => push(Tok::Lt, 1, &mut i),
            '>' if next == Some('=') => push(Tok::Ge, 2, &mut i),
            '>' => push(Tok::Gt, 1, &mut i),
            c if c.is_ascii_digit() || (c == '-' && next.is_some_and(|n| n.is_ascii_digit())) => {
                let start = i;
                i += 1;
                while at(i).is_some_and(|c| c.is_ascii_alphanumeric()) {
                    i += 1;
                }
                let text: String = chars.get(start..i).unwrap_or_default().iter().collect();
                let value = parse_int(&text).ok_or_else(|| {
                    LitmusError::syntax(start_line, format!("bad number `{text}`"))
                })?;
                tokens.push(Token {
                    tok: Tok::Num(value),
                    line: start_line,
                });
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let start = i;
                while at(i).is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
                    i += 1;
                }
                let text: String = chars.get(start..i).unwrap_or_default().iter().collect();
                tokens.push(Token {
                    tok: Tok::Word(text),
                    line: start_line,
                });
            }
            other => {
                return Err(LitmusError::syntax(
                    line,
                    format!("unexpected character `{other}`"),
                ));
            }
        }
    }
    Ok(tokens)
}

fn parse_int(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<i64>().ok()?,
    };
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok> {
        lex(src).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn opcodes_keep_their_dots_and_conditions_lex() {
        assert_eq!(
            toks("ld.acquire.gpu r0, x; (P1:r0 == -1 /\\ 0:r1 = 0x10)"),
            vec![
                Tok::Word("ld.acquire.gpu".into()),
                Tok::Word("r0".into()),
                Tok::Comma,
                Tok::Word("x".into()),
                Tok::Semi,
                Tok::LParen,
                Tok::Word("P1".into()),
                Tok::Colon,
                Tok::Word("r0".into()),
                Tok::Eq,
                Tok::Num(-1),
                Tok::And,
                Tok::Num(0),
                Tok::Colon,
                Tok::Word("r1".into()),
                Tok::Eq,
                Tok::Num(16),
                Tok::RParen,
            ]
        );
    }

    #[test]
    fn strings_and_comments_are_skipped_and_lines_counted() {
        let tokens = lex("\"a\nb\" (* c\n *) x").unwrap();
        assert_eq!(
            tokens,
            vec![Token {
                tok: Tok::Word("x".into()),
                line: 3
            }]
        );
    }

    #[test]
    fn bad_input_is_an_error_with_a_line() {
        let err = lex("x = 0;\n$").unwrap_err();
        assert_eq!(err.line(), Some(2));
        assert!(lex("\"open").is_err());
        assert!(lex("99999999999999999999").is_err());
    }
}
