//! `fencelab litmus`: run Dat3M's PTX litmus tests against the checker, or print one
//! imported test in `.fence` syntax.
//!
//! Every disagreement is printed as one line (test, expected, ours, witness or reason);
//! the last line is `N agree, M disagree, K unsupported`. Exit 1 on any disagreement:
//! which ones are known deviations is `tests/conformance.rs`'s business.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use fencelab::check::{Mode, Options};
use fencelab::litmus::conformance::{
    judge_source, parse_expected, Judgement, Property, Status, Summary, AXIOMS_HANG,
};

use crate::check::ModeArg;
use crate::input::{read_text, Input, INPUT_ERROR};
use crate::ui::Ui;

/// Run Dat3M's PTX litmus tests against the checker, or print one as .fence text
#[derive(clap::Args)]
#[command(long_about = "Run Dat3M's PTX litmus tests against the checker, or print one as .fence text.

Each test that the CSVs list is imported and checked; every disagreement is printed as
one line, and the last line counts agreements, disagreements and unsupported tests.
Which disagreements are known deviations is listed in docs/conformance.md.")]
#[command(after_help = "\
Examples:
  fencelab litmus ../shared/conformance/dat3m-ptx --expected ../shared/conformance/dat3m-ptx/expected.csv \\
      --liveness ../shared/conformance/dat3m-ptx/liveness-expected.csv
  fencelab litmus --print TEST.litmus
  fencelab litmus ../shared/conformance/dat3m-ptx --expected ../shared/conformance/dat3m-ptx/expected.csv --graph graphs/

Exit status: 0 all agree, 1 a disagreement, 2 bad input or usage.")]
pub struct Args {
    /// The corpus directory; the test paths in the CSVs are relative to it
    #[arg(required_unless_present = "print")]
    dir: Option<PathBuf>,
    /// CSV of `test,bit`: whether each test's final condition is reachable; `-` reads stdin
    #[arg(long, value_name = "CSV", value_parser = Input::parser(), required_unless_present = "print")]
    expected: Option<Input>,
    /// CSV of `test,bit`: whether each test can hang; `-` reads stdin
    #[arg(long, value_name = "CSV", value_parser = Input::parser())]
    liveness: Option<Input>,
    /// Print the results and the summary as JSON
    #[arg(long)]
    json: bool,
    /// How to read the memory model; the corpus follows the spec, hence strict
    #[arg(long, value_enum, default_value_t = ModeArg::Strict)]
    mode: ModeArg,
    /// Into this directory, write the execution graph (SVG) of each test whose final
    /// condition is decided by a final state no interleaving reaches (load buffering, ...),
    /// and of each hang only the axioms find (`TEST-hang.svg`)
    #[arg(long, value_name = "DIR")]
    graph: Option<PathBuf>,
    /// Print TEST imported into .fence syntax instead of running a corpus; `-` reads stdin
    #[arg(long, value_name = "TEST", value_parser = Input::parser(), conflicts_with_all = ["dir", "expected", "liveness", "json"])]
    print: Option<Input>,
}

pub fn run(args: &Args, ui: Ui) -> u8 {
    match (&args.print, &args.dir, &args.expected) {
        (Some(test), _, _) => print(test, ui),
        (None, Some(dir), Some(expected)) => run_corpus(dir, expected, args, ui),
        // clap already requires both without --print; kept as a message, not a panic.
        (None, _, _) => {
            ui.error("`litmus` needs DIR and `--expected CSV`, or `--print TEST`");
            INPUT_ERROR
        }
    }
}

fn print(test: &Input, ui: Ui) -> u8 {
    let src = match read_text(test, ui) {
        Ok(src) => src,
        Err(code) => return code,
    };
    match fencelab::litmus::import(&src) {
        Ok(scenario) => {
            // A closed pipe (`| head`) is not an error worth a panic.
            let _ = write!(
                std::io::stdout().lock(),
                "{}",
                fencelab::syntax::print(&scenario)
            );
            0
        }
        Err(e) => {
            ui.error(&format!("{test}: {e}"));
            INPUT_ERROR
        }
    }
}

/// The expected bits of one CSV; problems are printed and the error is the exit code.
fn read_csv(csv: &Input, ui: Ui) -> Result<Vec<fencelab::litmus::conformance::Expected>, u8> {
    let text = read_text(csv, ui)?;
    parse_expected(&text).map_err(|e| {
        ui.error(&format!("{csv}: {e}"));
        INPUT_ERROR
    })
}

/// Writes `DIR/TEST.svg` (the test's path with `/` as `_`) when the test's final condition
/// is decided by a final state the axioms allow and no interleaving reaches: the graph of
/// an execution reaching it. Tests outside the fragment or deciding nothing so get none.
fn write_graph(out: &Path, test: &str, src: &str, mode: Mode) -> Result<(), String> {
    let Ok(scenario) = fencelab::litmus::import(src) else { return Ok(()) };
    let Some(condition) = scenario.conditions.first() else { return Ok(()) };
    let Ok(axioms) = fencelab::axiom::allowed(&scenario, &fencelab::axiom::Limits { mode, ..fencelab::axiom::Limits::default() }) else {
        return Ok(());
    };
    // A state that satisfies an `exists` (or breaks a `~exists`) or breaks a `forall`.
    let deciding = |fin: &fencelab::axiom::Final| {
        fencelab::axiom::eval(&scenario, fin, &condition.cond) != (condition.quantifier == fencelab::model::Quantifier::Forall)
    };
    let Some((_, witness)) = axioms.finals.iter().find(|(fin, w)| !w.in_time && deciding(*fin)) else { return Ok(()) };
    fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let name = format!("{}.svg", test.trim_end_matches(".litmus").replace(['/', '\\'], "_"));
    let path = out.join(name);
    fs::write(&path, fencelab::axiom::graph::svg(&scenario, &witness.execution)).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Writes `DIR/TEST-hang.svg`, the hanging execution, when the test's liveness bit came from
/// the axioms' hang search.
fn write_hang_graph(out: &Path, test: &str, src: &str, mode: Mode) -> Result<(), String> {
    let Ok(scenario) = fencelab::litmus::import(src) else { return Ok(()) };
    let Some(svg) = fencelab::axiom::table::graph_of_hang(&scenario, mode) else { return Ok(()) };
    fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let name = format!("{}-hang.svg", test.trim_end_matches(".litmus").replace(['/', '\\'], "_"));
    let path = out.join(name);
    fs::write(&path, svg).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn run_corpus(dir: &Path, expected: &Input, args: &Args, ui: Ui) -> u8 {
    let mut wanted: BTreeMap<String, Vec<(Property, bool)>> = BTreeMap::new();
    let mut order = Vec::new();
    let csvs = [
        (Some(expected), Property::Condition),
        (args.liveness.as_ref(), Property::Liveness),
    ];
    for (csv, property) in csvs {
        let Some(csv) = csv else { continue };
        let entries = match read_csv(csv, ui) {
            Ok(entries) => entries,
            Err(code) => return code,
        };
        for entry in entries {
            if !wanted.contains_key(&entry.path) {
                order.push(entry.path.clone());
            }
            wanted
                .entry(entry.path)
                .or_default()
                .push((property, entry.bit));
        }
    }
    let options = Options {
        mode: Mode::from(args.mode),
        ..Options::default()
    };
    let mut judgements: Vec<Judgement> = Vec::new();
    for test in &order {
        let properties = wanted.get(test).map(Vec::as_slice).unwrap_or_default();
        let judged = match fs::read_to_string(dir.join(test)) {
            Ok(src) => judge_source(test, &src, properties, &options),
            Err(e) => properties
                .iter()
                .map(|&(p, bit)| {
                    fencelab::litmus::conformance::unsupported(
                        test,
                        p,
                        bit,
                        format!("cannot read: {e}"),
                    )
                })
                .collect(),
        };
        let axioms_hang = judged.iter().any(|j| j.property == Property::Liveness && j.detail.starts_with(AXIOMS_HANG));
        judgements.extend(judged);
        if let (Some(out), Ok(src)) = (&args.graph, fs::read_to_string(dir.join(test))) {
            let written = write_graph(out, test, &src, options.mode).and_then(|()| if axioms_hang { write_hang_graph(out, test, &src, options.mode) } else { Ok(()) });
            if let Err(e) = written {
                ui.error(&e);
                return INPUT_ERROR;
            }
        }
    }
    let summary = Summary::of(&judgements);
    let mut out = std::io::stdout().lock();
    if args.json {
        let json = serde_json::json!({ "results": judgements, "summary": summary, "line": summary.to_string() });
        match serde_json::to_string_pretty(&json) {
            Ok(text) => {
                let _ = writeln!(out, "{text}");
            }
            Err(e) => {
                ui.error(&format!("cannot serialize the results: {e}"));
                return INPUT_ERROR;
            }
        }
    } else {
        for j in judgements.iter().filter(|j| j.status != Status::Agree) {
            let _ = writeln!(out, "{j}");
        }
        let _ = writeln!(out, "{summary}");
    }
    u8::from(summary.disagree > 0)
}
