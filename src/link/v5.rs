//! Format 5: format 3's payload and comments, followed by the sender's own text, so a
//! receiver sees the program exactly as it was written (blank lines, spellings, where
//! each comment sits) and "line 9" names the same line for both.

use serde::{Deserialize, Serialize};

use super::body::{checked, compress, decode_body};
use super::validate::{comments_problem, structural_problem};
use super::{LinkError, SharePayload};
use crate::syntax::{parse, print_with_comments, Comment, SourceMap};

/// The serialized body. Field order is the format: never reorder or insert fields.
#[derive(Serialize, Deserialize)]
struct BodyV5 {
    payload: SharePayload,
    comments: Vec<Comment>,
    /// The text the sender had on screen; `None` when the link was made from a model alone.
    source: Option<String>,
}

pub(super) fn encode_body_v5(payload: &SharePayload, comments: &[Comment], source: Option<&str>) -> Result<Vec<u8>, LinkError> {
    if let Some(problem) = structural_problem(&payload.scenario).or_else(|| comments_problem(comments)) {
        return Err(LinkError::Invalid(problem));
    }
    if let Some(source) = source {
        if !reads_as(source, &payload.scenario) {
            return Err(LinkError::Invalid("the text does not read as the scenario it is shared with".into()));
        }
    }
    let body = compress(&BodyV5 { payload: payload.clone(), comments: comments.to_vec(), source: source.map(str::to_string) })?;
    // Limits such as the nesting depth are only known to the decoder: prove the link opens.
    decode_body_v5(&body)?;
    Ok(body)
}

pub(super) fn decode_body_v5(body: &[u8]) -> Result<Decoded, LinkError> {
    let BodyV5 { payload, comments, source } = decode_body(body)?;
    if let Some(problem) = comments_problem(&comments) {
        return Err(LinkError::Invalid(problem));
    }
    Ok(Decoded { payload: checked(payload)?, comments, source })
}

/// Whether `source` parses, without errors, into exactly `scenario`.
fn reads_as(source: &str, scenario: &crate::model::Scenario) -> bool {
    let parsed = parse(source);
    !parsed.has_errors() && parsed.scenario == *scenario
}

/// Everything a link carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub payload: SharePayload,
    /// The source comments (none before format 3).
    pub comments: Vec<Comment>,
    /// The sender's text (none before format 5, nor from `fencelab share` of a model).
    pub source: Option<String>,
}

impl Decoded {
    /// The text to show: the sender's own, when it still reads as the link's scenario,
    /// else the scenario printed with its comments in place. A text that says something
    /// else than the scenario (a hand-made link) is never shown: the scenario decides.
    pub fn text(&self) -> String {
        match &self.source {
            Some(source) if reads_as(source, &self.payload.scenario) => source.clone(),
            _ => print_with_comments(&self.payload.scenario, &SourceMap { comments: self.comments.clone(), ..SourceMap::default() }),
        }
    }
}
