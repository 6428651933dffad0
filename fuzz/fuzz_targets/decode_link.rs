//! Fuzzes `fencelab::link::decode` at three depths: raw link text, a well-formed header
//! around arbitrary compressed bytes, and arbitrary scenario bytes behind a valid header
//! and checksum (so the postcard, nesting and index guards see interesting input).
//! Whatever decodes must survive another round trip.

#![no_main]

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use fencelab::link::{decode, encode, LinkError, FORMAT_VERSION};
use libfuzzer_sys::fuzz_target;

const MAGIC: u8 = 0x7C;

fuzz_target!(|data: &[u8]| {
    let Some((mode, rest)) = data.split_first() else { return };
    let text = match mode % 3 {
        0 => String::from_utf8_lossy(rest).into_owned(),
        1 => link_around(rest.to_vec()),
        _ => link_around(miniz_oxide::deflate::compress_to_vec_zlib(rest, 1)),
    };
    if let Ok(payload) = decode(&text) {
        match encode(&payload) {
            Ok(code) => assert_eq!(decode(&code).as_ref(), Ok(&payload)),
            // Incompressible names can make a valid payload too long to re-share.
            Err(LinkError::TooLarge { .. }) => {}
            Err(e) => panic!("decoded payload does not encode again: {e}"),
        }
    }
});

fn link_around(body: Vec<u8>) -> String {
    let mut bytes = vec![MAGIC, FORMAT_VERSION];
    bytes.extend(body);
    format!("https://fencelab.example/#/s/{}", URL_SAFE_NO_PAD.encode(bytes))
}
