//! Bundles the course into the app: reads `lessons/index.md` and writes one
//! `include_str!` per listed lesson, so a lesson added to the index needs no code change.
//! Also bundles GPU observations (`lessons/observations/`, and the templates' sidecars),
//! minified, so the outcome table can show what the hardware did.

use std::env;
use std::fs;
use std::path::Path;

fn main() {
    let manifest = env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let lessons = Path::new(&manifest).join("..").join("lessons");
    let index = lessons.join("index.md");
    println!("cargo:rerun-if-changed={}", index.display());
    let text = fs::read_to_string(&index).unwrap_or_default();
    let mut entries = String::from("&[\n");
    // Only well-formed names become paths; the core's `parse_index` reports the rest.
    for file in text.lines().filter_map(|l| l.trim().strip_prefix("- ")).map(str::trim) {
        let well_formed = file.ends_with(".md") && !file.contains(['/', '\\', ' ', '"']) && !file.starts_with('.');
        let path = lessons.join(file);
        if !well_formed || !path.is_file() {
            continue;
        }
        println!("cargo:rerun-if-changed={}", path.display());
        entries.push_str(&format!("    ({file:?}, include_str!({:?})),\n", path.display().to_string()));
    }
    entries.push(']');
    let generated = format!(
        "/// The course outline, as written.\npub const INDEX: &str = include_str!({:?});\n\
         /// `(file name, text)` of every lesson the index lists, in course order.\n\
         pub const LESSONS: &[(&str, &str)] = {entries};\n",
        index.display().to_string()
    );
    let out_dir = env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    let out = Path::new(&out_dir).join("lesson_bundle.rs");
    if let Err(err) = fs::write(&out, generated) {
        println!("cargo:warning=cannot write the lesson bundle: {err}");
    }
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
