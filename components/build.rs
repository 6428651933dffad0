//! Bundles the GPU observations (`lessons/observations/`, and the templates' sidecars),
//! minified, so the outcome table can show what the hardware did. The lessons themselves
//! are not bundled: trunk copies them into `dist/` and the app fetches them.

use std::env;
use std::fs;
use std::path::Path;

fn main() {
    let manifest = env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let lessons = Path::new(&manifest).join("..").join("lessons");
    let out_dir = env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    bundle_observations(&lessons, Path::new(&out_dir));
}

/// `OBSERVATIONS: &[&str]`, each a minified observation file. A file that is not JSON is
/// skipped with a warning; the core validates the rest when the app parses them.
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
    let mut entries = String::from("&[\n");
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = fs::read_to_string(&path).unwrap_or_default();
        match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(value) => entries.push_str(&format!("    {:?},\n", value.to_string())),
            Err(err) => println!("cargo:warning=skipping {}: {err}", path.display()),
        }
    }
    entries.push(']');
    let generated = format!("/// Minified observation files (`fencelab observed`), bundled at build time.\npub const OBSERVATIONS: &[&str] = {entries};\n");
    if let Err(err) = fs::write(out_dir.join("observation_bundle.rs"), generated) {
        println!("cargo:warning=cannot write the observation bundle: {err}");
    }
}
