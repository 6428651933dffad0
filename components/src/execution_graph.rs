//! The execution graph of an outcome no interleaving reaches (issue 48): there is no
//! schedule to step through, so the axiomatic engine's execution is drawn as herd draws
//! one (`axiom::table::graph_of_row`: events, po, rf, co and synchronization edges), in a
//! view of its own with an SVG export. The engine and the drawing live in a wasm chunk of
//! their own (`crate::lazy`), fetched the first time a graph opens.

use fencelab::check::{Mode, Report};
use fencelab::model::Scenario;
use leptos::prelude::*;

use crate::lazy::{lazy_panel, ChunkLoadFailed};

/// An outcome row's values: which row's graph is open, if any.
pub type RowValues = Vec<(String, i64)>;

/// The open graph's view under the outcome table (nothing while none is open): `open` is
/// set by an unreached row's button and cleared by the view's "Close".
pub fn graph_slot(scenario: Scenario, mode: Mode, open: RwSignal<Option<RowValues>>) -> impl IntoView {
    move || {
        open.get().map(|values| lazy_panel("the execution graph", graph_panel(scenario.clone(), mode, values, open)))
    }
}

/// Whether `report`'s table has a row only the axioms reach (one with a graph to open).
pub fn has_unreached(report: &Report) -> bool {
    report.outcomes.iter().any(|o| o.unreached)
}

/// The button an unreached row carries in its executions cell.
pub fn open_button(values: RowValues, open: RwSignal<Option<RowValues>>) -> impl IntoView {
    view! {
        <button type="button" class="graph-open" data-graph-open=""
            title="Allowed by the PTX axioms, yet no interleaving reaches it: show the execution graph"
            on:click=move |_| open.set(Some(values.clone()))>
            "unreached: graph"
        </button>
    }
}

#[leptos::wasm_split::wasm_split(execution_graph, fallible, wasm_split_path = ::leptos::wasm_split)]
fn graph_panel(scenario: Scenario, mode: Mode, values: RowValues, open: RwSignal<Option<RowValues>>) -> Result<AnyView, ChunkLoadFailed> {
    Ok(panel(&scenario, mode, &values, open))
}

fn panel(scenario: &Scenario, mode: Mode, values: &[(String, i64)], open: RwSignal<Option<RowValues>>) -> AnyView {
    let row: Vec<String> = values.iter().map(|(term, v)| format!("{term}={v}")).collect();
    let row = row.join(" ");
    let close = move |_| open.set(None);
    let Some(svg) = fencelab::axiom::table::graph_of_row(scenario, mode, values) else {
        return view! {
            <section class="execution-graph" data-execution-graph="none" aria-label="Execution graph">
                <p class="note">{format!("The axioms give no execution ending in {row}: the scenario changed since the table was made, or it is over the engine's limits.")}</p>
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
                <h3>{format!("Execution graph: {row}")}</h3>
                <button type="button" class="graph-export" on:click=export title="The graph as an SVG file">"Export SVG"</button>
                <button type="button" class="graph-close" on:click=close>"Close"</button>
                {move || status.get().map(|s| view! { <span class="export-status muted" role="status">{s}</span> })}
            </header>
            <p class="muted execution-graph-why">
                "The PTX axioms allow this outcome, but no interleaving reaches it: some read takes its value
                from a write that comes later in the other thread's program (load buffering), or coherence
                orders writes against the order they run. So there is no schedule to step through; the graph
                shows the execution instead: program order (po), reads-from (rf), coherence (co) and
                synchronization (sw)."
            </p>
            <div class="execution-graph-figure" inner_html=svg></div>
        </section>
    }
    .into_any()
}
