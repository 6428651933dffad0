//! Running the checker on mutants: killed (the checker tells the mutant apart from the
//! original) or survived.

use super::mutants::Mutant;
use crate::check::{check_one_mode, Mode, Options, Report, Verdict};
use crate::model::Scenario;

/// What became of a mutant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Fate {
    /// Its verdict or a final condition differs from the original's.
    Killed,
    /// The checker cannot tell it from the original.
    Survived,
    /// The state cap stopped the mutant's exploration (or the original's).
    Undecided,
}

impl Fate {
    pub fn name(self) -> &'static str {
        match self {
            Fate::Killed => "killed",
            Fate::Survived => "survived",
            Fate::Undecided => "undecided",
        }
    }
}

/// A mutant with the checker's verdict on it.
#[derive(Clone, Debug)]
pub struct Judged {
    pub mutant: Mutant,
    pub verdict: Verdict,
    pub fate: Fate,
    /// The first finding's message, when there is one.
    pub finding: Option<String>,
}

/// What a run shows of a scenario: its verdict and whether each final condition holds.
fn outcome(report: &Report) -> (Verdict, Vec<bool>) {
    (report.verdict, report.conditions.iter().map(|c| c.holds).collect())
}

/// Checks `original` and each mutant in `mode` (one pass each: the other mode's note is
/// not needed to compare verdicts) and says which mutants the checker kills.
pub fn judge(original: &Scenario, mode: Mode, max_states: u64, mutants: Vec<Mutant>) -> Vec<Judged> {
    let options = Options { mode, max_states, ..Options::default() };
    let baseline = check_one_mode(original, &options);
    mutants
        .into_iter()
        .map(|mutant| {
            let report = check_one_mode(&mutant.scenario, &options);
            // A capped mutant run that witnesses a finding the original lacks is killed.
            let witnessed = report.verdict != Verdict::Partial && report.verdict != baseline.verdict;
            let fate = if !baseline.stats.complete || (!report.stats.complete && !witnessed) {
                Fate::Undecided
            } else if outcome(&report) == outcome(&baseline) {
                Fate::Survived
            } else {
                Fate::Killed
            };
            let finding = report.findings.first().map(|f| f.message.clone());
            Judged { mutant, verdict: report.verdict, fate, finding }
        })
        .collect()
}
