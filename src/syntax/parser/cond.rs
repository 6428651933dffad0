//! Final conditions: `exists (...)`, `~exists (...)`, `forall (...)`.

use super::cursor::{Cursor, PResult};
use super::decl::line_span;
use super::{Parser, MAX_COND_DEPTH};
use crate::diag::Diagnostic;
use crate::model::{Cond, FinalCondition, Quantifier, Term};
use crate::syntax::lexer::{Line, Tok, Token};

impl Parser {
    pub(super) fn condition(&mut self, line: &Line) -> PResult<()> {
        let mut c = Cursor::new(&line.tokens, line.span);
        let negated = c.eat(&Tok::Tilde) || c.eat(&Tok::Bang);
        let (word, span) = c.ident("`exists` or `forall`")?;
        let quantifier = match (negated, word.as_str()) {
            (false, "exists") => Quantifier::Exists,
            (true, "exists") => Quantifier::NotExists,
            (false, "forall") => Quantifier::Forall,
            _ => {
                return Err(Box::new(
                    Diagnostic::error("F0111", format!("expected `exists`, `~exists` or `forall`, found `{word}`"))
                        .with_primary(Some(span), "not a quantifier"),
                ))
            }
        };
        c.expect(&Tok::LParen, "`(` around the condition")?;
        let cond = or(&mut c, 0)?;
        c.expect(&Tok::RParen, "`)` closing the condition")?;
        c.finish("the condition")?;
        self.scenario.conditions.push(FinalCondition { quantifier, cond });
        self.map.conditions.push(line_span(line));
        Ok(())
    }
}

fn or(c: &mut Cursor, depth: usize) -> PResult<Cond> {
    let mut items = vec![and(c, depth)?];
    while c.eat(&Tok::Or) {
        items.push(and(c, depth)?);
    }
    Ok(if items.len() == 1 { items.remove(0) } else { Cond::Or(items) })
}

fn and(c: &mut Cursor, depth: usize) -> PResult<Cond> {
    let mut items = vec![unary(c, depth)?];
    while c.eat(&Tok::And) {
        items.push(unary(c, depth)?);
    }
    Ok(if items.len() == 1 { items.remove(0) } else { Cond::And(items) })
}

fn unary(c: &mut Cursor, depth: usize) -> PResult<Cond> {
    if depth >= MAX_COND_DEPTH {
        return Err(Box::new(
            Diagnostic::error("F0113", "condition is nested too deeply")
                .with_primary(Some(c.here()), format!("more than {MAX_COND_DEPTH} levels of `(` or `~`")),
        ));
    }
    if c.eat(&Tok::Tilde) || c.eat(&Tok::Bang) {
        return Ok(Cond::Not(Box::new(unary(c, depth + 1)?)));
    }
    if c.eat(&Tok::LParen) {
        let inner = or(c, depth + 1)?;
        c.expect(&Tok::RParen, "`)`")?;
        return Ok(inner);
    }
    if matches!(c.peek_tok(), Some(Tok::Word(w)) if w == "true") {
        c.bump();
        return Ok(Cond::True);
    }
    let left = term(c)?;
    let op = match c.peek_tok() {
        Some(Tok::Cmp(op)) => *op,
        _ => return Err(c.error_here("a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`)")),
    };
    c.bump();
    let right = term(c)?;
    Ok(Cond::Cmp(left, op, right))
}

fn term(c: &mut Cursor) -> PResult<Term> {
    match c.peek() {
        Some(Token { tok: Tok::Int(n), .. }) => {
            c.bump();
            Ok(Term::Imm(*n))
        }
        Some(Token { tok: Tok::Word(_), .. }) => {
            let (name, _) = c.ident("a register `thread:reg`, a location or an integer")?;
            if c.eat(&Tok::Colon) {
                let (reg, _) = c.ident("a register name after `:`")?;
                Ok(Term::Reg { thread: name, reg })
            } else {
                Ok(Term::Mem(name))
            }
        }
        _ => Err(c.error_here("a register `thread:reg`, a location or an integer")),
    }
}
