//! `fencelab cost FILE [--json]`: what a scenario's synchronization costs, as the SASS one
//! compiler emits for sm_90a (`fencelab::cost`).

use std::io::Write;

use fencelab::cost::{cost, MODEL_LABEL};
use fencelab::diag::line_col;

use crate::input::{read_scenario, Input};
use crate::ui::Ui;

/// Price a scenario's synchronization in SASS ops (nvcc 13.0, sm_90a)
#[derive(clap::Args)]
#[command(long_about = "Price a scenario's synchronization in SASS ops.

Each instruction is lowered to the SASS that nvcc 13.0 emits for sm_90a (tcgen05: sm_100a)
and each SASS op carries a documented weight (docs/fix.md). This is one compiler on one
GPU, not a promise of the PTX memory model. Every instruction counts once.")]
#[command(after_help = "\
Examples:
  fencelab cost tests/scenarios/seeds/003-relay-warp-fully-fixed.fence
  fencelab cost --json mp.fence

Exit status: 0 done, 2 bad input or usage.")]
pub struct Args {
    /// Scenario file; `-` reads standard input
    #[arg(value_name = "FILE", value_parser = Input::parser())]
    file: Input,
    /// Print {\"total\", \"threads\", \"sass\"} as JSON
    #[arg(long)]
    json: bool,
}

/// Exit code: 0 done, 2 unreadable or invalid scenario.
pub fn run(args: &Args, ui: Ui) -> u8 {
    let (src, scenario, map) = match read_scenario(&args.file, ui) {
        Ok(input) => input,
        Err(code) => return code,
    };
    let priced = cost(&scenario);
    let mut out = std::io::stdout().lock();
    if args.json {
        let mut value = serde_json::json!(priced);
        if let Some(object) = value.as_object_mut() {
            object.insert("model".into(), MODEL_LABEL.into());
        }
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&value).unwrap_or_default());
        return 0;
    }
    let file = args.file.to_string();
    let _ = writeln!(out, "{file}: cost {} ({MODEL_LABEL})", priced.total);
    for (t, thread) in priced.threads.iter().enumerate() {
        let _ = writeln!(out, "  thread {}: {}", thread.thread, thread.cost);
        for i in &thread.instrs {
            let line = map.instr(t, i.instr).map_or(0, |s| line_col(&src, s.start).0);
            let text = scenario.threads.get(t).and_then(|th| th.program.get(i.instr)).map(fencelab::syntax::instr_text).unwrap_or_default();
            let inferred = if i.measured { "" } else { " (inferred, not measured)" };
            let _ = writeln!(out, "    {file}:{line}: {text}\n      {} = {}{inferred}", i.sass.join(", "), i.cost);
        }
    }
    let ops: Vec<String> = priced.sass.iter().map(|s| format!("{}x {} = {}", s.count, s.op, s.cost)).collect();
    let _ = writeln!(out, "  SASS: {}", if ops.is_empty() { "none".to_string() } else { ops.join(", ") });
    0
}
