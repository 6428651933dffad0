//! Diagnostics: plain data ([`Diagnostic`]), the error-code table and a rustc-style renderer
//! (plain text, or ANSI colours as a render option).

mod codes;
mod diagnostic;
mod render;
mod suggest;

pub use codes::{explain, CodeInfo, CODES};
pub use diagnostic::{Diagnostic, Label, Severity, Span};
pub use render::{line_col, render, render_all, render_indexed, render_styled, LineIndex, Style};
pub use suggest::{closest, edit_distance};
