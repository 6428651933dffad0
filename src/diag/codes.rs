//! Every diagnostic code with a one-line explanation, so tools can explain a code.

/// A diagnostic code and what it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeInfo {
    pub code: &'static str,
    pub summary: &'static str,
}

const fn c(code: &'static str, summary: &'static str) -> CodeInfo {
    CodeInfo { code, summary }
}

pub const CODES: &[CodeInfo] = &[
    c("F0001", "the input is larger than the 1 MiB a scenario may have"),
    c("F0002", "the input is not text (NUL byte or invalid UTF-8)"),
    c("F0003", "too many errors; the parser stopped reporting"),
    c("F0101", "a character that is not part of the syntax"),
    c("F0102", "an integer that is malformed or does not fit in 64 bits"),
    c("F0104", "a line outside any thread that is not a declaration"),
    c("F0105", "a token other than the one the syntax requires here"),
    c("F0106", "a name declared twice"),
    c("F0107", "a reference to a CTA that is not declared"),
    c("F0108", "a reference to a cluster that is not declared"),
    c("F0109", "more than one `expect` line"),
    c("F0110", "an `expect` value other than correct, race, deadlock or undefined"),
    c("F0111", "a final condition that does not start with exists, ~exists or forall"),
    c("F0112", "an alias with an unknown target or proxy"),
    c("F0113", "a condition nested deeper than the parser allows"),
    c("F0201", "an unknown instruction"),
    c("F0203", "an unknown modifier, or one the instruction does not take"),
    c("F0204", "a modifier repeated or in conflict with another"),
    c("F0205", "an operand of the wrong kind"),
    c("F0206", "a number outside the range the operand allows"),
    c("F0207", "an instruction whose modifiers or operands do not form a valid PTX form"),
];

/// The explanation of `code`, if it is known.
pub fn explain(code: &str) -> Option<&'static str> {
    CODES.iter().find(|c| c.code == code).map(|c| c.summary)
}
