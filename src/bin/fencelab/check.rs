//! `fencelab check FILE... [--mode strict|pragmatic] [--json] [--graph OUT.svg]`: explore
//! each scenario and compare with its `expect` lines and final conditions. Findings are
//! diagnostics on stdout (coloured when stdout is a terminal); input problems go to stderr.
//! `--graph` writes the execution graph of each outcome no interleaving reaches, and of a
//! race or hang only such an execution has.
//!
//! Without `--mode` each file runs in the modes its `expect` lines name
//! ([`stated_modes`]); `--mode` runs that mode only, and `expect` lines stated for the
//! other mode are listed as not judged.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use fencelab::check::{check, stated_modes, FindingKind, Mode, Options, RaceReason, Report, Stepper};
use fencelab::diag::{render_styled, Diagnostic, LineIndex, Span, Style};
use fencelab::model::Scenario;
use fencelab::schedule::Schedule;
use fencelab::syntax::{expectation_text, SourceMap};

use crate::input::{read_scenario, Input, INPUT_ERROR};
use crate::ui::Ui;

/// Print a line to stdout, ignoring a closed pipe (`fencelab check ... | head`).
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Check scenarios exhaustively against their `expect` lines
#[derive(clap::Args)]
#[command(long_about = "Check scenarios exhaustively against their `expect` lines.

Explores every interleaving and read choice of each scenario, prints each finding
(race, deadlock, undefined behaviour) as a diagnostic with a shortest witness, then each
`expect` line as `ok` or `FAILED`, the outcome table and the verdict.")]
#[command(after_help = "\
Examples:
  fencelab check tests/scenarios/checker/bug1_relay_default_release_cta.fence
  fencelab check --mode strict a.fence b.fence
  fencelab check --json - < mp.fence
  fencelab check --graph lb.svg tests/scenarios/litmus/lb.fence

Exit status: 0 every expectation holds, 1 one fails, 2 bad input or usage.")]
pub struct Args {
    /// Scenario files; `-` reads standard input
    #[arg(required = true, value_name = "FILE", value_parser = Input::parser())]
    files: Vec<Input>,
    /// How to read the memory model; without it, the modes the file's `expect` lines name
    #[arg(long, value_enum)]
    mode: Option<ModeArg>,
    /// Print the report as JSON (an array for several files)
    #[arg(long)]
    json: bool,
    /// Stop exploring (verdict partial) after this many distinct states
    #[arg(long, value_name = "N", default_value_t = Options::default().max_states)]
    max_states: u64,
    /// Stop exploring (verdict partial) when the states waiting to be explored hold about
    /// this many MiB
    #[arg(long, value_name = "MIB", default_value_t = Options::default().max_bytes >> 20)]
    max_memory: u64,
    /// Keep every write in the coherence histories, even those nobody can observe any
    /// more (slower; loops that write may not finish). For comparing against the full search
    #[arg(long)]
    full_history: bool,
    /// Write the execution graph (SVG) of each outcome the axioms allow and no interleaving
    /// reaches, and of a race or hang only such an execution has: to FILE when there is one, else to
    /// FILE's name numbered (`lb-1.svg`, `lb-2.svg`, ...); `-` prints them on stdout
    #[arg(long, value_name = "FILE")]
    graph: Option<PathBuf>,
}

/// clap's view of [`Mode`], so help and completions list the choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// Follow the PTX spec literally
    Strict,
    /// Accept what production code (CUTLASS) does; differences become notes
    Pragmatic,
}

impl From<ModeArg> for Mode {
    fn from(mode: ModeArg) -> Mode {
        match mode {
            ModeArg::Strict => Mode::Strict,
            ModeArg::Pragmatic => Mode::Pragmatic,
        }
    }
}

/// Exit code: 0 every expectation holds, 1 one fails, 2 invalid input.
pub fn run(args: &Args, ui: Ui) -> u8 {
    let mode = args.mode.map(Mode::from);
    let mut code = 0;
    let mut objects = Vec::new();
    let mut graphs = Vec::new();
    for file in &args.files {
        let (c, obj) = check_file(file, mode, args, ui, &mut graphs);
        code = code.max(c);
        objects.extend(obj);
    }
    if args.json {
        let out = if objects.len() == 1 { objects.remove(0) } else { serde_json::Value::Array(objects) };
        say!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    }
    if let Some(target) = &args.graph {
        code = code.max(write_graphs(target, &graphs, args.json, ui));
    }
    code
}

/// One execution graph for `--graph`: what it shows (`file: x=1 y=1`) and its SVG.
struct Graph {
    caption: String,
    svg: String,
}

/// The graphs of a checked report: each outcome row the axioms added (`unreached`), in row
/// order, a race only an execution no interleaving performs has, and a hang only such an
/// execution has.
fn graphs_of(file: &str, scenario: &Scenario, report: &Report, executions: &[fencelab::axiom::Execution]) -> Vec<Graph> {
    let rows = report.outcomes.iter().filter(|o| o.unreached);
    let mut graphs: Vec<Graph> = rows
        .zip(executions)
        .map(|(row, execution)| {
            let values: Vec<String> = row.values.iter().map(|(t, v)| format!("{t}={v}")).collect();
            Graph { caption: format!("{file} ({} mode): {}", report.mode.name(), values.join(" ")), svg: fencelab::axiom::graph::svg(scenario, execution) }
        })
        .collect();
    // A race finding without a schedule is the axioms' (`axiom::table::unreached_race`).
    if report.findings.iter().any(|f| f.kind == FindingKind::Race && f.witness.steps.is_empty()) {
        if let Some(svg) = fencelab::axiom::table::graph_of_race(scenario, report.mode) {
            graphs.push(Graph { caption: format!("{file} ({} mode): data race", report.mode.name()), svg });
        }
    }
    // So is a deadlock finding without one (`axiom::table::unreached_hang`).
    if report.findings.iter().any(|f| f.kind == FindingKind::Deadlock && f.witness.steps.is_empty()) {
        if let Some(svg) = fencelab::axiom::table::graph_of_hang(scenario, report.mode) {
            graphs.push(Graph { caption: format!("{file} ({} mode): hang", report.mode.name()), svg });
        }
    }
    graphs
}

/// Where the `index`-th of `count` graphs goes: `target` itself for a single graph, else
/// its name numbered before the extension.
fn numbered(target: &Path, index: usize, count: usize) -> PathBuf {
    if count == 1 {
        return target.to_path_buf();
    }
    let stem = target.file_stem().map_or_else(|| "graph".into(), |s| s.to_string_lossy().into_owned());
    let name = match target.extension() {
        Some(ext) => format!("{stem}-{}.{}", index + 1, ext.to_string_lossy()),
        None => format!("{stem}-{}", index + 1),
    };
    target.with_file_name(name)
}

/// Writes `--graph`'s files (or prints the SVGs for `-`), saying where each went on stderr
/// so that stdout stays the report. Exit code 2 when a file cannot be written.
fn write_graphs(target: &Path, graphs: &[Graph], json: bool, ui: Ui) -> u8 {
    if graphs.is_empty() {
        ui.warning("--graph: no outcome needs a graph (every allowed outcome is reached by an interleaving)");
        return 0;
    }
    let mut code = 0;
    for (i, graph) in graphs.iter().enumerate() {
        if target == Path::new("-") {
            if !json {
                say!("graph of {}:", graph.caption);
            }
            say!("{}", graph.svg);
            continue;
        }
        let path = numbered(target, i, graphs.len());
        match std::fs::write(&path, &graph.svg) {
            Ok(()) => eprintln!("graph of {}: {}", graph.caption, path.display()),
            Err(e) => {
                ui.error(&format!("cannot write {}: {e}", path.display()));
                code = INPUT_ERROR;
            }
        }
    }
    code
}

fn check_file(file: &Input, chosen: Option<Mode>, args: &Args, ui: Ui, graphs: &mut Vec<Graph>) -> (u8, Vec<serde_json::Value>) {
    let (src, scenario, map) = match read_scenario(file, ui) {
        Ok(input) => input,
        Err(code) => return (code, Vec::new()),
    };
    let observation = match super::observed::sidecar(file, &scenario) {
        Some(Ok(obs)) => Some(obs),
        Some(Err(e)) => {
            ui.warning(&e);
            None
        }
        None => None,
    };
    let file = file.to_string();
    let modes = chosen.map_or_else(|| stated_modes(&scenario), |m| vec![m]);
    let mut code = 0;
    let mut objects = Vec::new();
    for mode in modes {
        if let Err(e) = Stepper::new(&scenario, mode) {
            ui.error(&format!("{file}: {e}"));
            return (INPUT_ERROR, objects);
        }
        let started = Instant::now();
        let mut report = check(&scenario, &Options { mode, max_states: args.max_states, max_bytes: args.max_memory.saturating_mul(1 << 20), collapse: !args.full_history });
        // The cause first, as the app's engine orders it; before the axioms add findings
        // the re-checks cannot see.
        fencelab::fix::order_by_cause(&scenario, &mut report);
        let unreached = fencelab::axiom::table::complete_outcomes(&scenario, &mut report);
        if args.graph.is_some() {
            graphs.extend(graphs_of(&file, &scenario, &report, &unreached));
        }
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let observed = observation.as_ref().map(|obs| (obs, fencelab::cuda::compare(&scenario, &report, obs)));
        // An outcome the GPU showed but the model forbids is a harness or model bug: fail loudly.
        let forbidden = observed.as_ref().is_some_and(|(_, cmp)| cmp.forbidden_but_observed > 0);
        code = code.max(u8::from(report.expectations.iter().any(|e| !e.ok) || forbidden));
        if forbidden {
            ui.error(&format!("{file}: the GPU showed an outcome the model forbids in {} mode (see the observations)", mode.name()));
        }
        if args.json {
            let mut obj = json_object(&file, &scenario, &report, ms);
            if let (Some((obs, cmp)), Some(fields)) = (&observed, obj.as_object_mut()) {
                fields.insert("observed".into(), super::observed::json(obs, cmp));
            }
            objects.push(obj);
        } else {
            print_human(&file, &src, &scenario, &map, &report, ms, ui.stdout_style());
            if let Some((obs, cmp)) = &observed {
                super::observed::print_human(obs, cmp);
            }
        }
    }
    (code, objects)
}

pub fn reason_name(r: RaceReason) -> &'static str {
    match r {
        RaceReason::NoSynchronization => "no synchronization at all",
        RaceReason::ExecutionOrderOnly => "execution order only (no release/acquire pattern)",
        RaceReason::ScopeMismatch => "scope mismatch",
        RaceReason::MissingProxyFence => "missing proxy fence",
        RaceReason::StateSpaceRestriction => "state-space restriction excludes the location",
        RaceReason::AsyncNotObserved => "async operation completion not observed",
        RaceReason::WrongPhase => "wait passed on the wrong phase or parity",
        RaceReason::MissingTcgen05Fence => "tcgen05 thread-sync fence missing or misplaced",
        RaceReason::MixedSize => "strong accesses of different byte ranges (mixed-size)",
    }
}

/// The witness as numbered lines: `agent: instruction — what happened`.
fn witness_lines(scenario: &Scenario, mode: Mode, schedule: &Schedule) -> Vec<String> {
    let mut stepper = match Stepper::new(scenario, mode) {
        Ok(s) => s,
        Err(e) => return vec![e.to_string()],
    };
    let mut lines = Vec::new();
    for step in &schedule.steps {
        match stepper.step(*step) {
            Ok(ev) => lines.push(format!("{:>3}. {:<10} {:<44} -> {}", ev.step + 1, ev.agent_name, ev.instr_text, ev.description)),
            Err(e) => {
                lines.push(format!("fencelab internal bug: witness does not replay: {e}"));
                break;
            }
        }
    }
    lines
}

fn span_of(map: &SourceMap, thread: &str, scenario: &Scenario, instr: usize) -> Option<Span> {
    let t = scenario.thread(thread)?;
    map.instrs.get(t)?.get(instr).copied()
}

fn print_human(file: &str, src: &str, scenario: &Scenario, map: &SourceMap, report: &Report, ms: f64, style: Style) {
    let index = LineIndex::new(src);
    for f in &report.findings {
        let code = match f.kind {
            FindingKind::Race => "C0001",
            FindingKind::Deadlock => "C0002",
            FindingKind::Undefined => "C0003",
        };
        let mut d = Diagnostic::error(code, f.message.clone());
        let marks: Vec<(Option<Span>, String)> = f
            .accesses
            .iter()
            .map(|a| {
                let what = if a.is_write { "write" } else { "read" };
                let step = if f.witness.steps.is_empty() { String::new() } else { format!(" (step {})", a.step + 1) };
                (span_of(map, &a.thread, scenario, a.instr), format!("{what} by `{}`{step}", a.agent))
            })
            .chain(f.blocked.iter().map(|b| (span_of(map, &b.thread, scenario, b.instr), format!("`{}` is stuck here", b.agent))))
            .collect();
        for (i, (span, label)) in marks.iter().enumerate() {
            d = if i + 1 == marks.len() { d.with_primary(*span, label) } else { d.with_secondary(*span, label) };
        }
        if let Some(r) = f.reason {
            d = d.with_note(format!("missing synchronization: {}", reason_name(r)));
        }
        for line in f.explanation.lines() {
            d = d.with_note(line.to_string());
        }
        // A race or hang only the axioms find has no schedule (`axiom::table`).
        if !f.witness.steps.is_empty() {
            let steps = witness_lines(scenario, report.mode, &f.witness);
            d = d.with_note(format!("witness ({} steps):\n     {}", steps.len(), steps.join("\n     ")));
        }
        say!("{}", render_styled(&d, &index, file, style));
    }
    for e in scenario.expect.iter().filter(|e| !e.holds_in(report.mode)) {
        say!("not judged: {} (this run is {} mode)", expectation_text(e), report.mode.name());
    }
    for e in &report.expectations {
        if e.ok && e.actual.is_empty() {
            say!("ok: {}", e.declared);
        } else if e.ok {
            // A condition answered by the axioms says how (`axiom::table`).
            say!("ok: {}: {}", e.declared, e.actual);
        } else {
            say!("FAILED: {}: {}", e.declared, e.actual);
        }
    }
    for c in &report.conditions {
        let Some(cond) = scenario.conditions.get(c.index) else { continue };
        let failed = report.expectations.iter().any(|e| !e.ok && e.declared.contains(&fencelab::check::condition_text(cond)));
        if let (true, Some(w)) = (failed, &c.witness) {
            say!("  witness for `{}`:", fencelab::check::condition_text(cond));
            for line in witness_lines(scenario, report.mode, w) {
                say!("    {line}");
            }
        }
    }
    if !report.outcomes.is_empty() {
        say!("outcomes:");
        for o in &report.outcomes {
            let vals: Vec<String> = o.values.iter().map(|(t, v)| format!("{t}={v}")).collect();
            let vals = if vals.is_empty() { "(no registers)".into() } else { vals.join(" ") };
            if o.unreached {
                say!("      -  {vals}  (allowed by the axioms; no interleaving reaches it)");
            } else {
                say!("  {:>5}  {vals}", paths_text(o.count));
            }
        }
    }
    if let Some(note) = &report.mode_note {
        say!("note: {note}");
    }
    say!(
        "{file}: {} in {} mode ({} states, {} transitions, {ms:.1} ms{})",
        report.verdict.name(),
        report.mode.name(),
        report.stats.states,
        report.stats.transitions,
        match (report.stats.complete, report.not_run()) {
            (true, _) => "",
            // The note above says why.
            (false, Some(_)) => ", not checked",
            (false, None) if report.stats.memory_cap => ", stopped at the memory cap",
            (false, None) => ", stopped at the state cap",
        }
    );
}

fn json_object(file: &str, scenario: &Scenario, report: &Report, ms: f64) -> serde_json::Value {
    let findings: Vec<serde_json::Value> = report
        .findings
        .iter()
        .map(|f| {
            serde_json::json!({
                "kind": match f.kind { FindingKind::Race => "race", FindingKind::Deadlock => "deadlock", FindingKind::Undefined => "undefined" },
                "message": f.message,
                "explanation": f.explanation,
                "reason": f.reason,
                "accesses": f.accesses,
                "blocked": f.blocked,
                "witness": f.witness,
                "witness_text": witness_lines(scenario, report.mode, &f.witness),
            })
        })
        .collect();
    serde_json::json!({
        "file": file,
        "mode": report.mode.name(),
        "verdict": report.verdict.name(),
        "findings": findings,
        "outcomes": report.outcomes,
        "expectations": report.expectations,
        "conditions": report.conditions,
        "mode_note": report.mode_note,
        "stats": { "states": report.stats.states, "transitions": report.stats.transitions, "complete": report.stats.complete, "memory_cap": report.stats.memory_cap, "ms": ms },
    })
}

/// An outcome's count of interleavings reaching it. The checker adds them up saturating,
/// and a scenario of a real kernel (the imported relay pipeline) has more than a `u64`
/// holds: the saturated count is shown as what it is, not as 18446744073709551615.
fn paths_text(count: u64) -> String {
    if count == u64::MAX {
        ">2^64".into()
    } else {
        count.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::paths_text;

    #[test]
    fn a_saturated_interleaving_count_is_shown_as_saturated() {
        assert_eq!(paths_text(12), "12");
        assert_eq!(paths_text(u64::MAX - 1), "18446744073709551614");
        assert_eq!(paths_text(u64::MAX), ">2^64");
    }
}
