//! A read position in a token list, with the error helpers every parser part shares.

use super::error::LitmusError;
use super::lexer::{Tok, Token};

pub struct Cursor<'a> {
    tokens: &'a [Token],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(tokens: &'a [Token]) -> Self {
        Cursor { tokens, pos: 0 }
    }

    pub fn peek(&self) -> Option<&'a Tok> {
        self.tokens.get(self.pos).map(|t| &t.tok)
    }

    pub fn peek_at(&self, ahead: usize) -> Option<&'a Tok> {
        self.tokens.get(self.pos + ahead).map(|t| &t.tok)
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.tokens.len()
    }

    /// Line of the next token, or of the last one at the end of input.
    pub fn line(&self) -> usize {
        self.tokens
            .get(self.pos)
            .or_else(|| self.tokens.last())
            .map_or(1, |t| t.line)
    }

    pub fn bump(&mut self) -> Option<&'a Token> {
        let token = self.tokens.get(self.pos);
        if token.is_some() {
            self.pos += 1;
        }
        token
    }

    /// Consumes `tok` if it is next.
    pub fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek() == Some(tok) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub fn expect(&mut self, tok: &Tok, what: &str) -> Result<(), LitmusError> {
        if self.eat(tok) {
            Ok(())
        } else {
            Err(self.unexpected(what))
        }
    }

    pub fn word(&mut self, what: &str) -> Result<&'a str, LitmusError> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                self.pos += 1;
                Ok(w)
            }
            _ => Err(self.unexpected(what)),
        }
    }

    pub fn num(&mut self, what: &str) -> Result<i64, LitmusError> {
        match self.peek() {
            Some(Tok::Num(n)) => {
                let n = *n;
                self.pos += 1;
                Ok(n)
            }
            _ => Err(self.unexpected(what)),
        }
    }

    /// `expected WHAT, found X` at the current token.
    pub fn unexpected(&self, what: &str) -> LitmusError {
        let found = match self.peek() {
            Some(tok) => format!("`{}`", describe(tok)),
            None => "the end of the file".to_string(),
        };
        LitmusError::syntax(self.line(), format!("expected {what}, found {found}"))
    }
}

pub fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Word(w) => w.clone(),
        Tok::Num(n) => n.to_string(),
        Tok::LBrace => "{".into(),
        Tok::RBrace => "}".into(),
        Tok::LParen => "(".into(),
        Tok::RParen => ")".into(),
        Tok::LBracket => "[".into(),
        Tok::RBracket => "]".into(),
        Tok::Semi => ";".into(),
        Tok::Bar => "|".into(),
        Tok::Comma => ",".into(),
        Tok::Colon => ":".into(),
        Tok::At => "@".into(),
        Tok::Tilde => "~".into(),
        Tok::Eq => "==".into(),
        Tok::Ne => "!=".into(),
        Tok::Lt => "<".into(),
        Tok::Le => "<=".into(),
        Tok::Gt => ">".into(),
        Tok::Ge => ">=".into(),
        Tok::And => "/\\".into(),
        Tok::Or => "\\/".into(),
        Tok::Bang => "!".into(),
    }
}
