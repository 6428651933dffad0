//! A small highlighter for `.fence` text. It colours tokens only; what they mean is the
//! core parser's business, so a wrongly coloured word never changes a verdict.

/// What a piece of a line looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenClass {
    Plain,
    Comment,
    /// Declaration and expectation keywords (`cta`, `thread`, `expect`, `forall`, ...).
    Keyword,
    /// The opcode of an instruction (`ld`, `mbarrier`, `cp`, `wait`).
    Opcode,
    /// A `.modifier` after the opcode.
    Modifier,
    Number,
    /// A bracketed name `[x]` or a placement `@A`.
    Name,
    Punct,
}

impl TokenClass {
    /// CSS class of the token's `<span>`.
    pub fn css(self) -> &'static str {
        match self {
            TokenClass::Plain => "tok",
            TokenClass::Comment => "tok tok-comment",
            TokenClass::Keyword => "tok tok-kw",
            TokenClass::Opcode => "tok tok-op",
            TokenClass::Modifier => "tok tok-mod",
            TokenClass::Number => "tok tok-num",
            TokenClass::Name => "tok tok-name",
            TokenClass::Punct => "tok tok-punct",
        }
    }
}

const KEYWORDS: &[&str] = &[
    "cluster", "cta", "global", "shared", "tmem", "alias", "mbarrier", "thread", "expect",
    "exists", "forall", "in", "gpu", "size", "count", "lanes", "via",
];

const EXPECT_WORDS: &[&str] = &["correct", "race", "deadlock", "undefined"];

/// Splits one line into classified pieces whose texts concatenate back to the line.
pub fn highlight_line(line: &str) -> Vec<(TokenClass, &str)> {
    let (code, comment) = match line.find('#') {
        Some(at) => line.split_at(at),
        None => (line, ""),
    };
    let mut out = Vec::new();
    let first_word = code.trim_start().split(|c: char| !is_word(c)).next().unwrap_or("");
    let declaration = KEYWORDS.contains(&first_word) && !code.contains(['[', ',']);
    let mut seen_opcode = false;
    let mut rest = code;
    while let Some(c) = rest.chars().next() {
        let len = token_len(rest, c);
        let (text, tail) = rest.split_at(len);
        let class = if c.is_whitespace() {
            TokenClass::Plain
        } else if c == '.' && seen_opcode && len > 1 {
            TokenClass::Modifier
        } else if c == '@' || c == '[' && text.ends_with(']') {
            TokenClass::Name
        } else if c.is_ascii_digit() || c == '-' && len > 1 {
            TokenClass::Number
        } else if is_word(c) {
            word_class(text, declaration, &mut seen_opcode)
        } else {
            TokenClass::Punct
        };
        out.push((class, text));
        rest = tail;
    }
    if !comment.is_empty() {
        out.push((TokenClass::Comment, comment));
    }
    out
}

fn word_class(word: &str, declaration: bool, seen_opcode: &mut bool) -> TokenClass {
    if declaration || EXPECT_WORDS.contains(&word) {
        return if KEYWORDS.contains(&word) || EXPECT_WORDS.contains(&word) {
            TokenClass::Keyword
        } else {
            TokenClass::Plain
        };
    }
    if !*seen_opcode {
        *seen_opcode = true;
        // `wait` prefixes the real opcode, which then gets the opcode colour too.
        if word == "wait" {
            *seen_opcode = false;
        }
        return TokenClass::Opcode;
    }
    TokenClass::Plain
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Byte length of the token starting with `c` at the front of `rest`.
fn token_len(rest: &str, c: char) -> usize {
    let span_while = |from: usize, pred: &dyn Fn(char) -> bool| {
        rest[from..].find(|ch: char| !pred(ch)).map_or(rest.len(), |end| end + from)
    };
    match c {
        c if c.is_whitespace() => span_while(0, &|ch| ch.is_whitespace()),
        // `.shared::cta` is one modifier.
        '.' => span_while(1, &|ch| is_word(ch) || ch == ':'),
        '@' => span_while(1, &is_word),
        '[' => rest.find(']').map_or(1, |end| end + 1),
        '-' if rest[1..].starts_with(|ch: char| ch.is_ascii_digit()) => span_while(1, &is_word),
        c if is_word(c) => span_while(0, &is_word),
        c => c.len_utf8(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(line: &str) -> Vec<(TokenClass, &str)> {
        highlight_line(line).into_iter().filter(|(_, t)| !t.trim().is_empty()).collect()
    }

    #[test]
    fn pieces_rebuild_the_line() {
        for line in [
            "    st.shared [x], 42  # store",
            "wait mbarrier.try_wait.parity.acquire.cta.shared::cta [bar], 0",
            "thread producer @A:",
            "forall (consumer:r0 == 42)",
            "ünïcode → [x]",
            "",
        ] {
            let joined: String = highlight_line(line).into_iter().map(|(_, t)| t).collect();
            assert_eq!(joined, line);
        }
    }

    #[test]
    fn instruction_has_opcode_modifiers_names_numbers() {
        use TokenClass::*;
        assert_eq!(
            classes("st.release.gpu [x], -42 # why"),
            vec![
                (Opcode, "st"),
                (Modifier, ".release"),
                (Modifier, ".gpu"),
                (Name, "[x]"),
                (Punct, ","),
                (Number, "-42"),
                (Comment, "# why"),
            ]
        );
    }

    #[test]
    fn wait_prefix_and_space_modifier() {
        use TokenClass::*;
        let got = classes("wait ld.acquire.shared::cta r0, [flag] == 1");
        assert_eq!(got.first(), Some(&(Opcode, "wait")));
        assert_eq!(got.get(1), Some(&(Opcode, "ld")));
        assert_eq!(got.get(3), Some(&(Modifier, ".shared::cta")));
    }

    #[test]
    fn declarations_colour_keywords() {
        use TokenClass::*;
        let got = classes("shared x @A = 0 size 64");
        assert_eq!(got.first(), Some(&(Keyword, "shared")));
        assert!(got.contains(&(Name, "@A")));
        assert!(got.contains(&(Keyword, "size")));
        assert!(got.contains(&(Number, "64")));
        assert_eq!(classes("expect race"), vec![(Keyword, "expect"), (Keyword, "race")]);
    }

    #[test]
    fn unclosed_bracket_does_not_swallow_the_line() {
        let got = classes("ld r0, [x");
        assert!(got.contains(&(TokenClass::Punct, "[")));
        assert!(got.contains(&(TokenClass::Plain, "x")));
    }
}
