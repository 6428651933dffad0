//! `fencelab cuda FILE [-o OUT.cu] [--trials N] [--instances N]`: a CUDA litmus harness
//! for a scenario (`docs/hardware.md`).

use fencelab::cuda::{generate, CudaError, HarnessOptions};
use fencelab::diag::Diagnostic;
use fencelab::syntax::SourceMap;

use super::input::{print_diagnostics, read_scenario, INPUT_ERROR};

pub const USAGE: &str = "usage: fencelab cuda FILE [-o OUT.cu] [--trials N] [--instances N]";

/// Typed arguments of `fencelab cuda`.
pub struct CudaArgs {
    pub file: String,
    pub out: Option<String>,
    pub options: HarnessOptions,
}

/// Hand-written parsing for today's dispatch; clap replaces it when the CLI moves.
pub fn parse_args(args: &[String]) -> Result<CudaArgs, String> {
    let mut file = None;
    let mut out = None;
    let mut options = HarnessOptions::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" => out = Some(it.next().ok_or("`-o` needs a file name")?.clone()),
            "--trials" => options.trials = number(it.next(), "--trials")?,
            "--instances" => {
                options.instances = u32::try_from(number(it.next(), "--instances")?).map_err(|_| "`--instances` is too large")?
            }
            f if f.starts_with('-') => return Err(format!("unknown option `{f}`")),
            f if file.is_none() => file = Some(f.to_string()),
            f => return Err(format!("unexpected argument `{f}`")),
        }
    }
    Ok(CudaArgs { file: file.ok_or("`cuda` needs a FILE")?, out, options })
}

fn number(value: Option<&String>, flag: &str) -> Result<u64, String> {
    value.and_then(|v| v.parse().ok()).filter(|n| *n > 0).ok_or_else(|| format!("`{flag}` takes a positive number"))
}

/// Exit code: 0 written, 2 invalid input or a scenario the harness cannot express.
pub fn run(args: &CudaArgs) -> u8 {
    let (src, scenario, map) = match read_scenario(&args.file) {
        Ok(input) => input,
        Err(code) => return code,
    };
    let code = match generate(&scenario, &args.options) {
        Ok(code) => code,
        Err(e) => {
            print_error(&e, &args.file, &src, &map, &scenario);
            return INPUT_ERROR;
        }
    };
    match &args.out {
        None => {
            print!("{code}");
            0
        }
        Some(path) => match std::fs::write(path, code) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("error: cannot write `{path}`: {e}");
                INPUT_ERROR
            }
        },
    }
}

fn print_error(e: &CudaError, file: &str, src: &str, map: &SourceMap, scenario: &fencelab::model::Scenario) {
    let diags: Vec<Diagnostic> = e
        .problems
        .iter()
        .map(|p| {
            let at_instr = p.at.and_then(|(t, i)| map.instrs.get(t)?.get(i).copied());
            let at_decl = p.location.as_ref().and_then(|name| map.locations.get(scenario.location(name)?).copied());
            let span = at_instr.or(at_decl);
            Diagnostic::error("H0001", p.message.clone()).with_primary(span, "not generated")
        })
        .collect();
    print_diagnostics(&diags, src, file);
    eprintln!("error: no harness generated for `{file}`");
}
