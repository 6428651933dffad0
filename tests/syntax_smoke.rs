use fencelab::syntax::{parse, print};

#[test]
fn all_forms_parse_and_reprint() {
    let src = std::fs::read_to_string("tests/scenarios/all-forms.fence").unwrap_or_default();
    let parsed = parse(&src);
    for d in &parsed.diagnostics {
        eprintln!("{}", fencelab::diag::render(d, &src, "all-forms.fence"));
    }
    assert!(parsed.diagnostics.is_empty());
    let printed = print(&parsed.scenario);
    eprintln!("{printed}");
    let again = parse(&printed);
    for d in &again.diagnostics {
        eprintln!("{}", fencelab::diag::render(d, &printed, "printed"));
    }
    assert!(again.diagnostics.is_empty());
    assert_eq!(again.scenario, parsed.scenario);
    assert_eq!(print(&again.scenario), printed);
}
