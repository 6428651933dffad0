//! `fencelab fmt` and `fencelab parse`: exit codes, rewriting, and hostile files.

#[path = "support/cli_run.rs"]
mod cli_run;
use cli_run::{run, temp_file};

#[test]
fn fmt_rewrites_canonically_and_keeps_comments() {
    let path = temp_file("cli", "fmt.fence", b"# T\ncta A\nshared x @A\nthread t @A:\n  st.shared [x],1 ; # store\n");
    let p = path.to_string_lossy().to_string();
    assert_eq!(run(&["fmt", &p]).0, 0);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(text, "# T\n\ncta A\nshared x @A = 0\n\nthread t @A:\n    st.shared::cta [x], 1  # store\n");
    assert_eq!(run(&["fmt", "--check", &p]).0, 0);
}

#[test]
fn fmt_refuses_to_rewrite_a_file_with_errors() {
    let original = b"cta A\nthread t @A:\n    ld.aquire.gpu r0, [x]\n";
    let path = temp_file("cli", "bad.fence", original);
    let p = path.to_string_lossy().to_string();
    let (code, _, stderr) = run(&["fmt", &p]);
    assert_eq!(code, 2);
    assert!(stderr.contains("error[F0203]: unknown modifier `.aquire`"), "{stderr}");
    assert!(stderr.contains("bad.fence:3:7"), "{stderr}");
    assert!(stderr.contains("did you mean `.acquire`?"), "{stderr}");
    assert_eq!(std::fs::read(&path).unwrap_or_default(), original);
}

#[test]
fn parse_prints_the_model_as_json() {
    let path = temp_file("cli", "ok.fence", b"cta A\nglobal g = 3\n");
    let (code, stdout, _) = run(&["parse", &path.to_string_lossy(), "--json"]);
    assert_eq!(code, 0);
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_default();
    assert_eq!(value["locations"][0]["init"], 3);
}

#[test]
fn binary_and_oversized_files_are_input_errors() {
    let binary = temp_file("cli", "bin.fence", &[0x66, 0xff, 0xfe, 0x00]);
    let (code, _, stderr) = run(&["parse", &binary.to_string_lossy(), "--json"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not UTF-8"), "{stderr}");
    let big = temp_file("cli", "big.fence", &vec![b'#'; fencelab::syntax::MAX_INPUT_BYTES + 10]);
    let (code, _, stderr) = run(&["fmt", &big.to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("larger than"), "{stderr}");
    let (code, _, _) = run(&["parse", "/nonexistent/x.fence", "--json"]);
    assert_eq!(code, 2);
}
