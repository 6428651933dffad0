//! Comparing checker reports with an external model's expected bits (Dat3M's CSV files).
//!
//! Pure functions: callers read the files and run the checker. Bit meanings:
//! - condition, `exists`: 1 = reachable; `~exists`/`forall`: 1 = holds in every execution
//!   (exactly [`ConditionResult::holds`](crate::check::ConditionResult));
//! - liveness: 1 = every fair execution terminates, i.e. the report does not hang.

use std::fmt;

use serde::Serialize;

use crate::check::{check, Options, Report, Verdict};
use crate::model::Scenario;
use crate::schedule::Schedule;

/// One `path,bit` line of an expected-results CSV.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    pub path: String,
    pub bit: bool,
}

/// Reads `path,bit` lines; blank lines are skipped, anything else is an error naming the line.
pub fn parse_expected(csv: &str) -> Result<Vec<Expected>, String> {
    let mut entries = Vec::new();
    for (index, line) in csv.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let bit = match line.rsplit_once(',') {
            Some((path, "1")) if !path.trim().is_empty() => Expected {
                path: path.trim().to_string(),
                bit: true,
            },
            Some((path, "0")) if !path.trim().is_empty() => Expected {
                path: path.trim().to_string(),
                bit: false,
            },
            _ => {
                return Err(format!(
                    "line {}: expected `path,0` or `path,1`, found `{line}`",
                    index + 1
                ))
            }
        };
        entries.push(bit);
    }
    Ok(entries)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Property {
    /// The test's final condition.
    Condition,
    /// Termination of every fair execution.
    Liveness,
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Property::Condition => "condition",
            Property::Liveness => "liveness",
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Agree,
    Disagree,
    Unsupported,
}

/// The outcome of one (test, property) comparison.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Judgement {
    pub test: String,
    pub property: Property,
    pub expected: bool,
    /// Our bit; `None` when the test was not imported or exploration was cut short.
    pub ours: Option<bool>,
    pub status: Status,
    /// The witness (thread steps) or the reason, for disagreements and unsupported tests.
    pub detail: String,
}

impl fmt::Display for Judgement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bit = |b: bool| if b { "1" } else { "0" };
        let ours = self.ours.map_or("?", bit);
        match self.status {
            Status::Unsupported => write!(
                f,
                "{} ({}): unsupported: {}",
                self.test, self.property, self.detail
            ),
            _ => write!(
                f,
                "{} ({}): expected {}, ours {}: {}",
                self.test,
                self.property,
                bit(self.expected),
                ours,
                self.detail
            ),
        }
    }
}

pub fn unsupported(
    test: &str,
    property: Property,
    expected: bool,
    reason: impl Into<String>,
) -> Judgement {
    Judgement {
        test: test.to_string(),
        property,
        expected,
        ours: None,
        status: Status::Unsupported,
        detail: reason.into(),
    }
}

/// Compares a checked scenario with the expected bit for `property`.
pub fn judge(
    test: &str,
    property: Property,
    expected: bool,
    scenario: &Scenario,
    report: &Report,
) -> Judgement {
    let judged = |ours: Option<bool>, detail: String| {
        let status = if ours == Some(expected) {
            Status::Agree
        } else {
            Status::Disagree
        };
        Judgement {
            test: test.to_string(),
            property,
            expected,
            ours,
            status,
            detail,
        }
    };
    if report.verdict == Verdict::Partial || !report.stats.complete {
        let detail = format!(
            "exploration stopped after {} states; nothing proven",
            report.stats.states
        );
        return judged(None, detail);
    }
    match property {
        Property::Condition => {
            let Some(result) = report.conditions.iter().find(|c| c.index == 0) else {
                return unsupported(test, property, expected, "the test has no final condition");
            };
            let detail = match &result.witness {
                Some(w) => format!("witness {}", describe_schedule(scenario, w)),
                None => "no witness".to_string(),
            };
            judged(Some(result.holds), detail)
        }
        Property::Liveness => {
            let hang = report
                .findings
                .iter()
                .find(|f| f.kind == crate::check::FindingKind::Deadlock)
                .map(|f| {
                    format!(
                        "{}; witness {}",
                        f.message,
                        describe_schedule(scenario, &f.witness)
                    )
                });
            let detail = hang.unwrap_or_else(|| "no hanging execution found".to_string());
            judged(Some(!report.hangs), detail)
        }
    }
}

/// `P1 P0 P0#1 ...`: who moved at each step, with the read choice when not the first.
pub fn describe_schedule(scenario: &Scenario, schedule: &Schedule) -> String {
    if schedule.steps.is_empty() {
        return "(initial state)".to_string();
    }
    let names: Vec<String> = schedule
        .steps
        .iter()
        .map(|step| {
            let agent = usize::try_from(step.agent).ok();
            let name = agent
                .and_then(|a| scenario.threads.get(a))
                .map_or_else(|| format!("agent{}", step.agent), |t| t.name.clone());
            if step.choice == 0 {
                name
            } else {
                format!("{name}#{}", step.choice)
            }
        })
        .collect();
    names.join(" ")
}

/// Counts of a whole run; `Display` is the runner's last line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub agree: usize,
    pub disagree: usize,
    pub unsupported: usize,
}

impl Summary {
    pub fn of(judgements: &[Judgement]) -> Self {
        let count = |s: Status| judgements.iter().filter(|j| j.status == s).count();
        Summary {
            agree: count(Status::Agree),
            disagree: count(Status::Disagree),
            unsupported: count(Status::Unsupported),
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} agree, {} disagree, {} unsupported",
            self.agree, self.disagree, self.unsupported
        )
    }
}

/// Imports `src`, checks it once, and judges each `(property, expected bit)`.
pub fn judge_source(
    test: &str,
    src: &str,
    wanted: &[(Property, bool)],
    options: &Options,
) -> Vec<Judgement> {
    let scenario = match super::import(src) {
        Ok(scenario) => scenario,
        Err(err) => {
            return wanted
                .iter()
                .map(|&(p, bit)| unsupported(test, p, bit, err.to_string()))
                .collect();
        }
    };
    if scenario.conditions.is_empty() && wanted.iter().any(|(p, _)| *p == Property::Condition) {
        return wanted
            .iter()
            .map(|&(p, bit)| unsupported(test, p, bit, "the test has no final condition"))
            .collect();
    }
    // Safety bits come from the axiomatic engine where the test lies in its fragment (it
    // produces load buffering and coherence against execution order, which the explorer
    // cannot); liveness, and tests outside the fragment, from the explorer.
    let axioms = if wanted.iter().any(|(p, _)| *p == Property::Condition) {
        crate::axiom::allowed(&scenario, &crate::axiom::Limits { mode: options.mode, ..crate::axiom::Limits::default() })
            .ok()
            .filter(|a| scenario.conditions.first().is_some_and(|c| a.decides(&scenario, c)))
    } else {
        None
    };
    let needs_explorer = axioms.is_none() || wanted.iter().any(|(p, _)| *p == Property::Liveness);
    let report = needs_explorer.then(|| check(&scenario, options));
    // A hang the explorer cannot reach: a coherence order against execution order keeps a
    // spin reading the same value (`axiom::hang`). Asked only where the explorer found none.
    let hang = if wanted.iter().any(|(p, _)| *p == Property::Liveness) && report.as_ref().is_some_and(|r| !r.hangs) {
        crate::axiom::hang(&scenario, &crate::axiom::Limits { mode: options.mode, ..crate::axiom::Limits::default() }).ok().flatten()
    } else {
        None
    };
    wanted
        .iter()
        .map(|&(p, bit)| match (p, &axioms, &report, &hang) {
            (Property::Condition, Some(allowed), _, _) => judge_axioms(test, bit, &scenario, allowed),
            (Property::Liveness, _, _, Some(hang)) => judge_hang(test, bit, &scenario, hang),
            (_, _, Some(report), _) => judge(test, p, bit, &scenario, report),
            (_, _, None, _) => unsupported(test, p, bit, "fencelab internal bug: no engine judged this property"),
        })
        .collect()
}

/// How the detail of a liveness bit the axioms' hang search decided begins.
pub const AXIOMS_HANG: &str = "axiomatic engine: a hang no interleaving reaches";

/// Judges a test's liveness by a hang the axioms found (the bit is 0: some fair execution
/// does not terminate).
pub fn judge_hang(test: &str, expected: bool, scenario: &Scenario, hang: &crate::axiom::Hang) -> Judgement {
    let detail = format!("{AXIOMS_HANG}: {}", hang.describe(scenario));
    Judgement {
        test: test.to_string(),
        property: Property::Liveness,
        expected,
        ours: Some(false),
        status: if expected { Status::Disagree } else { Status::Agree },
        detail,
    }
}

/// Judges a test's condition by the outcomes the axioms allow.
pub fn judge_axioms(test: &str, expected: bool, scenario: &Scenario, allowed: &crate::axiom::Allowed) -> Judgement {
    let Some(condition) = scenario.conditions.first() else {
        return unsupported(test, Property::Condition, expected, "the test has no final condition");
    };
    let ours = allowed.holds(scenario, condition);
    Judgement {
        test: test.to_string(),
        property: Property::Condition,
        expected,
        ours: Some(ours),
        status: if ours == expected { Status::Agree } else { Status::Disagree },
        detail: format!(
            "axiomatic engine: {} allowed final states over {} candidate executions",
            allowed.finals.len(),
            allowed.candidates
        ),
    }
}

/// The `(test path, property)` pairs of the deviation table in `docs/conformance.md`: rows
/// `| test | property | reason |` whose property is `condition`, `liveness` or `import`.
pub fn parse_deviations(markdown: &str) -> Vec<(String, Option<Property>)> {
    markdown
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line
                .trim()
                .strip_prefix('|')?
                .split('|')
                .map(str::trim)
                .collect();
            let test = cells.first()?.trim_matches('`');
            let property = match *cells.get(1)? {
                "condition" => Some(Property::Condition),
                "liveness" => Some(Property::Liveness),
                "import" => None,
                _ => return None,
            };
            Some((test.to_string(), property))
        })
        .collect()
}

#[cfg(test)]
mod tests;
