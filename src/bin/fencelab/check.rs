//! `fencelab check FILE... [--mode strict|pragmatic] [--json]`: explore each scenario and
//! compare with its `expect` line and final conditions.

use std::io::Write;
use std::time::Instant;

use fencelab::check::{check, FindingKind, Mode, Options, RaceReason, Report, Stepper};
use fencelab::diag::{render, Diagnostic, Span};
use fencelab::model::Scenario;
use fencelab::schedule::Schedule;
use fencelab::syntax::SourceMap;

/// Print a line to stdout, ignoring a closed pipe (`fencelab check ... | head`).
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Exit code: 0 every expectation holds, 1 one fails, 2 invalid input or usage.
pub fn run(args: &[String]) -> u8 {
    let mut files = Vec::new();
    let mut mode = Mode::Pragmatic;
    let mut json = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--json" => json = true,
            "--mode" => match it.next().and_then(|name| Mode::from_name(name)) {
                Some(chosen) => mode = chosen,
                None => {
                    eprintln!("error: `--mode` takes `strict` or `pragmatic`");
                    return 2;
                }
            },
            f if f.starts_with("--") => {
                eprintln!("error: unknown option `{f}`");
                return 2;
            }
            f => files.push(f.to_string()),
        }
    }
    if files.is_empty() {
        eprintln!("error: `check` needs at least one FILE");
        return 2;
    }
    let mut code = 0;
    let mut objects = Vec::new();
    for file in &files {
        let (c, obj) = check_file(file, mode, json);
        code = code.max(c);
        objects.extend(obj);
    }
    if json {
        let out = if objects.len() == 1 { objects.remove(0) } else { serde_json::Value::Array(objects) };
        say!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    }
    code
}

fn check_file(file: &str, mode: Mode, json: bool) -> (u8, Option<serde_json::Value>) {
    let src = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot read `{file}`: {e}");
            return (2, None);
        }
    };
    let loaded = fencelab::load(&src);
    if loaded.has_errors() {
        eprint!("{}", fencelab::diag::render_all(&loaded.diagnostics, &src, file));
        return (2, None);
    }
    let scenario = loaded.scenario;
    if let Err(e) = Stepper::new(&scenario, mode) {
        eprintln!("error: {file}: {e}");
        return (2, None);
    }
    let started = Instant::now();
    let report = check(&scenario, &Options { mode, ..Options::default() });
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let failed = report.expectations.iter().any(|e| !e.ok);
    let observed = match super::observed::sidecar(file, &scenario) {
        Some(Ok(obs)) => {
            let cmp = fencelab::cuda::compare(&scenario, &report, &obs);
            Some((obs, cmp))
        }
        Some(Err(e)) => {
            eprintln!("warning: {e}");
            None
        }
        None => None,
    };
    // An outcome the GPU showed but the model forbids is a harness or model bug: fail loudly.
    let forbidden = observed.as_ref().is_some_and(|(_, cmp)| cmp.forbidden_but_observed > 0);
    let code = u8::from(failed || forbidden);
    if json {
        let mut obj = json_object(file, &scenario, &report, ms);
        if let (Some((obs, cmp)), Some(map)) = (&observed, obj.as_object_mut()) {
            map.insert("observed".into(), super::observed::json(obs, cmp));
        }
        if forbidden {
            eprintln!("error: {file}: the GPU showed an outcome the model forbids (see \"observed\")");
        }
        return (code, Some(obj));
    }
    print_human(file, &src, &scenario, &loaded.source_map, &report, ms);
    if let Some((obs, cmp)) = &observed {
        super::observed::print_human(obs, cmp);
    }
    (code, None)
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
    }
}

/// The witness as numbered lines: `agent: instruction — what happened`.
fn witness_lines(scenario: &Scenario, mode: Mode, schedule: &Schedule) -> Vec<String> {
    let mut stepper = match Stepper::new(scenario, mode) {
        Ok(s) => s,
        Err(e) => return vec![e],
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

fn print_human(file: &str, src: &str, scenario: &Scenario, map: &SourceMap, report: &Report, ms: f64) {
    for f in &report.findings {
        let (code, head) = match f.kind {
            FindingKind::Race => ("C0001", "error"),
            FindingKind::Deadlock => ("C0002", "error"),
            FindingKind::Undefined => ("C0003", "error"),
        };
        let _ = head;
        let mut d = Diagnostic::error(code, f.message.clone());
        for (i, a) in f.accesses.iter().enumerate() {
            let what = if a.is_write { "write" } else { "read" };
            let span = span_of(map, &a.thread, scenario, a.instr);
            let label = match f.kind {
                FindingKind::Deadlock => format!("`{}` is stuck here", a.agent),
                _ => format!("{what} by `{}` (step {})", a.agent, a.step + 1),
            };
            d = if i + 1 == f.accesses.len() { d.with_primary(span, label) } else { d.with_secondary(span, label) };
        }
        if let Some(r) = f.reason {
            d = d.with_note(format!("missing synchronization: {}", reason_name(r)));
        }
        for line in f.explanation.lines() {
            d = d.with_note(line.to_string());
        }
        let steps = witness_lines(scenario, report.mode, &f.witness);
        d = d.with_note(format!("witness ({} steps):\n     {}", steps.len(), steps.join("\n     ")));
        say!("{}", render(&d, src, file));
    }
    for e in &report.expectations {
        if e.ok {
            say!("ok: {}", e.declared);
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
            say!("  {:>5}  {}", o.count, if vals.is_empty() { "(no registers)".into() } else { vals.join(" ") });
        }
    }
    if let Some(note) = &report.mode_note {
        say!("note: {note}");
    }
    say!(
        "{file}: {} ({} states, {} transitions, {ms:.1} ms{})",
        report.verdict.name(),
        report.stats.states,
        report.stats.transitions,
        if report.stats.complete { "" } else { ", stopped at the state cap" }
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
                "witness": f.witness,
                "witness_text": witness_lines(scenario, report.mode, &f.witness),
            })
        })
        .collect();
    serde_json::json!({
        "file": file,
        "verdict": report.verdict.name(),
        "findings": findings,
        "outcomes": report.outcomes,
        "expectations": report.expectations,
        "conditions": report.conditions,
        "mode_note": report.mode_note,
        "stats": { "states": report.stats.states, "transitions": report.stats.transitions, "complete": report.stats.complete, "ms": ms },
    })
}
