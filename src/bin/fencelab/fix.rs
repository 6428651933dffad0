//! `fencelab fix FILE [--json] [--mode M] [--max-edits N]`: the cheapest verified fixes of
//! a broken scenario; for a correct one, which steps matter and cheaper variants
//! (`fencelab::fix`).

use std::io::Write;

use fencelab::check::Mode;
use fencelab::cost::MODEL_LABEL;
use fencelab::fix::{fix, improve, Fix, Limits};

use crate::check::ModeArg;
use crate::input::{read_scenario, Input};
use crate::ui::Ui;

/// Find the cheapest verified fixes (or, for a correct scenario, what matters)
#[derive(clap::Args)]
#[command(long_about = "Find the cheapest verified fixes of a scenario.

For a scenario that is not correct, searches sets of strengthening edits (wider scopes,
release/acquire, fences incl. sync_restrict and proxy fences, waits, tcgen05 fences,
expect_tx, byte counts, counts, parities, moved arrives), nearest the finding first.
Every fix is re-checked in both modes and priced in SASS (nvcc 13.0, sm_90a); fixes are
ranked by cost, then by number of edits. For a correct scenario, says which steps are
necessary, which are redundant, and which cheaper variants stay correct.")]
#[command(after_help = "\
Examples:
  fencelab fix tests/scenarios/seeds/003-relay-warp-as-seed.fence
  fencelab fix --json --mode pragmatic --max-edits 3 bug.fence

Exit status: 0 done (a fix found, or the scenario is correct), 1 no fix found, 2 bad input or usage.")]
pub struct Args {
    /// Scenario file; `-` reads standard input
    #[arg(value_name = "FILE", value_parser = Input::parser())]
    file: Input,
    /// Print the result as JSON
    #[arg(long)]
    json: bool,
    /// Mode the fix must be correct in (default strict, the literal spec)
    #[arg(long, value_enum)]
    mode: Option<ModeArg>,
    /// Most edits in one fix
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_edits)]
    max_edits: usize,
    /// Most checker runs before the search stops early
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_checks)]
    max_checks: usize,
    /// States explored per checker run; a program that needs more counts as unsolved
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_states)]
    max_states: u64,
}

fn fix_json(f: &Fix) -> serde_json::Value {
    let modes: serde_json::Map<String, serde_json::Value> = f.modes.iter().map(|m| (m.mode.name().to_string(), m.verdict.name().into())).collect();
    serde_json::json!({
        "cost": f.cost, "cost_change": f.cost_change, "modes": modes,
        "edits": f.edits, "text": f.text,
    })
}

fn print_fix(out: &mut impl Write, rank: usize, f: &Fix) {
    let modes: Vec<String> = f.modes.iter().map(|m| format!("{} {}", m.mode.name(), m.verdict.name())).collect();
    let change = if f.cost_change.is_empty() { "no SASS change".to_string() } else { f.cost_change.join(", ") };
    let _ = writeln!(out, "fix {rank}: cost {} ({change}); re-checked: {}", f.cost, modes.join(", "));
    for e in &f.edits {
        match (e.before.is_empty(), e.after.is_empty()) {
            (true, _) => {
                let _ = writeln!(out, "  line {}: + {}", e.line, e.after);
            }
            (false, true) => {
                let _ = writeln!(out, "  line {}: - {}", e.line, e.before);
            }
            (false, false) => {
                let _ = writeln!(out, "  line {}: {} -> {}", e.line, e.before, e.after);
            }
        }
    }
}

/// Exit code: 0 done, 1 no fix found, 2 invalid input.
pub fn run(args: &Args, ui: Ui) -> u8 {
    let (src, _, _) = match read_scenario(&args.file, ui) {
        Ok(input) => input,
        Err(code) => return code,
    };
    let mode = args.mode.map_or(Mode::Strict, Mode::from);
    let limits = Limits { max_edits: args.max_edits, max_checks: args.max_checks, max_states: args.max_states, ..Limits::default() };
    let file = args.file.to_string();
    let mut out = std::io::stdout().lock();
    let search = match fix(&src, mode, &limits, &mut |_, _| true) {
        Ok(search) => search,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: {file}: {e}");
            return crate::input::INPUT_ERROR;
        }
    };
    if search.verdict != fencelab::check::Verdict::Correct {
        if args.json {
            let value = serde_json::json!({
                "verdict": search.verdict.name(), "mode": mode.name(), "cost": search.cost, "model": MODEL_LABEL,
                "checks": search.checks, "stopped_early": search.stopped_early,
                "fixes": search.fixes.iter().map(fix_json).collect::<Vec<_>>(),
            });
            let _ = writeln!(out, "{}", serde_json::to_string_pretty(&value).unwrap_or_default());
        } else {
            let _ = writeln!(out, "{file}: {} in {} mode, cost {}; {} fixes after {} checks (cost: {MODEL_LABEL})", search.verdict.name(), mode.name(), search.cost, search.fixes.len(), search.checks);
            for (k, f) in search.fixes.iter().enumerate() {
                print_fix(&mut out, k + 1, f);
            }
            if let Some(why) = &search.stopped_early {
                let _ = writeln!(out, "note: the search {why}; a cheaper fix may exist");
            }
        }
        return u8::from(search.fixes.is_empty());
    }
    let improvement = match improve(&src, mode, &limits, &mut |_, _| true) {
        Ok(i) => i,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: {file}: {e}");
            return crate::input::INPUT_ERROR;
        }
    };
    if args.json {
        let value = serde_json::json!({
            "verdict": "correct", "mode": mode.name(), "cost": improvement.cost, "model": MODEL_LABEL,
            "checks": improvement.checks, "stopped_early": improvement.stopped_early,
            "necessary": improvement.necessary, "redundant": improvement.redundant,
            "cheaper": improvement.cheaper.iter().map(fix_json).collect::<Vec<_>>(),
        });
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&value).unwrap_or_default());
        return 0;
    }
    let _ = writeln!(out, "{file}: correct in {} mode, cost {} (cost: {MODEL_LABEL})", mode.name(), improvement.cost);
    for n in &improvement.necessary {
        let how: Vec<String> = n.breaks.iter().map(|b| format!("{} -> {}", b.after, b.verdict.name())).collect();
        let _ = writeln!(out, "  necessary  line {}: {}  ({})", n.line, n.text, how.join("; "));
    }
    for r in &improvement.redundant {
        let _ = writeln!(out, "  redundant  line {}: {} -> {} still correct", r.line, r.text, r.after);
    }
    for (k, f) in improvement.cheaper.iter().enumerate() {
        print_fix(&mut out, k + 1, f);
    }
    if let Some(why) = &improvement.stopped_early {
        let _ = writeln!(out, "note: the search {why}; a cheaper variant may exist");
    }
    0
}
