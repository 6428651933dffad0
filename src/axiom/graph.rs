//! An execution drawn as herd draws it: one column per thread (initial writes in a row on
//! top), events in program order, and labelled arrows for `rf`, `co`, synchronization and
//! data races.
//! Pure text: the app shows it and exports it as is.

use std::fmt::Write;

use super::{Event, Execution, FenceKind, Kind, Order, Px};
use crate::model::Scenario;

const COLUMN_GAP: usize = 90;
const ROW: usize = 64;
const TOP: usize = 24;
const LEFT: usize = 20;
const BOX_HEIGHT: usize = 24;
/// Monospace 13 px: about 8 px per character, plus padding.
const CHAR_WIDTH: usize = 8;

/// One event's label: `W x=1 rlx`, `R y=0 acq`, `F sc`, `B bar 0`.
fn label(scenario: &Scenario, e: &Event) -> String {
    let name = scenario.locations.get(e.virt).map_or_else(|| "mbar".to_string(), |l| l.name.clone());
    let order = match e.order {
        Order::Weak => "",
        Order::Relaxed => " rlx",
        Order::Acquire => " acq",
        Order::Release => " rel",
    };
    match e.kind {
        Kind::Write if e.thread.is_none() => format!("init {name}={}", e.value),
        Kind::Write => format!("W {name}={}{order}", e.value),
        Kind::Read => format!("R {name}={}{order}", e.value),
        Kind::Fence(f) => match f {
            FenceKind::Sc => "F sc",
            FenceKind::AcqRel => "F acq_rel",
            FenceKind::Acquire => "F acquire",
            FenceKind::Release => "F release",
            FenceKind::Proxy(Px::Sur) => "F proxy.surface",
            FenceKind::Proxy(Px::Tex) => "F proxy.texture",
            FenceKind::Proxy(Px::Con) => "F proxy.constant",
            FenceKind::Proxy(Px::Gen) => "F proxy.generic",
            FenceKind::Alias => "F proxy.alias",
        }
        .to_string(),
        Kind::Barrier(_) => "barrier".to_string(),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Where an edge's label sits along it, per kind, so that an `rf` and a `race` between the
/// same two events do not print on top of each other.
fn label_position(name: &str) -> f64 {
    match name {
        "rf" => 0.3,
        "co" => 0.45,
        "sw" => 0.6,
        _ => 0.7,
    }
}

/// How far an edge between columns bows sideways, per kind.
fn bow(name: &str) -> f64 {
    match name {
        "rf" => 0.0,
        "co" => 14.0,
        "sw" => -14.0,
        _ => 28.0,
    }
}

/// The SVG of `execution` (an `axiom::Witness`'s), with its threads named as in `scenario`.
pub fn svg(scenario: &Scenario, execution: &Execution) -> String {
    svg_noted(scenario, execution, &[])
}

/// [`svg`] with a note beside some events (`(event, text)`), such as a hang's spinning reads.
pub fn svg_noted(scenario: &Scenario, execution: &Execution, notes: &[(usize, String)]) -> String {
    let threads = scenario.threads.len();
    let labels: Vec<String> = execution.events.iter().map(|e| label(scenario, e)).collect();
    let box_width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4) * CHAR_WIDTH + 16;
    let column = box_width + COLUMN_GAP;
    let mut rows = vec![0usize; threads];
    let mut inits = 0usize;
    // Each event's box, by its top-left corner.
    let mut at = Vec::with_capacity(execution.events.len());
    for e in &execution.events {
        let corner = match e.thread {
            None => {
                inits += 1;
                (LEFT + (inits - 1) * (box_width + 20), TOP)
            }
            Some(t) => {
                rows[t] += 1;
                (LEFT + t * column, TOP + ROW * (rows[t] + 1))
            }
        };
        at.push(corner);
    }
    let height = TOP + ROW * (rows.iter().max().copied().unwrap_or(0) + 2);
    let width = (LEFT + threads.max(1) * column).max(LEFT + inits * (box_width + 20));
    let mut out = String::new();
    let _ = write!(out, r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="monospace" font-size="13">"#);
    out.push_str(r#"<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker></defs>"#);
    for (t, thread) in scenario.threads.iter().enumerate() {
        let _ = write!(out, r#"<text x="{}" y="{}" font-weight="bold">{}</text>"#, LEFT + t * column, TOP + ROW + 40, escape(&thread.name));
    }
    let edge = |out: &mut String, (a, b): (usize, usize), colour: &str, name: &str| {
        // A barrier synchronizes with itself too; a loop on one box would only add noise.
        if a == b {
            return;
        }
        let (Some(&(x1, y1)), Some(&(x2, y2))) = (at.get(a), at.get(b)) else { return };
        let (x1, y1, x2, y2) = (x1 as f64, y1 as f64, x2 as f64, y2 as f64);
        let (w, h) = (box_width as f64, BOX_HEIGHT as f64);
        // Program order runs straight down a column; other edges within a column bow out to
        // its right; edges between columns leave and enter by the facing sides.
        let (start, control, end) = if name == "po" {
            let x = x1 + w / 2.0;
            ((x, y1 + h), (x, (y1 + h + y2) / 2.0), (x, y2))
        } else if x1 == x2 {
            let bow = 30.0 + (y2 - y1).abs() / 4.0;
            ((x1 + w, y1 + h / 2.0), (x1 + w + bow, (y1 + y2) / 2.0 + h / 2.0), (x2 + w, y2 + h / 2.0))
        } else {
            let (sx, ex) = if x2 > x1 { (x1 + w, x2) } else { (x1, x2 + w) };
            let (sy, ey) = if y1 == y2 { (y1 + h / 2.0, y2 + h / 2.0) } else if y1 < y2 { (y1 + h, y2 + h / 2.0) } else { (y1 + h / 2.0, y2 + h) };
            // Bowed by kind, so that two edges between the same events stay apart.
            let (dx, dy) = (ex - sx, ey - sy);
            let length = (dx * dx + dy * dy).sqrt().max(1.0);
            let bow = bow(name);
            ((sx, sy), ((sx + ex) / 2.0 - dy / length * bow, (sy + ey) / 2.0 + dx / length * bow), (ex, ey))
        };
        let t = label_position(name);
        let on_curve = |p: fn((f64, f64)) -> f64| (1.0 - t) * (1.0 - t) * p(start) + 2.0 * t * (1.0 - t) * p(control) + t * t * p(end);
        let (lx, ly) = (on_curve(|p| p.0), on_curve(|p| p.1));
        // A `po` label sits beside its short vertical arrow rather than on it.
        let (lx, anchor) = if name == "po" { (lx + 6.0, "start") } else { (lx, "middle") };
        let dash = if name == "race" { r#" stroke-dasharray="6,3""# } else { "" };
        let _ = write!(
            out,
            r##"<path class="{name}" d="M{:.0},{:.0} Q{:.0},{:.0} {:.0},{:.0}" fill="none" stroke="{colour}" stroke-width="1.5"{dash} marker-end="url(#arrow)"/><text x="{:.0}" y="{:.0}" fill="{colour}" stroke="#fff" stroke-width="4" paint-order="stroke" text-anchor="{anchor}" dominant-baseline="middle">{name}</text>"##,
            start.0, start.1, control.0, control.1, end.0, end.1, lx, ly
        );
    };
    // Immediate program order only: the transitive pairs would hide the rest.
    for &(a, b) in &execution.po {
        if !execution.po.iter().any(|&(c, d)| c == a && execution.po.contains(&(d, b))) {
            edge(&mut out, (a, b), "#888", "po");
        }
    }
    for &p in &execution.rf {
        edge(&mut out, p, "#c0392b", "rf");
    }
    for &(a, b) in &execution.co {
        if execution.events.get(a).is_some_and(|e| e.thread.is_some()) {
            edge(&mut out, (a, b), "#2471a3", "co");
        }
    }
    for &p in &execution.sync {
        edge(&mut out, p, "#1e8449", "sw");
    }
    for &p in &execution.races {
        edge(&mut out, p, "#d35400", "race");
    }
    for (text, &(x, y)) in labels.iter().zip(&at) {
        let _ = write!(
            out,
            r##"<rect x="{x}" y="{y}" width="{box_width}" height="{BOX_HEIGHT}" rx="4" fill="#fff" stroke="#555"/><text x="{}" y="{}" text-anchor="middle" dominant-baseline="middle">{}</text>"##,
            x + box_width / 2,
            y + BOX_HEIGHT / 2,
            escape(text)
        );
    }
    for (e, text) in notes {
        if let Some(&(x, y)) = at.get(*e) {
            let _ = write!(out, r##"<text class="note" x="{x}" y="{}" fill="#7d3c98" font-style="italic">{}</text>"##, y + BOX_HEIGHT + 14, escape(text));
        }
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::axiom::{allowed, Limits};

    #[test]
    fn load_buffering_graph_shows_both_reads_from_later_writes() {
        let src = "PTX LB\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n ld.relaxed.gpu r0, x | ld.relaxed.gpu r1, y ;\n st.relaxed.gpu y, 1 | st.relaxed.gpu x, 1 ;\nexists (P0:r0 == 1 /\\ P1:r1 == 1)\n";
        let scenario = crate::litmus::import(src).expect("imports");
        let allowed = allowed(&scenario, &Limits::default()).expect("in the fragment");
        let (_, witness) = allowed
            .finals
            .iter()
            .find(|(f, _)| f.regs.iter().all(|r| r.values().all(|v| *v == 1)))
            .expect("LB is allowed");
        assert!(!witness.in_time);
        let svg = svg(&scenario, &witness.execution);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches(r#"class="rf""#).count(), 2, "{svg}");
        assert_eq!(svg.matches(r#"class="po""#).count(), 2, "{svg}");
        assert!(svg.contains("R x=1 rlx") && svg.contains("W y=1 rlx") && svg.contains(">P0<"), "{svg}");
    }

    /// An `rf` and a `race` between the same two events (a weak store read by another CTA's
    /// weak load) must not print their labels on one spot, nor on an event.
    #[test]
    fn no_two_texts_share_a_spot() {
        let src = "PTX same-pair\n{ t=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak t, 1 | ld.weak r1, t ;\nexists (P1:r1 == 1)\n";
        let scenario = crate::litmus::import(src).expect("imports");
        let allowed = allowed(&scenario, &Limits::default()).expect("in the fragment");
        let (_, witness) = allowed.finals.iter().find(|(f, _)| f.regs.iter().any(|r| r.values().any(|v| *v == 1))).expect("r1 = 1 is allowed");
        let svg = svg(&scenario, &witness.execution);
        assert!(svg.contains(r#"class="race""#) && svg.contains(r#"class="rf""#), "{svg}");
        let spots: Vec<&str> = svg.split("<text ").skip(1).map(|t| t.split(" fill").next().unwrap_or(t).split(" text-anchor").next().unwrap_or(t)).collect();
        let mut unique = spots.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), spots.len(), "{spots:?}");
    }
}
