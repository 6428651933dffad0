//! Every way a pasted link can be wrong gets its own error, and none panics.

use crate::samples::{handoff_payload, mbarrier_handoff};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use fencelab::link::{
    decode, encode, LinkError, SharePayload, FORMAT_VERSION, MAX_CODE_CHARS, MAX_DECODED_BYTES,
    MAX_LINK_CHARS, MAX_NESTING,
};
use fencelab::model::{Cond, FinalCondition, Instr, Quantifier, Space};

const MAGIC: u8 = 0x7C;
/// Format 2's body is the bare payload, so raw postcard bytes make a format-2 code.
const BARE_PAYLOAD_FORMAT: u8 = 2;

fn valid_code() -> String {
    encode(&handoff_payload()).expect("the sample encodes")
}

/// A code with the given header around a zlib-compressed body of raw postcard bytes.
fn code_from_raw(version: u8, raw: &[u8]) -> String {
    let mut bytes = vec![MAGIC, version];
    bytes.extend(miniz_oxide::deflate::compress_to_vec_zlib(raw, 6));
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A code for a payload the encoder would refuse (it validates before encoding).
fn code_bypassing_checks(payload: &SharePayload) -> String {
    code_from_raw(BARE_PAYLOAD_FORMAT, &postcard::to_allocvec(payload).expect("serializes"))
}

#[test]
fn blank_input_is_empty() {
    for text in ["", "   \n", "#/s/", "https://host/#/s/?embed=1", "<>"] {
        assert_eq!(decode(text), Err(LinkError::Empty), "{text:?}");
    }
}

#[test]
fn urls_without_the_share_route_hold_no_scenario() {
    for text in ["https://host/app/", "https://host/#/lesson/3", "#/x/abc"] {
        assert_eq!(decode(text), Err(LinkError::NoScenario), "{text:?}");
    }
}

#[test]
fn foreign_characters_are_located() {
    let code = valid_code();
    let damaged = format!("{}é{}", &code[..10], &code[10..]);
    assert_eq!(decode(&damaged), Err(LinkError::NotBase64 { position: 11, character: 'é' }));
    let plus = format!("{}+{}", &code[..3], &code[4..]);
    assert_eq!(decode(&plus), Err(LinkError::NotBase64 { position: 4, character: '+' }));
    let message = decode(&damaged).expect_err("damaged").to_string();
    assert!(message.contains("'é' at character 11"), "{message}");
    // An invisible character is named by its code point.
    let bell = format!("{}\u{7}{}", &code[..5], &code[5..]);
    let message = decode(&bell).expect_err("a bell").to_string();
    assert!(message.contains("U+0007 at character 6"), "{message}");
}

#[test]
fn every_cut_link_is_rejected_as_truncated() {
    let code = valid_code();
    for len in 1..code.len() {
        let result = decode(&code[..len]);
        assert_eq!(
            result,
            Err(LinkError::Truncated),
            "cut after {len} of {} characters",
            code.len()
        );
    }
}

#[test]
fn other_base64_is_not_a_fencelab_link() {
    let code = URL_SAFE_NO_PAD.encode(b"hello, this is just some text");
    assert_eq!(decode(&code), Err(LinkError::NotFencelab));
}

#[test]
fn newer_formats_are_named_in_the_error() {
    let code = code_from_raw(9, b"whatever a future format holds");
    let error = decode(&code).expect_err("format 9 is unknown");
    assert_eq!(error, LinkError::UnknownVersion { found: 9, newest: FORMAT_VERSION });
    assert_eq!(
        error.to_string(),
        "this link was made by a newer fencelab (format 9); this version reads formats up to 5"
    );
}

#[test]
fn overlong_input_is_refused_before_decoding() {
    let text = "A".repeat(MAX_LINK_CHARS + 1);
    assert_eq!(
        decode(&text),
        Err(LinkError::TooLarge { size: MAX_LINK_CHARS + 1, max: MAX_LINK_CHARS })
    );
}

#[test]
fn zip_bombs_stop_at_the_output_limit() {
    // 16 MiB of zeros deflate to a few kilobytes.
    let code = code_from_raw(BARE_PAYLOAD_FORMAT, &vec![0u8; 16 << 20]);
    assert!(code.len() < MAX_LINK_CHARS, "the bomb itself is a short link");
    assert_eq!(decode(&code), Err(LinkError::ExpandsTooMuch { max: MAX_DECODED_BYTES }));
}

#[test]
fn altered_links_fail_the_checksum() {
    let code = valid_code();
    // Change one character in the middle of the compressed body, keeping valid base64.
    let middle = code.len() / 2;
    let original = code.as_bytes()[middle];
    let replacement = if original == b'A' { 'B' } else { 'A' };
    let altered = format!("{}{replacement}{}", &code[..middle], &code[middle + 1..]);
    assert!(matches!(decode(&altered), Err(LinkError::Corrupt(_))), "{:?}", decode(&altered));
}

#[test]
fn garbage_behind_a_valid_header_is_corrupt_not_a_panic() {
    let raw_payload = postcard::to_allocvec(&handoff_payload()).expect("serializes");
    let mut with_trailing = raw_payload.clone();
    with_trailing.extend([1, 2, 3]);
    let trailing = decode(&code_from_raw(BARE_PAYLOAD_FORMAT, &with_trailing));
    assert_eq!(trailing, Err(LinkError::Corrupt("3 unexpected bytes follow the scenario".into())));
    let cut = decode(&code_from_raw(BARE_PAYLOAD_FORMAT, &raw_payload[..raw_payload.len() / 2]));
    assert_eq!(cut, Err(LinkError::Corrupt("the scenario data ends early".into())));
    let huge_length = decode(&code_from_raw(BARE_PAYLOAD_FORMAT, &[1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]));
    assert!(matches!(huge_length, Err(LinkError::Corrupt(_))), "{huge_length:?}");
}

#[test]
fn out_of_range_indices_are_invalid() {
    type Breakage = fn(&mut SharePayload);
    let cases: [(Breakage, &str); 5] = [
        (
            |p| p.scenario.ctas[0].cluster = 7,
            "CTA `A` is in cluster 7, but there are only 1 clusters",
        ),
        (|p| p.scenario.threads[1].cta = 2, "thread `consumer` is placed in CTA 2"),
        (|p| p.scenario.locations[0].space = Space::Shared(1), "location `x` is placed in CTA 1"),
        (
            |p| p.scenario.locations[0].space = Space::Tmem(usize::MAX),
            "location `x` is placed in CTA",
        ),
        (|p| p.scenario.mbarriers[0].cta = 1, "mbarrier `bar` is placed in CTA 1"),
    ];
    for (break_it, expected) in cases {
        let mut payload = handoff_payload();
        break_it(&mut payload);
        for result in
            [decode(&code_bypassing_checks(&payload)), encode(&payload).map(|_| payload.clone())]
        {
            match result {
                Err(LinkError::Invalid(reason)) => {
                    assert!(reason.starts_with(expected), "{reason}")
                }
                other => panic!("expected an invalid scenario ({expected}), got {other:?}"),
            }
        }
    }
}

/// A payload whose only condition is `Not` applied `depth` times to `True`, built as raw
/// postcard bytes: building the value itself would need that deep a recursion.
fn deeply_negated_code(depth: usize) -> String {
    let mut shallow = handoff_payload();
    shallow.scenario.conditions =
        vec![FinalCondition { quantifier: Quantifier::Exists, cond: Cond::True }];
    let raw = postcard::to_allocvec(&shallow).expect("serializes");
    let mut negated = shallow.clone();
    negated.scenario.conditions[0].cond = Cond::Not(Box::new(Cond::True));
    let raw_negated = postcard::to_allocvec(&negated).expect("serializes");
    // `Cond::Not` is variant 2, written as one byte before its operand.
    let at = raw.iter().zip(&raw_negated).position(|(a, b)| a != b).expect("they differ");
    assert_eq!(raw_negated.get(at), Some(&2));
    let mut deep = raw[..at].to_vec();
    deep.extend(std::iter::repeat_n(2u8, depth));
    deep.extend(&raw[at..]);
    code_from_raw(BARE_PAYLOAD_FORMAT, &deep)
}

#[test]
fn deep_nesting_is_refused_without_overflowing_the_stack() {
    let error = decode(&deeply_negated_code(200_000)).expect_err("far too deep");
    assert_eq!(error, LinkError::Invalid(format!("it nests deeper than {MAX_NESTING} levels")));
    let shallow = decode(&deeply_negated_code(5)).expect("five negations are fine");
    let mut cond = &shallow.scenario.conditions[0].cond;
    let mut negations = 0;
    while let Cond::Not(inner) = cond {
        negations += 1;
        cond = inner;
    }
    assert_eq!((negations, cond), (5, &Cond::True));
}

/// One level more of a self-nesting value.
type Wrap<T> = fn(T) -> T;

/// Every field through which the model contains itself, wrapping `levels` times.
fn self_nesting_payloads(levels: u32) -> Vec<(&'static str, SharePayload)> {
    let wrappers: [(&str, Wrap<Instr>); 3] = [
        ("wait", |instr| Instr::Wait { instr: Box::new(instr), until: None }),
        ("ranged", |instr| Instr::Ranged { instr: Box::new(instr), at: None, src_at: None, width: None }),
        ("guarded", |instr| Instr::Guarded { pred: "p".into(), negated: false, instr: Box::new(instr) }),
    ];
    let conds: [(&str, Wrap<Cond>); 3] = [
        ("not", |cond| Cond::Not(Box::new(cond))),
        ("and", |cond| Cond::And(vec![Cond::True, cond])),
        ("or", |cond| Cond::Or(vec![cond])),
    ];
    let mut payloads = Vec::new();
    for (name, wrap) in wrappers {
        let mut payload = handoff_payload();
        let first = &mut payload.scenario.threads[0].program[0];
        *first = (0..levels).fold(first.clone(), |instr, _| wrap(instr));
        payloads.push((name, payload));
    }
    for (name, wrap) in conds {
        let mut payload = handoff_payload();
        let cond = (0..levels).fold(Cond::True, |cond, _| wrap(cond));
        payload.scenario.conditions = vec![FinalCondition { quantifier: Quantifier::Exists, cond }];
        payloads.push((name, payload));
    }
    payloads
}

#[test]
fn instructions_and_conditions_nest_up_to_the_limit_and_no_further() {
    for (name, payload) in self_nesting_payloads(MAX_NESTING) {
        assert_eq!(decode(&code_bypassing_checks(&payload)), Ok(payload), "{name} at the limit");
    }
    for (name, payload) in self_nesting_payloads(MAX_NESTING + 1) {
        let error = decode(&code_bypassing_checks(&payload)).expect_err(name);
        assert_eq!(error, LinkError::Invalid(format!("it nests deeper than {MAX_NESTING} levels")), "{name}");
    }
}

#[test]
fn messages_follow_the_diagnostic_style() {
    let errors = [
        LinkError::Empty,
        LinkError::NoScenario,
        LinkError::TooLarge { size: 70000, max: MAX_LINK_CHARS },
        LinkError::ScenarioTooLarge { size: 300_000, max: MAX_DECODED_BYTES },
        LinkError::NotBase64 { position: 3, character: '!' },
        LinkError::Truncated,
        LinkError::NotFencelab,
        LinkError::UnknownVersion { found: 2, newest: 1 },
        LinkError::ExpandsTooMuch { max: MAX_DECODED_BYTES },
        LinkError::Corrupt("x".into()),
        LinkError::Invalid("y".into()),
    ];
    for error in errors {
        let message = error.to_string();
        let first = message.chars().next().expect("not empty");
        assert!(first.is_lowercase() && !message.ends_with('.'), "{message}");
    }
}

#[test]
fn an_unchanged_scenario_is_not_mistaken_for_an_error() {
    let scenario = mbarrier_handoff();
    let decoded = decode(&valid_code()).expect("decodes");
    assert_eq!(decoded.scenario, scenario);
}

/// A name of `len` characters that deflate cannot shrink (a simple LCG over letters).
fn incompressible_name(len: usize) -> String {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    (0..len)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            char::from(b'a' + ((state >> 33) % 26) as u8)
        })
        .collect()
}

#[test]
fn scenarios_too_large_to_share_are_refused_by_encode() {
    let mut long_link = handoff_payload();
    long_link.scenario.title = Some(incompressible_name(120_000));
    match encode(&long_link) {
        Err(LinkError::TooLarge { size, max }) => assert!(size > max && max == MAX_CODE_CHARS),
        other => panic!("expected TooLarge, got {:?}", other.map(|code| code.len())),
    }
    let mut huge = handoff_payload();
    huge.scenario.title = Some("x".repeat(MAX_DECODED_BYTES));
    match encode(&huge) {
        Err(LinkError::ScenarioTooLarge { size, max }) => {
            assert!(size > max && max == MAX_DECODED_BYTES)
        }
        other => panic!("expected ScenarioTooLarge, got {:?}", other.map(|code| code.len())),
    }
    let mut fits = handoff_payload();
    fits.scenario.title = Some(incompressible_name(20_000));
    assert_eq!(decode(&encode(&fits).expect("20 000 characters fit")), Ok(fits));
}
