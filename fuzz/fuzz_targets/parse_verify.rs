//! Fuzzes the `.fence` front end: arbitrary text through the parser and the verifier,
//! every diagnostic rendered. Text that parses cleanly must print canonically and read
//! back as the same scenario, so the printer and the parser stay one language.

#![no_main]

use fencelab::diag::{explain, render_all};
use fencelab::syntax::{parse, print};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let loaded = fencelab::load(&src);
    for d in &loaded.diagnostics {
        assert!(explain(&d.code).is_some(), "diagnostic code {} has no explanation", d.code);
    }
    let _ = render_all(&loaded.diagnostics, &src, "fuzz.fence");
    let parsed = parse(&src);
    if parsed.has_errors() {
        return;
    }
    let printed = print(&parsed.scenario);
    let again = parse(&printed);
    assert!(!again.has_errors(), "printed text does not parse:\n{printed}\n{:?}", again.diagnostics);
    assert_eq!(again.scenario, parsed.scenario, "printing changed the scenario:\n{printed}");
    assert_eq!(print(&again.scenario), printed, "printing is not stable");
});
