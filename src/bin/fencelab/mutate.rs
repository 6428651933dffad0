//! `fencelab mutate FILE [--json] [--mode strict|pragmatic]`: which synchronization steps
//! of a scenario matter. Each single-point weakening (`fencelab::mutate`) is checked;
//! killed means the checker's verdict changes, survived means it cannot tell.

use std::io::Write;

use fencelab::check::{stated_modes, Mode};
use fencelab::diag::line_col;
use fencelab::mutate::{judge, mutants, Fate, Judged};

use crate::check::ModeArg;
use crate::input::{read_scenario, Input};
use crate::ui::Ui;

/// States explored per mutant before it counts as undecided.
const MAX_STATES: u64 = 200_000;

/// Check every single weakening of a scenario's synchronization
#[derive(clap::Args)]
#[command(long_about = "Check every single weakening of a scenario's synchronization.

Derives single-point weakenings (a narrower scope, a weaker semantics, a dropped fence,
wait, commit or expect_tx, a flipped parity, a changed count, two instructions swapped),
checks each one and says whether the checker notices: killed means the verdict changes,
survived means this step did not matter to the verdict.")]
#[command(after_help = "\
Examples:
  fencelab mutate tests/scenarios/checker/bug1_fixed_release_cluster.fence
  fencelab mutate --json --mode strict mp.fence

Exit status: 0 done, 2 bad input or usage.")]
pub struct Args {
    /// Scenario file; `-` reads standard input
    #[arg(value_name = "FILE", value_parser = Input::parser())]
    file: Input,
    /// Print one JSON object per mutant
    #[arg(long)]
    json: bool,
    /// Run only this mode; without it, the modes the file's `expect` lines name
    #[arg(long, value_enum)]
    mode: Option<ModeArg>,
}

/// Exit code: 0 done, 2 unreadable or invalid scenario.
pub fn run(args: &Args, ui: Ui) -> u8 {
    let (src, scenario, source_map) = match read_scenario(&args.file, ui) {
        Ok(input) => input,
        Err(code) => return code,
    };
    let file = args.file.to_string();
    let file = file.as_str();
    let scenario = &scenario;
    let line_of = |j: &Judged| {
        source_map.instr(j.mutant.thread, j.mutant.instr).map_or(0, |span| line_col(&src, span.start).0)
    };
    let modes = args.mode.map_or_else(|| stated_modes(scenario), |m| vec![Mode::from(m)]);
    let mut objects = Vec::new();
    let mut out = std::io::stdout().lock();
    for mode in modes {
        let judged = judge(scenario, mode, MAX_STATES, mutants(scenario));
        for j in &judged {
            let thread = scenario.threads.get(j.mutant.thread).map_or("?", |t| t.name.as_str());
            if args.json {
                objects.push(serde_json::json!({
                    "mode": mode.name(), "line": line_of(j), "thread": thread, "instr": j.mutant.instr,
                    "kind": j.mutant.kind.name(), "before": j.mutant.before, "after": j.mutant.after,
                    "verdict": j.verdict.name(), "fate": j.fate.name(), "finding": j.finding,
                }));
                continue;
            }
            let why = j.finding.as_deref().map(|f| format!(": {f}")).unwrap_or_default();
            let _ = writeln!(
                out,
                "{file}:{}: {thread}: {} -> {}\n    {} ({} in {} mode{why})",
                line_of(j),
                j.mutant.before,
                j.mutant.after,
                j.fate.name(),
                j.verdict.name(),
                mode.name()
            );
        }
        if !args.json {
            let count = |fate: Fate| judged.iter().filter(|j| j.fate == fate).count();
            let _ = writeln!(
                out,
                "{file}: {} mutants in {} mode: {} killed, {} survived, {} undecided",
                judged.len(),
                mode.name(),
                count(Fate::Killed),
                count(Fate::Survived),
                count(Fate::Undecided)
            );
        }
    }
    if args.json {
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&objects).unwrap_or_default());
    }
    0
}
