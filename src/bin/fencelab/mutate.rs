//! `fencelab mutate FILE [--json] [--mode strict|pragmatic]`: which synchronization steps
//! of a scenario matter. Each single-point weakening (`fencelab::mutate`) is checked;
//! killed means the checker's verdict changes, survived means it cannot tell.

use std::io::Write;

use fencelab::check::{stated_modes, Mode};
use fencelab::diag::line_col;
use fencelab::mutate::{judge, mutants, Fate, Judged};

/// States explored per mutant before it counts as undecided.
const MAX_STATES: u64 = 200_000;

/// The command's arguments, typed.
pub struct MutateArgs {
    pub file: String,
    pub json: bool,
    /// `None`: the modes the file's `expect` lines name (as `check` does).
    pub mode: Option<Mode>,
}

/// Reads `FILE [--json] [--mode M]` (the hand-written dispatch; a clap parser replaces it).
pub fn from_words(words: &[String]) -> Result<MutateArgs, String> {
    let mut args = MutateArgs { file: String::new(), json: false, mode: None };
    let mut it = words.iter();
    while let Some(word) = it.next() {
        match word.as_str() {
            "--json" => args.json = true,
            "--mode" => {
                args.mode = Some(it.next().and_then(|m| Mode::from_name(m)).ok_or("`--mode` takes `strict` or `pragmatic`")?)
            }
            flag if flag.starts_with("--") => return Err(format!("unknown option `{flag}`")),
            file if args.file.is_empty() => args.file = file.to_string(),
            extra => return Err(format!("`mutate` takes one FILE; `{extra}` is one too many")),
        }
    }
    if args.file.is_empty() {
        return Err("`mutate` needs a FILE".into());
    }
    Ok(args)
}

/// Exit code: 0 done, 2 unreadable or invalid scenario.
pub fn run(args: &MutateArgs) -> u8 {
    let file = args.file.as_str();
    let src = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot read `{file}`: {e}");
            return 2;
        }
    };
    let loaded = fencelab::load(&src);
    if loaded.has_errors() {
        eprint!("{}", fencelab::diag::render_all(&loaded.diagnostics, &src, file));
        return 2;
    }
    let scenario = &loaded.scenario;
    let line_of = |j: &Judged| {
        loaded.source_map.instr(j.mutant.thread, j.mutant.instr).map_or(0, |span| line_col(&src, span.start).0)
    };
    let modes = args.mode.map_or_else(|| stated_modes(scenario), |m| vec![m]);
    let mut objects = Vec::new();
    let mut out = std::io::stdout().lock();
    for mode in modes {
        let judged = judge(scenario, mode, MAX_STATES, mutants(scenario));
        for j in &judged {
            let thread = scenario.threads.get(j.mutant.thread).map_or("?", |t| t.name.as_str());
            if args.json {
                objects.push(serde_json::json!({
                    "mode": mode.name(), "line": line_of(j), "thread": thread, "instr": j.mutant.instr,
                    "kind": j.mutant.kind.name(), "before": j.mutant.before, "after": j.mutant.after,
                    "verdict": j.verdict.name(), "fate": j.fate.name(), "finding": j.finding,
                }));
                continue;
            }
            let why = j.finding.as_deref().map(|f| format!(": {f}")).unwrap_or_default();
            let _ = writeln!(
                out,
                "{file}:{}: {thread}: {} -> {}\n    {} ({} in {} mode{why})",
                line_of(j),
                j.mutant.before,
                j.mutant.after,
                j.fate.name(),
                j.verdict.name(),
                mode.name()
            );
        }
        if !args.json {
            let count = |fate: Fate| judged.iter().filter(|j| j.fate == fate).count();
            let _ = writeln!(
                out,
                "{file}: {} mutants in {} mode: {} killed, {} survived, {} undecided",
                judged.len(),
                mode.name(),
                count(Fate::Killed),
                count(Fate::Survived),
                count(Fate::Undecided)
            );
        }
    }
    if args.json {
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&objects).unwrap_or_default());
    }
    0
}
