//! An exercise: the goal, an editor holding the learner's attempt, hints revealed one at a
//! time, and the core's `grade` run as the learner types. The reference solution never
//! reaches this component.

use fencelab::check::Options;
use fencelab::lesson::{grade, Exercise, ExerciseKind, Grade};
use leptos::prelude::*;

use super::progress::{use_progress, Progress};
use super::prose::Prose;
use super::scenario_card::later;

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
    let attempt = RwSignal::new(exercise.start.source.clone());
    let result = RwSignal::new(None::<Grade>);
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
                let _ = result.try_set(Some(graded));
            });
        }
    };
    // A prediction is graded once the learner picks a verdict, never on the program text.
    let predict = exercise.kind == ExerciseKind::Predict;
    if !predict {
        schedule_grade();
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
    let reset = {
        let schedule_grade = schedule_grade.clone();
        move |_| {
            attempt.set(start.clone());
            schedule_grade();
        }
    };
    let passed_before = move || progress.with(|p| p.get(&key).passed);
    let no_more_hints = move || shown.get() >= hints_total;
    let rows = move || attempt.with(|a| a.lines().count().clamp(6, 30) + 1);

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
                    move |word: &'static str| {
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
                                on:click=move |_| choose(word)>{word}</button>
                        }
                    })
                    .collect_view();
                view! {
                    <pre class="exercise-program"><code>{exercise.start.source.clone()}</code></pre>
                    <div class="predict-choices" role="group" aria-label="Your prediction">{choices}</div>
                }
                    .into_any()
            } else {
                view! {
                    <label class="exercise-editor">
                        <span class="visually-hidden">"Your attempt (.fence syntax)"</span>
                        <textarea
                            class="exercise-text"
                            spellcheck="false"
                            autocomplete="off"
                            autocapitalize="off"
                            wrap="off"
                            rows=rows
                            prop:value=move || attempt.get()
                            on:input:target=move |ev| {
                                attempt.set(ev.target().value());
                                schedule_grade();
                            }
                        ></textarea>
                    </label>
                }
                    .into_any()
            }}
            <div class="exercise-actions">
                <Show when=move || !predict>
                    <button type="button" class="reset" on:click=reset.clone()>"Reset to the start"</button>
                </Show>
                <button type="button" class="reveal-hint" on:click=reveal
                    disabled=no_more_hints>
                    {move || if no_more_hints() { "No more hints".to_string() } else { format!("Show hint {} of {hints_total}", shown.get() + 1) }}
                </button>
            </div>
            <ol class="hints" aria-live="polite">
                {move || hints.iter().take(shown.get()).map(|h| view! { <li class="hint"><Prose markdown=h.clone() /></li> }).collect_view()}
            </ol>
            <GradeView result=result waiting=if predict { "Pick the verdict you expect." } else { "grading…" } />
        </section>
    }
}

/// Pass/fail with the grader's reasons.
#[component]
fn GradeView(result: RwSignal<Option<Grade>>, waiting: &'static str) -> impl IntoView {
    move || match result.get() {
        None => view! { <div class="grade grade-pending" data-grade="pending">{waiting}</div> }.into_any(),
        Some(grade) => {
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
                </div>
            }
            .into_any()
        }
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
    parts.push(format!("{} mode", goal.mode.name()));
    parts.join("; ")
}
