//! The small widgets inside the machine view: a memory cell, an mbarrier, the edges.

use fencelab::check::view::{LocationView, MachineView as Snapshot, MbarrierDebtView, MbarrierView, WriteView};
use leptos::prelude::*;

use crate::decimal::fixed;
use crate::layout::gauge_percent;

/// One location: its writes in coherence order and, per agent and proxy, which of them a
/// read could return right now (a write that executed may still be invisible).
#[component]
pub fn MemoryCell(
    /// Location name.
    name: String,
    /// Machine state at the current step.
    #[prop(into)]
    snapshot: Signal<Snapshot>,
    /// Edit-mode controls shown next to the name.
    #[prop(default = None)]
    controls: Option<AnyView>,
) -> impl IntoView {
    let label = name.clone();
    let state = crate::state::use_app_state();
    // What the cell shows, so that a step or a new session re-renders only the cells whose
    // location or freshly written values changed, not every cell of the machine.
    let shown = Memo::new(move |_| {
        // The step just taken: its write travels into the cell, then into the readers'
        // "can read" sets (CSS animations on freshly drawn nodes, skipped for reduced motion).
        let last_step = state.read_tape(|t| t.position().checked_sub(1)).flatten();
        let fresh = |w: &WriteView| last_step.is_some() && w.step == last_step;
        snapshot.with(|s| {
            s.locations.iter().find(|l| l.name == name).map(|loc| FreshLocation {
                writes_fresh: loc.writes.iter().map(fresh).collect(),
                ranges_fresh: loc.ranges.iter().map(|r| fresh(&r.latest)).collect(),
                seen: s
                    .reads
                    .iter()
                    .filter(|r| r.location == loc.name)
                    .map(|r| (r.write, r.agent_name.clone(), r.stale.as_ref().map(|st| st.missed), last_step == Some(r.step)))
                    .collect(),
                loc: loc.clone(),
            })
        })
    });
    let body = move || {
        shown.with(|shown| {
            let Some(FreshLocation { loc, writes_fresh, ranges_fresh, seen }) = shown else {
                return view! { <p class="muted">"not tracked"</p> }.into_any();
            };
            let fresh = |i: usize| writes_fresh.get(i).copied().unwrap_or(false);
            let latest = loc.writes.last().map(|w| w.value);
            let landed = loc.writes.len().checked_sub(1).is_some_and(fresh);
            let writes = loc
                .writes
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    let who = match w.step {
                        Some(step) => format!("{} @ step {}", w.writer, step + 1),
                        None => w.writer.clone(),
                    };
                    let proxy = (w.proxy != "generic").then(|| format!(" via {} proxy", w.proxy));
                    // Which agent saw this write, and whose read missed it.
                    let readers = seen
                        .iter()
                        .filter(|(write, ..)| *write == i)
                        .map(|(_, agent, missed, now)| {
                            let stale = missed.is_some();
                            view! { <span class="seen-by" class:seen-stale=stale class:seen-now=*now>{format!("{agent} read it{}", if stale { " (stale)" } else { "" })}</span> }
                        })
                        .collect_view();
                    let missed_by = seen
                        .iter()
                        .filter(|(_, _, missed, _)| *missed == Some(i))
                        .map(|(_, agent, _, now)| view! { <span class="seen-by missed-by" class:seen-now=*now>{format!("{agent} did not see it")}</span> })
                        .collect_view();
                    view! {
                        <li class:latest=i + 1 == loc.writes.len() class:just-written=fresh(i)>
                            <code class="cell-value">{w.value}</code>
                            <span class="muted">{who}{proxy}</span>
                            {readers}{missed_by}
                        </li>
                    }
                })
                .collect_view();
            let visibility = loc
                .visibility
                .iter()
                .map(|v| {
                    let values = loc
                        .writes
                        .iter()
                        .enumerate()
                        .map(|(i, w)| {
                            let readable = v.readable.contains(&i);
                            let title = if readable { "a read could return this now" } else { "executed, but not visible to this reader" };
                            view! { <span class="vis" class:vis-no=!readable class:vis-new=readable && fresh(i) title=title>{w.value}</span> }
                        })
                        .collect_view();
                    let who = if v.proxy == "generic" { v.agent_name.clone() } else { format!("{} ({} proxy)", v.agent_name, v.proxy) };
                    view! { <li><span class="vis-who">{who}</span>" can read: "{values}</li> }
                })
                .collect_view();
            // A location split by byte offsets: each byte range and what it holds now.
            let ranges = (!loc.ranges.is_empty()).then(|| {
                let rows = loc
                    .ranges
                    .iter()
                    .zip(ranges_fresh)
                    .map(|(r, &fresh)| {
                        view! {
                            <li class:just-written=fresh>
                                <span class="muted">{format!("bytes {}..{}", r.start, r.end)}</span>" "
                                <code class="cell-value">{r.latest.value}</code>
                                <span class="muted">{r.latest.writer.clone()}</span>
                            </li>
                        }
                    })
                    .collect_view();
                view! { <ul class="cell-ranges" aria-label="byte ranges, lowest first">{rows}</ul> }
            });
            view! {
                <p class="cell-now" class:just-written=landed><code>{latest.map(|v| v.to_string()).unwrap_or_default()}</code></p>
                {ranges}
                <ol class="cell-writes" aria-label="writes, oldest first">{writes}</ol>
                {(!loc.visibility.is_empty()).then(|| view! { <ul class="cell-vis" aria-label="what each reader can see">{visibility}</ul> })}
            }
            .into_any()
        })
    };
    view! {
        <div class="cell" role="group" aria-label=format!("location {label}")>
            <div class="cell-head"><span class="cell-name">{label.clone()}</span>{controls}</div>
            {body}
        </div>
    }
}

/// A location as the cell draws it, with which of its writes (and byte ranges' latest
/// writes) the step just taken made.
#[derive(Clone, PartialEq)]
struct FreshLocation {
    loc: LocationView,
    writes_fresh: Vec<bool>,
    ranges_fresh: Vec<bool>,
    /// Reads of this location so far: (write returned, reader, write missed, at this step).
    seen: Vec<(usize, String, Option<usize>, bool)>,
}

/// An mbarrier: phase and parity, arrivals pending of expected, the signed tx-count,
/// who waits, and what the next arrive will do. Gauges animate between steps.
#[component]
pub fn MbarrierWidget(
    /// mbarrier name.
    name: String,
    /// Machine state at the current step.
    #[prop(into)]
    snapshot: Signal<Snapshot>,
    /// Edit-mode controls shown next to the name.
    #[prop(default = None)]
    controls: Option<AnyView>,
) -> impl IntoView {
    let label = name.clone();
    let bar = Memo::new(move |_| snapshot.with(|s| s.mbarriers.iter().find(|m| m.name == name).cloned()));
    view! {
        <div class="mbar" role="group" aria-label=format!("mbarrier {label}") data-mbarrier=label.clone()>
            <div class="mbar-head">
                <strong>{format!("mbarrier {label}")}</strong>
                {move || bar.with(|b| match b {
                    Some(b) if b.initialized => view! {
                        <span class="badge">{format!("phase {}", b.phase)}</span>
                        <span class="badge parity" class:parity-odd=b.parity % 2 == 1>{format!("parity {}", b.parity)}</span>
                    }.into_any(),
                    Some(b) if b.invalidated => view! { <span class="badge warn">"invalidated"</span> }.into_any(),
                    Some(_) => view! { <span class="badge warn">"not initialised"</span> }.into_any(),
                    // No stepping session (the layout editor shows a text the verifier rejects).
                    None => view! { <span class="muted">"not tracked"</span> }.into_any(),
                })}
                {controls}
            </div>
            <div class="mbar-state" hidden=move || bar.with(Option::is_none)>
            {move || bar.with(|b| b.clone()).map(|b| {
                let debt = snapshot.with(|s| s.debts.iter().find(|d| d.name == b.name).cloned());
                view! { <DebtGauges bar=b debt=debt /> }
            })}
            {move || bar.with(|b| b.as_ref().map(|b| {
                let waiters = if b.waiters.is_empty() {
                    "nobody waits".to_string()
                } else {
                    b.waiters.iter().map(|w| format!("{} waits for parity {}", w.thread, w.parity)).collect::<Vec<_>>().join("; ")
                };
                view! {
                    <p class="mbar-waiters">{waiters}</p>
                    <p class="mbar-next">{crate::code_text::code_text(&b.next_arrive)}</p>
                }
            }))}
            </div>
        </div>
    }
}

/// An mbarrier's two debts as proportional, signed gauges: the arrivals made of those the
/// phase needs, and the bytes `expect_tx` announced against the bytes `complete_tx`
/// landed. The step that completes a phase shows that phase paid in full, with the flip:
/// the phase turns, the parity turns, waiters wake. `data-value` is what a test reads:
/// arrivals made, and bytes still owed (negative: landed before they were expected).
#[component]
pub fn DebtGauges(
    /// The barrier now.
    bar: MbarrierView,
    /// Its debts in the phase shown (`None` without a stepper's record).
    debt: Option<MbarrierDebtView>,
) -> impl IntoView {
    let just_completed = debt.as_ref().is_some_and(|d| d.just_completed);
    let of = bar.arrivals_of;
    let made = if just_completed { of } else { bar.arrived };
    let arrivals_caption = if just_completed {
        format!("arrivals: {of} of {of}: phase {} complete", debt.as_ref().map_or(0, |d| d.phase))
    } else {
        bar.arrivals_caption.clone()
    };
    let (expected, landed) = debt.as_ref().map_or((bar.tx.max(0), (-bar.tx).max(0)), |d| (d.tx_expected, d.tx_landed));
    let owed = expected - landed;
    let scale = expected.max(landed).max(1);
    let sign = if owed > 0 { "+" } else { "" };
    let meaning = match owed.signum() {
        1 => "bytes still expected",
        -1 => "bytes arrived before they were expected",
        _ => "balanced",
    };
    let tx_caption = format!("tx-count: {sign}{owed} bytes ({meaning}): {expected} expected, {landed} landed");
    let slots = (0..of.clamp(0, 32)).map(|i| view! { <span class="gauge-slot" class:paid={i < made}></span> }).collect_view();
    let flip = just_completed.then(|| {
        let phase = debt.as_ref().map_or(0, |d| d.phase);
        // A waiter on the completed phase's parity passes now; one on the new parity waits on.
        let woken: Vec<&str> = bar.waiters.iter().filter(|w| (w.parity & 1) as u32 != bar.parity).map(|w| w.thread.as_str()).collect();
        let waiters = match woken.as_slice() {
            [] => "no waiter to wake".to_string(),
            [one] => format!("{one} wakes"),
            many => format!("{} wake", many.join(", ")),
        };
        view! {
            <p class="mbar-flip" data-phase-complete=phase>
                {format!("phase {phase} → {}: parity {} → {}; {waiters}", phase + 1, phase & 1, (phase + 1) & 1)}
            </p>
        }
    });
    view! {
        <div class="gauge gauge-arrivals" role="meter" aria-label="arrivals" data-gauge="arrivals" data-value=made
            class:gauge-complete=just_completed
            aria-valuemin="0" aria-valuemax=of.to_string() aria-valuenow=made.to_string()>
            <div class="gauge-fill" style=format!("width: {}%", fixed(gauge_percent(made, of), 2))></div>
            <div class="gauge-slots" aria-hidden="true">{slots}</div>
            <span class="gauge-text">{crate::code_text::code_text(&arrivals_caption)}</span>
        </div>
        <div class="gauge gauge-tx" class:tx-negative={owed < 0} class:tx-positive={owed > 0} role="meter"
            aria-label="transaction count in bytes" data-gauge="tx" data-value=owed aria-valuenow=owed.to_string()>
            {(expected > 0).then(|| view! { <div class="gauge-expected" style=format!("width: {}%", fixed(gauge_percent(expected, scale), 2))></div> })}
            <div class="gauge-fill" style=format!("width: {}%", fixed(gauge_percent(landed, scale), 2))></div>
            <span class="gauge-text">{tx_caption}</span>
        </div>
        {flip}
    }
}

/// Synchronizes-with edges formed so far, coloured by scope, and attempts that failed.
#[component]
pub fn SyncEdges(
    /// Machine state at the current step.
    #[prop(into)]
    snapshot: Signal<Snapshot>,
) -> impl IntoView {
    let state = crate::state::use_app_state();
    view! {
        <div class="sync-edges">
            <h3>"Synchronization so far"</h3>
            {move || snapshot.with(|s| {
                let last_step = state.read_tape(|t| t.position().checked_sub(1)).flatten();
                if s.edges.is_empty() && s.failed_edges.is_empty() {
                    return view! { <p class="muted">"No synchronizes-with edge yet."</p> }.into_any();
                }
                let edges = s.edges.iter().map(|e| {
                    let scope = e.scope.clone().unwrap_or_else(|| "no scope".into());
                    let fresh = last_step == Some(e.to_step);
                    let class = format!("edge scope-{}{}", scope.trim_start_matches('.'), if fresh { " edge-new" } else { "" });
                    let from = e.from_step.map_or("start".to_string(), |s| format!("step {}", s + 1));
                    view! {
                        <li class=class>
                            {format!("{} ({from}) ⇢ {} (step {}): {} {scope}", e.from_agent, e.to_agent, e.to_step + 1, e.kind)}
                        </li>
                    }
                }).collect_view();
                let failed = s.failed_edges.iter().map(|f| {
                    let from = f.from_step.map_or("start".to_string(), |s| format!("step {}", s + 1));
                    view! {
                        <li class="edge edge-failed" tabindex="0" title=f.reason.replace('`', "")>
                            {format!("{} ({from}) ⇢ {} (step {}): no synchronization", f.from_agent, f.to_agent, f.to_step + 1)}
                            <span class="edge-reason">{crate::code_text::code_text(&f.reason)}</span>
                        </li>
                    }
                }).collect_view();
                view! { <ul class="edge-list">{edges}{failed}</ul> }.into_any()
            })}
        </div>
    }
}
