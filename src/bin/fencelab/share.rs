//! `fencelab share FILE [--base URL]` and `fencelab unshare LINK`: scenario links.

use std::io::Read;

use fencelab::diag::render_all;
use fencelab::link::{self, SharePayload, TraceRef, ViewState, ROUTE};
use fencelab::syntax::{print, MAX_INPUT_BYTES};

const SHARE_USAGE: &str = "usage: fencelab share FILE [--base URL]";
const UNSHARE_USAGE: &str = "usage: fencelab unshare LINK   (`-` reads the link from stdin)";

/// Prints a link to the scenario in `FILE`: `URL#/s/<code>` with `--base`, else `#/s/<code>`.
pub fn share(args: &[String]) -> u8 {
    let (path, base) = match args {
        [path] => (path, None),
        [path, flag, base] | [flag, base, path] if flag == "--base" => (path, Some(base)),
        _ => return usage(SHARE_USAGE),
    };
    let src = match read_limited(path) {
        Ok(src) => src,
        Err(message) => return fail(&message),
    };
    let loaded = fencelab::load(&src);
    if !loaded.diagnostics.is_empty() {
        eprintln!("{}", render_all(&loaded.diagnostics, &src, path));
    }
    if loaded.has_errors() {
        return fail(&format!("`{path}` has errors; fix them before sharing"));
    }
    let payload = SharePayload::scenario_only(loaded.scenario);
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

/// Reads `path` as UTF-8 text of at most the parser's input limit.
fn read_limited(path: &str) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
    let mut bytes = Vec::new();
    let limit = u64::try_from(MAX_INPUT_BYTES + 1).unwrap_or(u64::MAX);
    file.take(limit).read_to_end(&mut bytes).map_err(|e| format!("cannot read `{path}`: {e}"))?;
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(format!("`{path}` is larger than {MAX_INPUT_BYTES} bytes"));
    }
    String::from_utf8(bytes).map_err(|_| format!("`{path}` is not UTF-8 text"))
}

fn usage(text: &str) -> u8 {
    eprintln!("{text}");
    2
}

fn fail(message: &str) -> u8 {
    eprintln!("error: {message}");
    2
}
