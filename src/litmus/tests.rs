//! Importer tests on small litmus texts in Dat3M's syntax.

use super::*;

#[test]
fn debug_corpus() {
    let dir = std::path::PathBuf::from("/work/shared/conformance/dat3m-ptx");
    let csv = std::fs::read_to_string(dir.join("expected.csv")).unwrap();
    for line in csv.lines() {
        let path = line.split(',').next().unwrap();
        let src = std::fs::read_to_string(dir.join(path)).unwrap();
        match import(&src) {
            Ok(s) => println!("OK {path} threads={} locs={} mbar={}", s.threads.len(), s.locations.len(), s.mbarriers.len()),
            Err(e) => println!("ERR {path}: {e}"),
        }
    }
}
