//! `fencelab share FILE [--base URL]` and `fencelab unshare LINK`: scenario links.

use std::io::Read;

use fencelab::link::{self, SharePayload, TraceRef, ViewState, ROUTE};
use fencelab::syntax::print;

use crate::input;

const SHARE_USAGE: &str = "usage: fencelab share FILE [--base URL]";
const UNSHARE_USAGE: &str = "usage: fencelab unshare LINK   (`-` reads the link from stdin)";

/// Prints a link to the scenario in `FILE`: `URL#/s/<code>` with `--base`, else `#/s/<code>`.
pub fn share(args: &[String]) -> u8 {
    let (path, base) = match args {
        [path] => (path, None),
        [path, flag, base] | [flag, base, path] if flag == "--base" => (path, Some(base)),
        _ => return usage(SHARE_USAGE),
    };
    let scenario = match input::read_scenario(path) {
        Ok((_, scenario, _)) => scenario,
        Err(code) => return code,
    };
    let payload = SharePayload::scenario_only(scenario);
    let link = match base {
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
