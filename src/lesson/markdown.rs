//! Safe Markdown → HTML for lesson prose. Lessons and shared links are untrusted input, so
//! raw HTML is shown as escaped text and link targets are limited to http(s), relative
//! paths and in-page anchors.

use pulldown_cmark::{CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};

/// Renders `markdown` to HTML that contains no markup the author wrote as HTML and no link
/// to a scheme other than `http`/`https`.
pub fn render_markdown(markdown: &str) -> String {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    let events = Parser::new_ext(markdown, options).map(neutralize);
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

/// Whether a link or image target is safe to emit: `http(s)://…`, `//host/…`, a relative
/// path or `#anchor`. Anything with another scheme (`javascript:`, `data:`, …) is not.
pub fn is_safe_url(url: &str) -> bool {
    // Browsers drop whitespace and control characters inside a scheme ("java\tscript:").
    let cleaned: String = url.chars().filter(|c| !c.is_whitespace() && !c.is_control()).collect();
    let end_of_scheme = cleaned.find([':', '/', '?', '#']);
    match end_of_scheme {
        Some(i) if cleaned.get(i..i + 1) == Some(":") => {
            let scheme = cleaned.get(..i).unwrap_or_default().to_ascii_lowercase();
            scheme == "http" || scheme == "https"
        }
        _ => true,
    }
}

fn neutralize(event: Event<'_>) -> Event<'_> {
    match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        // An HTML block becomes a code block, so the escaped markup stays readable.
        Event::Start(Tag::HtmlBlock) => Event::Start(Tag::CodeBlock(CodeBlockKind::Indented)),
        Event::End(TagEnd::HtmlBlock) => Event::End(TagEnd::CodeBlock),
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Link { link_type, dest_url: safe(dest_url), title, id })
        }
        Event::Start(Tag::Image { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Image { link_type, dest_url: safe(dest_url), title, id })
        }
        other => other,
    }
}

fn safe(url: CowStr<'_>) -> CowStr<'_> {
    if is_safe_url(&url) {
        url
    } else {
        CowStr::Borrowed("#")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_tags_are_escaped_text() {
        let html = render_markdown("Hello <script>alert(1)</script> world");
        assert!(!html.contains("<script"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{html}");
    }

    #[test]
    fn html_blocks_are_escaped_text() {
        let html = render_markdown("<div onclick=\"x()\">\n<script>alert(1)</script>\n</div>\n");
        assert!(!html.contains("<div"), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(html.contains("&lt;div onclick="), "{html}");
    }

    #[test]
    fn img_onerror_is_escaped_text() {
        let html = render_markdown("see <img src=x onerror=alert(1)> here");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"), "{html}");
    }

    #[test]
    fn javascript_links_are_neutralized() {
        for src in [
            "[click](javascript:alert(1))",
            "[click](JaVaScRiPt:alert(1))",
            "[click](java%0Ascript:alert(1))",
            "<javascript:alert(1)>",
            "[click](data:text/html,<script>alert(1)</script>)",
            "![pic](javascript:alert(1))",
        ] {
            let html = render_markdown(src).to_ascii_lowercase();
            for attr in ["href=\"", "src=\""] {
                for target in html.split(attr).skip(1) {
                    assert!(target.starts_with('#'), "{src} -> {html}");
                }
            }
        }
    }

    #[test]
    fn control_characters_inside_a_scheme_do_not_hide_it() {
        assert!(!is_safe_url("java\tscript:alert(1)"));
        assert!(!is_safe_url(" javascript:alert(1)"));
        assert!(!is_safe_url("vbscript:msgbox"));
    }

    #[test]
    fn http_relative_and_anchor_links_survive() {
        let html = render_markdown("[a](https://docs.nvidia.com/x) [b](02-scopes.md) [c](#top) [d](http://e.org)");
        assert!(html.contains("href=\"https://docs.nvidia.com/x\""), "{html}");
        assert!(html.contains("href=\"02-scopes.md\""), "{html}");
        assert!(html.contains("href=\"#top\""), "{html}");
        assert!(html.contains("href=\"http://e.org\""), "{html}");
        assert!(is_safe_url("dir/page?x=a:b"));
    }

    #[test]
    fn ordinary_markdown_renders() {
        let html = render_markdown("# Title\n\nSome `code` and **bold**.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(html.contains("<code>code</code>"), "{html}");
        assert!(html.contains("<table>"), "{html}");
    }
}
