//! `fencelab share FILE [--base URL] [--witness N [--mode M]]` and `fencelab unshare LINK`:
//! scenario links, optionally opened on the witness of a finding (for bug reports).

use std::io::Read;
use std::num::NonZeroUsize;

use fencelab::check::{check, Mode, Options};
use fencelab::link::{self, SharePayload, TraceRef, ViewState};
use fencelab::model::Scenario;

use crate::check::ModeArg;
use crate::input::{self, Input};
use crate::ui::Ui;

/// Print a link that opens a scenario in the app
#[derive(clap::Args)]
#[command(long_about = "Print a link that opens a scenario in the app.

The whole scenario travels in the link's fragment (#/s/<code>), so the link works on any
copy of the app. With --witness N it opens on the last step of finding N's witness, the
handy form for a bug report.")]
#[command(after_help = "\
Examples:
  fencelab share mp.fence --base https://fencelab.example/
  fencelab share mp.fence --witness 1 --mode strict
  fencelab unshare \"$(fencelab share mp.fence)\"

Exit status: 0 ok, 2 bad input or usage.")]
pub struct ShareArgs {
    /// Scenario file; `-` reads standard input
    #[arg(value_name = "FILE", value_parser = Input::parser())]
    file: Input,
    /// The app's address; without it the link is only the `#/s/<code>` fragment
    #[arg(long, value_name = "URL")]
    base: Option<String>,
    /// Open the link on the witness of finding N (counting from 1)
    #[arg(long, value_name = "N", value_parser = finding_number)]
    witness: Option<NonZeroUsize>,
    /// The mode the witness is found in
    #[arg(long, value_enum, requires = "witness")]
    mode: Option<ModeArg>,
}

/// Print the scenario a link carries, as .fence text
#[derive(clap::Args)]
#[command(long_about = "Print the scenario a link carries, as .fence text.

stdout gets only the scenario; what else the link selects (mode, witness, step, lesson)
is a note on stderr.")]
#[command(after_help = "\
Examples:
  fencelab unshare 'https://fencelab.example/#/s/...' > shared.fence
  pbpaste | fencelab unshare -

Exit status: 0 ok, 2 a broken link or bad usage.")]
pub struct UnshareArgs {
    /// A link or its `#/s/<code>` fragment; `-` reads it from standard input
    link: String,
}

fn finding_number(text: &str) -> Result<NonZeroUsize, String> {
    text.parse().map_err(|_| format!("a finding number counts from 1, not `{text}`"))
}

/// Prints a link to the scenario in `FILE`: `URL#/s/<code>` with `--base`, else `#/s/<code>`.
/// With `--witness N` the link opens on the last step of finding N's witness.
pub fn share(args: &ShareArgs, ui: Ui) -> u8 {
    let file = &args.file;
    let (source, scenario, comments) = match input::read_scenario(file, ui) {
        Ok((source, scenario, map)) => (source, scenario, map.comments),
        Err(code) => return code,
    };
    let mode = args.mode.map_or(Mode::default(), Mode::from);
    let payload = match args.witness {
        Some(n) => match witness_payload(scenario, n.get(), mode) {
            Ok(payload) => payload,
            Err(why) => return fail(ui, &format!("cannot share `{file}` at a witness: {why}")),
        },
        None => SharePayload::scenario_only(scenario),
    };
    // The link keeps the file's text as written, so `unshare` gives it back line for line.
    let link = link::share_url_with_source(args.base.as_deref().unwrap_or(""), &payload, &comments, &source);
    match link {
        Ok(link) => {
            println!("{link}");
            0
        }
        Err(e) => fail(ui, &format!("cannot share `{file}`: {e}")),
    }
}

/// The scenario with finding `number`'s witness as the execution on screen, at its end.
/// The witness travels as an explicit schedule, so the link means the same execution
/// even if a later checker numbers its findings differently.
fn witness_payload(scenario: Scenario, number: usize, mode: Mode) -> Result<SharePayload, String> {
    let report = check(&scenario, &Options { mode, ..Options::default() });
    let count = report.findings.len();
    let finding = report.findings.into_iter().nth(number - 1).ok_or_else(|| match count {
        0 => format!("the checker finds nothing to witness in {} mode", mode.name()),
        1 => format!("there is 1 finding, not {number}"),
        _ => format!("there are {count} findings, not {number}"),
    })?;
    let steps = u32::try_from(finding.witness.steps.len()).map_err(|_| "the witness is too long to share")?;
    let view = ViewState {
        mode,
        trace: Some(TraceRef::Schedule(finding.witness)),
        step: Some(steps),
        ..ViewState::default()
    };
    Ok(SharePayload { scenario, view })
}

/// Prints the scenario a link carries, in text syntax; what else the link selects goes
/// to stderr so that stdout is a clean `.fence` file.
pub fn unshare(args: &UnshareArgs, ui: Ui) -> u8 {
    let link_arg = &args.link;
    let text = if link_arg == "-" {
        let mut text = String::new();
        let limit = u64::try_from(link::MAX_LINK_CHARS + 1).unwrap_or(u64::MAX);
        if let Err(e) = std::io::stdin().take(limit).read_to_string(&mut text) {
            return fail(ui, &format!("cannot read the link from stdin: {e}"));
        }
        text
    } else {
        link_arg.clone()
    };
    let decoded = match link::decode_full(&text) {
        Ok(decoded) => decoded,
        Err(e) => return fail(ui, &e.to_string()),
    };
    let printed = decoded.text();
    let payload = decoded.payload;
    print!("{printed}");
    if fencelab::load(&printed).scenario != payload.scenario {
        eprintln!(
            "warning: the link uses names the text syntax cannot spell; \
             the text above does not read back as the same scenario"
        );
    }
    if payload.view != ViewState::default() {
        eprintln!("note: the link also selects {}", describe_view(&payload.view));
    }
    0
}

fn describe_view(view: &ViewState) -> String {
    let mut parts = vec![format!("{:?} mode", view.mode).to_lowercase()];
    match &view.trace {
        Some(TraceRef::Finding(index)) => parts.push(format!("the witness of finding {index}")),
        Some(TraceRef::Schedule(schedule)) => {
            parts.push(format!("an execution of {} steps", schedule.steps.len()))
        }
        None => {}
    }
    if let Some(step) = view.step {
        parts.push(format!("step {step}"));
    }
    if let Some(lesson) = &view.lesson {
        parts.push(format!("block {} of lesson `{}`", lesson.block, lesson.id));
    }
    parts.join(", ")
}

fn fail(ui: Ui, message: &str) -> u8 {
    ui.error(message);
    input::INPUT_ERROR
}
