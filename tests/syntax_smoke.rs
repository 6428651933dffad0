use fencelab::syntax::{parse, print};

#[test]
fn all_forms_parse_and_reprint() {
    let src = std::fs::read_to_string("tests/syntax/all-forms.fence").unwrap_or_default();
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

#[test]
fn show_verify() {
    let src = std::fs::read_to_string("tests/syntax/all-forms.fence").unwrap_or_default();
    let loaded = fencelab::load(&src);
    eprintln!("{}", fencelab::diag::render_all(&loaded.diagnostics, &src, "all-forms.fence"));
}
