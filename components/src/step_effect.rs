//! The step's effect where the eye already is: beside the step controls, the cells,
//! registers, edges, mbarriers and asynchronous agents the step just taken touched. It is
//! the compact machine of the explorer's step dock, of a phone and of a lesson's "Step
//! through it". Everything comes from the stepper's records (`EventView::reads`,
//! `EventView::mbarriers`, the edges, `MachineView::debts`); nothing here decides what a
//! read may return. Each part animates once when drawn (CSS, ≤ 300 ms, off with the
//! "animate" checkbox and `prefers-reduced-motion`) and stays until the next step.

use fencelab::model::{By, Object, Scenario, Use};
use fencelab::check::view::{
    AgentKindView, AgentView, AsyncOpState, AsyncOpView, EventView, FailedEdgeView, LocationView, MbarrierDebtView, MbarrierView,
    ReadView,
};
use leptos::prelude::*;

use crate::code_text::code_text;
use crate::machine_parts::DebtGauges;
use crate::scope_reach::{scope_reach, ScopeReach};
use crate::state::use_app_state;

/// Scenarios with at most this many mbarriers show them all, touched or not, so their
/// debts stay in sight between the steps that pay them.
const ALWAYS_SHOWN_MBARRIERS: usize = 2;

/// What the compact machine draws for the step just taken.
#[derive(Clone, Debug, PartialEq)]
struct StepPicture {
    /// The step just taken; `None` at the start.
    event: Option<EventView>,
    /// The locations it wrote or read.
    cells: Vec<LocationView>,
    /// The mbarriers it changed (or all, when few), with their debts.
    bars: Vec<(MbarrierView, Option<MbarrierDebtView>)>,
    /// Asynchronous operations in flight or just completed by this step, each with what its
    /// issuing instruction has it touch.
    ops: Vec<(AsyncOpView, OpFootprint)>,
    /// Every read so far: what each thread's reads returned.
    kept: Vec<ReadView>,
    /// Per failed edge of the step, the scope box a scope mismatch draws.
    reaches: Vec<Option<ScopeReach>>,
}

fn picture(state: crate::state::AppState) -> Option<StepPicture> {
    state.read_tape(|t| {
        let stepper = t.stepper();
        let event = stepper.history().last().cloned();
        let snapshot = stepper.snapshot();
        let at = event.as_ref().map(|e| e.step);
        let read_here = |name: &str| event.as_ref().is_some_and(|e| e.reads.iter().any(|r| r.location == name));
        let cells = snapshot
            .locations
            .iter()
            .filter(|l| at.is_some() && (l.writes.iter().any(|w| w.step == at) || read_here(&l.name)))
            .cloned()
            .collect();
        // A step that touched memory shows that; the barriers it did not touch wait for
        // a step that touches neither, so the read and its reason keep the room.
        let memory_step = event.as_ref().is_some_and(|e| !e.reads.is_empty() || snapshot.locations.iter().any(|l| l.writes.iter().any(|w| w.step == at)));
        let few = snapshot.mbarriers.len() <= ALWAYS_SHOWN_MBARRIERS && !memory_step;
        let touched = |name: &str| event.as_ref().is_some_and(|e| e.mbarriers.iter().any(|c| c.name == name));
        let bars = snapshot
            .mbarriers
            .iter()
            .filter(|b| few || touched(&b.name))
            .map(|b| (b.clone(), snapshot.debts.iter().find(|d| d.name == b.name).cloned()))
            .collect();
        // The agents still at work, and the one that just moved.
        let moved = event.as_ref().map(|e| e.agent);
        let agents = stepper.agents();
        // The instruction that issued each agent: the agent's own view names it while it
        // works. Once done it names none, so for the agent whose step just finished it,
        // the view one step back (an undo, on a copy of the tape) does.
        let issued_by = |op: &AsyncOpView| {
            let index = |agents: &[AgentView]| agents.iter().find(|a| a.id == op.agent).and_then(|a| a.instr_index);
            index(&agents).or_else(|| {
                let mut before = t.clone();
                (Some(op.agent) == moved && before.back()).then(|| index(&before.stepper().agents())).flatten()
            })
        };
        let ops = snapshot
            .async_ops
            .iter()
            .filter(|op| op.state != AsyncOpState::Completed || Some(op.agent) == moved)
            .map(|op| (op.clone(), issued_by(op).map_or_else(OpFootprint::default, |i| OpFootprint::of(t.scenario(), &op.issuer, i))))
            .collect();
        let cta_of = |name: &str| {
            agents.iter().find(|a| a.name == name).and_then(|a| match &a.kind {
                AgentKindView::Thread { cta } => Some(cta.clone()),
                AgentKindView::Async { .. } => None,
            })
        };
        let reaches = event.iter().flat_map(|e| &e.failed_edges).map(|f| scope_reach(f, stepper.history(), t.scenario(), cta_of)).collect();
        StepPicture { event, cells, bars, ops, kept: snapshot.reads, reaches }
    })
}

/// The compact machine of the step just taken.
#[component]
pub fn StepEffect() -> impl IntoView {
    let state = use_app_state();
    let shown = Memo::new(move |_| picture(state));
    move || {
        shown.with(|p| {
            let Some(p) = p else { return ().into_any() };
            let Some(event) = p.event.clone() else {
                return view! {
                    <div class="step-effect" data-step-effect="">
                        <p class="fx-head muted">"Press → to take the first step: its effect shows here."</p>
                        {bars_view(&p.bars)}
                    </div>
                }
                .into_any();
            };
            view! {
                <div class="step-effect" data-step-effect="" data-step=event.step + 1>
                    <p class="fx-head">
                        <strong>{format!("Step {}", event.step + 1)}</strong>" "
                        <span class="fx-agent">{event.agent_name.clone()}</span>
                        {(!event.instr_text.is_empty()).then(|| view! { ": "<code>{event.instr_text.clone()}</code> })}
                        <span class="fx-desc">" — "{code_text(&event.description)}</span>
                    </p>
                    <div class="fx-stage">
                        {(!p.cells.is_empty()).then(|| view! {
                            <div class="fx-cells">{p.cells.iter().map(|l| cell_view(l, &event)).collect_view()}</div>
                        })}
                        {(!event.reads.is_empty()).then(|| view! {
                            <div class="fx-reads">{event.reads.iter().map(|r| read_view(r, &event)).collect_view()}</div>
                        })}
                        {edges_view(&event, &p.reaches)}
                        {proxy_fence_view(&event)}
                        {bars_view(&p.bars)}
                        {ops_view(&p.ops, &event)}
                    </div>
                    {kept_view(&p.kept, event.step)}
                </div>
            }
            .into_any()
        })
    }
}

/// A touched location's history: the write the step made arrives, the write a read
/// returned is marked, and a stale read's newer write is marked as missed.
fn cell_view(loc: &LocationView, event: &EventView) -> impl IntoView {
    let reads: Vec<&ReadView> = event.reads.iter().filter(|r| r.location == loc.name).collect();
    let writes = loc
        .writes
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let fresh = w.step == Some(event.step);
            let read_from = reads.iter().any(|r| r.write == i);
            let missed = reads.iter().any(|r| r.stale.as_ref().is_some_and(|s| s.missed == i));
            let who = match w.step {
                Some(s) => format!("{} @ step {}", w.writer, s + 1),
                None => w.writer.clone(),
            };
            let proxy = (w.proxy != "generic").then(|| view! { <span class="fx-proxy-tag">{format!("{} proxy", w.proxy)}</span> });
            view! {
                <li class="fx-write" class:fx-new=fresh class:fx-from=read_from class:fx-missed=missed
                    data-missed-write=missed.then_some("") data-read-from=read_from.then_some("")
                    title=if missed { "a newer write this read could not see" } else if read_from { "the write the read returned" } else { "" }>
                    <code class="fx-value">{w.value}</code>
                    <span class="fx-who">{who}</span>
                    {proxy}
                    {missed.then(|| view! { <span class="fx-tag fx-tag-missed">"not seen"</span> })}
                    {read_from.then(|| view! { <span class="fx-tag fx-tag-from">"read"</span> })}
                </li>
            }
        })
        .collect_view();
    view! {
        <div class="fx-cell" role="group" aria-label=format!("memory {} at this step", loc.name)>
            <span class="fx-cell-name">{loc.name.clone()}</span>
            <ol class="fx-writes" aria-label="writes, oldest first">{writes}</ol>
        </div>
    }
}

/// A read: the value travels from its write into the reader; stale reads say what they
/// missed and why.
fn read_view(read: &ReadView, event: &EventView) -> impl IntoView {
    let from = match read.from.step {
        Some(s) => format!("{}'s write (step {})", read.from.writer, s + 1),
        None => "the initial value".to_string(),
    };
    let stale = read.stale.clone();
    let is_stale = stale.is_some();
    let seen_through = (read.proxy != "generic").then(|| format!("through the {} proxy", read.proxy));
    view! {
        <div class="fx-read" class:fx-read-stale=is_stale>
            <div class="fx-travel-row" data-read="" data-value=read.value data-stale=is_stale.then_some("") data-location=read.location.clone()>
                <span class="fx-src">{format!("{} ← {from}", read.location)}</span>
                <span class="fx-track" aria-hidden="true"><span class="fx-travel">{read.value}</span></span>
                <span class="fx-reg">
                    <span class="fx-agent">{read.agent_name.clone()}</span>" "
                    {(!event.instr_text.is_empty()).then(|| view! { <code>{event.instr_text.clone()}</code> })}" = "
                    <strong class="fx-reg-value">{read.value}</strong>
                </span>
                {is_stale.then(|| view! { <span class="badge fx-stale-badge">"stale"</span> })}
            </div>
            {seen_through.map(|t| view! { <p class="fx-proxy-line">{format!("It saw the memory {t}.")}</p> })}
            {stale.as_ref().filter(|s| s.missed_write.proxy != read.proxy).map(|s| view! {
                <div class="fx-proxies" aria-label="which view of memory each side used"
                    title=format!("{} wrote through the {} proxy; {} read through the {} proxy", s.missed_write.writer, s.missed_write.proxy, read.agent_name, read.proxy)>
                    <span class="fx-view">{format!("{} proxy: the write", s.missed_write.proxy)}</span>
                    <span class="fx-boundary">"┃"</span>
                    <span class="fx-view">{format!("{} proxy: the read", read.proxy)}</span>
                </div>
            })}
            {stale.map(|s| {
                let when = s.missed_write.step.map_or(String::new(), |st| format!(", step {}", st + 1));
                view! {
                    <p class="fx-stale-reason">
                        <strong>{format!("Missed {} ({}{when}). ", s.missed_write.value, s.missed_write.writer)}</strong>
                        {code_text(&s.reason)}
                    </p>
                }
            })}
        </div>
    }
}

/// The synchronization the step formed (its scope box lights) or failed to form (the edge
/// breaks; a scope mismatch draws the box the release reached, the acquirer outside).
fn edges_view(event: &EventView, reaches: &[Option<ScopeReach>]) -> impl IntoView {
    let formed = event
        .edges
        .iter()
        .map(|e| {
            let scope = e.scope.clone().unwrap_or_default();
            let class = format!("fx-edge fx-formed scope-{}", scope.trim_start_matches('.'));
            let from = e.from_step.map_or("the start".to_string(), |s| format!("step {}", s + 1));
            view! {
                <p class=class data-edge="formed" data-scope=scope.trim_start_matches('.').to_string()>
                    <span class="fx-scope-box">{if scope.is_empty() { "edge".to_string() } else { format!("{scope} scope") }}</span>
                    <span class="fx-line" aria-hidden="true"></span>
                    {format!("{} ({from}) ⇢ {}: {}", e.from_agent, e.to_agent, e.kind)}
                </p>
            }
        })
        .collect_view();
    // The core can name one failed edge twice (the same pair found by two of its rules):
    // it is drawn once.
    let failed = event
        .failed_edges
        .iter()
        .zip(reaches)
        .enumerate()
        .filter(|(i, (f, _))| !event.failed_edges[..*i].contains(f))
        .map(|(_, (f, r))| failed_view(f, r.clone()))
        .collect_view();
    view! { {formed}{failed} }
}

fn failed_view(f: &FailedEdgeView, reach: Option<ScopeReach>) -> impl IntoView {
    let from = f.from_step.map_or("the start".to_string(), |s| format!("step {}", s + 1));
    // The box the narrow side reached, its agent inside and the other end outside it.
    let reach = reach.map(|r| view! {
        <div class="fx-reach" aria-label="what the synchronization reached" data-scope-reach=r.scope.clone()>
            <span class="fx-reach-box" data-reached=r.reached.clone()>
                <span class="fx-reach-label">{r.caption()}</span>
                <span class="fx-agent">{r.inside.clone()}</span>
            </span>
            <span class="fx-outside" data-outside="">
                <span class="fx-agent">{r.outside.clone()}</span>
                <span class="fx-reach-label">{format!(" outside, in {}", r.outside_place)}</span>
            </span>
        </div>
    });
    let proxy = (f.cause == "proxy").then(|| view! {
        <div class="fx-proxies" aria-label="generic and async views of memory">
            <span class="fx-view">"generic proxy"</span>
            <span class="fx-boundary" title="no fence.proxy.async crossed this boundary">"✕ fence.proxy.async"</span>
            <span class="fx-view">"async proxy"</span>
        </div>
    });
    view! {
        <div class="fx-edge fx-failed" data-edge="failed" data-cause=f.cause.clone()>
            <p>
                <span class="fx-cause">{f.cause.clone()}</span>
                <span class="fx-line fx-broken" aria-hidden="true"></span>
                {format!("{} ({from}) ⇢ {}: no synchronization. ", f.from_agent, f.to_agent)}
                {code_text(&f.reason)}
            </p>
            {reach}
            {proxy}
        </div>
    }
}

/// A proxy fence the step ran: the boundary between the generic and async views of memory
/// it crossed (the step's own instruction text names it).
fn proxy_fence_view(event: &EventView) -> impl IntoView {
    event.instr_text.starts_with("fence.proxy.async").then(|| view! {
        <div class="fx-proxies fx-proxy-crossed" aria-label="generic and async views of memory">
            <span class="fx-view">"generic proxy"</span>
            <span class="fx-boundary fx-crossed">{format!("⇄ {}", event.instr_text)}</span>
            <span class="fx-view">"async proxy"</span>
        </div>
    })
}

fn bars_view(bars: &[(MbarrierView, Option<MbarrierDebtView>)]) -> impl IntoView {
    (!bars.is_empty()).then(|| {
        let bars = bars
            .iter()
            .map(|(b, debt)| {
                view! {
                    <div class="fx-mbar" role="group" aria-label=format!("mbarrier {} at this step", b.name)>
                        <span class="fx-cell-name">{format!("mbarrier {}", b.name)}</span>
                        <DebtGauges bar=b.clone() debt=debt.clone() />
                    </div>
                }
            })
            .collect_view();
        view! { <div class="fx-mbars">{bars}</div> }
    })
}

/// What an asynchronous agent touches, from its issuing instruction's facts
/// (`Instr::facts`, the names it uses `By::Async`): the memory it reads, the memory or
/// accumulator it writes, and the mbarriers its completion signals.
#[derive(Clone, Debug, Default, PartialEq)]
struct OpFootprint {
    reads: Vec<String>,
    writes: Vec<String>,
    completes: Vec<String>,
}

impl OpFootprint {
    fn of(scenario: &Scenario, issuer: &str, index: usize) -> OpFootprint {
        let Some(instr) = scenario.threads.iter().find(|t| t.name == issuer).and_then(|t| t.program.get(index)) else {
            return OpFootprint::default();
        };
        let facts = instr.facts();
        let mut footprint = OpFootprint::default();
        for named in facts.names.iter().filter(|n| n.by == By::Async) {
            let list = match (named.object, named.how) {
                (Object::Mbarrier, _) => &mut footprint.completes,
                (_, Use::Read | Use::CopyFrom) => &mut footprint.reads,
                (_, Use::Write | Use::CopyTo | Use::Update) => &mut footprint.writes,
                (_, Use::Arrive | Use::Wait | Use::Init | Use::Invalidate | Use::Transaction) => continue,
            };
            if !list.iter().any(|n| n == named.name) {
                list.push(named.name.to_string());
            }
        }
        // A wgmma's accumulator is the register its agent reads and writes.
        if let Some(acc) = facts.accumulator {
            footprint.writes.push(acc.to_string());
        }
        footprint
    }

    fn is_empty(&self) -> bool {
        self.reads.is_empty() && self.writes.is_empty() && self.completes.is_empty()
    }
}

/// One line: "reads a, b → writes acc · completes mbarrier full".
fn footprint_view(footprint: &OpFootprint) -> impl IntoView {
    (!footprint.is_empty()).then(|| {
        let part = |word: &'static str, names: &[String]| {
            (!names.is_empty()).then(|| view! { <span class="fx-op-part">{word}" "<code>{names.join(", ")}</code></span> })
        };
        view! {
            <span class="fx-op-footprint">
                {part("reads", &footprint.reads)}
                {(!footprint.reads.is_empty() && !footprint.writes.is_empty()).then_some(" → ")}
                {part("writes", &footprint.writes)}
                {(!footprint.completes.is_empty()).then(|| view! {
                    <span class="fx-op-part fx-op-completes">" · completes mbarrier "<code>{footprint.completes.join(", ")}</code></span>
                })}
            </span>
        }
    })
}

/// Asynchronous agents: issued → accessing → completed, with what each reads and writes
/// and the barrier it will complete.
fn ops_view(ops: &[(AsyncOpView, OpFootprint)], event: &EventView) -> impl IntoView {
    (!ops.is_empty()).then(|| {
        let rows = ops
            .iter()
            .map(|(op, footprint)| {
                let stage = match op.state {
                    AsyncOpState::Issued => 1,
                    AsyncOpState::Accessing => 2,
                    AsyncOpState::Completed => 3,
                };
                let moved = op.agent == event.agent;
                let attr = |names: &[String]| (!names.is_empty()).then(|| names.join(" "));
                view! {
                    <li class="fx-op" class:fx-op-moved=moved data-op-stage=stage
                        data-op-reads=attr(&footprint.reads) data-op-writes=attr(&footprint.writes) data-op-completes=attr(&footprint.completes)>
                        <span class="fx-agent">{op.name.clone()}</span>
                        <span class="fx-progress" aria-label=format!("stage {stage} of 3")>
                            {["issued", "accessing", "completed"].into_iter().enumerate().map(|(i, word)| view! {
                                <span class="fx-stage-step" class:done=i < stage>{word}</span>
                            }).collect_view()}
                        </span>
                        {footprint_view(footprint)}
                        <span class="fx-op-desc">{code_text(&op.description)}</span>
                    </li>
                }
            })
            .collect_view();
        view! { <ul class="fx-ops" aria-label="asynchronous agents">{rows}</ul> }
    })
}

/// What each thread's reads returned so far (the final picture keeps them).
fn kept_view(kept: &[ReadView], now: usize) -> impl IntoView {
    let earlier: Vec<&ReadView> = kept.iter().filter(|r| r.step != now).collect();
    (!earlier.is_empty()).then(|| {
        let mut agents: Vec<&str> = earlier.iter().map(|r| r.agent_name.as_str()).collect();
        agents.dedup();
        agents.sort_unstable();
        agents.dedup();
        let rows = agents
            .into_iter()
            .map(|agent| {
                let reads = earlier
                    .iter()
                    .filter(|r| r.agent_name == agent)
                    .map(|r| {
                        view! {
                            <span class="fx-kept-read" class:fx-read-stale=r.stale.is_some()
                                title=r.stale.as_ref().map(|s| format!("stale: missed {} by {}", s.missed_write.value, s.missed_write.writer))>
                                {format!("{} = {}", r.location, r.value)}
                                {r.stale.as_ref().map(|s| format!(" (stale: {} not seen)", s.missed_write.value))}
                            </span>
                        }
                    })
                    .collect_view();
                view! { <li><span class="fx-agent">{agent.to_string()}</span>" read "{reads}</li> }
            })
            .collect_view();
        view! { <ul class="fx-kept" aria-label="values read so far">{rows}</ul> }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn footprint(source: &str, thread: &str, index: usize) -> OpFootprint {
        let loaded = fencelab::load(source);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        OpFootprint::of(&loaded.scenario, thread, index)
    }

    #[test]
    fn a_tma_load_reads_its_source_writes_its_buffer_and_completes_its_mbarrier() {
        let tma = footprint(include_str!("../../tests/scenarios/templates/tma-load.fence"), "producer", 1);
        assert_eq!(tma, OpFootprint { reads: vec!["src".into()], writes: vec!["buf".into()], completes: vec!["full".into()] });
    }

    #[test]
    fn a_wgmma_reads_its_operands_and_writes_its_accumulator_and_a_thread_step_touches_nothing_async() {
        let source = include_str!("../../tests/scenarios/templates/tma-wgmma-pipeline.fence");
        let wgmma = footprint(source, "consumer", 2);
        assert_eq!(wgmma, OpFootprint { reads: vec!["a".into(), "b".into()], writes: vec!["acc".into()], completes: vec![] });
        assert!(footprint(source, "consumer", 1).is_empty(), "wgmma.fence issues no agent");
        assert!(footprint(source, "nobody", 0).is_empty());
    }
}
