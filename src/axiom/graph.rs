//! An execution drawn as herd draws it: one column per thread (initial writes in a row on
//! top), events in program order, and labelled arrows for `rf`, `co`, synchronization and
//! data races.
//! Pure text: the app shows it and exports it as is.

use std::fmt::Write;

use super::{Event, Execution, FenceKind, Kind, Order, Px};
use crate::model::Scenario;

const COLUMN: usize = 220;
const ROW: usize = 70;
const TOP: usize = 40;

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

/// The SVG of `execution` (an `axiom::Witness`'s), with its threads named as in `scenario`.
pub fn svg(scenario: &Scenario, execution: &Execution) -> String {
    svg_noted(scenario, execution, &[])
}

/// [`svg`] with a note beside some events (`(event, text)`), such as a hang's spinning reads.
pub fn svg_noted(scenario: &Scenario, execution: &Execution, notes: &[(usize, String)]) -> String {
    let threads = scenario.threads.len();
    let mut rows = vec![0usize; threads];
    let mut inits = 0usize;
    let mut at = Vec::with_capacity(execution.events.len());
    for e in &execution.events {
        let (x, y) = match e.thread {
            None => {
                inits += 1;
                ((inits - 1) * COLUMN / 2 + 20, TOP)
            }
            Some(t) => {
                rows[t] += 1;
                (t * COLUMN + 20, TOP + ROW * (rows[t] + 1))
            }
        };
        at.push((x, y));
    }
    let height = TOP + ROW * (rows.iter().max().copied().unwrap_or(0) + 2);
    let width = (threads.max(1) * COLUMN).max(inits * COLUMN / 2 + 40);
    let mut out = String::new();
    let _ = write!(out, r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="monospace" font-size="13">"#);
    out.push_str(r#"<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker></defs>"#);
    for (t, thread) in scenario.threads.iter().enumerate() {
        let _ = write!(out, r#"<text x="{}" y="{}" font-weight="bold">{}</text>"#, t * COLUMN + 20, TOP + ROW - 20, escape(&thread.name));
    }
    let edge = |out: &mut String, (a, b): (usize, usize), colour: &str, name: &str| {
        let (Some(&(x1, y1)), Some(&(x2, y2))) = (at.get(a), at.get(b)) else { return };
        let bend = if x1 == x2 { 40 } else { 0 };
        let _ = write!(
            out,
            r#"<path class="{name}" d="M{},{} Q{},{} {},{}" fill="none" stroke="{colour}" marker-end="url(#arrow)"/><text x="{}" y="{}" fill="{colour}">{name}</text>"#,
            x1 + 60,
            y1 + 5,
            (x1 + x2) / 2 + 60 + bend,
            (y1 + y2) / 2,
            x2 + 60,
            y2 - 12,
            (x1 + x2) / 2 + 64 + bend,
            (y1 + y2) / 2
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
    for (e, &(x, y)) in execution.events.iter().zip(&at) {
        let _ = write!(out, r#"<text x="{x}" y="{y}">{}</text>"#, escape(&label(scenario, e)));
    }
    for (e, text) in notes {
        if let Some(&(x, y)) = at.get(*e) {
            let _ = write!(out, r##"<text class="note" x="{x}" y="{}" fill="#7d3c98" font-style="italic">{}</text>"##, y + 16, escape(text));
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
}
