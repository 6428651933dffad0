//! The importer's inputs as people write them: PTX bytes (plain or gzip) and the launch
//! options' text forms. Shared by the CLI and the app, so both read them alike.

use std::fmt;

use super::{ParamValue, MAX_INPUT_BYTES};

/// Why bytes are not a PTX text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputError {
    /// Starts like gzip but does not inflate.
    BadGzip,
    /// More than [`MAX_INPUT_BYTES`], before or after inflating.
    TooLarge,
    /// Not UTF-8: the first invalid byte's offset.
    NotText { offset: usize },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::BadGzip => f.write_str("not a valid gzip file"),
            InputError::TooLarge => write!(f, "larger than {MAX_INPUT_BYTES} bytes"),
            InputError::NotText { offset } => {
                write!(f, "not UTF-8 text (invalid byte at offset {offset}); is it a binary file?")
            }
        }
    }
}

impl std::error::Error for InputError {}

/// The PTX text in `bytes`, inflated first if they are gzip (`.ptx.gz`).
pub fn ptx_text(mut bytes: Vec<u8>) -> Result<String, InputError> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        bytes = gunzip(&bytes)?;
    }
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(InputError::TooLarge);
    }
    String::from_utf8(bytes).map_err(|e| InputError::NotText { offset: e.utf8_error().valid_up_to() })
}

/// A gzip member (RFC 1952): header, deflate data, trailer.
fn gunzip(data: &[u8]) -> Result<Vec<u8>, InputError> {
    let bad = || InputError::BadGzip;
    if data.len() < 18 || data[2] != 8 {
        return Err(bad());
    }
    let flags = data[3];
    let mut pos = 10usize;
    if flags & 4 != 0 {
        let xlen = usize::from(*data.get(pos).ok_or_else(bad)?) | usize::from(*data.get(pos + 1).ok_or_else(bad)?) << 8;
        pos += 2 + xlen;
    }
    for bit in [8u8, 16] {
        if flags & bit != 0 {
            while *data.get(pos).ok_or_else(bad)? != 0 {
                pos += 1;
            }
            pos += 1;
        }
    }
    if flags & 2 != 0 {
        pos += 2;
    }
    let body = data.get(pos..data.len().saturating_sub(8)).ok_or_else(bad)?;
    miniz_oxide::inflate::decompress_to_vec_with_limit(body, MAX_INPUT_BYTES + 1).map_err(|e| match e.status {
        miniz_oxide::inflate::TINFLStatus::HasMoreOutput => InputError::TooLarge,
        _ => bad(),
    })
}

/// An integer, decimal or `0x` hexadecimal, maybe negative.
pub fn parse_int(s: &str) -> Result<i64, String> {
    let s = s.trim();
    let (neg, body) = s.strip_prefix('-').map_or((false, s), |b| (true, b));
    let v = if let Some(hex) = body.strip_prefix("0x") { i64::from_str_radix(hex, 16) } else { body.parse::<i64>() };
    v.map(|v| if neg { -v } else { v }).map_err(|_| format!("`{s}` is not an integer"))
}

/// `N` or `X,Y,Z` (missing dimensions are 1), each positive.
pub fn parse_dims(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() > 3 {
        return Err("expected N or X,Y,Z".into());
    }
    let mut d = [1u32; 3];
    for (slot, p) in d.iter_mut().zip(&parts) {
        *slot = p.trim().parse::<u32>().ok().filter(|v| *v > 0).ok_or_else(|| format!("`{}` is not a positive integer", p.trim()))?;
    }
    Ok(d)
}

/// `NAME=VALUE` or `NAME+OFFSET=VALUE` (a field of a struct parameter).
pub fn parse_param(s: &str) -> Result<ParamValue, String> {
    let (lhs, value) = s.split_once('=').ok_or("expected NAME=VALUE or NAME+OFFSET=VALUE")?;
    let (name, offset) = match lhs.split_once('+') {
        Some((n, o)) => (n.trim(), parse_int(o)?),
        None => (lhs.trim(), 0),
    };
    if name.is_empty() {
        return Err("the parameter name is empty".into());
    }
    Ok(ParamValue { name: name.to_string(), offset, value: parse_int(value)? })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_and_plain_bytes_read_as_the_same_text() {
        let gz = include_bytes!("../../tests/import/cutlass_sm90_ex48_cluster2x1.ptx.gz").to_vec();
        let text = ptx_text(gz).expect("the fixture inflates");
        assert!(text.contains(".entry"), "inflated PTX names its kernels");
        assert_eq!(ptx_text(b".version 8.0\n".to_vec()), Ok(".version 8.0\n".to_string()));
    }

    #[test]
    fn broken_gzip_and_binary_bytes_are_refused() {
        assert_eq!(ptx_text(vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0]), Err(InputError::BadGzip));
        assert_eq!(ptx_text(vec![b'a', 0xc3]), Err(InputError::NotText { offset: 1 }));
    }

    #[test]
    fn options_read_their_text_forms() {
        assert_eq!(parse_dims("2"), Ok([2, 1, 1]));
        assert_eq!(parse_dims("2, 1,1"), Ok([2, 1, 1]));
        assert!(parse_dims("0").is_err() && parse_dims("1,2,3,4").is_err());
        assert_eq!(parse_param("0+0x10=-3"), Ok(ParamValue { name: "0".into(), offset: 16, value: -3 }));
        assert_eq!(parse_param("n=5"), Ok(ParamValue { name: "n".into(), offset: 0, value: 5 }));
        assert!(parse_param("=5").is_err() && parse_param("n").is_err());
    }
}
