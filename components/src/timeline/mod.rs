//! The timeline: a swimlane diagram of the steps taken, with synchronizes-with arrows.

mod diagram;
mod geometry;

pub use diagram::Timeline;
pub use geometry::async_state_word;
