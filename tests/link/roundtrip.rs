//! Scenario → link → scenario, for arbitrary scenarios and views.

use crate::arb_scenario::payload;
use crate::on_big_stack;
use crate::samples::{handoff_payload, mbarrier_handoff};
use fencelab::link::{decode, encode, share_url, Panel, Panels, SharePayload, ROUTE};
use proptest::prelude::*;
use proptest::test_runner::TestRunner;

fn survives_a_link(payload: SharePayload) -> Result<(), TestCaseError> {
    let code = encode(&payload).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(code.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    prop_assert_eq!(decode(&code), Ok(payload.clone()));
    let url = share_url("https://fencelab.example/app/", &payload)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(decode(&url), Ok(payload));
    Ok(())
}

#[test]
fn every_payload_survives_a_link() {
    let run = || {
        let mut runner = TestRunner::new(ProptestConfig::with_cases(300));
        runner.run(&payload(), survives_a_link).map_err(|failure| failure.to_string())
    };
    on_big_stack(run).unwrap_or_else(|failure| panic!("{failure}"));
}

#[test]
fn every_accepted_spelling_decodes_to_the_same_payload() {
    let payload = handoff_payload();
    let code = encode(&payload).expect("a valid scenario encodes");
    let wrapped: String = code
        .as_bytes()
        .chunks(20)
        .map(|chunk| String::from_utf8_lossy(chunk).into_owned())
        .collect::<Vec<_>>()
        .join("\n  ");
    let spellings = [
        code.clone(),
        format!("{ROUTE}{code}"),
        format!("/s/{code}"),
        format!("https://host/#/s/{code}"),
        format!("  <https://host/fencelab/index.html#/s/{code}?embed=1>\n"),
        format!("https://host/#/s/{wrapped}"),
        format!("{code}=="),
    ];
    for spelling in spellings {
        assert_eq!(decode(&spelling), Ok(payload.clone()), "spelling {spelling:?}");
    }
}

#[test]
fn share_url_replaces_an_existing_fragment() {
    let payload = handoff_payload();
    let url = share_url("https://host/app/#/lesson/3", &payload).expect("encodes");
    assert!(url.starts_with("https://host/app/#/s/"), "{url}");
    assert_eq!(decode(&url), Ok(payload));
}

#[test]
fn hostile_names_round_trip_as_plain_data() {
    let hostile = "<script>alert(1)</script>";
    let mut scenario = mbarrier_handoff();
    scenario.title = Some(format!("\"{hostile}\" & '{hostile}'"));
    scenario.locations[0].name = hostile.into();
    scenario.threads[0].name = hostile.into();
    scenario.threads[1].name = "javascript:alert(1)//\u{202e}\0".into();
    let payload = SharePayload::scenario_only(scenario);
    let code = encode(&payload).expect("hostile names are just text");
    assert!(!code.contains('<') && !code.contains('>'));
    let decoded = decode(&code).expect("decodes");
    assert_eq!(decoded.scenario.locations[0].name, hostile);
    assert_eq!(decoded.scenario.threads[0].name, hostile);
    assert_eq!(decoded, payload);
}

#[test]
fn panels_keep_bits_this_version_does_not_know() {
    let mut panels = Panels::default();
    assert!(panels.is_open(Panel::Trace) && !panels.is_open(Panel::Memory));
    panels.set(Panel::Memory, true);
    panels.set(Panel::Trace, false);
    assert!(panels.is_open(Panel::Memory) && !panels.is_open(Panel::Trace));
    let future = Panels::from_bits(panels.bits() | 1 << 20);
    let mut payload = handoff_payload();
    payload.view.ui.panels = future;
    let decoded = decode(&encode(&payload).expect("encodes")).expect("decodes");
    assert_eq!(decoded.view.ui.panels.bits(), future.bits());
}

/// Format 3 keeps the author's comments: a link's text prints with them in place.
#[test]
fn comments_survive_a_link_and_print_in_place() {
    let text = "# Handoff: the title comment\ncta A\nshared x @A = 0\n\n# the producer publishes x\nthread p @A:\n    st.release.cta.shared [x], 1  # release, so a reader sees 1\n\nexpect correct\n";
    let loaded = fencelab::load(text);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let comments = loaded.source_map.comments.clone();
    assert!(comments.len() >= 2, "{comments:?}");
    let payload = SharePayload::scenario_only(loaded.scenario.clone());
    let code = fencelab::link::encode_with_comments(&payload, &comments).expect("encodes");
    let (back, back_comments) = fencelab::link::decode_with_comments(&code).expect("decodes");
    assert_eq!(back, payload);
    assert_eq!(back_comments, comments);
    let map = fencelab::syntax::SourceMap { comments: back_comments, ..Default::default() };
    let printed = fencelab::syntax::print_with_comments(&back.scenario, &map);
    assert!(printed.contains("# the producer publishes x"), "{printed}");
    assert!(printed.contains("# release, so a reader sees 1"), "{printed}");
    assert_eq!(fencelab::load(&printed).scenario, loaded.scenario, "the comments change nothing else");
    assert_eq!(decode(&code), Ok(payload), "decode alone drops the comments");
}

/// A comment holding a line break could print as program text the scenario does not hold.
#[test]
fn a_comment_that_spans_lines_is_refused() {
    let loaded = fencelab::load("cta A\nshared x @A = 0\n# note\nthread p @A:\n    st.shared [x], 1\n");
    let mut comments = loaded.source_map.comments.clone();
    assert_eq!(comments.len(), 1);
    comments[0].text = "note\nthread evil @A:".into();
    let payload = SharePayload::scenario_only(loaded.scenario);
    let refused = fencelab::link::encode_with_comments(&payload, &comments);
    assert!(matches!(refused, Err(fencelab::link::LinkError::Invalid(ref why)) if why.contains("several lines")), "{refused:?}");
}

/// The sender's program, as a learner might write it: blank lines, a type suffix and a
/// trailing `;` that the printer drops, comments where the author put them.
const AS_WRITTEN: &str = "# Message passing, as written\ncta A\ncta B\nglobal data = 0\nglobal flag = 0\n\n\nthread producer @A:\n    st.global.u32 [data], 42;   # the payload\n\n    st.release.gpu.global [flag], 1\n\nthread consumer @B:\n    wait ld.acquire.gpu.global r1, [flag] == 1\n    ld.global r0, [data]\n";

/// Format 5 carries the sender's text, so "line 9" is the same line for the receiver.
#[test]
fn the_senders_text_survives_a_link_exactly() {
    on_big_stack(|| {
        let loaded = fencelab::load(AS_WRITTEN);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let comments = loaded.source_map.comments.clone();
        let printed = fencelab::syntax::print_with_comments(&loaded.scenario, &loaded.source_map);
        assert_ne!(printed, AS_WRITTEN, "the sample must differ from its printed form, or this test proves nothing");
        let payload = SharePayload::scenario_only(loaded.scenario.clone());
        let code = fencelab::link::encode_with_source(&payload, &comments, AS_WRITTEN).expect("encodes");
        let decoded = fencelab::link::decode_full(&code).expect("decodes");
        assert_eq!(decoded.payload, payload);
        assert_eq!(decoded.text(), AS_WRITTEN);
        assert_eq!(decoded.text().lines().nth(8), Some("    st.global.u32 [data], 42;   # the payload"), "line 9 is line 9");
        // A link made from the model alone still prints the scenario with its comments.
        let code = fencelab::link::encode_with_comments(&payload, &comments).expect("encodes");
        assert_eq!(fencelab::link::decode_full(&code).expect("decodes").text(), printed);
    });
}

/// A text that says something other than the link's scenario is never shown: encoding
/// refuses it, and a decoded one (a hand-made link) gives way to the printed scenario.
#[test]
fn a_text_that_is_not_the_scenario_is_refused_and_never_shown() {
    on_big_stack(|| {
        let loaded = fencelab::load(AS_WRITTEN);
        let payload = SharePayload::scenario_only(loaded.scenario.clone());
        let other = AS_WRITTEN.replace("[data], 42", "[data], 7");
        let refused = fencelab::link::encode_with_source(&payload, &[], &other);
        assert!(matches!(refused, Err(fencelab::link::LinkError::Invalid(ref why)) if why.contains("does not read as")), "{refused:?}");
        let broken = fencelab::link::encode_with_source(&payload, &[], "cta A\nthread t @A:\n    st.shraed [x], 1\n");
        assert!(refused.is_err() && broken.is_err());
        let forged = fencelab::link::Decoded { payload: payload.clone(), comments: Vec::new(), source: Some(other) };
        assert_eq!(forged.text(), fencelab::syntax::print_with_comments(&payload.scenario, &fencelab::syntax::SourceMap::default()));
    });
}
