//! Format 2: zlib + postcard of the live [`SharePayload`]; `expect` lines may name a mode.

use super::body::{decode_live, encode_body};
use super::{LinkError, SharePayload};

pub(super) fn encode_body_v2(payload: &SharePayload) -> Result<Vec<u8>, LinkError> {
    encode_body(payload)
}

pub(super) fn decode_body_v2(body: &[u8]) -> Result<SharePayload, LinkError> {
    decode_live(body)
}
