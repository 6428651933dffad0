//! A focused PTX front end: the module's kernels and functions, their parameters,
//! directives, `.shared` declarations, and each instruction as an opcode with operands.
//! Registers declared inside a `{ }` block and labels defined there are renamed
//! (`%p#3`, `DONE#3`), so inline-asm blocks that reuse names stay apart.

use std::collections::HashMap;

use super::error::{ErrorKind, ImportError};
use super::MAX_DEPTH;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    Int(i64),
    Float,
    Str,
    Punct(char),
}

/// Splits the text into tokens with their 1-based lines; comments are dropped.
pub fn lex(text: &str) -> Result<Vec<(Tok, usize)>, ImportError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0usize, 1usize);
    let ident_start = |c: u8| c.is_ascii_alphabetic() || matches!(c, b'_' | b'$' | b'%' | b'.');
    let ident_char = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'%' | b'.');
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                loop {
                    if i + 1 >= bytes.len() {
                        return Err(ImportError::at(line, ErrorKind::Syntax("unterminated `/*` comment".into())));
                    }
                    if bytes[i] == b'\n' {
                        line += 1;
                    }
                    if bytes[i] == b'*' && bytes[i + 1] == b'/' {
                        i += 2;
                        break;
                    }
                    i += 1;
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\n' {
                        return Err(ImportError::at(line, ErrorKind::Syntax("unterminated string".into())));
                    }
                    i += 1;
                }
                i += 1;
                out.push((Tok::Str, line));
            }
            c if c.is_ascii_digit() => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                    i += 1;
                }
                let word = &text[start..i];
                out.push((number(word).ok_or_else(|| syntax(line, format!("bad number `{word}`")))?, line));
            }
            c if ident_start(c) => {
                let start = i;
                loop {
                    if i < bytes.len() && ident_char(bytes[i]) {
                        i += 1;
                    } else if i + 2 < bytes.len() && bytes[i] == b':' && bytes[i + 1] == b':' && ident_char(bytes[i + 2]) {
                        i += 2;
                    } else {
                        break;
                    }
                }
                out.push((Tok::Ident(text[start..i].to_string()), line));
            }
            b',' | b';' | b'[' | b']' | b'{' | b'}' | b'(' | b')' | b'|' | b'@' | b'!' | b'+' | b'-' | b'<' | b'>'
            | b':' | b'=' => {
                out.push((Tok::Punct(c as char), line));
                i += 1;
            }
            _ => {
                let what = if c.is_ascii_graphic() {
                    format!("unexpected character `{}`", c as char)
                } else {
                    format!("unexpected byte 0x{c:02x}")
                };
                return Err(syntax(line, what));
            }
        }
    }
    Ok(out)
}

fn number(word: &str) -> Option<Tok> {
    let lower = word.to_ascii_lowercase();
    let trimmed = lower.strip_suffix('u').unwrap_or(&lower);
    if let Some(hex) = trimmed.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok().map(|v| Tok::Int(v as i64));
    }
    if trimmed.starts_with("0f") || trimmed.starts_with("0d") || trimmed.contains('.') || trimmed.contains('e') {
        return Some(Tok::Float);
    }
    if trimmed.len() > 1 && trimmed.starts_with('0') && trimmed.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return i64::from_str_radix(trimmed, 8).ok().map(Tok::Int);
    }
    trimmed.parse::<u64>().ok().map(|v| Tok::Int(v as i64))
}

fn syntax(line: usize, what: String) -> ImportError {
    ImportError::at(line, ErrorKind::Syntax(what))
}

/// An instruction operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A register (renamed when block-local) or `%tid.x`-style special register.
    Reg(String),
    Imm(i64),
    Float,
    /// A symbol: a variable, a parameter, a function or a label.
    Name(String),
    /// `_`.
    Sink,
    /// `[base+offset]`, or `[tmap, {coords}]` for tensor copies (`coords` then non-empty).
    Mem { base: Box<Arg>, offset: i64, coords: Vec<Arg> },
    /// `{a, b, ...}`.
    Vector(Vec<Arg>),
    /// `a|b`: two destinations.
    Pair(Box<Arg>, Box<Arg>),
    /// `(a, b)` in a `call`.
    List(Vec<Arg>),
    /// `!p` as an operand.
    Not(Box<Arg>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    pub line: usize,
    pub guard: Option<(String, bool)>,
    /// The full dotted opcode (`mbarrier.try_wait.parity.shared::cta.b64`).
    pub op: String,
    pub args: Vec<Arg>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    pub name: String,
    /// Bytes; `None` for an `extern` array without a size.
    pub bytes: Option<u64>,
    pub line: usize,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Func {
    pub name: String,
    pub line: usize,
    pub is_entry: bool,
    pub params: Vec<Decl>,
    pub rets: Vec<Decl>,
    pub maxntid: Option<[u32; 3]>,
    pub reqntid: Option<[u32; 3]>,
    pub cluster: Option<[u32; 3]>,
    pub shared: Vec<Decl>,
    pub body: Vec<Instr>,
    /// Label (renamed when block-local) → index of the instruction it precedes.
    pub labels: HashMap<String, usize>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    pub funcs: Vec<Func>,
    /// Module-level `.shared` variables (static and `extern`).
    pub shared: Vec<Decl>,
    /// Module-level `.global`/`.const` variables.
    pub globals: Vec<Decl>,
}

impl Module {
    pub fn entries(&self) -> impl Iterator<Item = &Func> {
        self.funcs.iter().filter(|f| f.is_entry)
    }

    pub fn func(&self, name: &str) -> Option<&Func> {
        self.funcs.iter().find(|f| f.name == name && !f.body.is_empty())
    }
}

pub fn parse(text: &str) -> Result<Module, ImportError> {
    let toks = lex(text)?;
    let mut p = Parser { toks, pos: 0, scopes: Vec::new(), next_scope: 0 };
    p.module()
}

struct Scope {
    id: u32,
    /// Names declared in this block (exact) and `%r<N>` prefixes.
    regs: Vec<String>,
    ranges: Vec<(String, u64)>,
    labels: Vec<String>,
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    scopes: Vec<Scope>,
    next_scope: u32,
}

fn type_bytes(ty: &str) -> Option<u64> {
    let bits: u64 = ty.trim_start_matches(|c: char| c == '.' || c.is_ascii_alphabetic()).parse().ok()?;
    if ty == ".pred" {
        return Some(1);
    }
    Some(bits.div_ceil(8))
}

impl Parser {
    fn line(&self) -> usize {
        self.toks.get(self.pos).or(self.toks.last()).map_or(0, |t| t.1)
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn next(&mut self) -> Result<Tok, ImportError> {
        let tok = self.toks.get(self.pos).map(|t| t.0.clone());
        self.pos += 1;
        tok.ok_or_else(|| syntax(self.line(), "unexpected end of file (truncated?)".into()))
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), ImportError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(syntax(self.line(), format!("expected `{c}`, found {}", self.describe())))
        }
    }

    fn describe(&self) -> String {
        match self.peek() {
            Some(Tok::Ident(s)) => format!("`{s}`"),
            Some(Tok::Int(v)) => format!("`{v}`"),
            Some(Tok::Float) => "a float".into(),
            Some(Tok::Str) => "a string".into(),
            Some(Tok::Punct(c)) => format!("`{c}`"),
            None => "the end of the file".into(),
        }
    }

    fn ident(&mut self) -> Result<String, ImportError> {
        match self.next()? {
            Tok::Ident(s) => Ok(s),
            _ => {
                self.pos -= 1;
                Err(syntax(self.line(), format!("expected a name, found {}", self.describe())))
            }
        }
    }

    fn int(&mut self) -> Result<i64, ImportError> {
        let neg = self.eat('-');
        match self.next()? {
            Tok::Int(v) => Ok(if neg { v.wrapping_neg() } else { v }),
            _ => {
                self.pos -= 1;
                Err(syntax(self.line(), format!("expected an integer, found {}", self.describe())))
            }
        }
    }

    /// Skips to the `;` ending the statement, over balanced braces.
    fn skip_statement(&mut self) -> Result<(), ImportError> {
        let mut depth = 0usize;
        loop {
            match self.next()? {
                Tok::Punct(';') if depth == 0 => return Ok(()),
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }

    fn skip_braces(&mut self) -> Result<(), ImportError> {
        self.expect('{')?;
        let mut depth = 1usize;
        while depth > 0 {
            match self.next()? {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth -= 1,
                _ => {}
            }
        }
        Ok(())
    }

    fn module(&mut self) -> Result<Module, ImportError> {
        let mut module = Module::default();
        while let Some(tok) = self.peek().cloned() {
            let line = self.line();
            let Tok::Ident(word) = tok else {
                return Err(syntax(line, format!("expected a directive, found {}", self.describe())));
            };
            match word.as_str() {
                ".version" | ".target" | ".address_size" | ".file" | ".loc" | ".pragma" => {
                    self.pos += 1;
                    // These end at the line's end, without `;`.
                    while self.toks.get(self.pos).is_some_and(|t| t.1 == line) {
                        self.pos += 1;
                    }
                }
                ".visible" | ".weak" | ".extern" | ".common" => self.pos += 1,
                ".section" => {
                    self.pos += 1;
                    self.ident()?;
                    self.skip_braces()?;
                }
                ".entry" | ".func" => {
                    self.pos += 1;
                    let func = self.func(word == ".entry", line)?;
                    module.funcs.push(func);
                }
                ".shared" => {
                    self.pos += 1;
                    let decl = self.var_decl(line)?;
                    module.shared.push(decl);
                }
                ".global" | ".const" => {
                    self.pos += 1;
                    let decl = self.var_decl(line)?;
                    module.globals.push(decl);
                }
                _ => return Err(syntax(line, format!("unknown module-level directive `{word}`"))),
            }
        }
        Ok(module)
    }

    /// `.align N .TYPE name[SIZE] {= init};` after the state space.
    fn var_decl(&mut self, line: usize) -> Result<Decl, ImportError> {
        let mut elem = 1u64;
        let name = loop {
            let word = self.ident()?;
            match word.as_str() {
                ".align" => {
                    self.int()?;
                }
                w if w.starts_with('.') => {
                    if let Some(b) = type_bytes(w) {
                        elem = b;
                    }
                }
                _ => break word,
            }
        };
        let mut bytes = Some(elem);
        while self.eat('[') {
            if self.eat(']') {
                bytes = None;
            } else {
                let n = self.int()?;
                self.expect(']')?;
                bytes = bytes.map(|b| b.saturating_mul(n.max(0) as u64));
            }
        }
        self.skip_statement()?;
        Ok(Decl { name, bytes, line })
    }

    fn param_list(&mut self) -> Result<Vec<Decl>, ImportError> {
        let mut params = Vec::new();
        if !self.eat('(') {
            return Ok(params);
        }
        if self.eat(')') {
            return Ok(params);
        }
        loop {
            let line = self.line();
            let mut elem = 8u64;
            let mut name = None;
            while !matches!(self.peek(), Some(Tok::Punct(',' | ')' | '[')) | None) {
                let word = self.ident()?;
                match word.as_str() {
                    ".align" => {
                        self.int()?;
                    }
                    ".ptr" | ".param" | ".reg" | ".global" | ".shared" | ".const" | ".local" => {}
                    w if w.starts_with('.') => {
                        if let Some(b) = type_bytes(w) {
                            elem = b;
                        }
                    }
                    _ => name = Some(word),
                }
            }
            let mut bytes = elem;
            while self.eat('[') {
                let n = self.int()?;
                self.expect(']')?;
                bytes = bytes.saturating_mul(n.max(0) as u64);
            }
            let name = name.ok_or_else(|| syntax(line, "a parameter without a name".into()))?;
            params.push(Decl { name, bytes: Some(bytes), line });
            if self.eat(')') {
                return Ok(params);
            }
            self.expect(',')?;
        }
    }

    fn dims(&mut self) -> Result<[u32; 3], ImportError> {
        let mut d = [1u32; 3];
        for (i, slot) in d.iter_mut().enumerate() {
            if i > 0 && !self.eat(',') {
                break;
            }
            *slot = u32::try_from(self.int()?).map_err(|_| syntax(self.line(), "a launch dimension out of range".into()))?;
        }
        Ok(d)
    }

    fn func(&mut self, is_entry: bool, line: usize) -> Result<Func, ImportError> {
        let mut func = Func { is_entry, line, ..Func::default() };
        if !is_entry && self.peek() == Some(&Tok::Punct('(')) {
            func.rets = self.param_list()?;
        }
        func.name = self.ident()?;
        func.params = self.param_list()?;
        loop {
            match self.peek().cloned() {
                Some(Tok::Punct(';')) => {
                    // A prototype only.
                    self.pos += 1;
                    return Ok(func);
                }
                Some(Tok::Punct('{')) => break,
                Some(Tok::Ident(word)) => {
                    self.pos += 1;
                    match word.as_str() {
                        ".maxntid" => func.maxntid = Some(self.dims()?),
                        ".reqntid" => func.reqntid = Some(self.dims()?),
                        ".reqnctapercluster" => func.cluster = Some(self.dims()?),
                        ".explicitcluster" | ".noreturn" => {}
                        ".minnctapersm" | ".maxnreg" | ".maxnctapersm" | ".maxclusterrank" => {
                            self.dims()?;
                        }
                        ".pragma" => {
                            self.skip_statement()?;
                        }
                        _ => return Err(syntax(self.line(), format!("unknown kernel directive `{word}`"))),
                    }
                }
                _ => return Err(syntax(self.line(), format!("expected the kernel body, found {}", self.describe()))),
            }
        }
        self.pos += 1;
        self.push_scope();
        self.block(&mut func, 1)?;
        Ok(func)
    }

    fn push_scope(&mut self) {
        self.scopes.push(Scope { id: self.next_scope, regs: Vec::new(), ranges: Vec::new(), labels: Vec::new() });
        self.next_scope += 1;
    }

    /// The name a register or label has after block renaming.
    fn resolve(&self, name: &str) -> String {
        for scope in self.scopes.iter().rev() {
            let declared = scope.regs.iter().any(|r| r == name)
                || scope.ranges.iter().any(|(prefix, n)| {
                    name.strip_prefix(prefix.as_str()).and_then(|d| d.parse::<u64>().ok()).is_some_and(|d| d < *n)
                });
            if declared {
                return if self.scopes.len() > 1 && scope.id != self.scopes[0].id { format!("{name}#{}", scope.id) } else { name.to_string() };
            }
        }
        name.to_string()
    }

    /// A function body's statements until the matching `}`; `depth` counts open blocks.
    fn block(&mut self, func: &mut Func, depth: usize) -> Result<(), ImportError> {
        if depth > MAX_DEPTH {
            return Err(ImportError::at(self.line(), ErrorKind::TooDeep));
        }
        // Labels of this block, found first so a branch may jump forward to one.
        let scope_id = self.scopes.last().map_or(0, |s| s.id);
        let mut labels = Vec::new();
        let mut d = 0usize;
        let mut i = self.pos;
        while let Some((tok, _)) = self.toks.get(i) {
            match tok {
                Tok::Punct('{') => d += 1,
                Tok::Punct('}') if d == 0 => break,
                Tok::Punct('}') => d -= 1,
                Tok::Ident(name) if d == 0 && self.toks.get(i + 1).map(|t| &t.0) == Some(&Tok::Punct(':')) => {
                    labels.push(name.clone());
                }
                _ => {}
            }
            i += 1;
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.labels = labels;
        }
        loop {
            let line = self.line();
            match self.next()? {
                Tok::Punct('}') => {
                    self.scopes.pop();
                    return Ok(());
                }
                Tok::Punct('{') => {
                    self.push_scope();
                    self.block(func, depth + 1)?;
                }
                Tok::Punct(';') => {}
                Tok::Punct('@') => {
                    let neg = self.eat('!');
                    let pred = self.ident()?;
                    let pred = self.resolve(&pred);
                    let op = self.ident()?;
                    self.instr(func, line, Some((pred, neg)), op)?;
                }
                Tok::Ident(word) => {
                    if self.eat(':') {
                        let name = if depth > 1 { format!("{word}#{scope_id}") } else { word };
                        func.labels.insert(name, func.body.len());
                        continue;
                    }
                    match word.as_str() {
                        ".reg" | ".param" | ".local" => self.reg_decl(&word)?,
                        ".shared" => {
                            let decl = self.var_decl(line)?;
                            func.shared.push(decl);
                        }
                        ".pragma" | ".loc" | ".file" | ".maxnreg" => {
                            if word == ".pragma" {
                                self.skip_statement()?;
                            } else {
                                while self.toks.get(self.pos).is_some_and(|t| t.1 == line) {
                                    self.pos += 1;
                                }
                            }
                        }
                        w if w.starts_with('.') => {
                            return Err(syntax(line, format!("unknown directive `{w}` in a function body")))
                        }
                        _ if self.peek() == Some(&Tok::Punct(':')) => {}
                        _ => self.instr(func, line, None, word)?,
                    }
                }
                _ => {
                    self.pos -= 1;
                    return Err(syntax(line, format!("expected an instruction, found {}", self.describe())));
                }
            }
        }
    }

    fn reg_decl(&mut self, space: &str) -> Result<(), ImportError> {
        loop {
            let word = self.ident()?;
            if word == ".align" {
                self.int()?;
                continue;
            }
            if word.starts_with('.') {
                continue;
            }
            let scope = self.scopes.last_mut().ok_or_else(|| syntax(0, "a declaration outside a function".into()))?;
            if self.toks.get(self.pos).map(|t| &t.0) == Some(&Tok::Punct('<')) {
                self.pos += 1;
                let n = self.int()?;
                self.expect('>')?;
                if let Some(scope) = self.scopes.last_mut() {
                    scope.ranges.push((word, n.max(0) as u64));
                }
            } else {
                scope.regs.push(word);
                while self.eat('[') {
                    self.int()?;
                    self.expect(']')?;
                }
            }
            if self.eat(';') {
                return Ok(());
            }
            if space == ".param" && self.eat('=') {
                self.skip_statement()?;
                return Ok(());
            }
            self.expect(',')?;
        }
    }

    fn instr(&mut self, func: &mut Func, line: usize, guard: Option<(String, bool)>, op: String) -> Result<(), ImportError> {
        let mut args = Vec::new();
        if !self.eat(';') {
            loop {
                args.push(self.arg(&op)?);
                if self.eat(';') {
                    break;
                }
                self.expect(',')?;
            }
        }
        func.body.push(Instr { line, guard, op, args });
        Ok(())
    }

    fn label_name(&self, name: &str) -> String {
        for scope in self.scopes.iter().rev() {
            if scope.labels.iter().any(|l| l == name) {
                return if self.scopes.len() > 1 && scope.id != self.scopes[0].id { format!("{name}#{}", scope.id) } else { name.to_string() };
            }
        }
        name.to_string()
    }

    fn arg(&mut self, op: &str) -> Result<Arg, ImportError> {
        let first = self.atom(op)?;
        if self.eat('|') {
            let second = self.atom(op)?;
            return Ok(Arg::Pair(Box::new(first), Box::new(second)));
        }
        Ok(first)
    }

    fn atom(&mut self, op: &str) -> Result<Arg, ImportError> {
        let line = self.line();
        match self.next()? {
            Tok::Punct('[') => {
                let base = self.atom(op)?;
                let mut offset = 0i64;
                let mut coords = Vec::new();
                loop {
                    if self.eat(']') {
                        break;
                    }
                    if self.eat('+') || self.peek() == Some(&Tok::Punct('-')) {
                        offset = offset.wrapping_add(self.int()?);
                    } else if self.eat(',') {
                        match self.atom(op)? {
                            Arg::Vector(v) => coords = v,
                            other => coords.push(other),
                        }
                    } else {
                        return Err(syntax(line, format!("unexpected {} in an address", self.describe())));
                    }
                }
                Ok(Arg::Mem { base: Box::new(base), offset, coords })
            }
            Tok::Punct('{') => {
                let mut items = Vec::new();
                if !self.eat('}') {
                    loop {
                        items.push(self.arg(op)?);
                        if self.eat('}') {
                            break;
                        }
                        self.expect(',')?;
                    }
                }
                Ok(Arg::Vector(items))
            }
            Tok::Punct('(') => {
                let mut items = Vec::new();
                if !self.eat(')') {
                    loop {
                        items.push(self.arg(op)?);
                        if self.eat(')') {
                            break;
                        }
                        self.expect(',')?;
                    }
                }
                Ok(Arg::List(items))
            }
            Tok::Punct('!') => Ok(Arg::Not(Box::new(self.atom(op)?))),
            Tok::Punct('-') => match self.next()? {
                Tok::Int(v) => Ok(Arg::Imm(v.wrapping_neg())),
                Tok::Float => Ok(Arg::Float),
                _ => Err(syntax(line, "expected a number after `-`".into())),
            },
            Tok::Int(v) => Ok(Arg::Imm(v)),
            Tok::Float => Ok(Arg::Float),
            Tok::Ident(name) if name == "_" => Ok(Arg::Sink),
            Tok::Ident(name) => {
                let is_branch = op.starts_with("bra") || op.starts_with("brx") || op.starts_with("call");
                if name.starts_with('%') {
                    Ok(Arg::Reg(self.resolve(&name)))
                } else if is_branch {
                    Ok(Arg::Name(self.label_name(&name)))
                } else {
                    let resolved = self.resolve(&name);
                    if resolved != name || self.scopes.iter().any(|s| s.regs.iter().any(|r| r == &name)) {
                        Ok(Arg::Reg(resolved))
                    } else {
                        Ok(Arg::Name(name))
                    }
                }
            }
            _ => {
                self.pos -= 1;
                Err(syntax(line, format!("expected an operand, found {}", self.describe())))
            }
        }
    }
}
