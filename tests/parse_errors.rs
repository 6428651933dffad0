//! The parser reports every error with a position, suggests fixes, and stays fast and
//! panic-free on hostile input.

use fencelab::diag::{line_col, render};
use fencelab::syntax::{parse, MAX_ERRORS, MAX_INPUT_BYTES};

/// `(code, line)` of every diagnostic.
fn errors(src: &str) -> Vec<(String, usize)> {
    parse(src)
        .diagnostics
        .iter()
        .map(|d| (d.code.clone(), d.primary_start().map_or(0, |s| line_col(src, s).0)))
        .collect()
}

#[test]
fn reports_every_broken_line() {
    let src = "cta A\nglobal x = 0\nthread t @A:\n    ld.aquire.gpu r0, [x]\n    st [x] 1\n    frobnicate r1\n    ld r2, [x]\nexpect maybe\n";
    let found = errors(src);
    assert_eq!(found, vec![("F0203".into(), 4), ("F0105".into(), 5), ("F0201".into(), 6), ("F0110".into(), 8)]);
    let parsed = parse(src);
    assert_eq!(parsed.scenario.threads.first().map(|t| t.program.len()), Some(2), "good lines are kept");
}

#[test]
fn renders_the_suggestion_for_a_misspelt_modifier() {
    let src = "cta A\nglobal flag = 0\nthread t @A:\n    ld.aquire.gpu r0, [flag]\n";
    let parsed = parse(src);
    let text = parsed.diagnostics.iter().map(|d| render(d, src, "mp.fence")).collect::<String>();
    let expected = "error[F0203]: unknown modifier `.aquire`
 --> mp.fence:4:7
  |
4 |     ld.aquire.gpu r0, [flag]
  |       ^^^^^^^ not a modifier of `ld`
  = help: did you mean `.acquire`?
";
    assert_eq!(text, expected);
}

#[test]
fn suggests_names_and_opcodes() {
    let parsed = parse("cta Producer\nthread t @Prodcer:\n");
    assert_eq!(parsed.diagnostics.first().and_then(|d| d.help.clone()), Some("did you mean `Producer`?".into()));
    let parsed = parse("cta A\nthread t @A:\n    mbarier.arrive [b]\n");
    assert_eq!(parsed.diagnostics.first().and_then(|d| d.help.clone()), Some("did you mean `mbarrier`?".into()));
}

#[test]
fn broken_thread_line_does_not_cascade() {
    let found = errors("cta A\nthread t @B:\n    ld r0, [x]\n    ld r1, [x]\n");
    assert_eq!(found, vec![("F0107".into(), 2)]);
}

#[test]
fn instruction_outside_thread_is_reported() {
    assert_eq!(errors("cta A\nld r0, [x]\n"), vec![("F0104".into(), 2)]);
}

#[test]
fn duplicates_are_reported() {
    let found = errors("cta A\ncta A\nglobal x\nshared x @A\nexpect race\nexpect correct\n");
    let codes: Vec<&str> = found.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(codes, ["F0106", "F0106", "F0109"]);
}

#[test]
fn oversized_input_is_refused() {
    let src = "#".repeat(MAX_INPUT_BYTES + 1);
    assert_eq!(errors(&src).first().map(|e| e.0.as_str()), Some("F0001"));
}

#[test]
fn nul_bytes_are_refused_once() {
    let found = errors("cta A\n\0\0\0\0");
    assert_eq!(found, vec![("F0002".into(), 2)]);
}

#[test]
fn deep_nesting_is_capped() {
    let depth = 100_000;
    let src = format!("exists ({}x == 1{})\n", "(".repeat(depth), ")".repeat(depth));
    assert_eq!(errors(&src).first().map(|e| e.0.as_str()), Some("F0113"));
    let src = format!("exists ({}x == 1)\n", "~".repeat(depth));
    assert_eq!(errors(&src).first().map(|e| e.0.as_str()), Some("F0113"));
}

#[test]
fn error_flood_stops() {
    let src = "garbage here\n".repeat(10_000);
    let found = errors(&src);
    assert!(found.len() <= MAX_ERRORS + 1);
    assert_eq!(found.last().map(|e| e.0.as_str()), Some("F0003"));
}

#[test]
fn long_single_line_is_handled() {
    let src = format!("cta A\nthread t @A:\n    wait {}\n", "wait ".repeat(100_000));
    assert!(!parse(&src).diagnostics.is_empty());
}

#[test]
fn labels_may_share_a_line_with_an_instruction() {
    let parsed = parse("cta A\nthread t @A:\nL: bra L\n");
    assert!(parsed.diagnostics.is_empty());
    assert_eq!(parsed.scenario.threads.first().map(|t| t.program.len()), Some(2));
}

#[test]
fn forward_references_to_ctas_work() {
    let parsed = parse("thread t @A:\n    exit\ncta A in C\ncluster C\n");
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
}

#[test]
fn expect_lines_may_name_one_mode_each() {
    use fencelab::model::{Expect, Expectation, Mode};
    let parsed = parse("cta A\nexpect pragmatic correct\nexpect strict race\n");
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let strict = Expectation { mode: Some(Mode::Strict), verdict: Expect::Race };
    let pragmatic = Expectation { mode: Some(Mode::Pragmatic), verdict: Expect::Correct };
    assert_eq!(parsed.scenario.expect, vec![pragmatic, strict]);
    assert_eq!(fencelab::syntax::print(&parsed.scenario), "cta A\n\nexpect pragmatic correct\nexpect strict race\n");
    // Two lines for one mode, or a line for every mode next to a per-mode one, contradict.
    assert_eq!(errors("cta A\nexpect strict race\nexpect strict correct\n"), vec![("F0109".into(), 3)]);
    assert_eq!(errors("cta A\nexpect correct\nexpect strict race\n"), vec![("F0109".into(), 3)]);
    let missing_verdict = errors("cta A\nexpect strict\n");
    assert_eq!(missing_verdict.iter().map(|e| e.1).collect::<Vec<_>>(), vec![2], "{missing_verdict:?}");
    assert_eq!(errors("cta A\nexpect strickt race\n").first().map(|e| e.0.as_str()), Some("F0110"));
}

#[test]
fn byte_offsets_and_guards_report_bad_forms_with_their_position() {
    let src = "cta A\nglobal x = 0 size 16\nmbarrier bar @A count 1\nthread t @A:\n    ld.global r0, [x+4]\n    st.b32 [x-4], 1\n    mbarrier.arrive [bar+8]\n    @p @q ld r1, [x]\n    setp.lt.gt p, r0, 1\n    wait @p ld.acquire.gpu r2, [x] == 1\n    ld.b32 r3, [x+4]\n";
    let found = errors(src);
    let want: Vec<(String, usize)> =
        [("F0207", 5), ("F0346", 6), ("F0207", 7), ("F0207", 8), ("F0207", 9), ("F0207", 10)].iter().map(|(c, l)| (c.to_string(), *l)).collect();
    assert_eq!(found, want);
    assert_eq!(parse(src).scenario.threads[0].program.len(), 1, "the good ranged load is kept");
}

#[test]
fn an_offset_outside_the_location_names_its_bytes_at_the_operand() {
    let src = "cta A\nglobal x = 0 size 16\nthread t @A:\n    ld.global.b64 r0, [x+12]\n";
    let loaded = fencelab::load(src);
    let text = loaded.diagnostics.iter().map(|d| render(d, src, "r.fence")).collect::<String>();
    let expected = "error[F0346]: offset outside the location: bytes 12..20 of `x`, which holds 16 bytes
 --> r.fence:4:23
  |
4 |     ld.global.b64 r0, [x+12]
  |                       ^^^^^^ covers bytes 12..20
  = help: keep OFFSET + width within 16 (or declare `x` with a larger `size`)
";
    assert_eq!(text, expected);
}
