//! The layout of a test: header, `{ init }`, thread placement, instruction rows, condition.

use super::cond::parse_final;
use super::cursor::Cursor;
use super::error::LitmusError;
use super::instr::{parse_cell, Cell};
use super::lexer::{lex, Tok, Token};
use crate::model::{FinalCondition, Proxy};

/// A parsed test, before it becomes a [`crate::model::Scenario`].
#[derive(Debug)]
pub struct LitmusTest {
    pub name: String,
    pub inits: Vec<Init>,
    pub threads: Vec<ThreadHeader>,
    /// One program per thread, in header order.
    pub programs: Vec<Vec<Cell>>,
    pub condition: Option<FinalCondition>,
}

#[derive(Debug)]
pub enum Init {
    Location {
        name: String,
        value: i64,
        line: usize,
    },
    Register {
        thread: u32,
        reg: String,
        value: i64,
        line: usize,
    },
    Alias {
        name: String,
        proxy: Proxy,
        target: String,
        line: usize,
    },
}

#[derive(Debug)]
pub struct ThreadHeader {
    pub id: u32,
    pub cta: u32,
    pub gpu: u32,
    pub line: usize,
}

pub fn parse(src: &str) -> Result<LitmusTest, LitmusError> {
    let (header_line, name, rest) = split_header(src)?;
    let tokens = lex_from(rest, header_line + 1)?;
    let mut cur = Cursor::new(&tokens);
    // Dat3M ignores everything between the header and `{` (quoted comments are lexed away).
    while !cur.at_end() && cur.peek() != Some(&Tok::LBrace) {
        cur.bump();
    }
    cur.expect(&Tok::LBrace, "`{` opening the initial state")?;
    let inits = parse_inits(&mut cur)?;
    let threads = parse_thread_headers(&mut cur)?;
    let mut programs: Vec<Vec<Cell>> = threads.iter().map(|_| Vec::new()).collect();
    while !cur.at_end() && !starts_assertion(cur.peek()) {
        parse_row(&mut cur, &mut programs)?;
    }
    let condition = parse_final(&mut cur)?;
    Ok(LitmusTest {
        name,
        inits,
        threads,
        programs,
        condition,
    })
}

/// The first non-blank line must be `PTX name`; returns its line number, the name and the rest.
fn split_header(src: &str) -> Result<(usize, String, &str), LitmusError> {
    let mut offset = 0;
    for (index, line) in src.split_inclusive('\n').enumerate() {
        let text = line.trim();
        offset += line.len();
        if text.is_empty() {
            continue;
        }
        let mut parts = text.splitn(2, char::is_whitespace);
        let language = parts.next().unwrap_or_default();
        if language != "PTX" && language != "ptx" {
            return Err(LitmusError::syntax(
                index + 1,
                format!("expected a `PTX name` header, found `{language}`"),
            ));
        }
        let name = parts.next().unwrap_or_default().trim().to_string();
        return Ok((index + 1, name, src.get(offset..).unwrap_or_default()));
    }
    Err(LitmusError::syntax(
        1,
        "empty file: expected a `PTX name` header",
    ))
}

fn lex_from(src: &str, first_line: usize) -> Result<Vec<Token>, LitmusError> {
    let shift = |line: usize| line + first_line - 1;
    match lex(src) {
        Ok(tokens) => Ok(tokens
            .into_iter()
            .map(|t| Token {
                line: shift(t.line),
                ..t
            })
            .collect()),
        Err(LitmusError::Syntax { line, message }) => {
            Err(LitmusError::syntax(shift(line), message))
        }
        Err(other) => Err(other),
    }
}

fn parse_inits(cur: &mut Cursor) -> Result<Vec<Init>, LitmusError> {
    let mut inits = Vec::new();
    loop {
        while cur.eat(&Tok::Semi) {}
        if cur.eat(&Tok::RBrace) {
            cur.eat(&Tok::Semi);
            return Ok(inits);
        }
        inits.push(parse_init(cur)?);
        if cur.peek() != Some(&Tok::RBrace) {
            cur.expect(&Tok::Semi, "`;` between initial values")?;
        }
    }
}

fn parse_init(cur: &mut Cursor) -> Result<Init, LitmusError> {
    let line = cur.line();
    if matches!(cur.peek_at(1), Some(Tok::Colon)) {
        let thread = thread_id(cur)?;
        cur.expect(&Tok::Colon, "`:`")?;
        let reg = cur.word("a register name")?.to_string();
        cur.expect(&Tok::Eq, "`=`")?;
        return match cur.peek() {
            Some(Tok::Num(_)) => Ok(Init::Register {
                thread,
                reg,
                value: cur.num("a value")?,
                line,
            }),
            _ => Err(LitmusError::unsupported(
                Some(line),
                format!("register `P{thread}:{reg}` holds an address; the model has no pointers"),
            )),
        };
    }
    let name = cur.word("a location name")?.to_string();
    if cur.eat(&Tok::At) {
        let proxy = match cur.word("a proxy (`generic`, `surface`, `texture`, `constant`)")? {
            "generic" => Proxy::Generic,
            "surface" => Proxy::Surface,
            "texture" => Proxy::Texture,
            "constant" => Proxy::Constant,
            other => {
                return Err(LitmusError::syntax(
                    line,
                    format!("unknown proxy `{other}`"),
                ))
            }
        };
        if cur.word("`aliases`")? != "aliases" {
            return Err(LitmusError::syntax(line, "expected `aliases`"));
        }
        let target = cur.word("the aliased location")?.to_string();
        return Ok(Init::Alias {
            name,
            proxy,
            target,
            line,
        });
    }
    cur.expect(&Tok::Eq, "`=` or `@`")?;
    match cur.peek() {
        Some(Tok::Num(_)) => Ok(Init::Location {
            name,
            value: cur.num("a value")?,
            line,
        }),
        _ => Err(LitmusError::unsupported(
            Some(line),
            format!("location `{name}` holds an address; the model has no pointers"),
        )),
    }
}

/// `P3` or `3`.
pub fn thread_id(cur: &mut Cursor) -> Result<u32, LitmusError> {
    let line = cur.line();
    let id = match cur.bump().map(|t| &t.tok) {
        Some(Tok::Num(n)) => u32::try_from(*n).ok(),
        Some(Tok::Word(w)) => w.strip_prefix('P').and_then(|d| d.parse::<u32>().ok()),
        _ => None,
    };
    id.ok_or_else(|| LitmusError::syntax(line, "expected a thread id like `P0`"))
}

fn parse_thread_headers(cur: &mut Cursor) -> Result<Vec<ThreadHeader>, LitmusError> {
    let mut threads: Vec<ThreadHeader> = Vec::new();
    loop {
        let line = cur.line();
        let id = thread_id(cur)?;
        if threads.iter().any(|t| t.id == id) {
            return Err(LitmusError::syntax(
                line,
                format!("thread `P{id}` is declared twice"),
            ));
        }
        cur.expect(&Tok::At, "`@` placing the thread")?;
        let (mut cta, mut gpu) = (None, None);
        loop {
            let key = cur.word("`cta` or `gpu`")?;
            let value = u32::try_from(cur.num("an index")?)
                .map_err(|_| LitmusError::syntax(line, "negative placement index"))?;
            match key {
                "cta" => cta = Some(value),
                "gpu" => gpu = Some(value),
                other => {
                    return Err(LitmusError::unsupported(
                        Some(line),
                        format!("thread placement `{other}` (only `cta` and `gpu` are known)"),
                    ))
                }
            }
            if !cur.eat(&Tok::Comma) {
                break;
            }
        }
        let cta =
            cta.ok_or_else(|| LitmusError::syntax(line, format!("thread `P{id}` has no `cta`")))?;
        threads.push(ThreadHeader {
            id,
            cta,
            gpu: gpu.unwrap_or(0),
            line,
        });
        if cur.eat(&Tok::Semi) {
            return Ok(threads);
        }
        cur.expect(&Tok::Bar, "`|` or `;` after a thread placement")?;
    }
}

fn starts_assertion(tok: Option<&Tok>) -> bool {
    match tok {
        Some(Tok::Tilde) => true,
        Some(Tok::Word(w)) => {
            matches!(
                w.as_str(),
                "exists" | "forall" | "not" | "final" | "filter" | "locations"
            )
        }
        _ => false,
    }
}

/// One `cell | cell | ... ;` row; cell `i` belongs to thread `i`.
fn parse_row(cur: &mut Cursor, programs: &mut [Vec<Cell>]) -> Result<(), LitmusError> {
    let row_line = cur.line();
    let mut column = 0;
    loop {
        let mut cell: Vec<&Token> = Vec::new();
        while let Some(tok) = cur.peek() {
            if matches!(tok, Tok::Bar | Tok::Semi) {
                break;
            }
            if let Some(token) = cur.bump() {
                cell.push(token);
            }
        }
        let program = programs.get_mut(column).ok_or_else(|| {
            LitmusError::syntax(
                row_line,
                format!("row has more columns than the {} threads", column),
            )
        })?;
        if let Some(parsed) = parse_cell(&cell)? {
            program.push(parsed);
        }
        column += 1;
        if cur.eat(&Tok::Semi) {
            break;
        }
        if !cur.eat(&Tok::Bar) {
            return Err(cur.unexpected("`|` or `;` ending the row"));
        }
    }
    if column != programs.len() {
        return Err(LitmusError::syntax(
            row_line,
            format!(
                "row has {column} columns but there are {} threads",
                programs.len()
            ),
        ));
    }
    Ok(())
}
