//! The progress file's JSON, read and written by hand: a file this small does not need
//! serde_json's code in the wasm (out of it, with the observations' reading, the first load
//! was 14.4 KiB gzipped smaller: benches/results/2026-11-25-loading-rounds.md,
//! "Where it stands (third round)").

/// A parsed JSON value. Numbers keep their text; the reader converts what it needs.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(String),
    Text(String),
    List(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// Deepest nesting read; the progress file nests three levels.
const MAX_DEPTH: usize = 32;

/// Parses one JSON value filling all of `text`, or says what is wrong and where.
pub fn parse(text: &str) -> Result<Json, String> {
    let mut reader = Reader { bytes: text.as_bytes(), at: 0 };
    let value = reader.value(0)?;
    reader.skip_space();
    if reader.at < reader.bytes.len() {
        return Err(reader.error("unexpected text after the value"));
    }
    Ok(value)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn error(&self, what: &str) -> String {
        format!("{what} at byte {}", self.at)
    }

    fn skip_space(&mut self) {
        while self.bytes.get(self.at).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.skip_space();
        let found = self.bytes.get(self.at) == Some(&byte);
        if found {
            self.at += 1;
        }
        found
    }

    fn word(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(self.error("expected a JSON value"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > MAX_DEPTH {
            return Err(self.error("nesting too deep"));
        }
        self.skip_space();
        match self.bytes.get(self.at) {
            Some(b'{') => {
                self.at += 1;
                let mut fields = Vec::new();
                if self.eat(b'}') {
                    return Ok(Json::Object(fields));
                }
                loop {
                    self.skip_space();
                    if self.bytes.get(self.at) != Some(&b'"') {
                        return Err(self.error("expected a field name"));
                    }
                    let key = self.text()?;
                    if !self.eat(b':') {
                        return Err(self.error("expected `:`"));
                    }
                    fields.push((key, self.value(depth + 1)?));
                    if self.eat(b'}') {
                        return Ok(Json::Object(fields));
                    }
                    if !self.eat(b',') {
                        return Err(self.error("expected `,` or `}`"));
                    }
                }
            }
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                if self.eat(b']') {
                    return Ok(Json::List(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if self.eat(b']') {
                        return Ok(Json::List(items));
                    }
                    if !self.eat(b',') {
                        return Err(self.error("expected `,` or `]`"));
                    }
                }
            }
            Some(b'"') => self.text().map(Json::Text),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(b'n') => self.word("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => {
                let start = self.at;
                while self.bytes.get(self.at).is_some_and(|b| matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')) {
                    self.at += 1;
                }
                Ok(Json::Number(String::from_utf8_lossy(&self.bytes[start..self.at]).into_owned()))
            }
            _ => Err(self.error("expected a JSON value")),
        }
    }

    /// A string, starting at its opening quote.
    fn text(&mut self) -> Result<String, String> {
        self.at += 1;
        let mut out = Vec::new();
        loop {
            let Some(&byte) = self.bytes.get(self.at) else { return Err(self.error("unterminated string")) };
            self.at += 1;
            match byte {
                b'"' => return String::from_utf8(out).map_err(|_| self.error("a string is not valid UTF-8")),
                b'\\' => {
                    let Some(&escaped) = self.bytes.get(self.at) else { return Err(self.error("unterminated string")) };
                    self.at += 1;
                    let plain = match escaped {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return Err(self.error("unknown escape in a string")),
                    };
                    out.extend_from_slice(plain.encode_utf8(&mut [0; 4]).as_bytes());
                }
                0..=0x1f => return Err(self.error("control character in a string")),
                _ => out.push(byte),
            }
        }
    }

    /// The four hex digits after `\u` (a surrogate pair takes a second `\u`).
    fn unicode_escape(&mut self) -> Result<char, String> {
        let first = self.hex4()?;
        let code = if (0xD800..0xDC00).contains(&first) {
            if !self.bytes[self.at..].starts_with(b"\\u") {
                return Err(self.error("unpaired surrogate in a string"));
            }
            self.at += 2;
            let second = self.hex4()?;
            if !(0xDC00..0xE000).contains(&second) {
                return Err(self.error("unpaired surrogate in a string"));
            }
            0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        } else {
            first
        };
        char::from_u32(code).ok_or_else(|| self.error("invalid \\u escape"))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self.bytes.get(self.at..self.at + 4).and_then(|d| std::str::from_utf8(d).ok());
        let value = digits.and_then(|d| u32::from_str_radix(d, 16).ok()).ok_or_else(|| self.error("invalid \\u escape"))?;
        self.at += 4;
        Ok(value)
    }
}

/// `text` as a JSON string literal.
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_kind_of_value() {
        let value = parse(r#" {"a": [1, -2.5e3, true, false, null], "b\u00e9\n": "x\"y\ud83d\ude00"} "#).expect("valid JSON");
        let Json::Object(fields) = value else { panic!("an object") };
        assert_eq!(fields[0].0, "a");
        assert_eq!(
            fields[0].1,
            Json::List(vec![Json::Number("1".into()), Json::Number("-2.5e3".into()), Json::Bool(true), Json::Bool(false), Json::Null])
        );
        assert_eq!(fields[1], ("bé\n".to_string(), Json::Text("x\"y😀".into())));
    }

    #[test]
    fn refuses_malformed_text_with_a_position() {
        for (text, expected) in [
            ("", "expected a JSON value at byte 0"),
            ("{\"a\" 1}", "expected `:`"),
            ("[1 2]", "expected `,` or `]`"),
            ("\"abc", "unterminated string"),
            ("\"\\q\"", "unknown escape"),
            ("\"\\ud800\"", "unpaired surrogate"),
            ("{} x", "unexpected text after the value at byte 3"),
            ("tru", "expected a JSON value"),
        ] {
            let err = parse(text).expect_err(text);
            assert!(err.contains(expected), "{text}: {err}");
        }
        assert!(parse(&"[".repeat(100)).expect_err("deep").contains("nesting too deep"));
    }

    #[test]
    fn quoted_text_reads_back() {
        let text = "a\"b\\c\nd\u{1}é";
        assert_eq!(parse(&quoted(text)), Ok(Json::Text(text.into())));
    }
}
