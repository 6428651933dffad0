//! One outcome table: the explorer's rows plus every final state the axioms allow that no
//! interleaving reached, marked `unreached` (count 0), with the execution graph showing how;
//! and the final conditions answered by the axioms, so a condition only such a state
//! satisfies (or violates) is answered as the model answers it.

use super::{allowed, graph, project, Allowed, Execution, Limits};
use crate::check::{condition_text, ConditionResult, ExpectationResult, Mode, Outcome, Report, Verdict};
use crate::model::{Quantifier, Scenario};

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
/// reach, projected on the table's columns, marked `unreached`, and answers the final
/// conditions (and their expectation lines) as the axioms do. Leaves the report as it is
/// when the scenario is outside the fragment or over the quick limits, a loop was cut, or
/// the exploration stopped short. Verdicts, findings and witnesses are untouched. Returns
/// the executions of the added rows, in row order.
pub fn complete_outcomes(scenario: &Scenario, report: &mut Report) -> Vec<Execution> {
    let Some(axioms) = settled(scenario, report) else { return Vec::new() };
    settle_conditions(scenario, report, &axioms);
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
        if holds == result.holds {
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
        assert!(!line.ok && line.actual.contains("no interleaving reaches it"), "{line:?}");
    }

    #[test]
    fn a_condition_interleavings_answer_keeps_its_witness() {
        let (scenario, mut report) = checked(&format!("{LB}exists (a:r0 == 1 && b:r1 == 0)\n"));
        let before = (report.conditions.clone(), report.expectations.clone());
        complete_outcomes(&scenario, &mut report);
        assert!(report.conditions[0].witness.is_some());
        assert_eq!((report.conditions.clone(), report.expectations.clone()), before);
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
