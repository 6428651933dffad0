//! Shareable scenario links: everything travels in the URL fragment, so nothing is sent
//! to a server and a link never rots.
//!
//! `https://host/#/s/<code>` where the code is versioned, compressed and URL-safe. See
//! `docs/links.md` for the format and how to add a version.

mod body;
mod codec;
mod error;
mod payload;
mod v1;
mod v2;
mod v3;
mod v5;
mod validate;

pub use codec::{decode, decode_full, decode_with_comments, encode, encode_with_comments, encode_with_source, share_url, share_url_with_comments, share_url_with_source, FORMAT_VERSION, MAX_CODE_CHARS, MAX_LINK_CHARS, ROUTE};
pub use error::LinkError;
pub use v5::Decoded;
pub use payload::{LessonRef, Panel, Panels, SharePayload, Theme, TraceRef, UiOptions, ViewState};
pub use body::{decode_postcard, MAX_DECODED_BYTES};
pub use crate::model::nesting::MAX_NESTING;
/// Format 1's payload types, for reading its frozen corpus.
pub use v1::frozen as v1_frozen;
pub use validate::{comments_problem, structural_problem, MAX_COMMENT_CHARS};
