//! What a link carries: the scenario and the view the sharer was looking at.

use serde::{Deserialize, Serialize};

use crate::check::Mode;
use crate::model::Scenario;
use crate::schedule::Schedule;

/// Everything a shared link restores.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharePayload {
    pub scenario: Scenario,
    pub view: ViewState,
}

impl SharePayload {
    /// A link to the scenario alone, opened with the default view.
    pub fn scenario_only(scenario: Scenario) -> Self {
        SharePayload { scenario, view: ViewState::default() }
    }
}

/// The part of the app's state worth restoring. Indices here (finding, step, lesson
/// block) come from the link and are not checked against a run: look them up with `get`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewState {
    /// Strict or pragmatic checking.
    pub mode: Mode,
    /// The execution on screen, if any.
    pub trace: Option<TraceRef>,
    /// The selected step of that execution (0-based); `None` shows it from the start.
    pub step: Option<u32>,
    /// The lesson block the scenario came from, if any.
    pub lesson: Option<LessonRef>,
    pub ui: UiOptions,
}

/// Which execution is shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TraceRef {
    /// The witness of `Report::findings[index]`, recomputed by the receiver.
    Finding(u32),
    /// An execution the sharer stepped through by hand.
    Schedule(Schedule),
}

/// A block of a lesson: the lesson's id (its file stem) and the block's index in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonRef {
    pub id: String,
    pub block: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UiOptions {
    pub panels: Panels,
    pub theme: Theme,
}

/// Which panels are open, as a bit set so that a new panel needs no new link format:
/// older readers keep bits they do not know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Panels {
    bits: u32,
}

/// A panel a link can open. Append new panels at the end: the position is the bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Panel {
    Trace,
    Memory,
    Report,
    Explanation,
}

impl Panels {
    pub fn from_bits(bits: u32) -> Self {
        Panels { bits }
    }

    pub fn bits(self) -> u32 {
        self.bits
    }

    pub fn is_open(self, panel: Panel) -> bool {
        self.bits & panel.bit() != 0
    }

    pub fn set(&mut self, panel: Panel, open: bool) {
        if open {
            self.bits |= panel.bit();
        } else {
            self.bits &= !panel.bit();
        }
    }
}

impl Panel {
    fn bit(self) -> u32 {
        1 << self as u32
    }
}

impl Default for Panels {
    fn default() -> Self {
        Panels { bits: Panel::Trace.bit() | Panel::Report.bit() | Panel::Explanation.bit() }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Theme {
    /// Follow the reader's system setting.
    #[default]
    System,
    Light,
    Dark,
}
