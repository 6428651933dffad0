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

/// Nested boxes, widest scope outermost, each with a sibling it does *not* include.
fn scopes_svg() -> String {
    let nesting = [Scope::Sys, Scope::Gpu, Scope::Cluster, Scope::Cta];
    let (width, height) = (640, 300);
    let mut out = open_svg(width, height, "Scope nesting: a thread is in its CTA, its cluster, its GPU and the system");
    let (mut x, mut y, mut w, mut h) = (8, 8, 470, height - 16);
    for scope in nesting {
        let colour = scope_colour(scope);
        out.push_str(&rect(x, y, w, h, colour, "var(--panel)"));
        out.push_str(&text(x + 10, y + 20, colour, "600", &format!(".{}", scope_str(scope))));
        out.push_str(&text(x + 60, y + 20, "var(--muted)", "400", scope_holds(scope)));
        // A sibling at the same level: another CTA, cluster or GPU the scope leaves out.
        let sibling = match scope {
            Scope::Sys => None,
            Scope::Gpu => Some("another GPU"),
            Scope::Cluster => Some("another cluster"),
            Scope::Cta => Some("another CTA"),
        };
        if let Some(label) = sibling {
            let sx = x + w + 8;
            let sw = (width - 8).saturating_sub(sx).min(140);
            if sw > 60 {
                out.push_str(&rect(sx, y, sw, 44, "var(--border)", "var(--panel-2)"));
                out.push_str(&text(sx + 8, y + 26, "var(--muted)", "400", label));
            }
        }
        x += 14;
        y += 30;
        w = w.saturating_sub(60);
        h = h.saturating_sub(44);
    }
    out.push_str(&format!(
        "<circle cx=\"{}\" cy=\"{}\" r=\"7\" style=\"fill:var(--text)\"/>",
        x + 20,
        y + 14
    ));
    out.push_str(&text(x + 34, y + 19, "var(--text)", "400", "a thread"));
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
    out.push_str(&text(384, 76, "var(--text)", "400", "waits on parity k succeed"));
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
        Proxy::Generic => "generic: ld, st, atom, mbarrier",
        Proxy::Async => "async: TMA, wgmma, tcgen05",
        Proxy::Tensormap => "tensormap: TMA reads a tensor map",
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

/// The generic proxy on the left, the others on the right, one arrow per proxy fence.
fn proxies_svg() -> String {
    let fences = proxy_fences();
    let row = 44;
    let others: Vec<Proxy> = PROXIES.iter().copied().filter(|p| *p != Proxy::Generic).collect();
    let height = 40 + row * u32::try_from(others.len()).unwrap_or(0) + 40;
    let mut out = open_svg(720, height, "The proxies and the proxy fences that order accesses between them");
    out.push_str(
        "<defs><marker id=\"diagram-arrow-p\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" \
orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" style=\"fill:var(--muted)\"/></marker></defs>",
    );
    let generic_y = height / 2 - 25;
    out.push_str(&rect(8, generic_y, 170, 50, "var(--accent)", "var(--panel)"));
    out.push_str(&text(18, generic_y + 30, "var(--accent)", "600", proxy_label(Proxy::Generic)));
    let y_of = |proxy: Proxy| -> u32 {
        let index = others.iter().position(|p| *p == proxy).unwrap_or(0);
        30 + row * u32::try_from(index).unwrap_or(0)
    };
    for proxy in &others {
        let y = y_of(*proxy);
        out.push_str(&rect(530, y, 182, 34, "var(--border)", "var(--panel-2)"));
        out.push_str(&text(540, y + 22, "var(--text)", "400", proxy_label(*proxy)));
    }
    let mut labelled: Vec<Proxy> = Vec::new();
    for fence in &fences {
        let Some((target, label, both_ways)) = fence_edge(fence) else { continue };
        if target == Proxy::Generic {
            // The alias fence orders the generic proxy with itself, through another address.
            out.push_str(&text(8, generic_y + 72, "var(--muted)", "400", label));
            continue;
        }
        let y = y_of(target) + 17;
        let nth = labelled.iter().filter(|p| **p == target).count();
        labelled.push(target);
        let offset = u32::try_from(nth).unwrap_or(0) * 14;
        let dash = if both_ways { "" } else { ";stroke-dasharray:5 3" };
        let start = if both_ways { " marker-start=\"url(#diagram-arrow-p)\"" } else { "" };
        out.push_str(&format!(
            "<line x1=\"180\" y1=\"{}\" x2=\"526\" y2=\"{}\"{start} marker-end=\"url(#diagram-arrow-p)\" \
style=\"stroke:var(--muted);stroke-width:1.3{dash}\"/>",
            generic_y + 25,
            y + offset
        ));
        let label_y = (generic_y + 25 + y + offset) / 2 + offset - 4;
        out.push_str(&format!(
            "<text x=\"250\" y=\"{label_y}\" style=\"font-family:var(--mono);font-size:11px;fill:var(--text)\">{label}</text>"
        ));
    }
    out.push_str(&text(8, height - 26, "var(--muted)", "400", "solid: orders both ways · dashed: one direction, split into a release and an acquire half"));
    out.push_str(&text(8, height - 8, "var(--muted)", "400", "texture, surface, constant: no fence drawn (the course's reference does not describe one)"));
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
            assert!(scopes.contains(&format!(">.{}<", scope_str(scope))), "{scope:?}");
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
