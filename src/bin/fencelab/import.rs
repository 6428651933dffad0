//! `fencelab import KERNEL.ptx`: a kernel's synchronization as a `.fence` scenario
//! (docs/import.md). With `--check` the scenario is checked in both modes and each
//! finding's instructions are mapped back to PTX lines.

use std::io::{Read, Write};
use std::path::PathBuf;

use fencelab::check::{check, FindingKind, Mode, Options, Report};
use fencelab::import::input::{parse_dims, parse_param, ptx_text};
use fencelab::import::{import, ErrorKind, ImportOptions, Imported, ParamValue, MAX_INPUT_BYTES};

use crate::input::{Input, INPUT_ERROR};
use crate::ui::Ui;

macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Import a kernel's synchronization from its PTX as a .fence scenario
#[derive(clap::Args)]
#[command(long_about = "Import a kernel's synchronization from its PTX as a .fence scenario.

Runs every lane of one launch concretely (one cluster unless --ctas), keeps what touches
shared memory or synchronizes, merges the lanes of a warp into one thread where that hides
no ordering, and prints a canonical scenario whose instructions carry `# ptx LINE`
comments. A branch on a value nobody gave follows the policy in docs/import.md; the
header lists every such decision with its PTX line.")]
#[command(after_help = "\
Examples:
  fencelab import tests/import/relay_pipeline.ptx
  fencelab import ex48.ptx.gz --entry GemmUniversal --cluster 2,1,1 --check --max-states 1000000
  nvcc -arch=sm_90a -ptx k.cu -o - | fencelab import - -o k.fence

Exit status: 0 imported (and, with --check, no finding), 1 --check found something,
2 bad input, unsupported PTX or usage (several entries and no --entry: they are listed).")]
pub struct Args {
    /// PTX file (plain or .gz); `-` reads standard input
    #[arg(value_name = "KERNEL.ptx", value_parser = Input::parser())]
    file: Input,
    /// The kernel: its mangled name or a unique part of it
    #[arg(long, value_name = "NAME")]
    entry: Option<String>,
    /// Cluster shape X,Y,Z (default: .reqnctapercluster, else 1,1,1)
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_dims)]
    cluster: Option<[u32; 3]>,
    /// CTAs to run, a multiple of the cluster size (default: one cluster)
    #[arg(long, value_name = "N")]
    ctas: Option<u32>,
    /// Threads per CTA, N or X,Y,Z (default: .reqntid, else .maxntid)
    #[arg(long, value_name = "N", value_parser = parse_dims)]
    threads: Option<[u32; 3]>,
    /// A kernel parameter's value: NAME=VALUE or NAME+OFFSET=VALUE (a struct field)
    #[arg(long = "param", value_name = "NAME[+OFFSET]=VALUE", value_parser = parse_param)]
    params: Vec<ParamValue>,
    /// Times a loop whose bound is unknown runs
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=64))]
    iterations: u32,
    /// Write the scenario here instead of standard output
    #[arg(short, long, value_name = "OUT.fence")]
    output: Option<PathBuf>,
    /// Print JSON: the scenario text, the PTX line of each instruction, the decisions
    #[arg(long)]
    json: bool,
    /// Check the scenario in both modes and map each finding to PTX lines
    #[arg(long)]
    check: bool,
    /// With --check: stop exploring (verdict partial) after this many distinct states
    #[arg(long, value_name = "N", default_value_t = Options::default().max_states)]
    max_states: u64,
    /// With --check: stop exploring (verdict partial) when the states waiting to be
    /// explored hold about this many MiB
    #[arg(long, value_name = "MIB", default_value_t = Options::default().max_bytes >> 20)]
    max_memory: u64,
}

/// Reads the PTX: plain text or gzip, capped.
fn read_ptx(input: &Input, ui: Ui) -> Result<String, u8> {
    let fail = |message: String| {
        ui.error(&message);
        INPUT_ERROR
    };
    let cap = MAX_INPUT_BYTES as u64 + 1;
    let mut bytes = Vec::new();
    let read = match input {
        Input::Stdin => std::io::stdin().lock().take(cap).read_to_end(&mut bytes),
        Input::Path(p) => std::fs::File::open(p).and_then(|f| f.take(cap).read_to_end(&mut bytes)),
    };
    read.map_err(|e| fail(format!("cannot read `{input}`: {e}")))?;
    ptx_text(bytes).map_err(|e| fail(format!("`{input}`: {e}")))
}

pub fn run(args: &Args, ui: Ui) -> u8 {
    let text = match read_ptx(&args.file, ui) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let options = ImportOptions {
        entry: args.entry.clone(),
        cluster: args.cluster,
        ctas: args.ctas,
        threads: args.threads,
        params: args.params.clone(),
        iterations: args.iterations,
    };
    let imported = match import(&text, &options) {
        Ok(i) => i,
        Err(e) => {
            if let ErrorKind::ChooseEntry(_) = e.kind {
                eprintln!("{e}");
            } else {
                ui.error(&format!("{}: {e}", args.file));
            }
            return INPUT_ERROR;
        }
    };
    let reports: Vec<Report> = if args.check {
        [Mode::Pragmatic, Mode::Strict]
            .into_iter()
            .map(|mode| check(&imported.scenario, &Options { mode, max_states: args.max_states, max_bytes: args.max_memory.saturating_mul(1 << 20), ..Options::default() }))
            .collect()
    } else {
        Vec::new()
    };
    if let Some(path) = &args.output {
        if let Err(e) = std::fs::write(path, &imported.text) {
            ui.error(&format!("cannot write `{}`: {e}", path.display()));
            return INPUT_ERROR;
        }
    }
    if args.json {
        let checks: Vec<serde_json::Value> = reports.iter().map(|r| report_json(&imported, r)).collect();
        let obj = serde_json::json!({
            "entry": imported.entry,
            "scenario": imported.text,
            "ptx_lines": imported.lines.iter().map(|(t, l)| serde_json::json!({"thread": t, "lines": l})).collect::<Vec<_>>(),
            "fixed": imported.fixed.iter().map(|(l, w)| serde_json::json!({"line": l, "what": w})).collect::<Vec<_>>(),
            "dropped": imported.dropped,
            "skipped": imported.skipped,
            "checks": checks,
        });
        say!("{}", serde_json::to_string_pretty(&obj).unwrap_or_default());
    } else {
        if args.output.is_none() {
            let _ = write!(std::io::stdout(), "{}", imported.text);
        }
        for r in &reports {
            print_report(&imported, r);
        }
    }
    u8::from(reports.iter().any(|r| !r.findings.is_empty()))
}

fn kind_name(kind: FindingKind) -> &'static str {
    match kind {
        FindingKind::Race => "race",
        FindingKind::Deadlock => "deadlock",
        FindingKind::Undefined => "undefined",
    }
}

fn print_report(imported: &Imported, r: &Report) {
    say!("\n{} mode: {}", r.mode.name(), r.verdict.name());
    for f in &r.findings {
        say!("  {}: {}", kind_name(f.kind), f.message);
        for a in &f.accesses {
            let line = imported.ptx_line(&a.thread, a.instr).map_or("?".to_string(), |l| l.to_string());
            say!("    ptx {line}: {} by `{}` of `{}`", if a.is_write { "write" } else { "read" }, a.agent, a.location);
        }
        for b in &f.blocked {
            let line = imported.ptx_line(&b.thread, b.instr).map_or("?".to_string(), |l| l.to_string());
            say!("    ptx {line}: `{}` is stuck: {}", b.agent, b.waits_for);
        }
        for (thread, _, line) in imported.named_in(&f.explanation) {
            say!("    ptx {line}: the instruction of `{thread}` the explanation names");
        }
        for l in f.explanation.lines() {
            say!("    {l}");
        }
    }
    if let Some(note) = &r.mode_note {
        say!("  note: {note}");
    }
}

fn report_json(imported: &Imported, r: &Report) -> serde_json::Value {
    serde_json::json!({
        "mode": r.mode.name(),
        "verdict": r.verdict.name(),
        "findings": r.findings.iter().map(|f| serde_json::json!({
            "kind": kind_name(f.kind),
            "message": f.message,
            "explanation": f.explanation,
            "accesses": f.accesses.iter().map(|a| serde_json::json!({
                "agent": a.agent, "thread": a.thread, "instr": a.instr, "location": a.location,
                "is_write": a.is_write, "ptx_line": imported.ptx_line(&a.thread, a.instr),
            })).collect::<Vec<_>>(),
            "blocked": f.blocked.iter().map(|b| serde_json::json!({
                "agent": b.agent, "thread": b.thread, "instr": b.instr, "waits_for": b.waits_for,
                "ptx_line": imported.ptx_line(&b.thread, b.instr),
            })).collect::<Vec<_>>(),
            "named": imported.named_in(&f.explanation).into_iter().map(|(thread, instr, line)| serde_json::json!({
                "thread": thread, "instr": instr, "ptx_line": line,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "mode_note": r.mode_note,
    })
}
