//! `fencelab cuda FILE [-o OUT.cu] [--trials N] [--instances N]`: a CUDA litmus harness
//! for a scenario (`docs/hardware.md`).

use fencelab::cuda::{generate, CudaError, HarnessOptions};
use fencelab::diag::Diagnostic;
use fencelab::syntax::SourceMap;

use std::path::PathBuf;

use crate::input::{print_diagnostics, read_scenario, Input, INPUT_ERROR};
use crate::ui::Ui;

/// Generate a CUDA litmus harness (sm_90a) for a scenario
#[derive(clap::Args)]
#[command(long_about = "Generate a CUDA litmus harness (sm_90a) for a scenario.

The harness runs many independent instances of the scenario per launch, with random start
delays, memory-stress CTAs and L1 priming, and prints a JSON histogram of the final
registers. tcgen05 and tensor memory need Blackwell and are refused, as is anything else
the harness cannot express, with the line named. See docs/hardware.md.")]
#[command(after_help = "\
Examples:
  fencelab cuda tests/scenarios/hardware/mp_relaxed.fence -o mp.cu
  nvcc -gencode=arch=compute_90a,code=sm_90a mp.cu -o mp && ./mp > mp.json
  fencelab observed tests/scenarios/hardware/mp_relaxed.fence mp.json

Exit status: 0 written, 2 bad input or a scenario the harness cannot express.")]
pub struct Args {
    /// Scenario file; `-` reads standard input
    #[arg(value_name = "FILE", value_parser = Input::parser())]
    file: Input,
    /// Write the harness here instead of standard output
    #[arg(short = 'o', value_name = "OUT.cu")]
    out: Option<PathBuf>,
    /// Total trials (instances × launches)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    trials: Option<u64>,
    /// Independent instances of the scenario per launch
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    instances: Option<u32>,
}

/// Exit code: 0 written, 2 invalid input or a scenario the harness cannot express.
pub fn run(args: &Args, ui: Ui) -> u8 {
    let (src, scenario, map) = match read_scenario(&args.file, ui) {
        Ok(input) => input,
        Err(code) => return code,
    };
    let mut options = HarnessOptions::default();
    options.trials = args.trials.unwrap_or(options.trials);
    options.instances = args.instances.unwrap_or(options.instances);
    let code = match generate(&scenario, &options) {
        Ok(code) => code,
        Err(e) => {
            print_error(&e, &args.file, &src, &map, &scenario, ui);
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
                ui.error(&format!("cannot write `{}`: {e}", path.display()));
                INPUT_ERROR
            }
        },
    }
}

fn print_error(e: &CudaError, file: &Input, src: &str, map: &SourceMap, scenario: &fencelab::model::Scenario, ui: Ui) {
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
    print_diagnostics(&diags, src, file, ui);
    ui.error(&format!("no harness generated for `{file}`"));
}
