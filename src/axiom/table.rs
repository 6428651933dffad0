//! One outcome table: the explorer's rows plus every final state the axioms allow that no
//! interleaving reached, marked `unreached` (count 0), with the execution graph showing how;
//! and the final conditions answered by the axioms, so a condition only such a state
//! satisfies (or violates) is answered as the model answers it.

use super::{allowed, graph, hang, project, Allowed, Execution, Hang, Kind, Limits, Stay};
use crate::check::{condition_text, Access, Blocked, ConditionResult, ExpectationResult, Finding, FindingKind, Mode, Outcome, Report, Verdict};
use crate::model::{Expect, Quantifier, Scenario};
use crate::schedule::Schedule;
use crate::syntax::{expectation_text, instr_text};

/// What an `exists` satisfied only by unreached final states says beside its tick.
pub const ALLOWED_UNREACHED: &str = "allowed (no interleaving reaches it)";

/// Every check of the CLI, the worker and the lessons runs the axioms: a scenario too large
/// for a quick answer keeps the explorer's table rather than stalling the check.
fn quick_limits(mode: Mode) -> Limits {
    Limits { mode, max_traces: 512, max_candidates: 50_000, ..Limits::default() }
}

/// The axioms' answer for a report the explorer finished, when the scenario is in the
/// fragment, within the quick limits, and no loop was cut.
fn settled(scenario: &Scenario, report: &Report) -> Option<Allowed> {
    if report.verdict == Verdict::Partial || !report.stats.complete {
        return None;
    }
    allowed(scenario, &quick_limits(report.mode)).ok().filter(|axioms| !axioms.cut)
}

/// Adds to `report.outcomes` each final state the axioms allow that the explorer did not
/// reach, projected on the table's columns, marked `unreached`; answers the final
/// conditions (and their expectation lines) as the axioms do; and adds a race finding
/// where the axioms find a data race only in executions no interleaving performs
/// ([`unreached_race`]). Leaves the report as it is
/// when the scenario is outside the fragment or over the quick limits, a loop was cut, or
/// the exploration stopped short. Otherwise verdicts, findings and witnesses stay. Returns
/// the executions of the added rows, in row order.
pub fn complete_outcomes(scenario: &Scenario, report: &mut Report) -> Vec<Execution> {
    add_unreached_hang(scenario, report);
    let Some(axioms) = settled(scenario, report) else { return Vec::new() };
    settle_conditions(scenario, report, &axioms);
    add_unreached_race(scenario, report, &axioms);
    let mut graphs = Vec::new();
    // The table's columns come from its rows: with none (every run blocked) there is nothing to add to.
    let Some(first) = report.outcomes.first() else { return graphs };
    let terms: Vec<String> = first.values.iter().map(|(t, _)| t.clone()).collect();
    for (fin, witness) in &axioms.finals {
        let values = project(scenario, fin, &terms);
        if report.outcomes.iter().all(|o| o.values != values) {
            report.outcomes.push(Outcome { values, count: 0, unreached: true });
            graphs.push(witness.execution.clone());
        }
    }
    graphs
}

/// Where the axioms answer a condition otherwise than the interleavings did (only final
/// states no interleaving reaches can make the difference), the axioms' answer stands, with
/// no schedule as witness, and the condition's expectation line says why.
fn settle_conditions(scenario: &Scenario, report: &mut Report, axioms: &Allowed) {
    let Report { conditions, expectations, .. } = report;
    for result in conditions.iter_mut() {
        let Some(condition) = scenario.conditions.get(result.index) else { continue };
        if !axioms.decides(scenario, condition) {
            continue;
        }
        let holds = axioms.holds(scenario, condition);
        // Only a state the axioms allow and no interleaving reaches may change the answer:
        // an `exists` it satisfies, or a `~exists`/`forall` it breaks. A reached state the
        // axioms forbid is the engines disagreeing, and the explorer stays the judge.
        let unreached_decides = match condition.quantifier {
            Quantifier::Exists => holds && !result.holds,
            Quantifier::NotExists | Quantifier::Forall => !holds && result.holds,
        };
        if !unreached_decides {
            continue;
        }
        *result = ConditionResult { index: result.index, holds, witness: None };
        let declared = condition_text(condition);
        let actual = match condition.quantifier {
            Quantifier::Exists => ALLOWED_UNREACHED.to_string(),
            Quantifier::NotExists | Quantifier::Forall => {
                "a final state the axioms allow violates it (no interleaving reaches that state)".to_string()
            }
        };
        if let Some(line) = expectations.iter_mut().find(|e| e.declared == declared) {
            *line = ExpectationResult { declared, ok: holds, actual };
        }
    }
}

/// The finding for a data race the axioms find only in executions no interleaving performs
/// (a read of a later write, or coherence against execution order), where the explorer
/// found no race: the accesses of the first racing pair, with an empty witness (there is
/// no schedule to replay; [`graph_of_race`] draws the execution). `None` when the explorer
/// found a race, or the axioms find none, or one an interleaving performs.
pub fn unreached_race(scenario: &Scenario, report: &Report, axioms: &Allowed) -> Option<Finding> {
    if report.findings.iter().any(|f| f.kind == FindingKind::Race) {
        return None;
    }
    let race = axioms.race.as_ref().filter(|r| !r.in_time)?;
    let &(a, b) = race.execution.races.first()?;
    let access = |e: usize| {
        let event = race.execution.events.get(e)?;
        let thread = scenario.threads.get(event.thread?)?;
        let location = scenario.locations.get(event.virt)?.name.clone();
        let text = thread.program.get(event.instr).map(instr_text)?;
        let access = Access { agent: thread.name.clone(), thread: thread.name.clone(), instr: event.instr, location, is_write: event.kind == Kind::Write, step: 0 };
        Some((access, text))
    };
    let ((first, first_text), (second, second_text)) = (access(a)?, access(b)?);
    let explanation = format!(
        "The PTX axioms allow an execution in which a read returns the value of a write that comes later (load buffering) or coherence runs against execution order, and in it `{first_text}` of `{}` and `{second_text}` of `{}` conflict with neither causality order nor moral strength between them. No interleaving performs that execution, so there is no witness to step through: its execution graph shows it.",
        first.thread, second.thread
    );
    Some(Finding {
        kind: FindingKind::Race,
        reason: None,
        message: format!("data race on `{}` in an execution no interleaving performs", first.location),
        explanation,
        accesses: vec![first, second],
        blocked: Vec::new(),
        missing_edge: Vec::new(),
        witness: Schedule::default(),
    })
}

/// Judges the `expect` verdict lines again (they come first among the expectations, in
/// order) for a finding of kind `found` the axioms add: `expect correct` now fails on it,
/// an expectation of that kind now holds, the others stand.
fn rejudge_expectations(scenario: &Scenario, report: &mut Report, finding: &Finding, found: Expect) {
    let judged = scenario.expect.iter().filter(|e| e.holds_in(report.mode));
    for (expectation, line) in judged.zip(report.expectations.iter_mut()) {
        if line.declared != expectation_text(expectation) {
            break;
        }
        if expectation.verdict == Expect::Correct {
            *line = ExpectationResult { declared: line.declared.clone(), ok: false, actual: finding.message.clone() };
        } else if expectation.verdict == found {
            *line = ExpectationResult { declared: line.declared.clone(), ok: true, actual: String::new() };
        }
    }
}

/// Adds [`unreached_race`]'s finding: the verdict becomes a race where it was correct, and
/// the `expect` lines are judged again (they come first among the expectations, in order).
fn add_unreached_race(scenario: &Scenario, report: &mut Report, axioms: &Allowed) {
    let Some(finding) = unreached_race(scenario, report, axioms) else { return };
    rejudge_expectations(scenario, report, &finding, Expect::Race);
    if report.verdict == Verdict::Correct {
        report.verdict = Verdict::Race;
    }
    report.findings.push(finding);
}

/// A hang the axioms find where the explorer, having finished, found none: one only a
/// coherence order no interleaving produces allows (`axiom::hang`; the explorer's coherence
/// follows execution order). `None` outside the fragment or over the quick limits.
fn axioms_hang(scenario: &Scenario, report: &Report) -> Option<Hang> {
    if report.hangs || report.verdict == Verdict::Partial || !report.stats.complete {
        return None;
    }
    hang(scenario, &quick_limits(report.mode)).ok().flatten()
}

/// The deadlock finding for [`axioms_hang`]'s execution: who spins and who waits, with an
/// empty witness (there is no schedule to replay; [`graph_of_hang`] draws the execution).
pub fn unreached_hang(scenario: &Scenario, hang: &Hang) -> Finding {
    let blocked = hang
        .threads
        .iter()
        .enumerate()
        .filter_map(|(t, stay)| {
            let thread = scenario.threads.get(t)?;
            let (instr, waits_for) = match stay {
                Stay::Finished => return None,
                Stay::Spins { instr, .. } => (*instr, "spins for ever: every read of its loop reads a write no other write is coherence-after".to_string()),
                Stay::Waits { instr } => (*instr, "waits at the barrier for ever: a spinning thread never arrives".to_string()),
            };
            Some(Blocked { agent: thread.name.clone(), thread: thread.name.clone(), instr, waits_for })
        })
        .collect();
    let explanation = format!(
        "The PTX axioms allow an execution that never ends: {}. Two writes are ordered in coherence only when they are morally strong or ordered by causality, so a spinning thread may keep reading a write that another thread's unordered write never replaces; under fair scheduling and fair memory (every write is eventually visible) nothing newer ever arrives. No interleaving reaches it, because the explorer's coherence follows the order writes execute, so there is no witness to step through: its execution graph shows it. Make the flag's accesses strong (relaxed, or release and acquire) so that the writes are ordered.",
        hang.describe(scenario)
    );
    let spinner = hang.threads.iter().enumerate().find_map(|(t, s)| matches!(s, Stay::Spins { .. }).then(|| scenario.threads.get(t)).flatten());
    Finding {
        kind: FindingKind::Deadlock,
        reason: None,
        message: format!("hang: `{}` may spin for ever under a coherence order no interleaving reaches", spinner.map_or("?", |t| t.name.as_str())),
        explanation,
        accesses: Vec::new(),
        blocked,
        missing_edge: Vec::new(),
        witness: Schedule::default(),
    }
}

/// Adds [`unreached_hang`]'s finding where the explorer found no hang: the report hangs, a
/// correct verdict becomes deadlock, and the `expect` lines are judged again.
fn add_unreached_hang(scenario: &Scenario, report: &mut Report) {
    let Some(hang) = axioms_hang(scenario, report) else { return };
    let finding = unreached_hang(scenario, &hang);
    rejudge_expectations(scenario, report, &finding, Expect::Deadlock);
    report.hangs = true;
    if report.verdict == Verdict::Correct {
        report.verdict = Verdict::Deadlock;
    }
    report.findings.push(finding);
}

/// The execution graph of [`unreached_hang`]'s execution, its spinning reads marked. `None`
/// when the axioms find no hang beyond the explorer's.
pub fn graph_of_hang(scenario: &Scenario, mode: Mode) -> Option<String> {
    let hang = hang(scenario, &quick_limits(mode)).ok().flatten()?;
    let notes: Vec<(usize, String)> = hang
        .threads
        .iter()
        .flat_map(|stay| match stay {
            Stay::Spins { reads, .. } => reads.iter().map(|&r| (r, "for ever".to_string())).collect(),
            Stay::Waits { .. } | Stay::Finished => Vec::new(),
        })
        .collect();
    Some(graph::svg_noted(scenario, &hang.execution, &notes))
}

/// The execution graph of [`unreached_race`]'s execution, its racing pairs drawn as `race`
/// edges. `None` when the axioms find no race that only such an execution has.
pub fn graph_of_race(scenario: &Scenario, mode: Mode) -> Option<String> {
    let axioms = allowed(scenario, &quick_limits(mode)).ok()?;
    let race = axioms.race.filter(|r| !r.in_time)?;
    Some(graph::svg(scenario, &race.execution))
}

/// The execution graph (SVG, `axiom::graph::svg`) of a final state the axioms allow whose
/// values on the outcome table's columns are `values`: what the app draws for an
/// `unreached` row. `None` when the scenario is outside the fragment, over the quick
/// limits, or no allowed final state has these values.
pub fn graph_of_row(scenario: &Scenario, mode: Mode, values: &[(String, i64)]) -> Option<String> {
    let axioms = allowed(scenario, &quick_limits(mode)).ok()?;
    let terms: Vec<String> = values.iter().map(|(t, _)| t.clone()).collect();
    // Prefer an execution no interleaving performs: it is the one that needs a picture.
    let mut matching = axioms.finals.iter().filter(|(fin, _)| project(scenario, fin, &terms) == values);
    let (_, witness) = matching.clone().find(|(_, w)| !w.in_time).or_else(|| matching.next())?;
    Some(graph::svg(scenario, &witness.execution))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check, Options};

    const LB: &str = "cta A\nglobal x = 0\nglobal y = 0\nthread a @A:\n    ld.relaxed.gpu r0, [x]\n    st.relaxed.gpu [y], 1\nthread b @A:\n    ld.relaxed.gpu r1, [y]\n    st.relaxed.gpu [x], 1\n";

    fn checked(src: &str) -> (Scenario, Report) {
        let loaded = crate::load(src);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let report = check(&loaded.scenario, &Options::default());
        (loaded.scenario, report)
    }

    #[test]
    fn load_buffering_joins_the_table_unreached() {
        let (scenario, mut report) = checked(LB);
        let before = report.outcomes.len();
        let graphs = complete_outcomes(&scenario, &mut report);
        let added: Vec<&Outcome> = report.outcomes.iter().filter(|o| o.unreached).collect();
        assert_eq!(added.len(), 1, "{:?}", report.outcomes);
        assert_eq!(report.outcomes.len(), before + 1);
        assert_eq!(added[0].count, 0);
        assert!(added[0].values.contains(&("a:r0".to_string(), 1)) && added[0].values.contains(&("b:r1".to_string(), 1)));
        assert_eq!(graphs.len(), 1);
    }

    #[test]
    fn an_exists_only_load_buffering_satisfies_is_allowed() {
        let (scenario, mut report) = checked(&format!("{LB}exists (a:r0 == 1 && b:r1 == 1)\n"));
        assert!(!report.conditions[0].holds, "no interleaving reaches it");
        let line = report.expectations.last().cloned().expect("the condition's line");
        assert!(!line.ok && line.actual == "no execution reaches it", "{line:?}");
        complete_outcomes(&scenario, &mut report);
        assert!(report.conditions[0].holds && report.conditions[0].witness.is_none(), "{:?}", report.conditions);
        let line = report.expectations.last().expect("the condition's line");
        assert!(line.ok && line.actual == ALLOWED_UNREACHED, "{line:?}");
    }

    #[test]
    fn a_not_exists_load_buffering_violates_fails() {
        let (scenario, mut report) = checked(&format!("{LB}~exists (a:r0 == 1 && b:r1 == 1)\n"));
        assert!(report.conditions[0].holds && report.expectations.iter().all(|e| e.ok));
        complete_outcomes(&scenario, &mut report);
        assert!(!report.conditions[0].holds);
        let line = report.expectations.last().expect("the condition's line");
        assert!(!line.ok && line.actual.contains("no interleaving reaches that state"), "{line:?}");
    }

    #[test]
    fn a_condition_interleavings_answer_keeps_its_witness() {
        let (scenario, mut report) = checked(&format!("{LB}exists (a:r0 == 1 && b:r1 == 0)\n"));
        let before = (report.conditions.clone(), report.expectations.clone());
        complete_outcomes(&scenario, &mut report);
        assert!(report.conditions[0].witness.is_some());
        assert_eq!((report.conditions.clone(), report.expectations.clone()), before);
    }

    /// Load buffering enables two weak stores, which race only when both loads read 1.
    const GUARDED_RACE: &str = "cta A\nglobal x = 0\nglobal y = 0\nglobal z = 0\nthread left @A:\n    ld.relaxed.gpu.global r0, [x]\n    st.relaxed.gpu.global [y], 1\n    @r0 st.global [z], 1\nthread right @A:\n    ld.relaxed.gpu.global r1, [y]\n    st.relaxed.gpu.global [x], 1\n    @r1 st.global [z], 2\nexpect correct\n";

    #[test]
    fn a_race_only_load_buffering_reaches_is_a_finding_without_a_witness() {
        let (scenario, mut report) = checked(GUARDED_RACE);
        assert_eq!(report.verdict, Verdict::Correct, "no interleaving runs both stores");
        assert!(report.expectations[0].ok);
        complete_outcomes(&scenario, &mut report);
        assert_eq!(report.verdict, Verdict::Race);
        let [finding] = report.findings.as_slice() else { panic!("one finding: {:?}", report.findings) };
        assert_eq!(finding.message, "data race on `z` in an execution no interleaving performs");
        assert!(finding.witness.steps.is_empty());
        let racing: Vec<(&str, usize, bool)> = finding.accesses.iter().map(|a| (a.thread.as_str(), a.instr, a.is_write)).collect();
        assert_eq!(racing, [("left", 2, true), ("right", 2, true)]);
        assert!(finding.explanation.contains("`@r0 st.global [z], 1` of `left`"), "{}", finding.explanation);
        let line = &report.expectations[0];
        assert!(!line.ok && line.actual == finding.message, "{line:?}");
        let svg = graph_of_race(&scenario, report.mode).expect("the racy execution");
        assert_eq!(svg.matches(r#"class="race""#).count(), 1, "{svg}");
    }

    #[test]
    fn a_race_an_interleaving_reaches_stays_the_explorers() {
        // Unguarded, the weak stores race in every execution: the explorer's finding stands alone.
        let (scenario, mut report) = checked(&GUARDED_RACE.replace("@r0 ", "").replace("@r1 ", ""));
        let findings = report.findings.clone();
        assert_eq!(report.verdict, Verdict::Race);
        complete_outcomes(&scenario, &mut report);
        assert_eq!(report.findings, findings);
        assert_eq!(graph_of_race(&scenario, report.mode), None, "the axioms' race is performed in time");
    }

    #[test]
    fn load_buffering_alone_is_no_race() {
        let (scenario, mut report) = checked(LB);
        complete_outcomes(&scenario, &mut report);
        assert_eq!((report.verdict, report.findings.len()), (Verdict::Correct, 0));
    }

    #[test]
    fn an_unreached_row_has_a_graph_with_its_reads_from_later_writes() {
        let (scenario, mut report) = checked(LB);
        complete_outcomes(&scenario, &mut report);
        let row = report.outcomes.iter().find(|o| o.unreached).expect("the LB row");
        let svg = graph_of_row(&scenario, report.mode, &row.values).expect("a graph");
        assert_eq!(svg.matches(r#"class="rf""#).count(), 2, "{svg}");
        assert!(svg.contains("R x=1 rlx") && svg.contains("R y=1 rlx"), "{svg}");
        assert_eq!(graph_of_row(&scenario, report.mode, &[("a:r0".into(), 7), ("b:r1".into(), 7)]), None);
    }
}
