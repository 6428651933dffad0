//! The final condition: `exists`, `~exists` or `forall` over registers and memory.

use super::cursor::Cursor;
use super::error::LitmusError;
use super::lexer::Tok;
use super::parser::thread_id;
use crate::model::{CmpOp, Cond, FinalCondition, Quantifier, Term};

/// Nesting deeper than this is rejected, so hostile input cannot overflow the stack.
const MAX_DEPTH: usize = 64;

/// Parses what follows the instruction rows; `None` when the test has no condition.
pub fn parse_final(cur: &mut Cursor) -> Result<Option<FinalCondition>, LitmusError> {
    if matches!(cur.peek(), Some(Tok::Word(w)) if w == "locations") {
        cur.bump();
        cur.expect(&Tok::LBracket, "`[` after `locations`")?;
        while !cur.at_end() && !cur.eat(&Tok::RBracket) {
            cur.bump();
        }
    }
    if cur.at_end() {
        return Ok(None);
    }
    let line = cur.line();
    let quantifier = match cur.peek() {
        Some(Tok::Tilde) => {
            cur.bump();
            expect_exists(cur)?;
            Quantifier::NotExists
        }
        Some(Tok::Word(w)) => match w.as_str() {
            "exists" => {
                cur.bump();
                Quantifier::Exists
            }
            "forall" => {
                cur.bump();
                Quantifier::Forall
            }
            "not" => {
                cur.bump();
                expect_exists(cur)?;
                Quantifier::NotExists
            }
            "filter" => {
                return Err(LitmusError::unsupported(
                    Some(line),
                    "`filter` clauses (the checker has no way to discard executions)",
                ))
            }
            "final" => {
                return Err(LitmusError::unsupported(
                    Some(line),
                    "`final ... with` conditions",
                ))
            }
            _ => return Err(cur.unexpected("`exists`, `~exists` or `forall`")),
        },
        _ => return Err(cur.unexpected("`exists`, `~exists` or `forall`")),
    };
    let cond = parse_or(cur, 0)?;
    cur.eat(&Tok::Semi);
    if !cur.at_end() {
        return Err(cur.unexpected("the end of the file after the final condition"));
    }
    Ok(Some(FinalCondition { quantifier, cond }))
}

fn expect_exists(cur: &mut Cursor) -> Result<(), LitmusError> {
    match cur.word("`exists`")? {
        "exists" => Ok(()),
        _ => Err(LitmusError::syntax(
            cur.line(),
            "expected `exists` after `~`",
        )),
    }
}

fn parse_or(cur: &mut Cursor, depth: usize) -> Result<Cond, LitmusError> {
    let mut parts = vec![parse_and(cur, depth)?];
    while cur.eat(&Tok::Or) {
        parts.push(parse_and(cur, depth)?);
    }
    Ok(if parts.len() == 1 {
        parts.remove(0)
    } else {
        Cond::Or(parts)
    })
}

fn parse_and(cur: &mut Cursor, depth: usize) -> Result<Cond, LitmusError> {
    let mut parts = vec![parse_unary(cur, depth)?];
    while cur.eat(&Tok::And) {
        parts.push(parse_unary(cur, depth)?);
    }
    Ok(if parts.len() == 1 {
        parts.remove(0)
    } else {
        Cond::And(parts)
    })
}

fn parse_unary(cur: &mut Cursor, depth: usize) -> Result<Cond, LitmusError> {
    if depth > MAX_DEPTH {
        return Err(LitmusError::syntax(
            cur.line(),
            "condition nested too deeply",
        ));
    }
    let negation = matches!(cur.peek(), Some(Tok::Tilde | Tok::Bang))
        || matches!(cur.peek(), Some(Tok::Word(w)) if w == "not");
    if negation {
        cur.bump();
        return Ok(Cond::Not(Box::new(parse_unary(cur, depth + 1)?)));
    }
    if cur.eat(&Tok::LParen) {
        let inner = parse_or(cur, depth + 1)?;
        cur.expect(&Tok::RParen, "`)`")?;
        return Ok(inner);
    }
    let left = parse_term(cur)?;
    let op = match cur.peek() {
        Some(Tok::Eq) => CmpOp::Eq,
        Some(Tok::Ne) => CmpOp::Ne,
        Some(Tok::Lt) => CmpOp::Lt,
        Some(Tok::Le) => CmpOp::Le,
        Some(Tok::Gt) => CmpOp::Gt,
        Some(Tok::Ge) => CmpOp::Ge,
        _ => return Err(cur.unexpected("a comparison (`==`, `!=`, `<`, ...)")),
    };
    cur.bump();
    let right = parse_term(cur)?;
    Ok(Cond::Cmp(left, op, right))
}

fn parse_term(cur: &mut Cursor) -> Result<Term, LitmusError> {
    let line = cur.line();
    if matches!(cur.peek_at(1), Some(Tok::Colon)) {
        let thread = thread_id(cur)?;
        cur.bump();
        let reg = cur.word("a register name")?;
        return Ok(Term::Reg {
            thread: format!("P{thread}"),
            reg: reg.to_string(),
        });
    }
    match cur.peek() {
        Some(Tok::Num(_)) => Ok(Term::Imm(cur.num("a value")?)),
        Some(Tok::LBracket) => {
            cur.bump();
            let name = cur.word("a location name")?.to_string();
            cur.expect(&Tok::RBracket, "`]`")?;
            Ok(Term::Mem(name))
        }
        Some(Tok::Word(_)) => {
            let name = cur.word("a location name")?.to_string();
            if cur.peek() == Some(&Tok::LBracket) {
                return Err(LitmusError::unsupported(
                    Some(line),
                    format!("array element `{name}[...]` in the condition"),
                ));
            }
            Ok(Term::Mem(name))
        }
        _ => Err(cur.unexpected("a register `P0:r0`, a location or a value")),
    }
}
