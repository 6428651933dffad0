//! Observations from a harness run, set beside the checker's outcome table.
//!
//! An observation file is the harness's JSON plus provenance (date, command) and the
//! canonical text of the scenario it ran, so it attaches to exactly that program.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::check::{FindingKind, Report};
use crate::model::{Cond, FinalCondition, Quantifier, Scenario, Term};

/// One outcome of the run: final registers (`thread:reg`) and memory, and how often.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservedOutcome {
    pub regs: BTreeMap<String, i64>,
    #[serde(default)]
    pub mem: BTreeMap<String, i64>,
    /// Some spin of the instance gave up (bounded waits); not an outcome of the model.
    #[serde(default)]
    pub timeout: bool,
    pub count: u64,
}

/// A harness run with its provenance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    pub gpu: String,
    pub cc: String,
    /// The driver (from `nvidia-smi` when known, else the CUDA driver API version).
    pub driver: String,
    pub cuda: String,
    #[serde(default)]
    pub date: Option<String>,
    /// How the harness was generated and run.
    #[serde(default)]
    pub command: Option<String>,
    /// Canonical `.fence` text of the scenario that ran.
    #[serde(default)]
    pub scenario: Option<String>,
    pub trials: u64,
    #[serde(default)]
    pub timeouts: u64,
    /// Registers whose values are hardware tokens (mbarrier states), never compared.
    #[serde(default)]
    pub opaque: Vec<String>,
    pub outcomes: Vec<ObservedOutcome>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObservationError(pub String);

impl fmt::Display for ObservationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ObservationError {}

impl Observation {
    pub fn from_json(text: &str) -> Result<Observation, ObservationError> {
        let obs: Observation = serde_json::from_str(text).map_err(|e| ObservationError(format!("not an observation file: {e}")))?;
        let sum: u64 = obs.outcomes.iter().map(|o| o.count).fold(0, u64::saturating_add);
        if sum != obs.trials {
            return Err(ObservationError(format!("the outcome counts add up to {sum}, not the {} trials claimed", obs.trials)));
        }
        Ok(obs)
    }

    /// Whether this observation ran exactly `scenario`'s machine and programs.
    pub fn is_for(&self, scenario: &Scenario) -> bool {
        let Some(text) = &self.scenario else { return false };
        let parsed = crate::syntax::parse(text).scenario;
        parsed.clusters == scenario.clusters
            && parsed.ctas == scenario.ctas
            && parsed.locations == scenario.locations
            && parsed.mbarriers == scenario.mbarriers
            && parsed.threads == scenario.threads
    }

    /// "NVIDIA H200 (CUDA 13.0, 2026-11-24)".
    pub fn label(&self) -> String {
        match &self.date {
            Some(date) => format!("{} (CUDA {}, {date})", self.gpu, self.cuda),
            None => format!("{} (CUDA {})", self.gpu, self.cuda),
        }
    }
}

/// One line of the combined table: an outcome of the model, or one only the GPU showed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OutcomeRow {
    pub values: Vec<(String, i64)>,
    /// The checker's executions ending here; `None` for an outcome outside its table
    /// (forbidden when the comparison is judged).
    pub model: Option<u64>,
    pub observed: u64,
    /// The outcome shows the bug the scenario's conditions describe (satisfies an
    /// `exists`, or breaks a `forall` / `~exists`).
    pub flagged: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Comparison {
    pub rows: Vec<OutcomeRow>,
    /// Trials whose outcome the model says is impossible.
    pub forbidden_but_observed: u64,
    pub timeouts: u64,
    /// False when the checker stopped early or found undefined behaviour (after which the
    /// model allows anything), so "forbidden" cannot be judged.
    pub judged: bool,
}

fn lookup(values: &[(String, i64)], term: &Term) -> Option<i64> {
    match term {
        Term::Imm(n) => Some(*n),
        Term::Reg { .. } | Term::Mem(_) => {
            let name = crate::syntax::term_text(term);
            values.iter().find(|(k, _)| *k == name).map(|(_, v)| *v)
        }
    }
}

fn eval(values: &[(String, i64)], c: &Cond) -> Option<bool> {
    Some(match c {
        Cond::True => true,
        Cond::Cmp(a, op, b) => op.eval(lookup(values, a)?, lookup(values, b)?),
        Cond::Not(c) => !eval(values, c)?,
        Cond::And(cs) => cs.iter().map(|c| eval(values, c)).collect::<Option<Vec<_>>>()?.into_iter().all(|b| b),
        Cond::Or(cs) => cs.iter().map(|c| eval(values, c)).collect::<Option<Vec<_>>>()?.into_iter().any(|b| b),
    })
}

fn flagged(conditions: &[FinalCondition], values: &[(String, i64)]) -> bool {
    conditions.iter().any(|c| match (c.quantifier, eval(values, &c.cond)) {
        (Quantifier::Exists, Some(true)) => true,
        (Quantifier::Forall | Quantifier::NotExists, Some(holds)) => holds == (c.quantifier == Quantifier::NotExists),
        (_, _) => false,
    })
}

/// The checker's outcome table with the observed counts beside it.
pub fn compare(scenario: &Scenario, report: &Report, obs: &Observation) -> Comparison {
    let terms: Vec<String> = report.outcomes.first().map_or_else(Vec::new, |o| o.values.iter().map(|(t, _)| t.clone()).collect());
    let compared: Vec<usize> = (0..terms.len()).filter(|&i| terms.get(i).is_some_and(|t| !obs.opaque.contains(t))).collect();
    let key = |values: &[(String, i64)]| -> Vec<i64> { compared.iter().filter_map(|&i| values.get(i).map(|(_, v)| *v)).collect() };
    let mut rows: Vec<OutcomeRow> = report
        .outcomes
        .iter()
        .map(|o| OutcomeRow { values: o.values.clone(), model: Some(o.count), observed: 0, flagged: flagged(&scenario.conditions, &o.values) })
        .collect();
    let judged = report.stats.complete && !report.findings.iter().any(|f| f.kind == FindingKind::Undefined);
    let mut forbidden = 0u64;
    let mut timeouts = 0u64;
    for o in &obs.outcomes {
        if o.timeout {
            timeouts = timeouts.saturating_add(o.count);
            continue;
        }
        // A register the run never wrote reads as 0, as in the model's initial state.
        let values: Vec<(String, i64)> =
            terms.iter().map(|t| (t.clone(), o.regs.get(t).or_else(|| o.mem.get(t)).copied().unwrap_or(0))).collect();
        let k = key(&values);
        match rows.iter_mut().find(|r| r.model.is_some() && key(&r.values) == k) {
            Some(row) => row.observed = row.observed.saturating_add(o.count),
            None => {
                if judged {
                    forbidden = forbidden.saturating_add(o.count);
                }
                match rows.iter_mut().find(|r| r.model.is_none() && key(&r.values) == k) {
                    Some(row) => row.observed = row.observed.saturating_add(o.count),
                    None => rows.push(OutcomeRow {
                        flagged: flagged(&scenario.conditions, &values),
                        values,
                        model: None,
                        observed: o.count,
                    }),
                }
            }
        }
    }
    Comparison { rows, forbidden_but_observed: forbidden, timeouts, judged }
}
