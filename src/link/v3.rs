//! Format 3: format 2's payload followed by the source comments, so a shared scenario
//! keeps the notes its author wrote (`# why this fence is here`). Read only: format 5
//! appends the sender's text.

use serde::{Deserialize, Serialize};

use super::body::{checked, decode_body};
use super::validate::comments_problem;
use super::{LinkError, SharePayload};
use crate::syntax::Comment;

/// The serialized body. Field order is the format: never reorder or insert fields.
#[derive(Serialize, Deserialize)]
struct BodyV3 {
    payload: SharePayload,
    comments: Vec<Comment>,
}

pub(super) fn decode_body_v3(body: &[u8]) -> Result<(SharePayload, Vec<Comment>), LinkError> {
    let BodyV3 { payload, comments } = decode_body(body)?;
    if let Some(problem) = comments_problem(&comments) {
        return Err(LinkError::Invalid(problem));
    }
    Ok((checked(payload)?, comments))
}
