//! Share links (`#/s/<code>`, `fencelab::link`) and the embed mode (`?embed`).

mod button;
mod embed;
mod restore;

pub use button::ShareBar;
pub use embed::{is_embed, EmbedView};
pub use restore::restore;
