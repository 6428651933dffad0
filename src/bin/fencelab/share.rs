//! `fencelab share FILE [--base URL] [--witness N [--mode M]]` and `fencelab unshare LINK`:
//! scenario links, optionally opened on the witness of a finding (for bug reports).

use std::io::Read;

use fencelab::check::{check, Mode, Options};
use fencelab::link::{self, SharePayload, TraceRef, ViewState, ROUTE};
use fencelab::model::Scenario;
use fencelab::syntax::print;

use crate::input;

const SHARE_USAGE: &str =
    "usage: fencelab share FILE [--base URL] [--witness N [--mode strict|pragmatic]]";
const UNSHARE_USAGE: &str = "usage: fencelab unshare LINK   (`-` reads the link from stdin)";

/// What `share` was asked for.
struct ShareArgs {
    path: String,
    base: Option<String>,
    /// 1-based finding number whose witness the link opens on.
    witness: Option<usize>,
    mode: Option<Mode>,
}

fn share_args(args: &[String]) -> Result<ShareArgs, String> {
    let mut parsed = ShareArgs { path: String::new(), base: None, witness: None, mode: None };
    let mut path = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or(format!("`{flag}` needs a value"));
        match arg.as_str() {
            "--base" => parsed.base = Some(value("--base")?),
            "--witness" => {
                let n = value("--witness")?;
                match n.parse::<usize>() {
                    Ok(n) if n >= 1 => parsed.witness = Some(n),
                    _ => return Err(format!("`--witness` takes a finding number from 1, not `{n}`")),
                }
            }
            "--mode" => {
                let name = value("--mode")?;
                let mode = Mode::from_name(&name);
                parsed.mode = Some(mode.ok_or(format!("`--mode` takes `strict` or `pragmatic`, not `{name}`"))?);
            }
            flag if flag.starts_with("--") => return Err(format!("unknown option `{flag}`")),
            file if path.is_none() => path = Some(file.to_string()),
            extra => return Err(format!("one scenario file per link; `{extra}` is a second one")),
        }
    }
    parsed.path = path.ok_or("no scenario file given")?;
    if parsed.mode.is_some() && parsed.witness.is_none() {
        return Err("`--mode` only matters with `--witness`".into());
    }
    Ok(parsed)
}

/// Prints a link to the scenario in `FILE`: `URL#/s/<code>` with `--base`, else `#/s/<code>`.
/// With `--witness N` the link opens on the last step of finding N's witness.
pub fn share(args: &[String]) -> u8 {
    let args = match share_args(args) {
        Ok(args) => args,
        Err(why) => {
            eprintln!("error: {why}");
            return usage(SHARE_USAGE);
        }
    };
    let path = &args.path;
    let scenario = match input::read_scenario(path) {
        Ok((_, scenario, _)) => scenario,
        Err(code) => return code,
    };
    let payload = match args.witness {
        Some(n) => match witness_payload(scenario, n, args.mode.unwrap_or_default()) {
            Ok(payload) => payload,
            Err(why) => return fail(&format!("cannot share `{path}` at a witness: {why}")),
        },
        None => SharePayload::scenario_only(scenario),
    };
    let link = match &args.base {
        Some(base) => link::share_url(base, &payload),
        None => link::encode(&payload).map(|code| format!("{ROUTE}{code}")),
    };
    match link {
        Ok(link) => {
            println!("{link}");
            0
        }
        Err(e) => fail(&format!("cannot share `{path}`: {e}")),
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
pub fn unshare(args: &[String]) -> u8 {
    let [link_arg] = args else { return usage(UNSHARE_USAGE) };
    let text = if link_arg == "-" {
        let mut text = String::new();
        let limit = u64::try_from(link::MAX_LINK_CHARS + 1).unwrap_or(u64::MAX);
        if let Err(e) = std::io::stdin().take(limit).read_to_string(&mut text) {
            return fail(&format!("cannot read the link from stdin: {e}"));
        }
        text
    } else {
        link_arg.clone()
    };
    let payload = match link::decode(&text) {
        Ok(payload) => payload,
        Err(e) => return fail(&e.to_string()),
    };
    let printed = print(&payload.scenario);
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

fn usage(text: &str) -> u8 {
    eprintln!("{text}");
    input::INPUT_ERROR
}

fn fail(message: &str) -> u8 {
    eprintln!("error: {message}");
    input::INPUT_ERROR
}
