//! `fencelab fmt` and `fencelab parse`: exit codes, rewriting, and hostile files.

use std::path::PathBuf;
use std::process::Command;

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fencelab-cli-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(name);
    let _ = std::fs::write(&path, bytes);
    path
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fencelab")).args(args).output();
    match out {
        Ok(o) => (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into(), String::from_utf8_lossy(&o.stderr).into()),
        Err(e) => (-1, String::new(), e.to_string()),
    }
}

#[test]
fn fmt_rewrites_canonically_and_keeps_comments() {
    let path = temp_file("fmt.fence", b"# T\ncta A\nshared x @A\nthread t @A:\n  st.shared [x],1 ; # store\n");
    let p = path.to_string_lossy().to_string();
    assert_eq!(run(&["fmt", &p]).0, 0);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(text, "# T\n\ncta A\nshared x @A = 0\n\nthread t @A:\n    st.shared::cta [x], 1  # store\n");
    assert_eq!(run(&["fmt", "--check", &p]).0, 0);
}

#[test]
fn fmt_refuses_to_rewrite_a_file_with_errors() {
    let original = b"cta A\nthread t @A:\n    ld.aquire.gpu r0, [x]\n";
    let path = temp_file("bad.fence", original);
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
    let path = temp_file("ok.fence", b"cta A\nglobal g = 3\n");
    let (code, stdout, _) = run(&["parse", &path.to_string_lossy(), "--json"]);
    assert_eq!(code, 0);
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_default();
    assert_eq!(value["locations"][0]["init"], 3);
}

#[test]
fn binary_and_oversized_files_are_input_errors() {
    let binary = temp_file("bin.fence", &[0x66, 0xff, 0xfe, 0x00]);
    let (code, _, stderr) = run(&["parse", &binary.to_string_lossy(), "--json"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not UTF-8"), "{stderr}");
    let big = temp_file("big.fence", &vec![b'#'; fencelab::syntax::MAX_INPUT_BYTES + 10]);
    let (code, _, stderr) = run(&["fmt", &big.to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("larger than"), "{stderr}");
    let (code, _, _) = run(&["parse", "/nonexistent/x.fence", "--json"]);
    assert_eq!(code, 2);
}
