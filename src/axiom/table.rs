//! One outcome table: the explorer's rows plus every final state the axioms allow that no
//! interleaving reached, marked `unreached` (count 0), with the execution graph showing how.

use super::{allowed, project, Execution, Limits};
use crate::check::{Outcome, Report, Verdict};
use crate::model::Scenario;

/// Adds to `report.outcomes` each final state the axioms allow that the explorer did not
/// reach, projected on the table's columns, marked `unreached`. Leaves the report as it
/// is when the scenario is outside the fragment or over the small limits used here, a
/// loop was cut, the exploration stopped short, or the table has no rows to take its
/// columns from. Verdicts, findings and
/// witnesses are untouched. Returns the executions of the added rows, in row order.
pub fn complete_outcomes(scenario: &Scenario, report: &mut Report) -> Vec<Execution> {
    let mut graphs = Vec::new();
    if report.verdict == Verdict::Partial || !report.stats.complete {
        return graphs;
    }
    let Some(first) = report.outcomes.first() else { return graphs };
    let terms: Vec<String> = first.values.iter().map(|(t, _)| t.clone()).collect();
    // Every check of the CLI, the worker and the lessons runs this: a scenario too large
    // for a quick answer keeps the explorer's table rather than stalling the check.
    let limits = Limits { mode: report.mode, max_traces: 512, max_candidates: 50_000, ..Limits::default() };
    let Ok(axioms) = allowed(scenario, &limits) else {
        return graphs;
    };
    if axioms.cut {
        return graphs;
    }
    for (fin, witness) in &axioms.finals {
        let values = project(scenario, fin, &terms);
        if report.outcomes.iter().all(|o| o.values != values) {
            report.outcomes.push(Outcome { values, count: 0, unreached: true });
            graphs.push(witness.execution.clone());
        }
    }
    graphs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check, Options};

    #[test]
    fn load_buffering_joins_the_table_unreached() {
        let src = "cta A\nglobal x = 0\nglobal y = 0\nthread a @A:\n    ld.relaxed.gpu r0, [x]\n    st.relaxed.gpu [y], 1\nthread b @A:\n    ld.relaxed.gpu r1, [y]\n    st.relaxed.gpu [x], 1\n";
        let loaded = crate::load(src);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let mut report = check(&loaded.scenario, &Options::default());
        let before = report.outcomes.len();
        let graphs = complete_outcomes(&loaded.scenario, &mut report);
        let added: Vec<&Outcome> = report.outcomes.iter().filter(|o| o.unreached).collect();
        assert_eq!(added.len(), 1, "{:?}", report.outcomes);
        assert_eq!(report.outcomes.len(), before + 1);
        assert_eq!(added[0].count, 0);
        assert!(added[0].values.contains(&("a:r0".to_string(), 1)) && added[0].values.contains(&("b:r1".to_string(), 1)));
        assert_eq!(graphs.len(), 1);
    }
}
