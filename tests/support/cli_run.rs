//! Runs the built `fencelab` binary and writes its input files, for the CLI tests.

use std::path::PathBuf;
use std::process::Command;

/// A file of `bytes` in a temporary folder of this test process (`tag` keeps test binaries apart).
pub fn temp_file(tag: &str, name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fencelab-{tag}-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(name);
    let _ = std::fs::write(&path, bytes);
    path
}

/// Exit code (-1 when killed or not started), stdout and stderr.
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fencelab")).args(args).output();
    match out {
        Ok(o) => (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into(), String::from_utf8_lossy(&o.stderr).into()),
        Err(e) => (-1, String::new(), e.to_string()),
    }
}
