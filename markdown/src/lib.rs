//! The core's safe lesson Markdown renderer, exported to JavaScript. The app loads this
//! module when a lessons page first opens (`components/src/lessons/markdown.rs`), so
//! pulldown-cmark is not in the wasm every visit downloads (docs/loading.md).

use wasm_bindgen::prelude::wasm_bindgen;

/// `markdown` as safe HTML ([`fencelab::lesson::render_markdown_linked`]); a link to the
/// lesson file `files[i]` becomes `hrefs[i]`.
#[wasm_bindgen]
pub fn render(markdown: &str, files: Vec<String>, hrefs: Vec<String>) -> String {
    fencelab::lesson::render_markdown_linked(markdown, &|file| {
        let at = files.iter().position(|listed| listed == file)?;
        hrefs.get(at).cloned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_and_links_listed_lesson_files_only() {
        let html = render(
            "**Bold** [next](./02-b.md#top), [other](03-c.md) <script>x</script>",
            vec!["02-b.md".into()],
            vec!["#/lessons/b".into()],
        );
        assert!(html.contains("<strong>Bold</strong>"), "{html}");
        assert!(html.contains("href=\"#/lessons/b\""), "{html}");
        assert!(!html.contains("<script>"), "{html}");
    }
}
