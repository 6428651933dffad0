//! Fuzzes the lesson reader: arbitrary text as a lesson file (front matter, prose, fence
//! and exercise blocks) and as a course index; prose goes through the Markdown renderer
//! and the provenance-tag scanner. The checker is not run here (`check_scenario` is).

#![no_main]

use fencelab::lesson::{lesson_file_links, parse_index, parse_lesson, render_markdown, tag_problems, Block};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let (lesson, errors) = parse_lesson(&src);
    let lines = src.lines().count().max(1);
    for e in &errors {
        assert!((1..=lines + 1).contains(&e.line), "error line {} outside a {lines}-line file: {e}", e.line);
    }
    for block in &lesson.blocks {
        if let Block::Prose(markdown) = block {
            let html = render_markdown(markdown);
            assert!(!html.contains("<script"), "prose rendered live markup: {html}");
            let _ = tag_problems(markdown, 1);
            let _ = lesson_file_links(markdown);
        }
    }
    let _ = parse_index(&src);
});
