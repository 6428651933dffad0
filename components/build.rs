//! Bundles the course into the app: reads `lessons/index.md` and writes one
//! `include_str!` per listed lesson, so a lesson added to the index needs no code change.

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
    let out = Path::new(&env::var("OUT_DIR").unwrap_or_else(|_| ".".into())).join("lesson_bundle.rs");
    if let Err(err) = fs::write(&out, generated) {
        println!("cargo:warning=cannot write the lesson bundle: {err}");
    }
}
