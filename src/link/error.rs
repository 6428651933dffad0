//! Why a link could not be read, in words a person who pasted it can act on.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// Nothing was pasted.
    Empty,
    /// The URL has a fragment, but not the shared-scenario route `#/s/...`.
    NoScenario,
    /// The link text is longer than any link fencelab makes, or (when encoding) would be.
    TooLarge { size: usize, max: usize },
    /// When encoding: the scenario's binary form exceeds what a decoder accepts.
    ScenarioTooLarge { size: usize, max: usize },
    /// A character outside the URL-safe base64 alphabet.
    NotBase64 { position: usize, character: char },
    /// The link ends early, usually because it was cut when copied.
    Truncated,
    /// Well-formed base64, but not made by fencelab.
    NotFencelab,
    /// Made by a newer fencelab whose format this version cannot read.
    UnknownVersion { found: u8, newest: u8 },
    /// The compressed data would expand beyond the decoder's limit.
    ExpandsTooMuch { max: usize },
    /// The data is damaged.
    Corrupt(String),
    /// The data decodes, but describes an impossible scenario.
    Invalid(String),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::Empty => write!(f, "the link is empty"),
            LinkError::NoScenario => {
                write!(
                    f,
                    "this URL holds no shared scenario (expected `#/s/` followed by the code)"
                )
            }
            LinkError::TooLarge { size, max } => {
                write!(f, "the link is too long ({size} characters; at most {max} are accepted)")
            }
            LinkError::ScenarioTooLarge { size, max } => write!(
                f,
                "the scenario is too large to share ({size} bytes encoded; links hold at most {max})"
            ),
            LinkError::NotBase64 { position, character } => {
                // Not `{:?}` (the release wasm prints no `Debug`) nor `escape_debug` (its
                // Unicode tables would enter the first load): an invisible character is
                // named by its code point.
                if character.is_control() || character.is_whitespace() {
                    write!(f, "the link contains U+{:04X}", u32::from(*character))?;
                } else {
                    write!(f, "the link contains '{character}'")?;
                }
                write!(f, " at character {position}, which no fencelab link contains; was it changed when copied?")
            }
            LinkError::Truncated => {
                write!(f, "the link is incomplete; it was probably cut off when copied")
            }
            LinkError::NotFencelab => write!(f, "this is not a fencelab scenario link"),
            LinkError::UnknownVersion { found, newest } => write!(
                f,
                "this link was made by a newer fencelab (format {found}); this version reads \
                 formats up to {newest}"
            ),
            LinkError::ExpandsTooMuch { max } => {
                write!(f, "the link expands to more than {max} bytes, more than any scenario needs")
            }
            LinkError::Corrupt(detail) => write!(f, "the link is damaged: {detail}"),
            LinkError::Invalid(reason) => {
                write!(f, "the link describes an invalid scenario: {reason}")
            }
        }
    }
}

impl std::error::Error for LinkError {}
