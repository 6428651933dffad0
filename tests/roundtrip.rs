//! The printer and the parser agree: `parse(print(s)) == s`, and printing is stable.

mod common;

use common::strategy;
use fencelab::syntax::{parse, print};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn parse_of_print_is_identity(s in strategy::scenario()) {
        round_trips(&s)?;
    }

    #[test]
    fn parse_of_print_is_identity_with_byte_ranges_and_guards(s in strategy::scenario_with_ranges_and_guards()) {
        round_trips(&s)?;
    }

    #[test]
    fn parser_never_panics_on_arbitrary_text(src in "\\PC{0,300}") {
        let loaded = fencelab::load(&src);
        // Every diagnostic renders without panicking and names a known code.
        for d in &loaded.diagnostics {
            prop_assert!(fencelab::diag::explain(&d.code).is_some(), "{}", d.code);
            let _ = fencelab::diag::render(d, &src, "fuzz.fence");
        }
    }

    #[test]
    fn parser_never_panics_on_mutated_scenarios(s in strategy::scenario(), cut in 0usize..4000, junk in "[\\[\\]().,:@#~!=<>/\\\\a-z0-9 \n-]{0,12}") {
        let mut text = print(&s);
        let at = (0..=cut.min(text.len())).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
        text.insert_str(at, &junk);
        let loaded = fencelab::load(&text);
        for d in &loaded.diagnostics {
            let _ = fencelab::diag::render(d, &text, "mutated.fence");
        }
    }
}

/// `parse(print(s)) == s`, with no diagnostics, and printing it again gives the same text.
fn round_trips(s: &fencelab::model::Scenario) -> Result<(), TestCaseError> {
    let text = print(s);
    let parsed = parse(&text);
    prop_assert!(parsed.diagnostics.is_empty(), "{:?}\n{}", parsed.diagnostics, text);
    prop_assert_eq!(&parsed.scenario, s, "{}", text);
    prop_assert_eq!(print(&parsed.scenario), text);
    Ok(())
}

/// Found by `cargo fuzz run parse_verify`: a lone `\r` inside the title comment does not
/// end the line, and the printer writes it as a space, so the parser must read it so too.
#[test]
fn a_title_with_a_lone_carriage_return_reads_back_as_printed() {
    let parsed = parse("# H100 table, scope fix p\rur fence\n\ncta A\n");
    assert_eq!(parsed.scenario.title.as_deref(), Some("H100 table, scope fix p ur fence"));
    let printed = print(&parsed.scenario);
    assert_eq!(parse(&printed).scenario, parsed.scenario, "{printed}");
}
