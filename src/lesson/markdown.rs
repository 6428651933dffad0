//! Safe Markdown → HTML for lesson prose. Lessons and shared links are untrusted input, so
//! raw HTML is shown as escaped text and link targets are limited to http(s), relative
//! paths and in-page anchors.

use pulldown_cmark::{CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};

use super::diagram::Diagram;
use super::provenance::scan_tags;

/// Renders `markdown` to HTML that contains no markup the author wrote as HTML and no link
/// to a scheme other than `http`/`https`.
pub fn render_markdown(markdown: &str) -> String {
    render_markdown_linked(markdown, &|_| None)
}

/// Like [`render_markdown`], and a link to another lesson's file (`03-scopes.md`, see
/// [`lesson_file_link`]) goes where `lesson_href` says; `None` keeps it as written.
pub fn render_markdown_linked(markdown: &str, lesson_href: &dyn Fn(&str) -> Option<String>) -> String {
    let events = Parser::new_ext(markdown, parser_options()).map(|event| match neutralize(event) {
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            let href = lesson_file_link(&dest_url).and_then(lesson_href);
            let dest_url = href.map_or(dest_url, CowStr::from);
            Event::Start(Tag::Link { link_type, dest_url, title, id })
        }
        other => other,
    });
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, with_badges(with_diagrams(events).into_iter()).into_iter());
    html
}

/// Replaces each ```` ```diagram NAME ```` code block by the SVG the core draws for it
/// ([`Diagram`]), in a `<figure class="diagram">`; an unknown name stays a code block
/// (`lessons check` reports it). The SVG is ours, not the author's, so it is not escaped.
fn with_diagrams<'a>(events: impl Iterator<Item = Event<'a>>) -> Vec<Event<'a>> {
    let mut out = Vec::new();
    let mut in_diagram = false;
    for event in events {
        if let Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) = &event {
            if let Some(diagram) = diagram_name(info).and_then(Diagram::from_name) {
                out.push(Event::Html(CowStr::from(format!("<figure class=\"diagram\">{}</figure>", diagram.svg()))));
                in_diagram = true;
                continue;
            }
        }
        match (in_diagram, &event) {
            (true, Event::End(TagEnd::CodeBlock)) => in_diagram = false,
            // The block's text (normally empty) is replaced by the drawing.
            (true, _) => {}
            (false, _) => out.push(event),
        }
    }
    out
}

/// `NAME` when a fenced block's info string is `diagram NAME`.
pub fn diagram_name(info: &str) -> Option<&str> {
    let mut words = info.split_whitespace();
    (words.next() == Some("diagram")).then(|| words.next()).flatten().filter(|_| words.next().is_none())
}

/// Replaces well-formed provenance tags (`[spec §1.6]`) in prose text with badges. The
/// parser splits text at brackets, so adjacent text events are joined first; text inside
/// code blocks is left alone. A malformed tag stays text (`lessons check` reports it).
fn with_badges<'a>(events: impl Iterator<Item = Event<'a>>) -> Vec<Event<'a>> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut in_code_block = false;
    for event in events {
        match event {
            Event::Text(t) if !in_code_block => text.push_str(&t),
            other => {
                flush_text(&mut text, &mut out);
                match &other {
                    Event::Start(Tag::CodeBlock(_)) => in_code_block = true,
                    Event::End(TagEnd::CodeBlock) => in_code_block = false,
                    _ => {}
                }
                out.push(other);
            }
        }
    }
    flush_text(&mut text, &mut out);
    out
}

fn flush_text(text: &mut String, out: &mut Vec<Event<'_>>) {
    let mut rest = 0;
    for (range, tag) in scan_tags(text) {
        let Ok(tag) = tag else { continue };
        if let Some(before) = text.get(rest..range.start).filter(|b| !b.is_empty()) {
            out.push(Event::Text(CowStr::from(before.to_string())));
        }
        out.push(Event::InlineHtml(CowStr::from(tag.badge_html())));
        rest = range.end;
    }
    if let Some(after) = text.get(rest..).filter(|a| !a.is_empty()) {
        out.push(Event::Text(CowStr::from(after.to_string())));
    }
    text.clear();
}

/// The lesson file a relative link names (`03-scopes.md`, `./03-scopes.md#top`), as
/// authors link lessons to each other; `None` for any other target.
pub fn lesson_file_link(url: &str) -> Option<&str> {
    let path = url.split(['#', '?']).next().unwrap_or_default();
    let file = path.strip_prefix("./").unwrap_or(path);
    let plain = !file.is_empty() && !file.contains(['/', '\\', ':']);
    (plain && file.ends_with(".md")).then_some(file)
}

/// Every lesson file the prose of `markdown` links to, in order.
pub fn lesson_file_links(markdown: &str) -> Vec<String> {
    Parser::new_ext(markdown, parser_options())
        .filter_map(|event| match event {
            Event::Start(Tag::Link { dest_url, .. }) => lesson_file_link(&dest_url).map(str::to_string),
            _ => None,
        })
        .collect()
}

fn parser_options() -> Options {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options
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
    fn links_between_lessons_go_where_the_caller_says() {
        let href = |file: &str| (file == "02-scopes.md").then(|| "#/lessons/scopes".to_string());
        let html = render_markdown_linked("[a](02-scopes.md) [b](./02-scopes.md#x) [c](03-x.md) [d](https://e.org/02-scopes.md)", &href);
        assert_eq!(html.matches("href=\"#/lessons/scopes\"").count(), 2, "{html}");
        assert!(html.contains("href=\"03-x.md\""), "an unknown file stays as written: {html}");
        assert!(html.contains("href=\"https://e.org/02-scopes.md\""), "{html}");
        let unsafe_html = render_markdown_linked("[x](javascript:alert(1))", &|_| Some("#/evil".into()));
        assert!(unsafe_html.contains("href=\"#\""), "{unsafe_html}");
    }

    #[test]
    fn lesson_file_links_are_plain_relative_md_files() {
        assert_eq!(lesson_file_link("02-scopes.md"), Some("02-scopes.md"));
        assert_eq!(lesson_file_link("./02-scopes.md#top"), Some("02-scopes.md"));
        assert_eq!(lesson_file_link("../other/02.md"), None);
        assert_eq!(lesson_file_link("https://x.org/a.md"), None);
        assert_eq!(lesson_file_link("#top"), None);
        assert_eq!(lesson_file_links("see [one](a.md) and [two](b.md#x), [web](http://w.org)"), vec!["a.md", "b.md"]);
    }

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
    fn provenance_tags_become_badges_and_stay_escape_safe() {
        let html = render_markdown("Scopes must include each other [spec §1.6]. <b>[practice §3.2]</b>\n\n`[spec §1.6]`\n\n```\n[spec §1.6]\n```\n");
        assert_eq!(html.matches("<span class=\"prov prov-spec\"").count(), 1, "{html}");
        assert!(html.contains(">spec §1.6</span>"), "{html}");
        assert!(html.contains("&lt;b&gt;<span class=\"prov prov-practice\""), "raw HTML around a tag stays escaped: {html}");
        assert!(html.contains("<code>[spec §1.6]</code>"), "code spans keep the text: {html}");
        assert!(html.contains("<pre><code>[spec §1.6]\n</code></pre>"), "code blocks keep the text: {html}");
        let bad = render_markdown("[spec 1.6] [spec §1.6\"><script>]");
        assert!(!bad.contains("<span") && !bad.contains("<script"), "{bad}");
    }

    #[test]
    fn ordinary_markdown_renders() {
        let html = render_markdown("# Title\n\nSome `code` and **bold**.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(html.contains("<code>code</code>"), "{html}");
        assert!(html.contains("<table>"), "{html}");
    }

    #[test]
    fn a_diagram_block_becomes_the_cores_svg_and_other_blocks_stay_code() {
        let html = render_markdown("Before.\n\n```diagram scopes\n```\n\n```diagram nope\n```\n\n```rust\nfn x() {}\n```\n");
        assert!(html.contains("<figure class=\"diagram\"><svg class=\"diagram\""), "{html}");
        assert_eq!(html.matches("<svg").count(), 1, "{html}");
        assert!(html.contains("language-diagram"), "an unknown diagram stays a code block: {html}");
        assert!(html.contains("fn x() {}"), "{html}");
    }

}
