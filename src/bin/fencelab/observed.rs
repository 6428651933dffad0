//! `fencelab observed FILE RESULT.json [-o OUT] [--date D] [--driver V] [--command C]`:
//! attach a harness run to a scenario as a sidecar (`foo.fence` → `foo.observed.json`),
//! and say loudly when the GPU showed an outcome the model forbids.

use std::path::Path;

use fencelab::check::{check, Options, Report};
use fencelab::cuda::{compare, Comparison, Observation};
use fencelab::model::Scenario;

use super::input::{read_scenario, read_text, INPUT_ERROR};

pub const USAGE: &str = "usage: fencelab observed FILE RESULT.json [-o OUT.json] [--date D] [--driver V] [--command C]";

/// Typed arguments of `fencelab observed`.
pub struct ObservedArgs {
    pub file: String,
    pub result: String,
    pub out: Option<String>,
    pub date: Option<String>,
    pub driver: Option<String>,
    pub command: Option<String>,
}

pub fn parse_args(args: &[String]) -> Result<ObservedArgs, String> {
    let mut positional = Vec::new();
    let (mut out, mut date, mut driver, mut command) = (None, None, None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or(format!("`{flag}` needs a value"));
        match a.as_str() {
            "-o" => out = Some(value("-o")?),
            "--date" => date = Some(value("--date")?),
            "--driver" => driver = Some(value("--driver")?),
            "--command" => command = Some(value("--command")?),
            f if f.starts_with('-') => return Err(format!("unknown option `{f}`")),
            f => positional.push(f.to_string()),
        }
    }
    let [file, result] = <[String; 2]>::try_from(positional).map_err(|_| "`observed` takes FILE and RESULT.json".to_string())?;
    Ok(ObservedArgs { file, result, out, date, driver, command })
}

/// `foo.fence` → `foo.observed.json`.
pub fn sidecar_path(file: &str) -> String {
    let stem = file.strip_suffix(".fence").unwrap_or(file);
    format!("{stem}.observed.json")
}

/// The sidecar observation of a scenario file, if there is one that ran this program.
pub fn sidecar(file: &str, scenario: &Scenario) -> Option<Result<Observation, String>> {
    let path = sidecar_path(file);
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
pub fn run(args: &ObservedArgs) -> u8 {
    let (_, scenario, _) = match read_scenario(&args.file) {
        Ok(input) => input,
        Err(code) => return code,
    };
    let Ok(text) = read_text(&args.result) else { return INPUT_ERROR };
    let mut obs = match Observation::from_json(&text) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: `{}`: {e}", args.result);
            return INPUT_ERROR;
        }
    };
    obs.scenario = Some(fencelab::syntax::print(&scenario));
    obs.date = args.date.clone().or(obs.date);
    obs.command = args.command.clone().or(obs.command);
    if let Some(d) = &args.driver {
        obs.driver = d.clone();
    }
    let out = args.out.clone().unwrap_or_else(|| sidecar_path(&args.file));
    let written = serde_json::to_string_pretty(&obs).map_err(|e| e.to_string()).and_then(|t| std::fs::write(&out, t + "\n").map_err(|e| e.to_string()));
    if let Err(e) = written {
        eprintln!("error: cannot write `{out}`: {e}");
        return INPUT_ERROR;
    }
    let cmp = compare(&scenario, &report_for(&scenario), &obs);
    print_human(&obs, &cmp);
    println!("wrote {out}");
    u8::from(cmp.forbidden_but_observed > 0)
}
