//! Bundles the GPU observations (`lessons/observations/`, and the templates' sidecars) so
//! the outcome table can show what the hardware did. They are read and checked here, with
//! the core's own parser, and bundled as postcard: the app then needs no JSON parser (see
//! docs/loading.md). The lessons themselves are not bundled: trunk copies them into
//! `dist/` and the app fetches them.
//!
//! It also loads and checks the starter scenario, the explorer's first text, and bundles
//! the load and the report (`crate::starter`), so a first visit shows its text and verdict
//! with neither the parser nor a checker running on the page.

use std::env;
use std::fs;
use std::path::Path;

use fencelab::check::{check, Options};
use fencelab::cuda::Observation;

fn main() {
    let manifest = env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let lessons = Path::new(&manifest).join("..").join("lessons");
    let out_dir = env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    bundle_observations(&lessons, Path::new(&out_dir));
    bundle_starter_report(Path::new(&manifest), Path::new(&out_dir));
    // The wasm keeps its relocations, which wasm-split needs to cut the lazily loaded
    // panels into chunks of their own (`crate::lazy`, scripts/split-app-wasm.sh).
    if env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-bin=fencelab-app=--emit-relocs");
    }
}

/// `observations.postcard`: every observation file that parses, as a postcard
/// `Vec<Observation>`. A file that does not parse is skipped with a warning and named in
/// `observations_skipped.rs`, which the app's `bundled_observations_decode` test reads.
fn bundle_observations(lessons: &Path, out_dir: &Path) {
    let root = lessons.join("..");
    let dirs = [lessons.join("observations"), root.join("tests/scenarios/templates"), root.join("components/templates")];
    let mut files = Vec::new();
    for dir in &dirs {
        println!("cargo:rerun-if-changed={}", dir.display());
        let Ok(entries) = fs::read_dir(dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.to_string_lossy().ends_with(".observed.json") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut observations = Vec::new();
    let mut skipped = String::new();
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = fs::read_to_string(&path).unwrap_or_default();
        match Observation::from_json(&text) {
            Ok(observation) => observations.push(observation),
            Err(err) => {
                println!("cargo:warning=skipping {}: {err}", path.display());
                skipped.push_str(&format!("{:?}, ", format!("{}: {err}", path.display())));
            }
        }
    }
    let listed = format!("/// Observation files the build script could not read.\n#[allow(dead_code)]\npub const SKIPPED: &[&str] = &[{skipped}];\n");
    if let Err(err) = fs::write(out_dir.join("observations_skipped.rs"), listed) {
        println!("cargo:warning=cannot write the skipped observations: {err}");
    }
    let bytes = postcard::to_allocvec(&observations).unwrap_or_else(|err| {
        println!("cargo:warning=cannot encode the observations: {err}");
        Vec::new()
    });
    if let Err(err) = fs::write(out_dir.join("observations.postcard"), bytes) {
        println!("cargo:warning=cannot write the observation bundle: {err}");
    }
}

/// `starter_loaded.postcard`: the starter scenario's `Loaded`, which the explorer takes
/// for that exact text instead of parsing it; `starter_report.postcard`: the checker's
/// report on it under the default options (the explorer's first). The app shows that
/// report only for exactly the scenario this text loads to, and those options.
fn bundle_starter_report(manifest: &Path, out_dir: &Path) {
    let path = manifest.join("templates").join("starter.fence");
    println!("cargo:rerun-if-changed={}", path.display());
    let text = fs::read_to_string(&path).unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
    let loaded = fencelab::load(&text);
    if let Some(problem) = loaded.diagnostics.iter().find(|d| d.is_error()) {
        panic!("{} does not load: {}", path.display(), problem.message);
    }
    let loaded_bytes = postcard::to_allocvec(&loaded).unwrap_or_else(|err| panic!("cannot encode the starter's load: {err}"));
    if let Err(err) = fs::write(out_dir.join("starter_loaded.postcard"), loaded_bytes) {
        panic!("cannot write the starter's load: {err}");
    }
    let options = Options::default();
    let report = check(&loaded.scenario, &options);
    let bytes = postcard::to_allocvec(&report)
        .unwrap_or_else(|err| panic!("cannot encode the starter's report: {err}"));
    if let Err(err) = fs::write(out_dir.join("starter_report.postcard"), bytes) {
        panic!("cannot write the starter's report: {err}");
    }
}
