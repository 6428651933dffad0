//! The execution graph of an outcome no interleaving reaches, or of a race or hang only such
//! an execution has (issues 48, 49): there is no schedule to step through, so the axiomatic
//! engine's execution is drawn as herd draws one (`axiom::table::graph_of_row`,
//! `graph_of_race` and `graph_of_hang`: events, po, rf, co, synchronization and race edges,
//! a hang's spinning reads marked "for ever"), in a view of its
//! own with an SVG export. The engine and the drawing live in a wasm chunk of
//! their own (`crate::lazy`), fetched the first time a graph opens.

use fencelab::check::{Mode, Report};
use fencelab::model::Scenario;
use leptos::prelude::*;

use crate::lazy::{lazy_panel, ChunkLoadFailed};

/// An outcome row's values.
pub type RowValues = Vec<(String, i64)>;

/// Which execution a graph shows.
#[derive(Clone, Debug, PartialEq)]
pub enum GraphOf {
    /// One reaching the unreached outcome row with these values.
    Row(RowValues),
    /// The racy one of a race finding without a witness.
    Race,
    /// The hanging one of a deadlock finding without a witness.
    Hang,
}

/// The open graph's view (nothing while none is open): `open` is set by an unreached
/// row's or a race finding's button and cleared by the view's "Close".
pub fn graph_slot(scenario: Scenario, mode: Mode, open: RwSignal<Option<GraphOf>>) -> impl IntoView {
    move || open.get().map(|which| lazy_panel("the execution graph", graph_panel(scenario.clone(), mode, which, open)))
}

/// Whether `report`'s table has a row only the axioms reach (one with a graph to open).
pub fn has_unreached(report: &Report) -> bool {
    report.outcomes.iter().any(|o| o.unreached)
}

/// The button an unreached row carries in its executions cell.
pub fn open_button(values: RowValues, open: RwSignal<Option<GraphOf>>) -> impl IntoView {
    view! {
        <button type="button" class="graph-open" data-graph-open=""
            title="Allowed by the PTX axioms, yet no interleaving reaches it: show the execution graph"
            on:click=move |_| open.set(Some(GraphOf::Row(values.clone())))>
            "unreached: graph"
        </button>
    }
}

#[leptos::wasm_split::wasm_split(execution_graph, fallible, wasm_split_path = ::leptos::wasm_split)]
fn graph_panel(scenario: Scenario, mode: Mode, which: GraphOf, open: RwSignal<Option<GraphOf>>) -> Result<AnyView, ChunkLoadFailed> {
    Ok(panel(&scenario, mode, &which, open))
}

fn panel(scenario: &Scenario, mode: Mode, which: &GraphOf, open: RwSignal<Option<GraphOf>>) -> AnyView {
    let (title, svg) = match which {
        GraphOf::Row(values) => {
            let row: Vec<String> = values.iter().map(|(term, v)| format!("{term}={v}")).collect();
            (format!("Execution graph: {}", row.join(" ")), fencelab::axiom::table::graph_of_row(scenario, mode, values))
        }
        GraphOf::Race => ("Execution graph of the race".to_string(), fencelab::axiom::table::graph_of_race(scenario, mode)),
        GraphOf::Hang => ("Execution graph of the hang".to_string(), fencelab::axiom::table::graph_of_hang(scenario, mode)),
    };
    let close = move |_| open.set(None);
    let Some(svg) = svg else {
        return view! {
            <section class="execution-graph" data-execution-graph="none" aria-label="Execution graph">
                <p class="note">"The axioms give no such execution now: the scenario changed since this was checked, or it is over the engine's limits."</p>
                <button type="button" class="graph-close" on:click=close>"Close"</button>
            </section>
        }
        .into_any();
    };
    let status = RwSignal::new(None::<String>);
    let file = "fencelab-execution-graph.svg";
    let exported = svg.clone();
    let export = move |_| {
        let said = match crate::export::download(&file, &exported, "image/svg+xml") {
            Ok(()) => format!("Saved {file}"),
            Err(e) => format!("Could not save: {e}"),
        };
        status.set(Some(said));
    };
    view! {
        <section class="execution-graph" data-execution-graph="shown" aria-label="Execution graph">
            <header class="execution-graph-head">
                <h3>{title}</h3>
                <button type="button" class="graph-export" on:click=export title="The graph as an SVG file">"Export SVG"</button>
                <button type="button" class="graph-close" on:click=close>"Close"</button>
                {move || status.get().map(|s| view! { <span class="export-status muted" role="status">{s}</span> })}
            </header>
            <p class="muted execution-graph-why">
                "The PTX axioms allow this execution, but no interleaving performs it: some read takes its value
                from a write that comes later in the other thread's program (load buffering), or coherence
                orders writes against the order they run. So there is no schedule to step through; the graph
                shows the execution instead: program order (po), reads-from (rf), coherence (co),
                synchronization (sw) and data races (race)."
            </p>
            <div class="execution-graph-figure" inner_html=svg></div>
        </section>
    }
    .into_any()
}
