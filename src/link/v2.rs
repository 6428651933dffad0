//! Format 2: zlib + postcard of the live [`SharePayload`]; `expect` lines may name a mode.
//! Read only: format 3 adds the source comments after the same payload.

use super::body::decode_live;
use super::{LinkError, SharePayload};

pub(super) fn decode_body_v2(body: &[u8]) -> Result<SharePayload, LinkError> {
    decode_live(body)
}
