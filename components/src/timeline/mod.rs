//! The timeline: a swimlane diagram of the steps taken, with synchronizes-with arrows.

mod diagram;
mod geometry;
mod labels;

pub use diagram::Timeline;
pub use geometry::async_state_word;
