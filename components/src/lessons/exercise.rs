//! An exercise: the goal, the explorer's editor holding the learner's attempt (kept across
//! reloads), hints revealed one at a time, and the core's `grade` run as the learner types,
//! with the checker's reason and a link to its witness. A prediction counts its first
//! guess only: nothing about the verdict shows before it, and the guess, the checker's
//! answer and the witness stay after it. The reference solution never reaches this
//! component.

use fencelab::check::{Options, Report};
use fencelab::cost::MODEL_LABEL;
use fencelab::lesson::{grade, Exercise, ExerciseKind, Grade};
use fencelab::link::{encode, SharePayload, TraceRef, ViewState};
use leptos::context::Provider;
use leptos::prelude::*;

use super::progress::{use_progress, Progress};
use super::prose::Prose;
use super::scenario_card::{check_source, later, remember_return, Checked};
use crate::code_text::code_text;
use crate::editor::Editor;
use crate::state::{use_app_state, AppState};
use crate::verdict_panel::reason_words;

/// The verdicts a prediction may name (the words `grade` accepts).
const PREDICTIONS: [&str; 4] = ["correct", "race", "deadlock", "undefined"];

/// Typing pause after which the attempt is graded.
const GRADE_DELAY_MS: u64 = 400;

/// One exercise block, graded live.
#[component]
pub fn ExerciseCard(
    /// Id of the lesson holding it, for the progress key.
    lesson_id: String,
    /// The exercise; only its start, goal, prompt and hints are shown.
    exercise: Exercise,
    /// Whether passing and hints are recorded in the learner's progress.
    track: bool,
) -> impl IntoView {
    let progress = use_progress();
    let key = Progress::key(&lesson_id, &exercise.id);
    let recorded = progress.with_untracked(|p| p.get(&key));
    let hints_total = exercise.hints.len();
    let shown = RwSignal::new((recorded.hints as usize).min(hints_total));
    let predict = exercise.kind == ExerciseKind::Predict;
    let start_text = exercise.start.source.clone();
    // A fix attempt lives in the editor's own state; a prediction is just the word picked.
    let saved = if track && !predict { load_attempt(&key) } else { None };
    let app = use_app_state();
    let local = AppState::local(saved.unwrap_or_else(|| start_text.clone()), exercise.goal.mode);
    // A prediction's first guess, kept across reloads: later picks change nothing.
    let first_guess = RwSignal::new(if predict && track { load_guess(&key) } else { None });
    let attempt = if predict { RwSignal::new(first_guess.get_untracked().unwrap_or_default()) } else { local.source };
    let result = RwSignal::new(None::<Graded>);
    let generation = StoredValue::new(0u64);
    let goal_text = goal_summary(&exercise);
    let prompt = exercise.prompt.clone();
    let hints = exercise.hints.clone();

    // Grades the current attempt once typing pauses; a newer edit cancels an older run.
    let schedule_grade = {
        let exercise = exercise.clone();
        let key = key.clone();
        move || {
            let ticket = generation.get_value() + 1;
            generation.set_value(ticket);
            let exercise = exercise.clone();
            let key = key.clone();
            later(GRADE_DELAY_MS, move || {
                if generation.try_get_value() != Some(ticket) {
                    return;
                }
                let Some(text) = attempt.try_get_untracked() else { return };
                let options = Options { mode: exercise.goal.mode, ..Options::default() };
                let graded = grade(&exercise, &text, &options);
                if graded.passed && track {
                    progress.update(|p| p.mark_passed(&key));
                }
                // The checker's own words on a failing program: its reason and a witness. A
                // prediction's program is the exercise's: once guessed, its witness is shown,
                // right or wrong.
                let checked = if predict { &exercise.start.source } else { &text };
                let report = match (graded.passed && !predict, check_source(checked, exercise.goal.mode)) {
                    (false, Checked::Ran(report)) => Some(report),
                    _ => None,
                };
                let _ = result.try_set(Some(Graded { grade: graded, report }));
            });
        }
    };
    // A prediction is graded once the learner picks a verdict, never on the program text;
    // a guess made on an earlier visit is graded again, so its answer and witness show.
    // A fix attempt is graded on every edit, and kept for the next visit; the start as
    // given is not graded (nothing was tried yet).
    if predict && first_guess.get_untracked().is_some() {
        schedule_grade();
    }
    if !predict {
        let schedule_grade = schedule_grade.clone();
        let start_text = start_text.clone();
        let key = key.clone();
        Effect::new(move |_| {
            let text = attempt.get();
            if track {
                save_attempt(&key, (text != start_text).then_some(text.as_str()));
            }
            if text == start_text {
                generation.set_value(generation.get_value() + 1);
                result.set(None);
            } else {
                schedule_grade();
            }
        });
    }

    let reveal = {
        let key = key.clone();
        move |_| {
            let next = (shown.get_untracked() + 1).min(hints_total);
            shown.set(next);
            if track {
                progress.update(|p| p.reveal_hints(&key, next as u32));
            }
        }
    };
    let start = exercise.start.source.clone();
    let reset = move |_| local.edit(start.clone(), false);
    let passed_before = {
        let key = key.clone();
        move || progress.with(|p| p.get(&key).passed)
    };
    let priced = exercise.kind == ExerciseKind::CheapestFix || exercise.goal.max_cost.is_some();
    let no_more_hints = move || shown.get() >= hints_total;

    view! {
        <section class="exercise-card" data-block="exercise" data-exercise=exercise.id.clone()>
            <header class="exercise-head">
                <h3>"Exercise " <code>{exercise.id.clone()}</code></h3>
                <Show when=passed_before>
                    <span class="badge badge-pass" title="Recorded in your progress">"passed before"</span>
                </Show>
            </header>
            <Prose markdown=prompt class="exercise-prompt" />
            <Prose markdown=format!("**Goal:** {goal_text}") class="exercise-goal" />
            {if predict {
                let choose = {
                    let schedule_grade = schedule_grade.clone();
                    let key = key.clone();
                    move |word: &'static str| {
                        // Only the first guess counts: a second pick would be graded
                        // knowing the answer.
                        if first_guess.get_untracked().is_some() {
                            return;
                        }
                        first_guess.set(Some(word.to_string()));
                        if track {
                            save_guess(&key, word);
                        }
                        attempt.set(word.to_string());
                        schedule_grade();
                    }
                };
                let choices = PREDICTIONS
                    .into_iter()
                    .map(|word| {
                        let choose = choose.clone();
                        view! {
                            <button type="button" class="predict-choice"
                                aria-pressed=move || (attempt.get() == word).to_string()
                                disabled=move || first_guess.with(Option::is_some)
                                on:click=move |_| choose(word)>{word}</button>
                        }
                    })
                    .collect_view();
                view! {
                    <pre class="exercise-program"><code>{exercise.start.source.clone()}</code></pre>
                    <div class="predict-choices" role="group" aria-label="Your prediction">{choices}</div>
                    {move || first_guess.get().map(|guess| view! {
                        <p class="predict-first muted" data-first-guess=guess.clone()>
                            "Your first guess: " <strong>{guess.clone()}</strong> ". Only the first guess counts."
                        </p>
                    })}
                }
                    .into_any()
            } else {
                view! {
                    <div class="exercise-editor">
                        // The editor works on the exercise's own state (a Provider: sibling
                        // cards keep theirs).
                        <Provider value=local>
                            <Editor compact=true label="Your attempt (.fence syntax)" />
                        </Provider>
                    </div>
                }
                    .into_any()
            }}
            <div class="exercise-actions">
                <Show when=move || !predict>
                    <button type="button" class="reset" on:click=reset.clone()>"Reset to the start"</button>
                </Show>
                {priced.then(|| view! {
                    // The same toggle as the explorer's: chips with each instruction's SASS
                    // cost beside the attempt's lines.
                    <label class="cost-toggle" title=format!("Show each synchronization instruction's cost in the editor. {MODEL_LABEL}")>
                        <input type="checkbox" data-cost-toggle="" prop:checked=move || local.notes.show_costs.get()
                            on:change:target=move |ev| local.notes.set_costs_shown(ev.target().checked()) />
                        "SASS cost"
                    </label>
                })}
                <button type="button" class="reveal-hint" on:click=reveal
                    disabled=no_more_hints>
                    {move || if no_more_hints() { "No more hints".to_string() } else { format!("Show hint {} of {hints_total}", shown.get() + 1) }}
                </button>
            </div>
            <ol class="hints" aria-live="polite">
                {move || hints.iter().take(shown.get()).map(|h| view! { <li class="hint"><Prose markdown=h.clone() /></li> }).collect_view()}
            </ol>
            <GradeView result=result app=app local=local
                waiting=if predict { "Pick the verdict you expect." } else { "Edit the program above until the goal holds: it is graded as you type." } />
        </section>
    }
}

/// A grade and, for a failing program, the checker's report on it.
#[derive(Clone)]
struct Graded {
    grade: Grade,
    report: Option<Box<Report>>,
}

/// Pass/fail with the grader's reasons, the checker's reason for a failing program and a
/// link to its witness. Nothing is shown as failed before the learner has tried something.
#[component]
fn GradeView(result: RwSignal<Option<Graded>>, app: AppState, local: AppState, waiting: &'static str) -> impl IntoView {
    move || match result.get() {
        None => view! { <div class="grade grade-pending" data-grade="pending">{waiting}</div> }.into_any(),
        Some(Graded { grade, report }) => {
            let (class, label, title) = match (grade.passed, grade.complete) {
                (true, _) => ("grade grade-pass", "passed", "✓ Passed"),
                (false, true) => ("grade grade-fail", "not yet", "✗ Not yet"),
                // The checker hit a cap: nothing was proven either way.
                (false, false) => ("grade grade-undecided", "undecided", "? The checker could not decide"),
            };
            // Reasons quote the learner's code in backticks; the safe renderer escapes the rest.
            let reasons = grade.reasons.into_iter().map(|r| view! { <li><Prose markdown=r class="inline" /></li> }).collect_view();
            view! {
                <div class=class data-grade=label role="status">
                    <strong>{title}</strong>
                    <ul class="grade-reasons">{reasons}</ul>
                    {grade.over_cost.then(|| view! {
                        <p class="grade-cost" data-cost-pointer="">
                            "See what each instruction costs: turn on "
                            <button type="button" class="link-button" on:click=move |_| local.notes.set_costs_shown(true)>"SASS cost"</button>
                            " (beside “Reset to the start”), and the editor shows each line's price."
                        </p>
                    })}
                    {report.and_then(|r| checker_says(&r, app, local))}
                </div>
            }
            .into_any()
        }
    }
}

/// The first finding of a failing attempt: its reason, its message, and a link that opens
/// its witness in the explorer (with the way back to this lesson).
fn checker_says(report: &Report, app: AppState, local: AppState) -> Option<impl IntoView> {
    let finding = report.findings.first()?;
    let reason = finding.reason.map(reason_words);
    let payload = SharePayload {
        scenario: attempt_scenario(local)?,
        view: ViewState {
            mode: report.mode,
            step: u32::try_from(finding.witness.steps.len()).ok(),
            trace: Some(TraceRef::Finding(0)),
            ..ViewState::default()
        },
    };
    let href = encode(&payload).ok().map(|code| format!("{}{code}", fencelab::link::ROUTE));
    // The grader's reasons already quote the finding; what they drop is the checker's
    // classification of what is missing, and the witness itself.
    let what = match reason {
        Some(r) => view! { "What is missing, says the checker: " <span class="badge">{r}</span> "." }.into_any(),
        None => view! { "The checker: " {code_text(&finding.message)} }.into_any(),
    };
    Some(view! {
        <p class="grade-checker" data-checker-reason=reason.unwrap_or("")>
            {what}
            {href.map(|href| view! {
                " " <a class="witness-link" href=href on:click=move |_| remember_return(app)>
                    {format!("See the witness ({} steps)", finding_steps(report))}
                </a>
            })}
        </p>
    })
}

fn finding_steps(report: &Report) -> usize {
    report.findings.first().map_or(0, |f| f.witness.steps.len())
}

/// The scenario of the attempt in the exercise's editor, when it loads.
fn attempt_scenario(local: AppState) -> Option<fencelab::model::Scenario> {
    local.analysis.with_untracked(|a| (!a.has_errors()).then(|| a.loaded.scenario.clone()))
}

const ATTEMPT_KEY: &str = "fencelab-attempt:";
const GUESS_KEY: &str = "fencelab-first-guess:";

/// A prediction's first guess, made on an earlier visit.
fn load_guess(key: &str) -> Option<String> {
    crate::storage::get(&format!("{GUESS_KEY}{key}")).filter(|g| PREDICTIONS.contains(&g.as_str()))
}

fn save_guess(key: &str, guess: &str) {
    crate::storage::set(&format!("{GUESS_KEY}{key}"), guess);
}

/// The attempt saved on an earlier visit, if any.
fn load_attempt(key: &str) -> Option<String> {
    crate::storage::get(&format!("{ATTEMPT_KEY}{key}"))
}

/// Saves the attempt (`None`: back at the start, so nothing to keep).
fn save_attempt(key: &str, text: Option<&str>) {
    let item = format!("{ATTEMPT_KEY}{key}");
    match text {
        Some(text) => crate::storage::set(&item, text),
        None => crate::storage::remove(&item),
    }
}

/// The goal in words: verdict, lanes, forbidden classes, size limit, mode.
fn goal_summary(exercise: &Exercise) -> String {
    let goal = &exercise.goal;
    // The goal's verdict is a prediction's answer: say only what is asked.
    if exercise.kind == ExerciseKind::Predict {
        return format!("pick the verdict the checker will give, in {} mode", goal.mode.name());
    }
    let mut parts = vec![format!("the checker says `{}`", fencelab::syntax::expect_str(goal.verdict))];
    if let Some(lanes) = &goal.lanes {
        parts.push(format!("change only {}", lanes.join(", ")));
    }
    if !goal.forbid.is_empty() {
        let names: Vec<&str> = goal.forbid.iter().map(|f| f.name()).collect();
        parts.push(format!("without {}", names.join(", ")));
    }
    if let Some(scope) = goal.max_scope {
        parts.push(format!("no scope wider than `{}`", fencelab::syntax::scope_str(scope)));
    }
    if let Some(max) = goal.max_instructions {
        parts.push(format!("at most {max} instructions"));
    }
    if exercise.kind == ExerciseKind::CheapestFix {
        parts.push("costing no more than the cheapest answer known, on the sm_90a cost model".into());
    }
    if let Some(max) = goal.max_cost {
        parts.push(format!("costing at most {max} on the sm_90a cost model"));
    }
    parts.push(format!("{} mode", goal.mode.name()));
    parts.join("; ")
}
