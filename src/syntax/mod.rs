//! The `.fence` text syntax (docs/syntax.md): lexer, recovering parser, canonical printer
//! and the source map that ties model parts back to byte spans.

pub mod forms;
mod lexer;
mod parser;
mod printer;
mod source_map;

pub use parser::{parse, title, Parsed, MAX_COND_DEPTH, MAX_ERRORS, MAX_INPUT_BYTES};
pub use printer::{
    cmp_str, cond_text, condition_text, default_note, expect_str, expectation_text, instr_text, print, print_with_comments,
    scope_str, sem_str, term_text,
};
pub use source_map::{Anchor, Comment, SourceMap};
pub(crate) use printer::is_implicit_cluster;
