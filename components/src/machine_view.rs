//! The machine: GPU ⊃ cluster ⊃ CTA boxes holding threads, the TMA engine, the tensor core,
//! memory and mbarriers, at the current step. Layout comes from `layout.rs`.

use fencelab::check::view::{AgentKindView, AgentStatusView, AgentView, MachineView as Snapshot};
use leptos::prelude::*;

use std::sync::Arc;

use fencelab::palette::Item;

use crate::lazy::ChunkLoadFailed;
use crate::layout::{ClusterBox, CtaBox, MachineLayout, PairBox};
use crate::machine_edit::{self as medit, EditCtx, Editing};
use crate::machine_parts::{MbarrierWidget, MemoryCell, SyncEdges};
use crate::state::{use_app_state, NoSession};

/// The machine panel, from the machine's wasm chunk (`crate::lazy`): it shows after the
/// first verdict, so its boxes, widgets and layout editor need not be in the first load.
#[leptos::wasm_split::wasm_split(machine, fallible, wasm_split_path = ::leptos::wasm_split)]
pub fn machine_panel() -> Result<AnyView, ChunkLoadFailed> {
    Ok(view! { <MachineView /> }.into_any())
}

/// Nested scope boxes with the machine state at the current step.
#[component]
fn MachineView() -> impl IntoView {
    let state = use_app_state();
    let edit = EditCtx::new(state);
    // The stepping session's scenario; in edit mode, the parse alone when the verifier
    // rejects the text (a placement may do that), so the layout stays editable.
    // A text with errors otherwise keeps the last good session on screen, dimmed; while
    // editing the layout, the parse wins, so a placement just made shows at once.
    let scenario = Memo::new(move |_| {
        let parsed = || {
            let parsed = edit.on.get().then(|| state.source.with(|src| fencelab::syntax::parse(src)));
            parsed.filter(|p| !p.has_errors()).map(|p| p.scenario)
        };
        let stale_parse = state.is_stale().then(parsed).flatten();
        stale_parse.or_else(|| state.read_tape(|t| t.scenario().clone())).or_else(parsed)
    });
    let layout_only = move || state.read_tape(|_| ()).is_none() || state.is_stale();
    let layout = Memo::new(move |_| scenario.with(|s| s.as_ref().map(MachineLayout::of)));
    let snapshot = Memo::new(move |_| state.read_tape(|t| t.stepper().snapshot()).unwrap_or_default());
    let agents = Memo::new(move |_| state.read_tape(|t| t.stepper().agents()).unwrap_or_default());
    let parts = Parts { snapshot: snapshot.into(), agents: agents.into() };
    view! {
        <section class="panel panel-machine" data-region="machine" aria-labelledby="machine-title">
            <div class="panel-head">
                <h2 id="machine-title">"Machine"</h2>
                <div class="toolbar medit-toolbar">{medit::toggle_button(edit)}</div>
            </div>
            {medit::status_line(edit)}
            {move || match layout.get() {
                None if state.awaits_stepper() => crate::lanes::stepper_loading_note(),
                None => {
                    let why = state.tape.with(|tape| match tape {
                        Some(Err(NoSession::StepperNotLoaded)) => "The machine appears once the stepper's code has loaded: the lanes say what to do.",
                        Some(Err(NoSession::Unrunnable(_))) => "The checker cannot run this scenario: the lanes say why.",
                        None | Some(Ok(_)) => "The machine appears once the scenario parses.",
                    });
                    view! { <p class="panel-empty">{why}</p> }.into_any()
                }
                Some(layout) => {
                    let editing = edit.on.get().then(|| Editing {
                        ctx: edit,
                        scenario: Arc::new(scenario.get_untracked().unwrap_or_default()),
                    });
                    view! {
                        {(editing.is_some() && layout_only()).then(|| view! {
                            <p class="medit-note">"The text has errors (see the editor): this is the layout only, without machine state."</p>
                        })}
                        <div class="machine" class:editing=editing.is_some()
                            class:stale=move || editing.is_none() && state.is_stale()>
                            {layout.gpus.into_iter().enumerate().map(|(n, gpu)| view! {
                                <div class="box box-gpu" role="group" aria-label=format!("GPU {}", gpu.index)>
                                    <div class="box-label">{format!("GPU {}", gpu.index)}</div>
                                    {editing.clone().filter(|_| n == 0).map(medit::gpu_controls)}
                                    {(!gpu.globals.is_empty()).then(|| view! {
                                        <div class="mem-row" aria-label="global memory">
                                            <span class="row-label">"global memory"</span>
                                            {cells(gpu.globals, parts, editing.clone())}
                                        </div>
                                    })}
                                    <div class="box-children">
                                        {gpu.clusters.into_iter().map(|c| cluster_view(c, parts, editing.clone())).collect_view()}
                                    </div>
                                </div>
                            }).collect_view()}
                        </div>
                        <SyncEdges snapshot=snapshot />
                    }.into_any()
                }
            }}
        </section>
    }
}

/// The live data every box reads.
#[derive(Clone, Copy)]
struct Parts {
    snapshot: Signal<Snapshot>,
    agents: Signal<Vec<AgentView>>,
}

fn cluster_view(cluster: ClusterBox, parts: Parts, editing: Option<Editing>) -> impl IntoView {
    let label = if cluster.implicit {
        format!("cluster of one ({})", cluster.name)
    } else {
        format!("cluster {}", cluster.name)
    };
    let name = cluster.name.clone();
    let aria = label.clone();
    let barrier = move || {
        parts.snapshot.with(|s| {
            s.cluster_barriers
                .iter()
                .find(|b| b.cluster == name && !b.arrived.is_empty())
                .map(|b| format!(
                    "barrier.cluster #{}: arrived {}; waiting for {}",
                    b.instance,
                    list_or_none(&b.arrived),
                    list_or_none(&b.not_arrived)
                ))
        })
    };
    view! {
        <div class="box box-cluster" class:implicit=cluster.implicit role="group" aria-label=aria>
            <div class="box-label" title=label.clone()>{label.clone()}</div>
            {editing.clone().map(|e| medit::cluster_controls(e, &cluster))}
            {move || barrier().map(|t| view! { <p class="barrier-line">{t}</p> })}
            <div class="box-children">
                {if cluster.pairs.is_empty() {
                    cluster.ctas.into_iter().map(|c| cta_view(c, None, parts, editing.clone())).collect_view().into_any()
                } else {
                    cluster.pairs.into_iter().map(|p| pair_view(p, parts, editing.clone())).collect_view().into_any()
                }}
            </div>
        </div>
    }
}

/// A `cta_group::2` pair: its two CTAs side by side, the leader marked, and a band naming
/// the accumulators whose halves sit in both CTAs' tensor memory.
fn pair_view(pair: PairBox, parts: Parts, editing: Option<Editing>) -> impl IntoView {
    let label = match &pair.peer {
        Some(peer) => format!("CTA pair {} + {}", pair.leader.name, peer.name),
        None => format!("CTA {} (no pair peer)", pair.leader.name),
    };
    let leader_name = pair.leader.name.clone();
    let peer_name = pair.peer.as_ref().map_or_else(String::new, |p| p.name.clone());
    let accumulators = pair.accumulators.clone();
    view! {
        <div class="box box-pair" role="group" aria-label=label.clone() data-pair=leader_name.clone()>
            <div class="box-label" title=label.clone()>{label.clone()}</div>
            {(!accumulators.is_empty()).then(|| view! {
                <div class="pair-accumulator" aria-label="shared accumulator">
                    <span class="row-label">"shared accumulator"</span>
                    {accumulators.into_iter().map(|(lead, peer)| view! {
                        <span class="pair-acc">
                            <code>{lead.clone()}</code>" in "{leader_name.clone()}
                            <span class="pair-acc-join" aria-hidden="true">" ⟷ "</span>
                            <code>{peer.clone()}</code>" in "{peer_name.clone()}
                        </span>
                    }).collect_view()}
                </div>
            })}
            <div class="box-children pair-ctas">
                {cta_view(pair.leader, Some("leader"), parts, editing.clone())}
                {pair.peer.map(|p| cta_view(p, Some("peer"), parts, editing.clone()))}
            </div>
        </div>
    }
}

/// One CTA; `pair_role` ("leader" or "peer") when it belongs to a `cta_group::2` pair.
fn cta_view(cta: CtaBox, pair_role: Option<&'static str>, parts: Parts, editing: Option<Editing>) -> impl IntoView {
    let threads = cta.threads.clone();
    let cta_name = cta.name.clone();
    let chip_edit = editing.clone();
    let thread_chips = move || {
        parts.agents.with(|agents| {
            threads
                .iter()
                .map(|t| {
                    let status = agents.iter().find(|a| &a.name == t).map(|a| status_word(&a.status));
                    let class = format!("chip chip-thread status-{}", status.unwrap_or("unknown"));
                    let chip = view! { <span class=class title=format!("thread {t}: {}", status.unwrap_or("unknown"))>{t.clone()}</span> };
                    let controls = chip_edit.as_ref().map(|e| {
                        let targets = medit::thread_targets(&e.scenario, t);
                        medit::item_controls(e.ctx, format!("thread {t}"), targets, Item::Thread(t.clone()))
                    });
                    let drag = chip_edit.as_ref().map(|e| medit::drag_thread(e.ctx, t.clone()));
                    let draggable = drag.is_some().then_some("true");
                    view! {
                        <span class="chip-slot" data-thread=t.clone() draggable=draggable
                            on:dragstart=move |ev| if let Some(start) = &drag { start(ev) }>{chip}{controls}</span>
                    }
                })
                .collect_view()
        })
    };
    let engine_threads = cta.threads.clone();
    let engines = move || {
        parts.agents.with(|agents| {
            let mine = |a: &&AgentView| matches!(&a.kind, AgentKindView::Async { issuer, .. } if engine_threads.contains(issuer));
            let (tma, tensor): (Vec<&AgentView>, Vec<&AgentView>) =
                agents.iter().filter(mine).partition(|a| !is_tensor_op(a));
            view! {
                <div class="engine" aria-label="TMA engine">
                    <span class="engine-name">"TMA engine"</span>
                    {engine_ops(&tma)}
                </div>
                <div class="engine" aria-label="tensor core">
                    <span class="engine-name">"tensor core"</span>
                    {engine_ops(&tensor)}
                </div>
            }
        })
    };
    let barriers = move || {
        parts.snapshot.with(|s| {
            s.named_barriers
                .iter()
                .filter(|b| b.cta == cta_name && !b.arrived.is_empty())
                .map(|b| {
                    let text = format!(
                        "bar {}: {}/{} threads arrived ({})",
                        b.id, b.arrived_count, b.expected_count, b.arrived.join(", ")
                    );
                    view! { <p class="barrier-line">{text}</p> }
                })
                .collect_view()
        })
    };
    let mbarriers = cta.mbarriers.clone();
    let mbar_edit = editing.clone();
    let (over, drop) = match &editing {
        Some(e) => {
            let (over, drop) = medit::drop_on_cta(e.ctx, e.scenario.clone(), cta.name.clone());
            (Some(over), Some(drop))
        }
        None => (None, None),
    };
    view! {
        <div class="box box-cta" role="group" aria-label=format!("CTA {}", cta.name) data-cta=cta.name.clone()
            data-pair-role=pair_role class:pair-leader=pair_role == Some("leader")
            on:dragover=move |ev| if let Some(over) = &over { over(ev) }
            on:drop=move |ev| if let Some(drop) = &drop { drop(ev) }>
            <div class="box-label" title=format!("CTA {}", cta.name)>
                {format!("CTA {}", cta.name)}
                {pair_role.map(|role| view! { <span class="badge pair-role">{role}</span> })}
            </div>
            {editing.clone().map(|e| medit::cta_controls(e, &cta.name))}
            <div class="cta-agents">
                <div class="chips" aria-label="threads">{thread_chips}</div>
                <div class="engines">{engines}</div>
            </div>
            {barriers}
            {(!cta.shared.is_empty()).then(|| view! {
                <div class="mem-row" aria-label=format!("shared memory of {}", cta.name)>
                    <span class="row-label">"shared memory"</span>
                    {cells(cta.shared.clone(), parts, editing.clone())}
                </div>
            })}
            {(!cta.tmem.is_empty()).then(|| view! {
                <div class="mem-row" aria-label=format!("tensor memory of {}", cta.name)>
                    <span class="row-label">"tensor memory"</span>
                    {cells(cta.tmem.clone(), parts, editing.clone())}
                </div>
            })}
            {(!mbarriers.is_empty()).then(|| view! {
                <div class="mbar-row">
                    {mbarriers.into_iter().map(|name| {
                        let controls = mbar_edit.as_ref().map(|e| {
                            let targets = medit::mbarrier_targets(&e.scenario, &name);
                            medit::item_controls(e.ctx, format!("mbarrier {name}"), targets, Item::Mbarrier(name.clone()))
                        });
                        view! { <MbarrierWidget name=name snapshot=parts.snapshot controls=controls.map(IntoAny::into_any) /> }
                    }).collect_view()}
                </div>
            })}
        </div>
    }
}

fn cells(names: Vec<String>, parts: Parts, editing: Option<Editing>) -> impl IntoView {
    let cell = move |name: String| {
        let controls = editing.as_ref().map(|e| {
            let targets = medit::location_targets(&e.scenario, &name);
            medit::item_controls(e.ctx, format!("location {name}"), targets, Item::Location(name.clone())).into_any()
        });
        view! { <MemoryCell name=name snapshot=parts.snapshot controls=controls /> }
    };
    view! { <div class="cells">{names.into_iter().map(cell).collect_view()}</div> }
}

fn engine_ops(ops: &[&AgentView]) -> AnyView {
    if ops.is_empty() {
        return view! { <span class="muted engine-idle">"idle"</span> }.into_any();
    }
    ops.iter()
        .map(|a| {
            let class = format!("chip chip-async status-{}", status_word(&a.status));
            view! { <span class=class title=a.instr_text.clone().unwrap_or_default()>{a.name.clone()}</span> }
        })
        .collect_view()
        .into_any()
}

fn is_tensor_op(agent: &AgentView) -> bool {
    matches!(&agent.kind, AgentKindView::Async { kind, .. }
        if kind.contains("wgmma") || kind.contains("tcgen05") || kind.contains("mma"))
}

fn status_word(status: &AgentStatusView) -> &'static str {
    match status {
        AgentStatusView::Enabled { .. } => "ready",
        AgentStatusView::Blocked { .. } => "blocked",
        AgentStatusView::Done => "done",
    }
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "nobody".to_string()
    } else {
        names.join(", ")
    }
}
