//! A cursor over one line's tokens, with the small parsing steps every form shares.

use crate::diag::{Diagnostic, Span};
use crate::model::Operand;
use crate::syntax::lexer::{Tok, Token};

/// A line-level parse failure: the diagnostic is reported and the rest of the line skipped.
pub type PResult<T> = Result<T, Box<Diagnostic>>;

pub struct Cursor<'a> {
    toks: &'a [Token],
    pos: usize,
    /// Span of the whole line, used when a token is missing at the end.
    line: Span,
    /// Spans of the operands parsed so far, in source order.
    pub operands: Vec<Span>,
    /// Bracketed operands parsed so far in the current instruction.
    pub brackets: usize,
    /// Byte offsets written in brackets (`[x+4]`): bracket ordinal, offset, its span.
    pub offsets: Vec<(usize, u32, Span)>,
}

impl<'a> Cursor<'a> {
    pub fn new(toks: &'a [Token], line: Span) -> Cursor<'a> {
        Cursor { toks, pos: 0, line, operands: Vec::new(), brackets: 0, offsets: Vec::new() }
    }

    pub fn peek(&self) -> Option<&'a Token> {
        self.toks.get(self.pos)
    }

    pub fn peek_tok(&self) -> Option<&'a Tok> {
        self.peek().map(|t| &t.tok)
    }

    pub fn peek_at(&self, ahead: usize) -> Option<&'a Tok> {
        self.toks.get(self.pos + ahead).map(|t| &t.tok)
    }

    pub fn bump(&mut self) -> Option<&'a Token> {
        let t = self.toks.get(self.pos);
        self.pos += usize::from(t.is_some());
        t
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    /// Span where a missing token would go: the next token, or just past the line's text.
    pub fn here(&self) -> Span {
        match self.peek() {
            Some(t) => t.span,
            None => {
                let end = self.toks.last().map_or(self.line.end, |t| t.span.end);
                Span { start: end, end: end + 1 }
            }
        }
    }

    /// Span from token index `from` to the last consumed token.
    pub fn span_from(&self, from: usize) -> Span {
        let first = self.toks.get(from).map_or(self.here(), |t| t.span);
        let last = self.toks.get(self.pos.saturating_sub(1)).map_or(first, |t| t.span);
        first.to(last)
    }

    pub fn index(&self) -> usize {
        self.pos
    }

    pub fn error_here(&self, expected: &str) -> Box<Diagnostic> {
        let found = self.peek().map_or("end of line".to_string(), |t| t.tok.describe());
        Box::new(
            Diagnostic::error("F0105", format!("expected {expected}, found {found}"))
                .with_primary(Some(self.here()), format!("expected {expected}")),
        )
    }

    pub fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek_tok() == Some(tok) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub fn expect(&mut self, tok: &Tok, what: &str) -> PResult<Span> {
        match self.peek() {
            Some(t) if &t.tok == tok => {
                self.pos += 1;
                Ok(t.span)
            }
            _ => Err(self.error_here(what)),
        }
    }

    pub fn comma(&mut self) -> PResult<()> {
        self.expect(&Tok::Comma, "`,`").map(|_| ())
    }

    /// A plain identifier (no dots).
    pub fn ident(&mut self, what: &str) -> PResult<(String, Span)> {
        match self.peek() {
            Some(Token { tok: Tok::Word(w), span }) if is_ident(w) => {
                self.pos += 1;
                Ok((w.clone(), *span))
            }
            _ => Err(self.error_here(what)),
        }
    }

    /// A keyword such as `count` or `in`.
    pub fn eat_keyword(&mut self, keyword: &str) -> bool {
        if matches!(self.peek_tok(), Some(Tok::Word(w)) if w == keyword) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub fn int(&mut self, what: &str) -> PResult<(i64, Span)> {
        match self.peek() {
            Some(Token { tok: Tok::Int(n), span }) => {
                self.pos += 1;
                Ok((*n, *span))
            }
            _ => Err(self.error_here(what)),
        }
    }

    /// A non-negative integer that fits in `u32`.
    pub fn u32(&mut self, what: &str) -> PResult<(u32, Span)> {
        let (n, span) = self.int(what)?;
        match u32::try_from(n) {
            Ok(v) => Ok((v, span)),
            Err(_) => Err(Box::new(
                Diagnostic::error("F0206", format!("{what} `{n}` is out of range"))
                    .with_primary(Some(span), "must be between 0 and 4294967295"),
            )),
        }
    }

    /// `u32` immediate recorded as an operand.
    pub fn u32_operand(&mut self, what: &str) -> PResult<u32> {
        let (v, span) = self.u32(what)?;
        self.operands.push(span);
        Ok(v)
    }

    /// `[name]` or `[name+offset]`, recorded as an operand; an offset is kept in
    /// [`Cursor::offsets`] for the instruction to wrap itself in.
    pub fn address(&mut self, what: &str) -> PResult<String> {
        let open = self.expect(&Tok::LBracket, &format!("`[` before {what}"))?;
        let (name, _) = self.ident(what)?;
        if self.eat(&Tok::Plus) {
            let (offset, span) = self.int("a byte offset")?;
            let offset = u32::try_from(offset).map_err(|_| {
                Box::new(
                    Diagnostic::error("F0206", format!("byte offset `{offset}` is out of range"))
                        .with_primary(Some(span), "must be between 0 and 4294967295"),
                )
            })?;
            self.offsets.push((self.brackets, offset, span));
        } else if let Some(Token { tok: Tok::Int(n), span }) = self.peek().filter(|_| matches!(self.peek_tok(), Some(Tok::Int(n)) if *n < 0)) {
            // `[x-4]` lexes as `x` then `-4`: a negative offset is outside every location.
            return Err(Box::new(
                Diagnostic::error("F0346", format!("byte offset `{n}` is outside the location"))
                    .with_primary(Some(*span), "offsets count bytes from the start of the location")
                    .with_help("write `[x+OFFSET]` with 0 <= OFFSET < the location's size"),
            ));
        }
        let close = self.expect(&Tok::RBracket, "`]`")?;
        self.brackets += 1;
        self.operands.push(open.to(close));
        Ok(name)
    }

    /// A register name (not `_`), recorded as an operand.
    pub fn register(&mut self, what: &str) -> PResult<String> {
        let (name, span) = self.ident(what)?;
        if name == "_" {
            return Err(Box::new(
                Diagnostic::error("F0205", format!("the sink `_` cannot be used as {what}"))
                    .with_primary(Some(span), "a named register is needed here"),
            ));
        }
        self.operands.push(span);
        Ok(name)
    }

    /// A destination register; the sink `_` is allowed. Recorded as an operand.
    pub fn dst(&mut self, what: &str) -> PResult<String> {
        let (name, span) = self.ident(what)?;
        self.operands.push(span);
        Ok(name)
    }

    /// A register or an immediate, recorded as an operand.
    pub fn value(&mut self, what: &str) -> PResult<Operand> {
        match self.peek() {
            Some(Token { tok: Tok::Int(n), span }) => {
                self.pos += 1;
                self.operands.push(*span);
                Ok(Operand::Imm(*n))
            }
            Some(Token { tok: Tok::Word(w), span }) if is_ident(w) && w != "_" => {
                self.pos += 1;
                self.operands.push(*span);
                Ok(Operand::Reg(w.clone()))
            }
            _ => Err(self.error_here(what)),
        }
    }

    /// Reports tokens left over after a complete form.
    pub fn finish(&self, form: &str) -> PResult<()> {
        match self.peek() {
            None => Ok(()),
            Some(t) => Err(Box::new(
                Diagnostic::error("F0105", format!("unexpected {} after {form}", t.tok.describe()))
                    .with_primary(Some(t.span), "expected end of line"),
            )),
        }
    }
}

pub fn is_ident(w: &str) -> bool {
    let mut chars = w.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
