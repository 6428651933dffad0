//! Format 1: zlib + postcard of the payload as it was before `expect` lines could name a
//! mode. Its links decode into the frozen types of [`frozen`] and convert.

pub mod frozen;

use super::body::{checked, decode_body};
use super::{LinkError, SharePayload};

pub(super) fn decode_body_v1(body: &[u8]) -> Result<SharePayload, LinkError> {
    checked(decode_body::<frozen::SharePayload>(body)?.into())
}
