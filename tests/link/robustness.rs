//! Bounded random inputs for the decoder (the fuzz target in `fuzz/` goes further): no
//! input panics, and whatever decodes is a payload that shares again.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use fencelab::link::{decode, encode, LinkError, FORMAT_VERSION};
use proptest::collection::vec;
use proptest::prelude::*;

use crate::samples::handoff_payload;

const MAGIC: u8 = 0x7C;

fn link_with_body(body: &[u8]) -> String {
    let mut bytes = vec![MAGIC, FORMAT_VERSION];
    bytes.extend(body);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Decodes `text`; a success must encode and decode to the same payload again.
fn decode_consistently(text: &str) -> Result<(), TestCaseError> {
    if let Ok(payload) = decode(text) {
        match encode(&payload) {
            Ok(code) => prop_assert_eq!(decode(&code), Ok(payload)),
            Err(LinkError::TooLarge { .. }) => {}
            Err(e) => return Err(TestCaseError::fail(format!("decoded but cannot encode: {e}"))),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,200}") {
        decode_consistently(&text)?;
    }

    #[test]
    fn arbitrary_compressed_bodies_never_panic(body in vec(any::<u8>(), 0..300)) {
        decode_consistently(&link_with_body(&body))?;
    }

    #[test]
    fn arbitrary_scenario_bytes_never_panic(raw in vec(any::<u8>(), 0..300)) {
        let body = miniz_oxide::deflate::compress_to_vec_zlib(&raw, 1);
        decode_consistently(&link_with_body(&body))?;
    }

    #[test]
    fn edited_links_never_panic(edits in vec((any::<prop::sample::Index>(), any::<u8>(), 0..3u8), 1..4)) {
        let mut code: Vec<u8> = encode(&handoff_payload()).expect("encodes").into_bytes();
        for (at, byte, kind) in edits {
            let at = at.index(code.len() + 1);
            let symbol = URL_SAFE_NO_PAD.encode([byte]).into_bytes()[0];
            match kind {
                0 if at < code.len() => code[at] = symbol,
                1 => code.insert(at, symbol),
                _ if at < code.len() => { code.remove(at); }
                _ => {}
            }
        }
        decode_consistently(&String::from_utf8_lossy(&code))?;
    }
}
