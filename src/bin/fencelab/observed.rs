//! `fencelab observed FILE RESULT.json [-o OUT] [--date D] [--driver V] [--command C]`:
//! attach a harness run to a scenario as a sidecar (`foo.fence` → `foo.observed.json`),
//! and say loudly when the GPU showed an outcome the model forbids.

use std::path::Path;

use fencelab::check::{check, Options, Report};
use fencelab::cuda::{compare, Comparison, Observation};
use fencelab::model::Scenario;

use std::path::PathBuf;

use crate::input::{read_scenario, read_text, Input, INPUT_ERROR};
use crate::ui::Ui;

/// Attach a GPU harness result to a scenario as its observation sidecar
#[derive(clap::Args)]
#[command(long_about = "Attach a GPU harness result to a scenario as its observation sidecar.

Writes `foo.observed.json` next to `foo.fence` (or OUT), recording the GPU, driver, CUDA
version, date, command and the exact program that ran; `fencelab check` then shows the
observed outcomes beside the model's. An outcome the model forbids is reported loudly.")]
#[command(after_help = "\
Examples:
  fencelab observed tests/scenarios/hardware/mp_relaxed.fence mp.json --date 2026-11-24

Exit status: 0 attached, 1 the GPU showed an outcome the model forbids, 2 bad input or usage.")]
pub struct Args {
    /// Scenario file
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The harness's JSON output; `-` reads standard input
    #[arg(value_name = "RESULT.json", value_parser = Input::parser())]
    result: Input,
    /// Write the sidecar here instead of next to FILE
    #[arg(short = 'o', value_name = "OUT.json")]
    out: Option<PathBuf>,
    /// The date of the run (default: the one the harness recorded)
    #[arg(long, value_name = "D")]
    date: Option<String>,
    /// The driver version (default: the one the harness recorded)
    #[arg(long, value_name = "V")]
    driver: Option<String>,
    /// The command that ran the harness
    #[arg(long, value_name = "C")]
    command: Option<String>,
}

/// `foo.fence` → `foo.observed.json`.
pub fn sidecar_path(file: &str) -> String {
    let stem = file.strip_suffix(".fence").unwrap_or(file);
    format!("{stem}.observed.json")
}

/// The sidecar observation of a scenario file, if there is one that ran this program.
pub fn sidecar(file: &Input, scenario: &Scenario) -> Option<Result<Observation, String>> {
    let Input::Path(file) = file else { return None };
    let path = sidecar_path(&file.to_string_lossy());
    if !Path::new(&path).is_file() {
        return None;
    }
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => return Some(Err(format!("cannot read `{path}`: {e}"))),
    };
    Some(match Observation::from_json(&text) {
        Ok(obs) if obs.is_for(scenario) => Ok(obs),
        Ok(_) => Err(format!("`{path}` was observed on a different program; run the harness again")),
        Err(e) => Err(format!("`{path}`: {e}")),
    })
}

/// The `"observed"` object of `check --json`.
pub fn json(obs: &Observation, cmp: &Comparison) -> serde_json::Value {
    let outcomes: Vec<serde_json::Value> = cmp
        .rows
        .iter()
        .map(|r| {
            let values: serde_json::Map<String, serde_json::Value> = r.values.iter().map(|(k, v)| (k.clone(), (*v).into())).collect();
            serde_json::json!({ "values": values, "observed": r.observed, "model": r.model, "forbidden": r.model.is_none(), "flagged": r.flagged })
        })
        .collect();
    serde_json::json!({
        "gpu": obs.gpu, "cc": obs.cc, "driver": obs.driver, "cuda": obs.cuda, "date": obs.date, "command": obs.command,
        "trials": obs.trials, "timeouts": cmp.timeouts, "outcomes": outcomes,
        "forbidden_but_observed": cmp.forbidden_but_observed, "judged": cmp.judged,
    })
}

/// Human lines: observed counts per outcome, and the loud warning.
pub fn print_human(obs: &Observation, cmp: &Comparison) {
    println!("observed on {}: {} trials", obs.label(), obs.trials);
    for r in &cmp.rows {
        let vals: Vec<String> = r.values.iter().map(|(t, v)| format!("{t}={v}")).collect();
        let what = match (r.model, r.flagged) {
            (None, _) if cmp.judged => "  <-- FORBIDDEN BY THE MODEL",
            (None, _) => "  (undefined behaviour: the model allows anything)",
            (Some(_), true) if r.observed > 0 => "  <-- the bug, seen on hardware",
            (Some(_), _) => "",
        };
        println!("  {:>9} / {}  {}{what}", r.observed, obs.trials, if vals.is_empty() { "(no registers)".into() } else { vals.join(" ") });
    }
    if cmp.timeouts > 0 {
        println!("  {:>9} / {}  timed out (a bounded spin gave up)", cmp.timeouts, obs.trials);
    }
    if cmp.forbidden_but_observed > 0 {
        eprintln!(
            "error: the GPU showed {} trial(s) with an outcome the model forbids: a harness bug or a model bug; investigate",
            cmp.forbidden_but_observed
        );
    }
}

fn report_for(scenario: &Scenario) -> Report {
    check(scenario, &Options::default())
}

/// Exit code: 0 attached, 1 the GPU showed a forbidden outcome, 2 invalid input.
pub fn run(args: &Args, ui: Ui) -> u8 {
    let file = args.file.to_string_lossy().into_owned();
    let (_, scenario, _) = match read_scenario(&Input::Path(args.file.clone()), ui) {
        Ok(input) => input,
        Err(code) => return code,
    };
    let Ok(text) = read_text(&args.result, ui) else { return INPUT_ERROR };
    let mut obs = match Observation::from_json(&text) {
        Ok(o) => o,
        Err(e) => {
            ui.error(&format!("`{}`: {e}", args.result));
            return INPUT_ERROR;
        }
    };
    obs.scenario = Some(fencelab::syntax::print(&scenario));
    obs.date = args.date.clone().or(obs.date);
    obs.command = args.command.clone().or(obs.command);
    if let Some(d) = &args.driver {
        obs.driver = d.clone();
    }
    let out = args.out.as_ref().map_or_else(|| sidecar_path(&file), |p| p.to_string_lossy().into_owned());
    let written = serde_json::to_string_pretty(&obs).map_err(|e| e.to_string()).and_then(|t| std::fs::write(&out, t + "\n").map_err(|e| e.to_string()));
    if let Err(e) = written {
        ui.error(&format!("cannot write `{out}`: {e}"));
        return INPUT_ERROR;
    }
    let cmp = compare(&scenario, &report_for(&scenario), &obs);
    print_human(&obs, &cmp);
    println!("wrote {out}");
    u8::from(cmp.forbidden_but_observed > 0)
}
