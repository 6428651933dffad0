//! The checker's verdict: overall class, each finding with its explanation, accesses and
//! witness, the outcome table, and the strict/pragmatic switch.

use std::sync::Arc;

use fencelab::check::{Finding, FindingKind, Mode, Progress, RaceReason, Report, Verdict};
use fencelab::cost::MODEL_LABEL;
use fencelab::cuda::{compare, Observation};
use fencelab::model::Scenario;
use leptos::prelude::*;

use crate::check_client::{CheckClient, CheckState, Timing};
use crate::code_text::code_text;
use crate::decimal::fixed;
use crate::execution_graph::{graph_slot, has_unreached, open_button, GraphOf};
use crate::finding_marks::Marked;
use crate::fix_panel::FixPanelSlot;
use crate::lazy::with_chunk;
use crate::protocol::Answerer;
use crate::source_link::SourceLines;
use crate::state::{use_app_state, AppState};
use crate::tape::Move;

/// Verdict, findings and outcomes, checked in a worker as the text changes.
#[component]
pub fn VerdictPanel() -> impl IntoView {
    let state = use_app_state();
    let client = state.check;
    let data_state = move || {
        client.state.with(|s| match s {
            CheckState::Blocked => "blocked",
            CheckState::Queued => "queued",
            CheckState::Running { .. } => "running",
            CheckState::Done { .. } => "done",
            CheckState::Cancelled => "cancelled",
            CheckState::Failed(_) => "failed",
        })
    };
    let data_request = move || {
        client.state.with(|s| match s {
            CheckState::Running { request } | CheckState::Done { request, .. } => request.to_string(),
            _ => String::new(),
        })
    };
    // Stage times of the last verdict shown, for e2e/timing.mjs.
    let timing = move |pick: fn(&Timing) -> Option<f64>| {
        move || client.timing.with(|t| t.as_ref().and_then(pick).map(|ms| fixed(ms, 2)))
    };
    view! {
        <section class="panel panel-verdict" data-region="verdict" aria-labelledby="verdict-title"
            data-state=data_state data-request=data_request
            data-timed-request=move || client.timing.with(|t| t.map(|t| t.request.to_string()))
            data-posted-at=timing(|t| Some(t.posted_at)) data-reply-at=timing(|t| Some(t.reply_at))
            data-shown-at=timing(|t| t.shown_at) data-worker-decode-ms=timing(|t| Some(t.worker.decode_ms))
            data-worker-check-ms=timing(|t| Some(t.worker.check_ms))
            data-worker-answered-by=move || client.timing.with(|t| t.map(|t| t.worker.answered_by.name()))
            data-worker-memory-before=move || client.timing.with(|t| t.map(|t| t.worker.memory_before.to_string()))
            data-worker-memory=move || client.timing.with(|t| t.map(|t| t.worker.memory_after.to_string()))
            data-memory-cap=move || crate::search_caps::max_bytes().to_string()>
            <div class="panel-head">
                <h2 id="verdict-title">"Verdict"</h2>
                <div class="toolbar" role="group" aria-label="Checker mode">
                    {[(Mode::Strict, "Strict"), (Mode::Pragmatic, "Pragmatic")].map(|(mode, label)| view! {
                        <button type="button" aria-pressed=move || (state.mode.get() == mode).to_string()
                            title=mode_help(mode)
                            on:click=move |_| state.mode.set(mode)>{label}</button>
                    }).collect_view()}
                </div>
                // A checkbox, not a pressed button: beside the mode buttons it must not read as a third mode.
                <label class="cost-toggle" title=format!("Show each synchronization instruction's cost in the lanes and the editor. {MODEL_LABEL}")>
                    <input type="checkbox" data-cost-toggle="" prop:checked=move || state.notes.show_costs.get()
                        on:change:target=move |ev| state.notes.set_costs_shown(ev.target().checked()) />
                    "SASS cost"
                </label>
            </div>
            {move || running_view(client)}
            <p class="visually-hidden" aria-live="polite" data-verdict-announce="">{move || announcement(client)}</p>
            <div class="verdict-body" class:outdated=move || is_checking(client)>{body(client, state)}</div>
            <FixPanelSlot/>
        </section>
    }
}

/// The one line screen readers hear after a check: the verdict and how many findings.
/// The findings themselves are not re-read on every edit.
fn announcement(client: CheckClient) -> String {
    client.state.with(|s| match s {
        CheckState::Done { report, .. } => {
            let (_, word) = verdict_words(report.verdict);
            match report.findings.len() {
                0 => format!("Verdict: {word}."),
                1 => format!("Verdict: {word}, 1 finding."),
                n => format!("Verdict: {word}, {n} findings."),
            }
        }
        CheckState::Blocked => "The program has errors; not checked.".to_string(),
        CheckState::Cancelled => "Check cancelled.".to_string(),
        CheckState::Failed(_) => "The check failed.".to_string(),
        CheckState::Queued | CheckState::Running { .. } => String::new(),
    })
}

fn mode_help(mode: Mode) -> &'static str {
    match mode {
        Mode::Strict => "where the PTX spec is silent, assume nothing",
        Mode::Pragmatic => "where the PTX spec is silent, accept what production code relies on",
    }
}

fn is_checking(client: CheckClient) -> bool {
    client.state.with(|s| matches!(s, CheckState::Running { .. } | CheckState::Queued))
}

/// The running check, once it has run long enough to report progress (or when there is
/// no earlier verdict to keep showing): how far it got, and a way to stop it.
fn running_view(client: CheckClient) -> Option<impl IntoView> {
    let has_progress = client.progress.with(Option::is_some);
    let running = client.state.with(|s| matches!(s, CheckState::Running { .. }));
    if !running || !has_progress {
        return None;
    }
    let read = move |pick: fn(&Progress) -> u64| move || client.progress.with(|p| p.as_ref().map_or(0, pick));
    let summary = move || {
        client.progress.with(|p| {
            p.as_ref().map_or_else(String::new, |p| {
                let pass = match (p.pass, p.passes) {
                    (_, 1) => String::new(),
                    (1, n) => format!(", pass 1 of {n}"),
                    (k, n) => format!(", pass {k} of {n} (the other mode, where the spec is silent)"),
                };
                format!(
                    "{} of at most {} states, {} transitions{pass}",
                    grouped(p.states),
                    grouped(p.max_states),
                    grouped(p.transitions)
                )
            })
        })
    };
    Some(view! {
        <div class="check-progress">
            <p class="checking"><span class="spinner" aria-hidden="true"></span>"Exploring every interleaving… "
                <button type="button" on:click=move |_| client.cancel()>"Cancel"</button></p>
            <label class="check-progress-label" for="check-progress-bar">{summary}</label>
            <progress id="check-progress-bar" max=read(|p| p.max_states) value=read(|p| p.states)></progress>
        </div>
    })
}

/// What the panel body shows. Equal answers (a comment edit) leave the page alone.
#[derive(Clone, PartialEq)]
enum Shown {
    FirstCheck,
    Blocked,
    Cancelled,
    Failed(String),
    Report(Report),
}

/// The last settled answer. While a newer text is being checked it stays on screen,
/// dimmed, rather than flashing away for a check that usually takes a few milliseconds.
fn body(client: CheckClient, state: AppState) -> impl IntoView {
    let shown = Memo::new(move |previous: Option<&Shown>| {
        client.state.with(|s| match s {
            // Only a report is worth keeping on screen; "cancelled" or an error is not.
            CheckState::Running { .. } | CheckState::Queued => {
                previous.filter(|p| matches!(p, Shown::Report(_))).cloned().unwrap_or(Shown::FirstCheck)
            }
            CheckState::Blocked => Shown::Blocked,
            CheckState::Cancelled => Shown::Cancelled,
            CheckState::Failed(why) => Shown::Failed(why.clone()),
            CheckState::Done { report, .. } => Shown::Report(report.clone()),
        })
    });
    move || match shown.get() {
        Shown::FirstCheck => {
            view! { <p class="checking"><span class="spinner" aria-hidden="true"></span>"Checking…"</p> }.into_any()
        }
        Shown::Blocked => view! { <p class="panel-empty">"Fix the errors in the program to check it."</p> }.into_any(),
        Shown::Cancelled => view! { <p class="panel-empty">"Check cancelled. Edit the program to check again."</p> }.into_any(),
        Shown::Failed(why) => view! { <p class="step-error" role="alert">{why}</p> }.into_any(),
        Shown::Report(report) => report_view(report, client, state),
    }
}

fn report_view(report: Report, client: CheckClient, state: AppState) -> AnyView {
    if let Some(why) = report.not_run().map(str::to_string) {
        return view! {
            <div class="verdict verdict-partial" data-verdict="not checked">
                <span class="verdict-word">"not checked"</span>
            </div>
            <p class="note warn-note">{why}</p>
        }
        .into_any();
    }
    let report = Arc::new(report);
    let (class, word) = verdict_words(report.verdict);
    let (states, transitions, complete) = (report.stats.states, report.stats.transitions, report.stats.complete);
    // The time changes with every check even when the answer does not: only it re-renders.
    let stats = move || {
        let took = client.timing.with(|t| match t {
            // The starter scenario's report (`crate::starter`): no check ran on this visit.
            Some(t) if t.worker.answered_by == Answerer::Build => "checked when the app was built".to_string(),
            t => format!("{} ms", fixed(t.map_or(0.0, |t| t.worker.check_ms), 0)),
        });
        let cap = if complete { "" } else { " (stopped at the state cap)" };
        format!("{} states, {} transitions, {took}{cap}", grouped(states), grouped(transitions))
    };
    view! {
        <div class=format!("verdict {class}") data-verdict=word>
            <span class="verdict-word">{word}</span>
            <span class="muted verdict-stats">{stats}</span>
        </div>
        {(!report.stats.complete).then(|| partial_note(&report))}
        {report.mode_note.clone().map(|n| view! { <p class="note mode-note"><strong>"Other mode: "</strong>{n}</p> })}
        {report.hangs.then(|| view! { <p class="note warn-note">"Some reachable state hangs: an agent can wait forever."</p> })}
        {(!report.expectations.is_empty()).then(|| view! {
            <ul class="expectations" aria-label="Expectations">
                {report.expectations.iter().map(|e| {
                    let text = match (e.ok, e.actual.is_empty()) {
                        (true, true) => format!("✓ {}", e.declared),
                        // A condition the axioms answered says how (`axiom::table`).
                        (true, false) => format!("✓ {}: {}", e.declared, e.actual),
                        (false, _) => format!("✗ {}: found {}", e.declared, e.actual),
                    };
                    view! { <li class:ok=e.ok class:bad=!e.ok>{text}</li> }
                }).collect_view()}
            </ul>
        })}
        <div class="findings">
            {report.findings.iter().enumerate().map(|(i, f)| finding_view(i, f.clone(), state)).collect_view()}
        </div>
        {outcome_table(report.clone(), state)}
    }
    .into_any()
}

/// What a partial run explored, why it stopped, and what to do about it.
fn partial_note(report: &Report) -> impl IntoView {
    let cap = if report.stats.memory_cap {
        format!("the memory cap ({} MiB of the worker's memory)", crate::search_caps::max_bytes() >> 20)
    } else {
        format!("the state cap ({})", grouped(crate::search_caps::max_states()))
    };
    let explored = format!(
        "Explored {} states and {} transitions, then stopped: {cap} was reached before every interleaving was tried.",
        grouped(report.stats.states),
        grouped(report.stats.transitions),
    );
    let found = if report.findings.is_empty() {
        " No problem was found in what was explored, but that proves nothing for the rest."
    } else {
        " The findings below are real (each has a witness); others may hide in the part not explored."
    };
    view! {
        <div class="note warn-note partial-note" data-partial="">
            <p><strong>"Partial. "</strong>{explored}{found}</p>
            <p>"To finish: split the scenario (fewer threads, or fewer instructions per thread, each checked on its own), or raise the cap by running "
                <code>"fencelab check"</code>" on the file, where a larger machine can explore further."</p>
        </div>
    }
}

fn verdict_words(v: Verdict) -> (&'static str, &'static str) {
    match v {
        Verdict::Correct => ("verdict-correct", "correct"),
        Verdict::Race => ("verdict-race", "race"),
        Verdict::Deadlock => ("verdict-deadlock", "deadlock"),
        Verdict::Undefined => ("verdict-undefined", "undefined"),
        Verdict::Partial => ("verdict-partial", "partial"),
    }
}

pub(crate) fn reason_words(r: RaceReason) -> &'static str {
    match r {
        RaceReason::NoSynchronization => "no synchronization",
        RaceReason::ExecutionOrderOnly => "execution order only",
        RaceReason::ScopeMismatch => "scope too narrow",
        RaceReason::MissingProxyFence => "missing proxy fence",
        RaceReason::StateSpaceRestriction => "state-space restriction",
        RaceReason::AsyncNotObserved => "async completion not observed",
        RaceReason::WrongPhase => "wrong mbarrier phase",
        RaceReason::MissingTcgen05Fence => "tcgen05 fence missing or misplaced",
        RaceReason::MixedSize => "strong accesses of different byte ranges",
    }
}

pub(crate) fn finding_view(index: usize, finding: Finding, state: AppState) -> impl IntoView {
    let kind = match finding.kind {
        FindingKind::Race => "race",
        FindingKind::Deadlock => "deadlock",
        FindingKind::Undefined => "undefined behaviour",
    };
    let witness = finding.witness.clone();
    let witness_again = finding.witness.clone();
    let steps = witness.steps.len();
    // Hovering or focusing the card marks its accesses in the lanes; replaying pins them.
    let marked = Marked { finding: index, accesses: finding.accesses.clone(), blocked: finding.blocked.clone(), witness: finding.witness.clone() };
    let (hovered, pinned, pinned_again) = (marked.clone(), marked.clone(), marked);
    let hover = move || state.marks.update(|m| m.hover(hovered.clone()));
    let hover_on_focus = hover.clone();
    let unhover = move || state.marks.update(|m| m.unhover(index));
    let show = move |_| {
        state.playing.set(false);
        state.marks.update(|m| m.pin(pinned.clone()));
        state.with_tape(&[Move::Load(&witness), Move::Jump(steps)]);
    };
    let follow = move |_| {
        state.marks.update(|m| m.pin(pinned_again.clone()));
        state.with_tape(&[Move::Load(&witness_again)]);
        state.playing.set(true);
    };
    view! {
        <article class="finding" aria-labelledby=format!("finding-{index}")
            class:finding-pinned=move || state.marks.with(|m| m.is_pinned(index))
            on:mouseenter=move |_| hover() on:focusin=move |_| hover_on_focus()
            on:mouseleave=move |_| unhover() on:focusout=move |_| unhover()>
            <h3 id=format!("finding-{index}")>
                <span class="finding-kind">{kind}</span>
                {finding.reason.map(|r| view! { <span class="badge">{reason_words(r)}</span> })}
            </h3>
            <p class="finding-message">{code_text(&finding.message)}</p>
            <p class="finding-explanation">{code_text(&finding.explanation)}</p>
            <ul class="accesses" aria-label="Accesses">
                {finding.accesses.iter().map(|a| {
                    let what = if a.is_write { "write" } else { "read" };
                    let place = place_of(state, &a.thread, a.instr);
                    // A step past the witness's end would point at nothing: leave it out.
                    let step = if a.step < steps { format!(", step {}", a.step + 1) } else { String::new() };
                    let text = format!("{what} of `{}` by `{}` ({place}{step})", location_name(&a.location), a.agent);
                    view! { <li>{code_text(&text)}</li> }
                }).collect_view()}
                {finding.blocked.iter().map(|b| {
                    let text = format!("`{}` is stuck at {}: {}", b.agent, place_of(state, &b.thread, b.instr), b.waits_for);
                    view! { <li>{code_text(&text)}</li> }
                }).collect_view()}
            </ul>
            {if steps == 0 {
                // A race or hang only the axioms find (`axiom::table::unreached_race`,
                // `unreached_hang`): no schedule reaches it, so its execution graph stands in
                // for the witness.
                let open = RwSignal::new(None::<GraphOf>);
                let scenario = state.analysis.with_untracked(|a| a.loaded.scenario.clone());
                let (which, name) = if finding.kind == FindingKind::Deadlock { (GraphOf::Hang, "hang") } else { (GraphOf::Race, "race") };
                view! {
                    <div class="toolbar finding-actions">
                        <button type="button" class="graph-open" data-graph-open=name on:click=move |_| open.set(Some(which.clone()))
                            title="No interleaving performs this execution: show its execution graph">"Execution graph"</button>
                    </div>
                    {graph_slot(scenario, state.mode.get_untracked(), open)}
                }
                .into_any()
            } else {
                view! {
                    <div class="toolbar finding-actions">
                        <button type="button" on:click=show title="Replay the witness to the end and show the machine there">"Show me"</button>
                        <button type="button" on:click=follow title="Replay the witness step by step">{format!("Follow witness ({steps} steps)")}</button>
                    </div>
                }
                .into_any()
            }}
        </article>
    }
}

/// Where instruction `instr` of `thread` is, as a person reads it: its editor line, else
/// its 1-based position in the thread's program.
fn place_of(state: AppState, thread: &str, instr: usize) -> String {
    let line = state.analysis.with_untracked(|a| {
        (!a.has_errors()).then(|| SourceLines::new(&a.loaded, &a.source).line_of(thread, instr)).flatten()
    });
    match line {
        Some(line) => format!("line {line}, `{thread}`"),
        None => format!("instruction {} of `{thread}`", instr + 1),
    }
}

/// A location as named in the text; an unnamed one (never expected) still reads as one.
fn location_name(name: &str) -> &str {
    if name.is_empty() { "an unnamed location" } else { name }
}

/// One table row: final values, the model's executions (`None`: forbidden), the observed
/// trials (`None`: not run on hardware), and whether it shows the scenario's bug.
type Row = (Vec<(String, i64)>, Option<u64>, Option<u64>, bool);

/// The checker's final states; beside them, when the program on screen was run on a GPU,
/// how often the hardware ended in each (`fencelab cuda` / `fencelab observed`). Rows that
/// show the scenario's bug and were seen on hardware are highlighted; an outcome the model
/// forbids but the GPU showed is listed last and flagged loudly. The observations come
/// from a wasm chunk (`crate::observed`): until it has loaded, the table has no observed
/// column and says `data-observed="pending"`.
fn outcome_table(report: Arc<Report>, state: AppState) -> Option<AnyView> {
    let columns: Vec<String> = report.outcomes.first()?.values.iter().map(|(term, _)| term.clone()).collect();
    let scenario = state.analysis.with_untracked(|a| a.loaded.scenario.clone());
    let lookup = crate::observed::observation_for(scenario.clone());
    // An unreached row (allowed by the axioms only) opens its execution graph below.
    let open_graph = RwSignal::new(None::<GraphOf>);
    let graph = has_unreached(&report).then(|| graph_slot(scenario.clone(), report.mode, open_graph));
    let table = with_chunk(lookup, move |found| table_view(&report, &scenario, &columns, found, open_graph));
    Some(view! { {table} {graph} }.into_any())
}

/// The outcome table, headed by `columns`; `found` is `None` while the observations'
/// chunk loads.
fn table_view(report: &Report, scenario: &Scenario, columns: &[String], found: Option<&Option<Observation>>, open_graph: RwSignal<Option<GraphOf>>) -> AnyView {
    let observed = found.and_then(Option::as_ref).map(|obs| (obs, compare(scenario, report, obs)));
    let observed_attr = match found {
        None => "pending",
        Some(_) if observed.is_some() => "true",
        Some(_) => "false",
    };
    let trials = observed.as_ref().map_or(0, |(o, _)| o.trials);
    let heading = observed.as_ref().map(|(o, _)| format!("Observed on {}", o.label()));
    let rows: Vec<Row> = match &observed {
        Some((_, cmp)) => cmp.rows.iter().map(|r| (r.values.clone(), r.model, Some(r.observed), r.flagged)).collect(),
        None => report.outcomes.iter().map(|o| (o.values.clone(), Some(o.count), None, false)).collect(),
    };
    let rows = rows.into_iter().map(move |(values, model, seen, flagged)| {
        let stale = flagged && seen.is_some_and(|n| n > 0) && model.is_some();
        let forbidden = model.is_none();
        let seen_text = seen.map(|n| format!("{} of {}", grouped(n), grouped(trials)));
        let unreached = report.outcomes.iter().any(|o| o.unreached && o.values == values);
        let count = match model {
            _ if unreached => open_button(values.clone(), open_graph).into_any(),
            Some(n) => n.to_string().into_any(),
            None => "forbidden".into_any(),
        };
        view! {
            <tr class:stale=stale class:forbidden=forbidden class:unreached=unreached data-unreached=unreached.then_some("")
                title=if stale { "the bug this scenario describes, seen on real hardware" } else if forbidden { "the model forbids this outcome, yet the GPU showed it" } else { "" }>
                {values.iter().map(|(_, v)| view! { <td><code>{*v}</code></td> }).collect_view()}
                <td class="count">{count}</td>
                {seen_text.map(|t| view! { <td class="count observed-count">{t}</td> })}
            </tr>
        }
    });
    let note = observed.as_ref().map(|(o, cmp)| {
        let timeouts = (cmp.timeouts > 0).then(|| format!(" {} trials timed out (a bounded wait gave up).", grouped(cmp.timeouts)));
        let alarm = (cmp.forbidden_but_observed > 0).then(|| view! {
            <p class="note warn-note observed-alarm" role="alert">
                {format!("The GPU showed {} trials with an outcome the model forbids: a harness bug or a model bug.", grouped(cmp.forbidden_but_observed))}
            </p>
        });
        let undefined = (!cmp.judged).then_some(" The model finds undefined behaviour here, so it allows any outcome.");
        view! {
            <p class="note observed-note">
                {format!("{}: {} trials, driver {}.", o.label(), grouped(o.trials), o.driver)}
                {timeouts}{undefined}
                " A rare outcome can hide in any run: not seeing a bug here never proves it absent."
            </p>
            {alarm}
        }
    });
    view! {
        <table class="outcomes" data-observed=observed_attr>
            <caption>"Final states reached"</caption>
            <thead><tr>
                {columns.iter().map(|c| view! { <th scope="col"><code>{c.clone()}</code></th> }).collect_view()}
                <th scope="col">"executions"</th>
                {heading.map(|h| view! { <th scope="col" class="observed-head">{h}</th> })}
            </tr></thead>
            <tbody>{rows.collect_view()}</tbody>
        </table>
        {note}
    }
    .into_any()
}

/// A count with thousands separated, as people read large numbers: `200,000`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::grouped;

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(13312), "13,312");
        assert_eq!(grouped(200000), "200,000");
        assert_eq!(grouped(1234567), "1,234,567");
    }
}
