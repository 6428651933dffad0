//! The body every format so far uses: a zlib-deflated (checksummed) postcard encoding.
//!
//! Postcard is not self-describing: fields are written in declaration order and enum
//! variants by index. So each format is tied to the serde shape of the payload as it was
//! when the format shipped; older formats decode into frozen copies of their types
//! (`v1/frozen.rs`, see `docs/links.md`).

use miniz_oxide::inflate::{decompress_to_vec_zlib_with_limit, TINFLStatus};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::validate::structural_problem;
use crate::model::nesting::{self, MAX_NESTING};
use super::{LinkError, SharePayload};

/// Largest decompressed body accepted; realistic scenarios need a few kilobytes.
pub const MAX_DECODED_BYTES: usize = 256 * 1024;
/// miniz_oxide's best ratio; links are small, so speed does not matter.
const COMPRESSION_LEVEL: u8 = 10;

/// Postcard, size check, zlib: the body of `value` before any check of what it means.
pub(super) fn compress<T: Serialize>(value: &T) -> Result<Vec<u8>, LinkError> {
    let raw = postcard::to_allocvec(value)
        .map_err(|e| LinkError::Invalid(format!("the scenario cannot be serialized ({e})")))?;
    if raw.len() > MAX_DECODED_BYTES {
        return Err(LinkError::ScenarioTooLarge { size: raw.len(), max: MAX_DECODED_BYTES });
    }
    Ok(miniz_oxide::deflate::compress_to_vec_zlib(&raw, COMPRESSION_LEVEL))
}

/// Inflates and deserializes a body into `T`, the payload type of the body's format; the
/// caller converts it and runs [`structural_problem`] on the result.
pub(super) fn decode_body<T: DeserializeOwned>(body: &[u8]) -> Result<T, LinkError> {
    let raw =
        decompress_to_vec_zlib_with_limit(body, MAX_DECODED_BYTES).map_err(|e| match e.status {
            TINFLStatus::HasMoreOutput => LinkError::ExpandsTooMuch { max: MAX_DECODED_BYTES },
            TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
                LinkError::Truncated
            }
            TINFLStatus::Adler32Mismatch => {
                LinkError::Corrupt("the checksum does not match; the link was altered".into())
            }
            _ => LinkError::Corrupt("the compressed data is malformed".into()),
        })?;
    decode_postcard(&raw)
}

/// Postcard bytes into `T`, with nothing left over, refusing instructions or conditions
/// nested deeper than [`MAX_NESTING`]. The app's page↔worker messages decode through this
/// too, so the wasm holds one copy of every model type's deserializer.
pub fn decode_postcard<T: DeserializeOwned>(raw: &[u8]) -> Result<T, LinkError> {
    let mut deserializer = postcard::Deserializer::from_bytes(raw);
    let (payload, too_deep) = nesting::bounded(|| T::deserialize(&mut deserializer));
    let payload = payload.map_err(|e| {
        if too_deep {
            LinkError::Invalid(format!("it nests deeper than {MAX_NESTING} levels"))
        } else {
            LinkError::Corrupt(postcard_detail(&e).into())
        }
    })?;
    let rest =
        deserializer.finalize().map_err(|e| LinkError::Corrupt(postcard_detail(&e).into()))?;
    if !rest.is_empty() {
        return Err(LinkError::Corrupt(format!(
            "{} unexpected bytes follow the scenario",
            rest.len()
        )));
    }
    Ok(payload)
}

/// [`decode_body`] of the live types, checked.
pub(super) fn decode_live(body: &[u8]) -> Result<SharePayload, LinkError> {
    checked(decode_body(body)?)
}

/// `payload` when its indices are in range.
pub(super) fn checked(payload: SharePayload) -> Result<SharePayload, LinkError> {
    if let Some(problem) = structural_problem(&payload.scenario) {
        return Err(LinkError::Invalid(problem));
    }
    Ok(payload)
}

fn postcard_detail(error: &postcard::Error) -> &'static str {
    use postcard::Error as E;
    match error {
        E::DeserializeUnexpectedEnd => "the scenario data ends early",
        E::DeserializeBadVarint => "a number is malformed",
        E::DeserializeBadUtf8 | E::DeserializeBadChar => "a name is not valid text",
        E::DeserializeBadEnum => "it names an unknown kind of instruction or option",
        E::DeserializeBadBool | E::DeserializeBadOption => "a flag is malformed",
        _ => "the scenario data is unreadable",
    }
}
