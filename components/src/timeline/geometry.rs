//! Where everything in the timeline diagram goes: one column per agent, one row per step
//! (row 0 is the start, holding the initial values), a dot per step and an arrow per
//! synchronizes-with edge, formed or failed. Plain data so it is tested natively; the
//! component only draws it.

use fencelab::check::view::{AgentKindView, AgentView, AsyncOpState, AsyncOpView, EdgeView, EventView, FailedEdgeView};

use super::labels::{dot_caption, dot_label, shorten, step_words};
use crate::decimal::fixed;

/// Left margin holding the row numbers.
pub const GUTTER: f64 = 58.0;
pub const COLUMN_WIDTH: f64 = 124.0;
/// Column headers: the agent's name and a badge under it.
pub const HEADER_HEIGHT: f64 = 52.0;
pub const ROW_HEIGHT: f64 = 30.0;
pub const DOT_RADIUS: f64 = 6.0;
/// Room right of the last column for its dots' labels and for an edge that returns to
/// its own column.
const RIGHT_MARGIN: f64 = 64.0;
const BOTTOM_MARGIN: f64 = 14.0;
/// How far an edge within one column bulges to the right.
const LOOP_BULGE: f64 = 34.0;
const HEAD_LENGTH: f64 = 9.0;
const HEAD_HALF_WIDTH: f64 = 4.5;

/// What the diagram is drawn from.
pub struct TimelineInput<'a> {
    /// Every agent of the line of play, in id order.
    pub agents: &'a [AgentView],
    /// Every step on the tape: the ones taken, then the ones ahead.
    pub events: &'a [EventView],
    /// Steps taken so far; later events are ahead on the tape.
    pub position: usize,
    pub edges: &'a [EdgeView],
    pub failed: &'a [FailedEdgeView],
    /// Asynchronous operations as they stand at `position`.
    pub async_ops: &'a [AsyncOpView],
    /// Steps to ring (a finding's accesses).
    pub rings: &'a [usize],
}

#[derive(Clone, Debug, PartialEq)]
pub struct Timeline {
    pub width: f64,
    pub height: f64,
    pub columns: Vec<Column>,
    /// Row 0 is the start, row `n` is step `n` (1-based, as the trace numbers them).
    pub rows: Vec<Row>,
    pub dots: Vec<Dot>,
    pub arrows: Vec<Arrow>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub agent: u32,
    pub name: String,
    /// `name`, shortened to fit the column.
    pub short_name: String,
    pub x: f64,
    /// `thread`, or the async operation's state at the current step.
    pub badge: ColumnBadge,
    /// Top of the lifeline: the start for threads, the first step for async agents.
    pub life_from: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnBadge {
    Thread,
    /// The agent only exists further along the tape.
    NotIssued,
    Async(AsyncOpState),
}

impl ColumnBadge {
    pub fn word(self) -> &'static str {
        match self {
            ColumnBadge::Thread => "thread",
            ColumnBadge::NotIssued => "not issued yet",
            ColumnBadge::Async(state) => async_state_word(state),
        }
    }
}

pub fn async_state_word(state: AsyncOpState) -> &'static str {
    match state {
        AsyncOpState::Issued => "issued",
        AsyncOpState::Accessing => "accessing",
        AsyncOpState::Completed => "completed",
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// 0 = start, else the step number.
    pub index: usize,
    pub y: f64,
    pub ahead: bool,
    /// The row the machine is at now: the last step taken, or the start.
    pub current: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Dot {
    /// Step number, 1-based: clicking jumps to just after it.
    pub step: usize,
    pub x: f64,
    pub y: f64,
    pub ahead: bool,
    pub current: bool,
    pub ringed: bool,
    /// e.g. `step 2: producer mbarrier.arrive… (arrive on bar)`.
    pub caption: String,
    /// The instruction without its modifiers, drawn beside the dot: `mbarrier.arrive`.
    pub label: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Arrow {
    pub from: (f64, f64),
    pub to: (f64, f64),
    /// SVG path data from `from` to `to`.
    pub path: String,
    /// SVG polygon points of the head, its tip at `to`.
    pub head: String,
    pub kind: ArrowKind,
    /// Formed (or failed) at a step still ahead on the tape.
    pub ahead: bool,
    pub caption: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ArrowKind {
    /// `scope` is the CSS suffix: `cta`, `cluster`, `gpu`, `sys`, or `none`.
    Formed { scope: String },
    Failed { reason: String },
}

impl Timeline {
    pub fn of(input: &TimelineInput) -> Timeline {
        let columns: Vec<Column> = input.agents.iter().enumerate().map(|(i, a)| column(input, i, a)).collect();
        let rows: Vec<Row> = (0..=input.events.len())
            .map(|index| Row { index, y: row_y(index), ahead: index > input.position, current: index == input.position })
            .collect();
        let x_of = |agent: u32| columns.iter().find(|c| c.agent == agent).map(|c| c.x);
        let dots = input
            .events
            .iter()
            .filter_map(|e| {
                let step = e.step + 1;
                Some(Dot {
                    step,
                    x: x_of(e.agent)?,
                    y: row_y(step),
                    ahead: step > input.position,
                    current: step == input.position,
                    ringed: input.rings.contains(&e.step),
                    caption: dot_caption(step, e),
                    label: dot_label(e),
                })
            })
            .collect();
        let rows_drawn = input.events.len();
        let x_named = |name: &str| columns.iter().find(|c| c.name == name).map(|c| c.x);
        let mut arrows = Vec::new();
        for e in input.edges {
            let (Some(to_x), Some(from_x)) = (x_named(&e.to_agent), x_named(&e.from_agent)) else { continue };
            if e.to_step >= rows_drawn || e.from_step.is_some_and(|s| s >= rows_drawn) {
                continue;
            }
            let scope = e.scope.as_deref().map_or("none", |s| s.trim_start_matches('.')).to_string();
            let caption = format!(
                "{} ({}) ⇢ {} (step {}): {} {}",
                e.from_agent,
                step_words(e.from_step),
                e.to_agent,
                e.to_step + 1,
                e.kind,
                e.scope.as_deref().unwrap_or("(no scope)")
            );
            let from = (from_x, row_y(e.from_step.map_or(0, |s| s + 1)));
            let to = (to_x, row_y(e.to_step + 1));
            arrows.extend(arrow(from, to, ArrowKind::Formed { scope }, e.to_step >= input.position, caption));
        }
        for f in input.failed {
            let Some(to_x) = x_named(&f.to_agent) else { continue };
            if f.to_step >= rows_drawn || f.from_step.is_some_and(|s| s >= rows_drawn) {
                continue;
            }
            let to = (to_x, row_y(f.to_step + 1));
            // With no releasing agent (e.g. a wait that observed no phase), the arrow comes
            // in from the upper left, from nowhere in particular.
            let from = match x_named(&f.from_agent) {
                Some(x) => (x, row_y(f.from_step.map_or(0, |s| s + 1))),
                None => (to.0 - 0.4 * COLUMN_WIDTH, to.1 - 0.8 * ROW_HEIGHT),
            };
            // A failed attempt by a named agent without a step (the checker records one for
            // every arrival it knows of) is drawn from the top of that agent's column.
            let origin = match (x_named(&f.from_agent), f.from_step) {
                (Some(_), Some(s)) => format!("from {} (step {}) ", f.from_agent, s + 1),
                (Some(_), None) => format!("from {} (step not recorded) ", f.from_agent),
                (None, _) => String::new(),
            };
            let caption =
                format!("✗ no synchronization {origin}to {} (step {}): {}", f.to_agent, f.to_step + 1, f.reason);
            // The checker can record the same failed attempt more than once; one dashed
            // arrow says it.
            if arrows.iter().any(|a: &Arrow| a.caption == caption) {
                continue;
            }
            let kind = ArrowKind::Failed { reason: f.reason.clone() };
            arrows.extend(arrow(from, to, kind, f.to_step >= input.position, caption));
        }
        Timeline {
            width: GUTTER + COLUMN_WIDTH * columns.len() as f64 + RIGHT_MARGIN,
            height: row_y(rows_drawn) + ROW_HEIGHT / 2.0 + BOTTOM_MARGIN,
            columns,
            rows,
            dots,
            arrows,
        }
    }

    /// One sentence for screen readers, pointing at the text trace.
    pub fn summary(&self) -> String {
        let formed = self.arrows.iter().filter(|a| matches!(a.kind, ArrowKind::Formed { .. })).count();
        let failed = self.arrows.len() - formed;
        format!(
            "Timeline of {} step(s) across {} agent(s): {formed} synchronizes-with edge(s), {failed} failed attempt(s). The trace below lists the same steps as text.",
            self.dots.len(),
            self.columns.len()
        )
    }
}

/// Vertical centre of row `index` (0 = start).
pub fn row_y(index: usize) -> f64 {
    HEADER_HEIGHT + ROW_HEIGHT * (index as f64 + 0.5)
}

fn column(input: &TimelineInput, index: usize, agent: &AgentView) -> Column {
    let x = GUTTER + COLUMN_WIDTH * (index as f64 + 0.5);
    let is_thread = matches!(agent.kind, AgentKindView::Thread { .. });
    let badge = if is_thread {
        ColumnBadge::Thread
    } else {
        input
            .async_ops
            .iter()
            .find(|op| op.agent == agent.id)
            .map_or(ColumnBadge::NotIssued, |op| ColumnBadge::Async(op.state))
    };
    let first_step = input.events.iter().find(|e| e.agent == agent.id).map(|e| e.step + 1);
    let life_from = if is_thread { row_y(0) } else { row_y(first_step.unwrap_or(input.events.len())) };
    Column { agent: agent.id, name: agent.name.clone(), short_name: shorten(&agent.name), x, badge, life_from }
}



/// The arrow between two dots, stopping at their rims; `None` when they coincide.
fn arrow(from: (f64, f64), to: (f64, f64), kind: ArrowKind, ahead: bool, caption: String) -> Option<Arrow> {
    let same_column = (from.0 - to.0).abs() < f64::EPSILON;
    if same_column {
        if (from.1 - to.1).abs() < f64::EPSILON {
            return None;
        }
        // Within one column the arrow loops out to the right and back.
        let start = (from.0 + DOT_RADIUS, from.1);
        let end = (to.0 + DOT_RADIUS + 1.0, to.1);
        let bulge = from.0 + LOOP_BULGE;
        let path = format!(
            "M {} {} C {} {}, {} {}, {} {}",
            f(start.0), f(start.1), f(bulge), f(start.1), f(bulge), f(end.1), f(end.0), f(end.1)
        );
        let head = head_points(end, (-1.0, 0.0));
        return Some(Arrow { from: start, to: end, path, head, kind, ahead, caption });
    }
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let length = dx.hypot(dy);
    let unit = (dx / length, dy / length);
    let start = (from.0 + unit.0 * DOT_RADIUS, from.1 + unit.1 * DOT_RADIUS);
    let end = (to.0 - unit.0 * (DOT_RADIUS + 1.0), to.1 - unit.1 * (DOT_RADIUS + 1.0));
    let path = format!("M {} {} L {} {}", f(start.0), f(start.1), f(end.0), f(end.1));
    Some(Arrow { from: start, to: end, path, head: head_points(end, unit), kind, ahead, caption })
}

/// A triangle with its tip at `tip`, pointing along `unit`.
fn head_points(tip: (f64, f64), unit: (f64, f64)) -> String {
    let base = (tip.0 - unit.0 * HEAD_LENGTH, tip.1 - unit.1 * HEAD_LENGTH);
    let normal = (-unit.1 * HEAD_HALF_WIDTH, unit.0 * HEAD_HALF_WIDTH);
    format!(
        "{},{} {},{} {},{}",
        f(tip.0), f(tip.1), f(base.0 + normal.0), f(base.1 + normal.1), f(base.0 - normal.0), f(base.1 - normal.1)
    )
}

/// A coordinate for SVG text: one decimal is plenty.
fn f(v: f64) -> String {
    fixed(v, 1)
}

#[cfg(test)]
mod tests;
