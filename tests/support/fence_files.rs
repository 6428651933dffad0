//! Finding `.fence` files for the data-driven tests.

use std::path::{Path, PathBuf};

/// Appends every `.fence` file below `dir` to `out` (unsorted).
pub fn fence_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            fence_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "fence") {
            out.push(path);
        }
    }
}
