//! `fencelab litmus`: run Dat3M's PTX litmus tests against the checker, or print one
//! imported test in `.fence` syntax.
//!
//! Every disagreement is printed as one line (test, expected, ours, witness or reason);
//! the last line is `N agree, M disagree, K unsupported`. Exit 1 on any disagreement:
//! which ones are known deviations is `tests/conformance.rs`'s business.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::Path;

use fencelab::check::{Mode, Options};
use fencelab::litmus::conformance::{
    judge_source, parse_expected, Judgement, Property, Status, Summary,
};

const USAGE: &str =
    "usage: fencelab litmus DIR --expected CSV [--liveness CSV] [--json] [--mode strict|pragmatic]
       fencelab litmus --print TEST";

/// Exit code for bad usage or unreadable input.
const INPUT_ERROR: u8 = 2;

struct Args {
    dir: String,
    expected: String,
    liveness: Option<String>,
    json: bool,
    mode: Mode,
}

pub fn run(args: &[String]) -> u8 {
    if let [flag, test] = args {
        if flag == "--print" {
            return print(test);
        }
    }
    match parse_args(args) {
        Ok(parsed) => run_corpus(&parsed),
        Err(message) => {
            eprintln!("error: {message}\n\n{USAGE}");
            INPUT_ERROR
        }
    }
}

fn parse_args(args: &[String]) -> Result<Args, String> {
    let (mut dir, mut expected, mut liveness, mut json, mut mode) =
        (None, None, None, false, Mode::Strict);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("`{flag}` needs a value"))
        };
        match arg.as_str() {
            "--expected" => expected = Some(value("--expected")?),
            "--liveness" => liveness = Some(value("--liveness")?),
            "--json" => json = true,
            "--mode" => {
                let name = value("--mode")?;
                mode = Mode::from_name(&name).ok_or(format!("unknown mode `{name}`"))?;
            }
            flag if flag.starts_with("--") => return Err(format!("unknown flag `{flag}`")),
            path if dir.is_none() => dir = Some(path.to_string()),
            extra => return Err(format!("unexpected argument `{extra}`")),
        }
    }
    Ok(Args {
        dir: dir.ok_or("missing the test directory")?,
        expected: expected.ok_or("missing `--expected CSV`")?,
        liveness,
        json,
        mode,
    })
}

fn print(test: &str) -> u8 {
    let src = match fs::read_to_string(test) {
        Ok(src) => src,
        Err(e) => {
            eprintln!("error: cannot read `{test}`: {e}");
            return INPUT_ERROR;
        }
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
            eprintln!("error: {test}: {e}");
            INPUT_ERROR
        }
    }
}

/// The expected bits of one CSV, or the message saying why it cannot be used.
fn read_csv(path: &str) -> Result<Vec<fencelab::litmus::conformance::Expected>, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
    parse_expected(&text).map_err(|e| format!("{path}: {e}"))
}

fn run_corpus(args: &Args) -> u8 {
    let mut wanted: BTreeMap<String, Vec<(Property, bool)>> = BTreeMap::new();
    let mut order = Vec::new();
    let csvs = [
        (Some(&args.expected), Property::Condition),
        (args.liveness.as_ref(), Property::Liveness),
    ];
    for (csv, property) in csvs {
        let Some(csv) = csv else { continue };
        let entries = match read_csv(csv) {
            Ok(entries) => entries,
            Err(message) => {
                eprintln!("error: {message}");
                return INPUT_ERROR;
            }
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
        mode: args.mode,
        ..Options::default()
    };
    let mut judgements: Vec<Judgement> = Vec::new();
    for test in &order {
        let properties = wanted.get(test).map(Vec::as_slice).unwrap_or_default();
        let judged = match fs::read_to_string(Path::new(&args.dir).join(test)) {
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
        judgements.extend(judged);
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
                eprintln!("error: cannot serialize the results: {e}");
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
