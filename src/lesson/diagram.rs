//! Diagrams a lesson embeds with a ```` ```diagram NAME ```` block, drawn as SVG text from
//! the model's own types, so a new scope, proxy or mbarrier operation must be placed here
//! (the matches are exhaustive) and a picture cannot drift from what the checker models.
//!
//! Colours are the app's theme variables (`var(--text)`, `var(--scope-cta)`…), set in
//! `style` attributes so the same SVG works in the light and the dark theme.

use crate::model::{FenceSem, MbarKind, Operand, Proxy, ProxyKind, Scope, SyncRestrict};
use crate::syntax::scope_str;

/// The diagrams lessons can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Diagram {
    /// Scope nesting: thread ⊂ CTA ⊂ cluster ⊂ GPU ⊂ system.
    Scopes,
    /// The mbarrier's state (phase, pending arrivals, tx-count) and what each operation does.
    Mbarrier,
    /// The proxies and the proxy fences between them.
    Proxies,
}

impl Diagram {
    pub const ALL: [Diagram; 3] = [Diagram::Scopes, Diagram::Mbarrier, Diagram::Proxies];

    pub fn name(self) -> &'static str {
        match self {
            Diagram::Scopes => "scopes",
            Diagram::Mbarrier => "mbarrier",
            Diagram::Proxies => "proxies",
        }
    }

    pub fn from_name(name: &str) -> Option<Diagram> {
        Diagram::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The SVG, as one `<svg>` element with a `<title>` for screen readers.
    pub fn svg(self) -> String {
        match self {
            Diagram::Scopes => scopes_svg(),
            Diagram::Mbarrier => mbarrier_svg(),
            Diagram::Proxies => proxies_svg(),
        }
    }
}

/// A problem with the diagram name of a ```` ```diagram ```` fence, or `None`.
pub fn diagram_problem(name: &str) -> Option<String> {
    Diagram::from_name(name).is_none().then(|| {
        let known: Vec<&str> = Diagram::ALL.iter().map(|d| d.name()).collect();
        format!("unknown diagram `{name}` (known: {})", known.join(", "))
    })
}

const FONT: &str = "font-family:var(--sans);font-size:13px";

fn open_svg(width: u32, height: u32, title: &str) -> String {
    format!(
        "<svg class=\"diagram\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" \
height=\"{height}\" role=\"img\"><title>{title}</title>"
    )
}

fn rect(x: u32, y: u32, w: u32, h: u32, stroke: &str, fill: &str) -> String {
    format!(
        "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" rx=\"8\" style=\"fill:{fill};stroke:{stroke};stroke-width:1.5\"/>"
    )
}

fn text(x: u32, y: u32, colour: &str, weight: &str, body: &str) -> String {
    format!("<text x=\"{x}\" y=\"{y}\" style=\"{FONT};fill:{colour};font-weight:{weight}\">{body}</text>")
}

/// The theme colour of a scope's badge.
fn scope_colour(scope: Scope) -> &'static str {
    match scope {
        Scope::Cta => "var(--scope-cta)",
        Scope::Cluster => "var(--scope-cluster)",
        Scope::Gpu => "var(--scope-gpu)",
        Scope::Sys => "var(--scope-sys)",
    }
}

/// What a scope's box holds besides the nested box, as shown to the learner.
fn scope_holds(scope: Scope) -> &'static str {
    match scope {
        Scope::Cta => "the threads of one CTA",
        Scope::Cluster => "the CTAs of one cluster",
        Scope::Gpu => "every thread on the GPU",
        Scope::Sys => "the GPU, the host and peer GPUs",
    }
}

/// Nested boxes, widest scope outermost; beside each nested box, inside its parent, a
/// sibling the nested scope does *not* include.
fn scopes_svg() -> String {
    let nesting = [Scope::Sys, Scope::Gpu, Scope::Cluster, Scope::Cta];
    let (width, height, sibling_w, step) = (760, 300, 120, 34);
    let mut out = open_svg(width, height, "Scope nesting: a thread is in its CTA, its cluster, its GPU and the system");
    let (mut x, mut y, mut w, mut h) = (8, 8, width - 16, height - 16);
    for scope in nesting {
        let colour = scope_colour(scope);
        let label = scope_str(scope);
        out.push_str(&rect(x, y, w, h, colour, "var(--panel)"));
        out.push_str(&text(x + 10, y + 21, colour, "600", label));
        let label_w = 9 * u32::try_from(label.len()).unwrap_or(8);
        out.push_str(&text(x + 20 + label_w, y + 21, "var(--muted)", "400", scope_holds(scope)));
        let (inner_x, inner_y) = (x + 14, y + step);
        let inner_w = w.saturating_sub(28 + sibling_w + 10);
        let sibling = match scope {
            Scope::Sys => Some("another GPU"),
            Scope::Gpu => Some("another cluster"),
            Scope::Cluster => Some("another CTA"),
            Scope::Cta => None,
        };
        if let Some(label) = sibling {
            let sx = inner_x + inner_w + 10;
            out.push_str(&rect(sx, inner_y, sibling_w, 44, "var(--border)", "var(--panel-2)"));
            out.push_str(&text(sx + 10, inner_y + 27, "var(--muted)", "400", label));
        }
        (x, y, w, h) = (inner_x, inner_y, inner_w, h.saturating_sub(step + 10));
    }
    // The innermost box was the CTA's; its thread sits inside it.
    let (cx, cy) = (x - 14 + 24, y - step + 48);
    out.push_str(&format!("<circle cx=\"{cx}\" cy=\"{cy}\" r=\"7\" style=\"fill:var(--text)\"/>"));
    out.push_str(&text(cx + 14, cy + 5, "var(--text)", "400", "a thread"));
    out.push_str(&text(cx - 7, cy + 30, "var(--muted)", "400", "every scope is measured"));
    out.push_str(&text(cx - 7, cy + 48, "var(--muted)", "400", "from the executing thread"));
    out.push_str("</svg>");
    out
}

/// An example of every mbarrier operation kind, to label the state machine from.
fn mbarrier_operations() -> Vec<MbarKind> {
    let arrive = |expect_tx, drop| MbarKind::Arrive { count: None, expect_tx, no_complete: false, drop, state: None };
    vec![
        MbarKind::Init { count: 1 },
        arrive(None, false),
        MbarKind::ExpectTx { bytes: 16 },
        arrive(Some(16), false),
        MbarKind::CompleteTx { bytes: 16 },
        arrive(None, true),
        MbarKind::Arrive { count: Some(1), expect_tx: None, no_complete: true, drop: false, state: None },
        MbarKind::Wait { blocking: true, parity: true, phase: Operand::Imm(0), dst: None },
        MbarKind::PendingCount { dst: "r".into(), state: "s".into() },
        MbarKind::Inval,
    ]
}

/// The instruction's name and what it does to the state, in the diagram's words.
fn mbarrier_effect(kind: &MbarKind) -> (&'static str, &'static str) {
    match kind {
        MbarKind::Init { .. } => ("mbarrier.init [b], N", "phase 0, pending = N, tx = 0"),
        MbarKind::Arrive { expect_tx: Some(_), .. } => ("arrive.expect_tx [b], n", "tx += n, then pending −= 1"),
        MbarKind::Arrive { drop: true, .. } => ("arrive_drop [b]", "N −= 1 for all later phases, then pending −= 1"),
        MbarKind::Arrive { no_complete: true, .. } => ("arrive.noComplete [b], k", "pending −= k; undefined if that completes the phase"),
        MbarKind::Arrive { .. } => ("arrive [b]", "pending −= 1"),
        MbarKind::ExpectTx { .. } => ("expect_tx [b], n", "tx += n"),
        MbarKind::CompleteTx { .. } => ("complete_tx [b], n (TMA, st.async)", "tx −= n"),
        MbarKind::Wait { .. } => ("try_wait.parity [b], p", "true once the phase with parity p completed"),
        MbarKind::PendingCount { .. } => ("pending_count r, state", "reads pending from a state token"),
        MbarKind::Inval => ("mbarrier.inval [b]", "the object is gone until the next init"),
    }
}

/// The current phase's three counters, the operations that move them, and the completion
/// edge to the next phase.
fn mbarrier_svg() -> String {
    let ops = mbarrier_operations();
    let row = 22;
    let height = 150 + row * u32::try_from(ops.len()).unwrap_or(0);
    let mut out = open_svg(680, height, "The mbarrier state machine: phase, pending arrivals and transaction count");
    out.push_str(&rect(8, 8, 300, 100, "var(--accent)", "var(--panel)"));
    out.push_str(&text(20, 30, "var(--accent)", "600", "phase k (parity k mod 2)"));
    out.push_str(&text(20, 54, "var(--text)", "400", "pending arrivals: N … 0"));
    out.push_str(&text(20, 76, "var(--text)", "400", "tx-count: bytes still owed"));
    out.push_str(&text(20, 98, "var(--muted)", "400", "both must reach 0"));
    out.push_str(&rect(372, 8, 300, 100, "var(--ok)", "var(--panel)"));
    out.push_str(&text(384, 30, "var(--ok)", "600", "phase k + 1"));
    out.push_str(&text(384, 54, "var(--text)", "400", "pending = N again, tx = 0"));
    out.push_str(&text(384, 76, "var(--text)", "400", "try_wait.parity (k mod 2) succeeds"));
    out.push_str(
        "<defs><marker id=\"diagram-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" \
orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" style=\"fill:var(--text)\"/></marker></defs>",
    );
    out.push_str(
        "<line x1=\"310\" y1=\"58\" x2=\"368\" y2=\"58\" marker-end=\"url(#diagram-arrow)\" style=\"stroke:var(--text);stroke-width:1.5\"/>",
    );
    out.push_str(&text(314, 50, "var(--muted)", "400", "both 0"));
    out.push_str(&text(8, 136, "var(--text)", "600", "operation"));
    out.push_str(&text(300, 136, "var(--text)", "600", "effect on the current phase"));
    for (i, op) in ops.iter().enumerate() {
        let y = 136 + row * (u32::try_from(i).unwrap_or(0) + 1);
        let (name, effect) = mbarrier_effect(op);
        out.push_str(&format!(
            "<text x=\"8\" y=\"{y}\" style=\"font-family:var(--mono);font-size:12px;fill:var(--text)\">{name}</text>"
        ));
        out.push_str(&text(300, y, "var(--muted)", "400", effect));
    }
    out.push_str("</svg>");
    out
}

/// The proxies a diagram shows, in drawing order (generic first).
const PROXIES: [Proxy; 6] = [Proxy::Generic, Proxy::Async, Proxy::Tensormap, Proxy::Texture, Proxy::Surface, Proxy::Constant];

fn proxy_label(proxy: Proxy) -> &'static str {
    match proxy {
        Proxy::Generic => "ld, st, atom, mbarrier",
        Proxy::Async => "async: TMA, wgmma, tcgen05",
        Proxy::Tensormap => "tensormap (TMA tensor maps)",
        Proxy::Texture => "texture",
        Proxy::Surface => "surface",
        Proxy::Constant => "constant",
    }
}

/// Every proxy-fence form, one example each.
fn proxy_fences() -> Vec<ProxyKind> {
    vec![
        ProxyKind::Async { space: None },
        ProxyKind::AsyncGeneric { sem: FenceSem::Release, restrict: SyncRestrict::SharedCta },
        ProxyKind::Tensormap { sem: FenceSem::Release, scope: Scope::Gpu },
        ProxyKind::Texture,
        ProxyKind::Surface,
        ProxyKind::Constant,
        ProxyKind::Alias,
    ]
}

/// The proxy a fence connects with the generic proxy, its label, and whether it orders
/// both ways; `None` for fences the course's reference does not describe, which the
/// diagram leaves undrawn rather than guess their direction.
fn fence_edge(kind: &ProxyKind) -> Option<(Proxy, &'static str, bool)> {
    match kind {
        ProxyKind::Async { .. } => Some((Proxy::Async, "fence.proxy.async", true)),
        ProxyKind::AsyncGeneric { .. } => Some((Proxy::Async, "fence.proxy.async::generic.release / .acquire", false)),
        ProxyKind::Tensormap { .. } => Some((Proxy::Tensormap, "fence.proxy.tensormap::generic.release / .acquire", false)),
        ProxyKind::Alias => Some((Proxy::Generic, "fence.proxy.alias: one location through two virtual addresses", true)),
        ProxyKind::Texture | ProxyKind::Surface | ProxyKind::Constant => None,
    }
}

/// The generic proxy on the left; one row per proxy fence, an arrow to the proxy it
/// orders the generic proxy against; the proxies with no fence drawn listed below.
fn proxies_svg() -> String {
    let edges: Vec<(Proxy, &str, bool)> = proxy_fences().iter().filter_map(fence_edge).collect();
    let (row_h, top) = (56, 34);
    let drawn: Vec<&(Proxy, &str, bool)> = edges.iter().filter(|(target, _, _)| *target != Proxy::Generic).collect();
    let rows = u32::try_from(drawn.len()).unwrap_or(0);
    let height = top + rows * row_h + 150;
    let mut out = open_svg(760, height, "The proxies and the proxy fences that order accesses between them");
    out.push_str(
        "<defs><marker id=\"diagram-arrow-p\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" \
orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" style=\"fill:var(--text)\"/></marker></defs>",
    );
    out.push_str(&text(8, 20, "var(--text)", "600", "proxy fence"));
    out.push_str(&rect(8, top, 160, rows * row_h - 12, "var(--accent)", "var(--panel)"));
    out.push_str(&text(20, top + 24, "var(--accent)", "600", "generic proxy"));
    out.push_str(&text(20, top + 46, "var(--muted)", "400", proxy_label(Proxy::Generic)));
    for (i, (target, label, both_ways)) in drawn.iter().enumerate() {
        let y = top + row_h * u32::try_from(i).unwrap_or(0) + 20;
        let dash = if *both_ways { "" } else { ";stroke-dasharray:6 4" };
        let start = if *both_ways { " marker-start=\"url(#diagram-arrow-p)\"" } else { "" };
        out.push_str(&format!(
            "<line x1=\"172\" y1=\"{y}\" x2=\"532\" y2=\"{y}\"{start} marker-end=\"url(#diagram-arrow-p)\" \
style=\"stroke:var(--text);stroke-width:1.3{dash}\"/>"
        ));
        out.push_str(&format!(
            "<text x=\"178\" y=\"{}\" style=\"font-family:var(--mono);font-size:11px;fill:var(--text)\">{label}</text>",
            y - 7
        ));
        out.push_str(&rect(536, y - 18, 216, 36, "var(--border)", "var(--panel-2)"));
        out.push_str(&text(546, y + 5, "var(--text)", "400", proxy_label(*target)));
    }
    let mut y = top + rows * row_h + 6;
    for (_, label, _) in edges.iter().filter(|(target, _, _)| *target == Proxy::Generic) {
        out.push_str(&text(8, y, "var(--muted)", "400", label));
        y += 20;
    }
    let undrawn: Vec<&str> = PROXIES
        .iter()
        .filter(|p| **p != Proxy::Generic && !edges.iter().any(|(t, _, _)| t == *p))
        .map(|p| proxy_label(*p))
        .collect();
    out.push_str(&text(8, y, "var(--muted)", "400", &format!("{}: no fence drawn (the course's reference does not describe one)", undrawn.join(", "))));
    out.push_str(&text(8, y + 26, "var(--muted)", "400", "solid, two heads: orders both ways"));
    out.push_str(&text(8, y + 46, "var(--muted)", "400", "dashed: generic to the other proxy only, split into a release half and an acquire half"));
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_diagram_is_one_svg_with_a_title_and_theme_colours_only() {
        for diagram in Diagram::ALL {
            let svg = diagram.svg();
            assert!(svg.starts_with("<svg class=\"diagram\"") && svg.ends_with("</svg>"), "{}", diagram.name());
            assert_eq!(svg.matches("<svg").count(), 1);
            assert!(svg.contains("<title>"));
            assert!(!svg.contains('#') || svg.matches('#').count() == svg.matches("url(#").count(), "no hard-coded colours");
            assert_eq!(Diagram::from_name(diagram.name()), Some(diagram));
        }
        assert!(diagram_problem("scopes").is_none());
        assert!(diagram_problem("bogus").is_some_and(|p| p.contains("known: scopes, mbarrier, proxies")));
    }

    #[test]
    fn the_pictures_come_from_the_model() {
        let scopes = Diagram::Scopes.svg();
        for scope in [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys] {
            assert!(scopes.contains(&format!(">{}<", scope_str(scope))), "{scope:?}");
        }
        let mbarrier = Diagram::Mbarrier.svg();
        for op in mbarrier_operations() {
            assert!(mbarrier.contains(mbarrier_effect(&op).0), "{op:?}");
        }
        let proxies = Diagram::Proxies.svg();
        for (_, label, _) in proxy_fences().iter().filter_map(fence_edge) {
            assert!(proxies.contains(label), "{label}");
        }
    }
}
