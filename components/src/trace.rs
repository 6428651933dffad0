//! The trace: every step taken so far, what it did and what synchronization it formed.

use fencelab::check::view::EventView;
use leptos::prelude::*;

use crate::code_text::code_text;
use crate::state::use_app_state;
use crate::tape::Move;

/// Steps taken, newest last; each one jumps back to just after it.
#[component]
pub fn Trace() -> impl IntoView {
    let state = use_app_state();
    let events = Memo::new(move |_| state.read_tape(|t| t.stepper().history().to_vec()).unwrap_or_default());
    let ahead = move || state.read_tape(|t| t.len().saturating_sub(t.position())).unwrap_or(0);
    view! {
        <details class="trace" open>
            <summary>{move || format!("Trace: {} step(s)", events.with(Vec::len))}</summary>
            <ol class="trace-list" start="1">
                {move || events.get().into_iter().map(event_item).collect_view()}
            </ol>
            {move || (ahead() > 0).then(|| view! {
                <p class="muted trace-ahead">{format!("{} more step(s) ahead on the tape: ▶ follows them", ahead())}</p>
            })}
        </details>
    }
}

fn event_item(event: EventView) -> impl IntoView {
    let state = use_app_state();
    let after = event.step + 1;
    let edges = event.edges.iter().map(|e| {
        let scope = e.scope.clone().unwrap_or_default();
        let class = format!("edge scope-{}", scope.trim_start_matches('.'));
        view! { <span class=class>{format!("⇢ {} {scope} from {}", e.kind, e.from_agent)}</span> }
    });
    let failed = event.failed_edges.iter().map(|f| {
        view! { <span class="edge edge-failed" tabindex="0" title=f.reason.clone()>{format!("✗ no sync from {}: ", f.from_agent)}{code_text(&f.reason)}</span> }
    });
    let findings = event.findings.iter().map(|f| view! { <span class="finding-line">"⚠ "{code_text(f)}</span> });
    view! {
        <li>
            <button type="button" class="trace-jump" title=format!("go to just after step {after}")
                on:click=move |_| { state.playing.set(false); state.with_tape(&[Move::Jump(after)]); }>
                <span class="muted">{format!("{after}.")}</span>
                " " <strong>{event.agent_name.clone()}</strong>
                " " <code>{event.instr_text.clone()}</code>
            </button>
            <span class="trace-what">{code_text(&event.description)}</span>
            {edges.collect_view()}
            {failed.collect_view()}
            {findings.collect_view()}
        </li>
    }
}
