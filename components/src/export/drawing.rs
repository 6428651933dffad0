//! The exported picture of one step, drawn as SVG: a caption (scenario, mode, step),
//! the lanes as columns with each thread's program and next instruction, the machine
//! (every cell's write history as boxes, the write each read returned joined to its
//! reader, a stale read's missed write dashed; each mbarrier's two debts as gauges) and
//! the timeline (one row per agent, a dot per step, synchronizes-with edges drawn and
//! failed ones dashed). Pure text in integer coordinates, tested natively.

use fencelab::check::view::{AgentKindView, AgentStatusView, EventView, LocationView, ReadView};

use super::Picture;

const WIDTH: i64 = 1100;
const MARGIN: i64 = 16;
const LINE: i64 = 16;
/// Roughly one character of the 12 px monospace text, for cutting lines to fit.
const CHAR: i64 = 7;
const WRITE_W: i64 = 112;
const WRITE_H: i64 = 40;
const NAME_W: i64 = 130;

/// Colours of the light theme: a picture for a bug report reads the same anywhere.
const INK: &str = "#1b1f24";
const MUTED: &str = "#5b6470";
const BORDER: &str = "#d5dae1";
const PANEL: &str = "#f0f2f5";
const ACCENT: &str = "#1f6feb";
const OK: &str = "#1a7f37";
const BAD: &str = "#cf222e";
const WARN: &str = "#9a6700";

/// An SVG being written top to bottom; `y` is where the next part starts.
struct Canvas {
    body: String,
    y: i64,
}

impl Canvas {
    fn text(&mut self, x: i64, y: i64, fill: &str, extra: &str, text: &str) {
        self.body.push_str(&format!("<text x=\"{x}\" y=\"{y}\" fill=\"{fill}\"{extra} xml:space=\"preserve\">{}</text>", escape(text)));
    }

    fn rect(&mut self, x: i64, y: i64, w: i64, h: i64, fill: &str, stroke: &str, extra: &str) {
        self.body.push_str(&format!(
            "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" rx=\"5\" fill=\"{fill}\" stroke=\"{stroke}\"{extra}/>"
        ));
    }

    fn line(&mut self, (x1, y1): (i64, i64), (x2, y2): (i64, i64), stroke: &str, extra: &str) {
        self.body.push_str(&format!("<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"{stroke}\"{extra}/>"));
    }

    fn heading(&mut self, title: &str) {
        self.y += 14;
        self.line((MARGIN, self.y), (WIDTH - MARGIN, self.y), BORDER, "");
        self.y += 20;
        let y = self.y;
        self.text(MARGIN, y, ACCENT, " font-weight=\"bold\" font-size=\"14\"", title);
        self.y += 10;
    }

    /// `text` cut into lines of at most `width` pixels, one `LINE` apart.
    fn paragraph(&mut self, x: i64, width: i64, fill: &str, text: &str) {
        for piece in wrap(text, (width / CHAR).max(8) as usize) {
            self.y += LINE;
            let y = self.y;
            self.text(x, y, fill, "", &piece);
        }
    }
}

/// The current step as a standalone SVG picture.
pub fn svg_of(p: &Picture) -> String {
    let mut c = Canvas { body: String::new(), y: 30 };
    c.text(MARGIN, 30, INK, " font-size=\"16\" font-weight=\"bold\"", &format!("fencelab · {}", p.caption()));
    if let Some(e) = p.history.last() {
        c.paragraph(MARGIN, WIDTH - 2 * MARGIN, MUTED, &format!("Step {}: {}: {} ({})", e.step + 1, e.agent_name, e.instr_text, e.description));
    }
    lanes(&mut c, p);
    machine(&mut c, p);
    timeline(&mut c, p);
    let height = c.y + MARGIN;
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\" \
         font-family=\"DejaVu Sans Mono, monospace\" font-size=\"12\"><title>{}</title>\
         <defs>{}</defs><rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>{}</svg>",
        escape(&p.caption()),
        [OK, BAD, ACCENT].map(arrow_head).concat(),
        c.body
    )
}

/// An arrow head for lines of `colour`, `url(#head-RRGGBB)`.
fn arrow_head(colour: &str) -> String {
    format!(
        "<marker id=\"head-{}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">\
         <path d=\"M0,0 L10,5 L0,10 z\" fill=\"{colour}\"/></marker>",
        &colour[1..]
    )
}

fn head(colour: &str) -> String {
    format!(" marker-end=\"url(#head-{})\"", &colour[1..])
}

/// One column per agent: name, status, the thread's program with the next instruction
/// marked (an async agent: what it does), and the registers.
fn lanes(c: &mut Canvas, p: &Picture) {
    c.heading("Lanes");
    let n = p.agents.len().clamp(1, 5) as i64;
    let gap = 10;
    let w = (WIDTH - 2 * MARGIN - (n - 1) * gap) / n;
    let chars = (w / CHAR - 2).max(8) as usize;
    let mut bottom = c.y;
    for (row, agents) in p.agents.chunks(n as usize).enumerate() {
        let top = if row == 0 { c.y + 8 } else { bottom + 10 };
        for (i, a) in agents.iter().enumerate() {
            let x = MARGIN + i as i64 * (w + gap);
            let (status, colour) = match &a.status {
                AgentStatusView::Enabled { .. } => ("ready", OK),
                AgentStatusView::Blocked { .. } => ("blocked", WARN),
                AgentStatusView::Done => ("done", MUTED),
            };
            let mut rows: Vec<(String, bool)> = match &a.kind {
                AgentKindView::Thread { .. } => p
                    .programs
                    .get(a.id as usize)
                    .map(|lines| lines.iter().enumerate().map(|(k, l)| (l.clone(), a.instr_index == Some(k))).collect())
                    .unwrap_or_default(),
                AgentKindView::Async { kind, issuer } => {
                    let mut rows = vec![(format!("{kind}, issued by {issuer}"), false)];
                    rows.extend(a.instr_text.clone().map(|t| (t, true)));
                    rows
                }
            };
            if !a.registers.is_empty() {
                let regs = a.registers.iter().map(|(r, v)| format!("{r} = {v}")).collect::<Vec<_>>().join(", ");
                rows.push((regs, false));
            }
            let h = 28 + rows.len() as i64 * LINE + 6;
            c.rect(x, top, w, h, PANEL, BORDER, "");
            c.line((x + 2, top + 4), (x + 2, top + h - 4), colour, " stroke-width=\"4\"");
            c.text(x + 10, top + 18, INK, " font-weight=\"bold\"", &cut(&a.name, chars / 2));
            c.text(x + w - 8, top + 18, colour, " text-anchor=\"end\"", status);
            for (k, (text, current)) in rows.iter().enumerate() {
                let y = top + 28 + k as i64 * LINE + 12;
                if *current {
                    c.rect(x + 6, y - 12, w - 12, LINE, "#dbe7fb", ACCENT, " stroke-width=\"0.5\"");
                    c.text(x + 8, y, ACCENT, " font-weight=\"bold\"", "▶");
                }
                c.text(x + 22, y, if *current { INK } else { MUTED }, "", &cut(text, chars - 2));
            }
            bottom = bottom.max(top + h);
        }
    }
    c.y = bottom;
}

/// Each cell's history as write boxes, oldest first; the write each read at this step
/// returned is outlined and joined to its reader, a missed write is dashed red.
fn machine(c: &mut Canvas, p: &Picture) {
    c.heading("Machine");
    let current = p.history.last().map(|e| e.step);
    let fits = ((WIDTH - 2 * MARGIN - NAME_W - 260) / (WRITE_W + 8)) as usize;
    for loc in &p.machine.locations {
        cell(c, p, loc, current, fits);
    }
    for b in &p.machine.mbarriers {
        let top = c.y + 8;
        let debt = p.machine.debts.iter().find(|d| d.name == b.name);
        c.text(MARGIN, top + 16, INK, " font-weight=\"bold\"", &format!("mbarrier {}", b.name));
        c.text(MARGIN, top + 32, MUTED, "", &format!("phase {}, parity {}", b.phase, b.parity));
        let x = MARGIN + NAME_W + 40;
        gauge(c, (x, top + 4), "arrivals", b.arrived, b.arrivals_of.max(1), &b.arrivals_caption);
        if let Some(d) = debt.filter(|d| d.tx_expected != 0 || d.tx_landed != 0) {
            let of = d.tx_expected.max(d.tx_landed).max(1);
            gauge(c, (x, top + 26), "bytes", d.tx_landed, of, &format!("tx: {} expected, {} landed ({} owed)", d.tx_expected, d.tx_landed, d.tx_expected - d.tx_landed));
        }
        c.y = top + 48;
    }
    for op in &p.machine.async_ops {
        c.paragraph(MARGIN, WIDTH - 2 * MARGIN, INK, &format!("{} ({}): {}", op.name, crate::timeline::async_state_word(op.state), op.description));
    }
}

fn cell(c: &mut Canvas, p: &Picture, loc: &LocationView, current: Option<usize>, fits: usize) {
    let top = c.y + 8;
    c.text(MARGIN, top + 25, INK, " font-weight=\"bold\"", &cut(&loc.name, 16));
    let now: Vec<&ReadView> = p.machine.reads.iter().filter(|r| r.location == loc.name && Some(r.step) == current).collect();
    // The newest writes when the history is longer than a row.
    let skip = loc.writes.len().saturating_sub(fits.max(1));
    let x_of = |i: usize| MARGIN + NAME_W + (i - skip) as i64 * (WRITE_W + 8);
    if skip > 0 {
        c.text(MARGIN + NAME_W - 16, top + 25, MUTED, "", "…");
    }
    for (i, w) in loc.writes.iter().enumerate().skip(skip) {
        let x = x_of(i);
        let read = now.iter().any(|r| r.write == i);
        let missed = now.iter().any(|r| r.stale.as_ref().is_some_and(|s| s.missed == i));
        let fresh = w.step.is_some() && w.step == current;
        let (fill, stroke, extra) = match (missed, read, fresh) {
            (true, _, _) => ("#fdecee", BAD, " stroke-width=\"2\" stroke-dasharray=\"5 3\""),
            (_, true, _) => ("#dbe7fb", ACCENT, " stroke-width=\"2\""),
            (_, _, true) => ("#dcf3e3", OK, " stroke-width=\"1.5\""),
            _ => ("#ffffff", BORDER, ""),
        };
        c.rect(x, top, WRITE_W, WRITE_H, fill, stroke, extra);
        c.text(x + 8, top + 18, if missed { BAD } else { INK }, " font-size=\"15\" font-weight=\"bold\"", &w.value.to_string());
        let who = w.step.map_or(w.writer.clone(), |s| format!("{} @{}", w.writer, s + 1));
        c.text(x + 8, top + 33, MUTED, " font-size=\"11\"", &cut(&who, 15));
        if missed {
            c.text(x + WRITE_W - 6, top + 18, BAD, " font-size=\"10\" text-anchor=\"end\"", "not seen");
        }
    }
    // Each read at this step: a pill right of the history, joined to the write it returned.
    let reader_x = MARGIN + NAME_W + fits.min(loc.writes.len()).max(1) as i64 * (WRITE_W + 8) + 30;
    for (k, r) in now.iter().enumerate() {
        let y = top + k as i64 * (WRITE_H + 6);
        let stale = r.stale.is_some();
        let colour = if stale { BAD } else { ACCENT };
        let from = if r.write >= skip { x_of(r.write) + WRITE_W / 2 } else { MARGIN + NAME_W };
        c.body.push_str(&format!(
            "<path d=\"M{from},{} C{from},{} {},{} {reader_x},{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"{}/>",
            top + WRITE_H,
            top + WRITE_H + 16,
            reader_x - 30,
            y + WRITE_H / 2,
            y + WRITE_H / 2,
            head(colour)
        ));
        c.rect(reader_x, y + 6, WIDTH - MARGIN - reader_x, WRITE_H - 12, if stale { "#fdecee" } else { "#dbe7fb" }, colour, "");
        let label = format!("{} got {}{}", r.agent_name, r.value, if stale { " (stale)" } else { "" });
        c.text(reader_x + 8, y + WRITE_H / 2 + 4, colour, " font-weight=\"bold\"", &cut(&label, ((WIDTH - MARGIN - reader_x) / CHAR - 2) as usize));
    }
    c.y = top + WRITE_H.max(now.len() as i64 * (WRITE_H + 6));
    // What every read of this cell returned, in words (stale ones with their reason).
    for r in p.machine.reads.iter().filter(|r| r.location == loc.name) {
        let words = match &r.stale {
            Some(s) => format!(
                "{} read {} = {} at step {} (stale): missed {} by {}: {}",
                r.agent_name,
                r.location,
                r.value,
                r.step + 1,
                s.missed_write.value,
                s.missed_write.writer,
                s.reason
            ),
            None => format!("{} read {} = {} at step {}", r.agent_name, r.location, r.value, r.step + 1),
        };
        c.paragraph(MARGIN + NAME_W, WIDTH - 2 * MARGIN - NAME_W, if r.stale.is_some() { BAD } else { INK }, &words);
    }
    c.y += 4;
}

/// A bar `of` units wide in which `value` units are filled, with its caption after it.
fn gauge(c: &mut Canvas, (x, y): (i64, i64), what: &str, value: i64, of: i64, caption: &str) {
    const BAR: i64 = 260;
    let filled = BAR * value.clamp(0, of) / of;
    c.text(x - 8, y + 13, MUTED, " text-anchor=\"end\" font-size=\"11\"", what);
    c.rect(x, y, BAR, 18, "#ffffff", BORDER, "");
    if filled > 0 {
        c.rect(x, y, filled, 18, "#b7e4c4", OK, "");
    }
    c.text(x + BAR + 10, y + 13, INK, "", caption);
}

/// One row per agent, a dot per step taken, edges between their steps' dots.
fn timeline(c: &mut Canvas, p: &Picture) {
    c.heading("Timeline");
    let steps = p.history.len().max(1) as i64;
    let dx = ((WIDTH - 2 * MARGIN - NAME_W - 20) / steps).clamp(1, 60);
    let top = c.y + 14;
    let row_of = |name: &str| p.agents.iter().position(|a| a.name == name).unwrap_or(0) as i64;
    let at = |step: usize, name: &str| (MARGIN + NAME_W + 10 + step as i64 * dx, top + 12 + row_of(name) * 26);
    for (i, a) in p.agents.iter().enumerate() {
        let y = top + 12 + i as i64 * 26;
        c.text(MARGIN, y + 4, INK, "", &cut(&a.name, 16));
        c.line((MARGIN + NAME_W, y), (WIDTH - MARGIN, y), BORDER, "");
    }
    for e in &p.history {
        for edge in &e.edges {
            let Some(from) = edge.from_step else { continue };
            c.line(at(from, &edge.from_agent), at(e.step, &edge.to_agent), OK, &format!(" stroke-width=\"2\"{}", head(OK)));
        }
        for f in &e.failed_edges {
            let Some(from) = f.from_step else { continue };
            c.line(at(from, &f.from_agent), at(e.step, &f.to_agent), BAD, " stroke-width=\"2\" stroke-dasharray=\"5 4\"");
        }
    }
    for e in &p.history {
        dot(c, at(e.step, &e.agent_name), e, p.history.last().map(|l| l.step) == Some(e.step));
    }
    c.y = top + p.agents.len() as i64 * 26 + 10;
    for e in &p.history {
        // One line per failed edge, though the core may name it twice.
        for (_, f) in e.failed_edges.iter().enumerate().filter(|(i, f)| !e.failed_edges[..*i].contains(f)) {
            c.paragraph(MARGIN, WIDTH - 2 * MARGIN, BAD, &format!("✕ step {}: {} → {} ({}): {}", e.step + 1, f.from_agent, f.to_agent, f.cause, f.reason));
        }
    }
}

fn dot(c: &mut Canvas, (x, y): (i64, i64), e: &EventView, current: bool) {
    let stale = e.reads.iter().any(|r| r.stale.is_some());
    let fill = if stale { BAD } else { ACCENT };
    if current {
        c.body.push_str(&format!("<circle cx=\"{x}\" cy=\"{y}\" r=\"10\" fill=\"none\" stroke=\"{INK}\" stroke-width=\"2\"/>"));
    }
    c.body.push_str(&format!("<circle cx=\"{x}\" cy=\"{y}\" r=\"6\" fill=\"{fill}\"><title>{}</title></circle>", escape(&format!("step {}: {}", e.step + 1, e.description))));
    c.text(x, y - 10, MUTED, " font-size=\"10\" text-anchor=\"middle\"", &(e.step + 1).to_string());
}

/// `text` with at most `chars` characters, an ellipsis marking a cut.
fn cut(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        return text.to_string();
    }
    let mut out: String = text.chars().take(chars.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `text` in lines of at most `chars` characters, broken at spaces where it can be.
fn wrap(text: &str, chars: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > chars {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > chars {
            let head: String = line.chars().take(chars).collect();
            line = line.chars().skip(chars).collect();
            lines.push(head);
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Text for SVG: markup escaped, the checker's code backticks dropped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '`' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_wraps_at_spaces_and_cuts_long_words() {
        assert_eq!(wrap("a bb ccc dddd", 6), ["a bb", "ccc", "dddd"]);
        assert_eq!(wrap("abcdefgh", 3), ["abc", "def", "gh"]);
        assert_eq!(cut("producer", 5), "prod…");
        assert_eq!(cut("r1", 5), "r1");
    }
}
