//! Format 3: format 2's payload followed by the source comments, so a shared scenario
//! keeps the notes its author wrote (`# why this fence is here`).

use serde::{Deserialize, Serialize};

use super::body::{checked, compress, decode_body};
use super::validate::{comments_problem, structural_problem};
use super::{LinkError, SharePayload};
use crate::syntax::Comment;

/// The serialized body. Field order is the format: never reorder or insert fields.
#[derive(Serialize, Deserialize)]
struct BodyV3 {
    payload: SharePayload,
    comments: Vec<Comment>,
}

pub(super) fn encode_body_v3(payload: &SharePayload, comments: &[Comment]) -> Result<Vec<u8>, LinkError> {
    if let Some(problem) = structural_problem(&payload.scenario).or_else(|| comments_problem(comments)) {
        return Err(LinkError::Invalid(problem));
    }
    let body = compress(&BodyV3 { payload: payload.clone(), comments: comments.to_vec() })?;
    // Limits such as the nesting depth are only known to the decoder: prove the link opens.
    decode_body_v3(&body)?;
    Ok(body)
}

pub(super) fn decode_body_v3(body: &[u8]) -> Result<(SharePayload, Vec<Comment>), LinkError> {
    let BodyV3 { payload, comments } = decode_body(body)?;
    if let Some(problem) = comments_problem(&comments) {
        return Err(LinkError::Invalid(problem));
    }
    Ok((checked(payload)?, comments))
}
