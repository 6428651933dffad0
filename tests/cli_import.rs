//! `fencelab import`: the scenario on stdout, gzip input, entry listing, `--check`'s PTX
//! lines and exit codes, hostile files.

#[path = "support/cli_run.rs"]
mod cli_run;
use cli_run::{run, temp_file};

const RELAY: &str = "tests/import/relay_pipeline.ptx";

#[test]
fn import_prints_a_scenario_that_check_runs_unchanged() {
    let (code, stdout, stderr) = run(&["import", RELAY, "--iterations", "1"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("# ptx 262"), "{stdout}");
    let path = temp_file("cli-import", "relay.fence", stdout.as_bytes());
    let (code, out, err) = run(&["check", &path.to_string_lossy()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("correct in pragmatic mode"), "{out}");
}

#[test]
fn import_check_maps_the_seed_003_race_to_ptx_lines() {
    let text = std::fs::read_to_string(RELAY).unwrap_or_default();
    let buggy = text.replace("mbarrier.arrive.release.cluster.shared::cluster.b64", "mbarrier.arrive.shared::cluster.b64");
    assert_ne!(buggy, text);
    // gzip-compressed input is read too.
    let gz = miniz_gzip(buggy.as_bytes());
    let path = temp_file("cli-import", "relay_bug.ptx.gz", &gz);
    let (code, out, err) = run(&["import", &path.to_string_lossy(), "--iterations", "1", "--check", "-o", &temp_file("cli-import", "o.fence", b"").to_string_lossy()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("pragmatic mode: race") && out.contains("strict mode: race"), "{out}");
    assert!(out.contains("ptx 241: write") && out.contains("ptx 160: read"), "{out}");
    assert!(out.contains("ptx 262: the instruction of `c1_w2` the explanation names"), "{out}");
}

/// A gzip member around a deflate stream (CRC left zero: the reader does not check it).
fn miniz_gzip(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    out.extend(miniz_oxide::deflate::compress_to_vec(data, 6));
    out.extend([0; 4]);
    out.extend((data.len() as u32).to_le_bytes());
    out
}

#[test]
fn several_entries_are_listed_and_exit_2() {
    let ptx = ".version 9.0\n.target sm_90\n.address_size 64\n.entry first()\n.maxntid 32\n{\nret;\n}\n.entry second()\n.maxntid 32\n{\nret;\n}\n";
    let path = temp_file("cli-import", "two.ptx", ptx.as_bytes());
    let (code, _, err) = run(&["import", &path.to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(err.contains("2 entries") && err.contains("  first") && err.contains("  second"), "{err}");
    let (code, _, err) = run(&["import", &path.to_string_lossy(), "--entry", "sec"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn hostile_files_exit_2_with_a_line() {
    let binary = temp_file("cli-import", "bin.ptx", &[0x7f, b'E', b'L', b'F', 0, 1, 2, 0xff, 0xfe]);
    let (code, _, err) = run(&["import", &binary.to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(err.contains("not UTF-8") || err.contains("not a text file"), "{err}");
    let truncated = temp_file("cli-import", "cut.ptx", b".version 9.0\n.target sm_90\n.address_size 64\n.entry k()\n.maxntid 32\n{\n mov.u32 %r1,");
    let (code, _, err) = run(&["import", &truncated.to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(err.contains("line 7"), "{err}");
    let bad_gz = temp_file("cli-import", "bad.ptx.gz", &[0x1f, 0x8b, 8, 0, 1, 2, 3]);
    let (code, _, err) = run(&["import", &bad_gz.to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(err.contains("gzip"), "{err}");
}
