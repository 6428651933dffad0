//! Link text ⇄ [`SharePayload`]: the route, the base64 layer and the format header.
//!
//! A code is URL-safe base64 (no padding) of `[MAGIC, version, body...]`. The header is
//! never compressed, so any fencelab can tell which format a link uses; the body's shape
//! belongs to its version (see [`super::v1`] and `docs/links.md`).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::{DecodeError, Engine};

use super::{v1, v2, v3, v5, Decoded, LinkError, SharePayload};
use crate::syntax::Comment;

/// The format this fencelab writes. Every older format keeps a decoder. Format 4 is
/// format 3's body with the byte-range, guard and `setp` instructions (appended variants,
/// so a format 3 body still decodes as format 4; an older fencelab calls a format 4 link
/// newer instead of damaged). Format 5 appends the sender's text (`v5.rs`).
pub const FORMAT_VERSION: u8 = 5;
/// The app's shared-scenario route: `https://host/#/s/<code>`.
pub const ROUTE: &str = "#/s/";
/// Longest text [`decode`] accepts (a whole URL).
pub const MAX_LINK_CHARS: usize = 64 * 1024;
/// Longest code [`encode`] writes, leaving room for the base URL within [`MAX_LINK_CHARS`].
pub const MAX_CODE_CHARS: usize = MAX_LINK_CHARS - 4 * 1024;
/// First byte of every code, so that other base64 text is not mistaken for a newer format.
const MAGIC: u8 = 0x7C;

/// Encodes `payload` as a link code (the part after [`ROUTE`]).
///
/// Fails when the scenario is structurally invalid or too large to share, so that every
/// code this returns decodes again.
pub fn encode(payload: &SharePayload) -> Result<String, LinkError> {
    encode_with_comments(payload, &[])
}

/// [`encode`], carrying the source comments too (`SourceMap::comments`), so the receiver
/// prints the scenario with its author's notes (`syntax::print_with_comments`).
pub fn encode_with_comments(payload: &SharePayload, comments: &[Comment]) -> Result<String, LinkError> {
    encode_body(payload, comments, None)
}

/// [`encode_with_comments`], carrying the sender's text too, so the receiver sees it
/// exactly as written ([`Decoded::text`]). Fails when `source` does not parse, without
/// errors, into `payload.scenario`.
pub fn encode_with_source(payload: &SharePayload, comments: &[Comment], source: &str) -> Result<String, LinkError> {
    encode_body(payload, comments, Some(source))
}

fn encode_body(payload: &SharePayload, comments: &[Comment], source: Option<&str>) -> Result<String, LinkError> {
    let mut bytes = vec![MAGIC, FORMAT_VERSION];
    bytes.extend(v5::encode_body_v5(payload, comments, source)?);
    let code = URL_SAFE_NO_PAD.encode(bytes);
    if code.len() > MAX_CODE_CHARS {
        return Err(LinkError::TooLarge { size: code.len(), max: MAX_CODE_CHARS });
    }
    Ok(code)
}

/// A full link: `base` (any fragment dropped) followed by [`ROUTE`] and the code.
pub fn share_url(base: &str, payload: &SharePayload) -> Result<String, LinkError> {
    share_url_with_comments(base, payload, &[])
}

/// [`share_url`] carrying the source comments, as [`encode_with_comments`] does.
pub fn share_url_with_comments(base: &str, payload: &SharePayload, comments: &[Comment]) -> Result<String, LinkError> {
    let base = base.split('#').next().unwrap_or(base);
    Ok(format!("{base}{ROUTE}{}", encode_with_comments(payload, comments)?))
}

/// [`share_url`] carrying the comments and the sender's text, as [`encode_with_source`]
/// does. An empty `base` gives the route and code alone (`#/s/<code>`).
pub fn share_url_with_source(base: &str, payload: &SharePayload, comments: &[Comment], source: &str) -> Result<String, LinkError> {
    let base = base.split('#').next().unwrap_or(base);
    Ok(format!("{base}{ROUTE}{}", encode_with_source(payload, comments, source)?))
}

/// Decodes a pasted link: a full URL, a fragment (`#/s/<code>`) or the bare code.
/// Whitespace (from line-wrapping chat clients) and surrounding `<>` are ignored, and so
/// is anything after `?` in the fragment (reserved for app options such as embedding).
pub fn decode(text: &str) -> Result<SharePayload, LinkError> {
    decode_with_comments(text).map(|(payload, _)| payload)
}

/// [`decode`], with the source comments the link carries (none before format 3).
pub fn decode_with_comments(text: &str) -> Result<(SharePayload, Vec<Comment>), LinkError> {
    decode_full(text).map(|d| (d.payload, d.comments))
}

/// [`decode`], with everything the link carries: comments (format 3 on) and the sender's
/// text (format 5 on). Show the text through [`Decoded::text`].
pub fn decode_full(text: &str) -> Result<Decoded, LinkError> {
    if text.len() > MAX_LINK_CHARS {
        return Err(LinkError::TooLarge { size: text.len(), max: MAX_LINK_CHARS });
    }
    let code = extract_code(text)?;
    let bytes =
        URL_SAFE_NO_PAD.decode(code.trim_end_matches('=')).map_err(|e| base64_error(&code, e))?;
    let (magic, rest) = bytes.split_first().ok_or(LinkError::Truncated)?;
    if *magic != MAGIC {
        return Err(LinkError::NotFencelab);
    }
    let (version, body) = rest.split_first().ok_or(LinkError::Truncated)?;
    let without = |payload| Decoded { payload, comments: Vec::new(), source: None };
    match *version {
        1 => v1::decode_body_v1(body).map(without),
        2 => v2::decode_body_v2(body).map(without),
        3 | 4 => v3::decode_body_v3(body).map(|(payload, comments)| Decoded { payload, comments, source: None }),
        5 => v5::decode_body_v5(body),
        0 => Err(LinkError::Corrupt("format 0 does not exist".into())),
        found => Err(LinkError::UnknownVersion { found, newest: FORMAT_VERSION }),
    }
}

/// The code inside `text`, without whitespace.
fn extract_code(text: &str) -> Result<String, LinkError> {
    let text = text.trim().trim_start_matches('<').trim_end_matches('>');
    let route = match text.split_once('#') {
        Some((_, fragment)) => {
            let fragment = fragment.trim_start_matches('/');
            fragment.strip_prefix("s/").ok_or(LinkError::NoScenario)?
        }
        None if text.contains("://") => return Err(LinkError::NoScenario),
        None => text.trim_start_matches('/').strip_prefix("s/").unwrap_or(text),
    };
    let code_part = route.split('?').next().unwrap_or(route);
    let code: String = code_part.chars().filter(|c| !c.is_whitespace()).collect();
    if code.is_empty() {
        return Err(LinkError::Empty);
    }
    Ok(code)
}

fn base64_error(code: &str, error: DecodeError) -> LinkError {
    match error {
        DecodeError::InvalidByte(offset, _) => {
            let character = code.get(offset..).and_then(|s| s.chars().next()).unwrap_or('?');
            let position = code.get(..offset).map_or(offset, |s| s.chars().count()) + 1;
            LinkError::NotBase64 { position, character }
        }
        // A length or final symbol no encoder produces: the tail was cut off.
        DecodeError::InvalidLength(_) | DecodeError::InvalidLastSymbol(..) => LinkError::Truncated,
        DecodeError::InvalidPadding => LinkError::Corrupt("misplaced `=` padding".into()),
    }
}
