//! The blame rule (issue 50): for every buggy/fixed pair in the repository, the first
//! finding on the buggy program (ordered by cause, as the CLI and the app show it) blames
//! at least one instruction that the fix changes, or one next to an instruction the fix
//! inserts. A finding that blames a bystander sends the
//! reader to change correct code. Where a bug has several mends, the rule is widened to a
//! line that some single-edit fix changes, and only where the fix search (`fix::fix`)
//! proves that fix correct (`a_verified_fix_changes`).
//!
//! Pairs: `bugNN_*` beside `bugNN_fixed*` in one folder (several fixes: the one with the
//! smallest diff), a `Fixed: NAME.fence` comment in the buggy file (the written pairing,
//! which wins), and lesson blocks labelled `# ref §10 #N buggy` / `fixed` in one lesson.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use fencelab::check::{check, stated_modes, Finding, Options, Stepper, Verdict};
use fencelab::fix::{Change, Limits};
use fencelab::model::{Expect, Instr, Scenario};

#[path = "support/fence_files.rs"]
mod fence_files;

/// One pair: where it comes from (for messages) and both programs.
struct Pair {
    name: String,
    buggy: Scenario,
    fixed: Scenario,
}

fn load(path: &Path) -> Option<Scenario> {
    let loaded = fencelab::load(&std::fs::read_to_string(path).ok()?);
    (!loaded.has_errors()).then_some(loaded.scenario)
}

/// Whether the file declares no failing verdict in any mode (a fix, or a correct twin).
fn declares_only_correct(s: &Scenario) -> bool {
    !s.expect.is_empty() && s.expect.iter().all(|e| e.verdict == Expect::Correct)
}

/// The `Fixed: NAME.fence` a buggy file's comments name.
fn written_fix(path: &Path) -> Option<PathBuf> {
    let src = std::fs::read_to_string(path).ok()?;
    let name = src
        .lines()
        .filter(|l| l.trim_start().starts_with('#'))
        .flat_map(|l| l.split_whitespace().collect::<Vec<_>>().windows(2).map(|w| (w[0].to_string(), w[1].to_string())).collect::<Vec<_>>())
        .find(|(word, _)| word == "Fixed:" || word == "fixed-by:")
        .map(|(_, name)| name.trim_end_matches(['.', ',', ')']).to_string())
        .or_else(|| {
            // The name may wrap to the next comment line after `Fixed:`.
            let mut lines = src.lines().map(str::trim).filter(|l| l.starts_with('#'));
            lines.find(|l| l.ends_with("Fixed:")).and(lines.next()).map(|l| l.trim_start_matches('#').trim().trim_end_matches('.').to_string())
        })?;
    Some(path.parent()?.join(name))
}

/// `bugNN` of a file name `bugNN_rest.fence`.
fn bug_number(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let (head, _) = stem.split_once('_')?;
    (head.starts_with("bug") && head.len() > 3 && head[3..].chars().all(|c| c.is_ascii_digit())).then(|| head.to_string())
}

fn file_pairs() -> Vec<Pair> {
    let mut files = Vec::new();
    fence_files::fence_files(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios").as_path(), &mut files);
    files.sort();
    let mut pairs = Vec::new();
    for path in &files {
        let Some(buggy) = load(path) else { continue };
        if declares_only_correct(&buggy) {
            continue;
        }
        let fix = match written_fix(path) {
            Some(p) => load(&p).map(|s| (p, s)),
            None => bug_number(path).and_then(|n| {
                files
                    .iter()
                    .filter(|p| p.parent() == path.parent() && bug_number(p).as_ref() == Some(&n) && *p != path)
                    .filter_map(|p| load(p).filter(declares_only_correct).map(|s| (p.clone(), s)))
                    .min_by_key(|(_, s)| diff_size(&buggy, s))
            }),
        };
        if let Some((fix_path, fixed)) = fix {
            let short = |p: &Path| p.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(p).display().to_string();
            pairs.push(Pair { name: format!("{} (fixed: {})", short(path), short(&fix_path)), buggy, fixed });
        }
    }
    pairs
}

fn lesson_pairs() -> Vec<Pair> {
    use fencelab::lesson::{bug_labels, parse_lesson, Block, BugRole};
    let mut pairs = Vec::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir).into_iter().flatten().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "md")).collect();
    paths.sort();
    for path in paths {
        let (lesson, _) = parse_lesson(&std::fs::read_to_string(&path).unwrap_or_default());
        let labelled: Vec<(Vec<(u8, BugRole)>, String, usize)> = lesson
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::Scenario { source, line, .. } => {
                    let labels = bug_labels(source, *line).0.into_iter().map(|l| (l.bug, l.role)).collect();
                    Some((labels, source.clone(), *line))
                }
                _ => None,
            })
            .collect();
        for (labels, source, line) in &labelled {
            for (bug, _) in labels.iter().filter(|(_, r)| *r == BugRole::Buggy) {
                let Some(buggy) = Some(fencelab::load(source)).filter(|l| !l.has_errors()).map(|l| l.scenario) else { continue };
                let fixes = labelled.iter().filter(|(ls, _, _)| ls.contains(&(*bug, BugRole::Fixed)));
                let best = fixes
                    .filter_map(|(_, src, l)| Some(fencelab::load(src)).filter(|x| !x.has_errors()).map(|x| (x.scenario, *l)))
                    .min_by_key(|(s, _)| diff_size(&buggy, s));
                if let Some((fixed, fixed_line)) = best {
                    let file = path.file_name().map(|f| f.to_string_lossy().to_string()).unwrap_or_default();
                    pairs.push(Pair { name: format!("{file}:{line} §10 #{bug} (fixed: line {fixed_line})"), buggy, fixed });
                }
            }
        }
    }
    pairs
}

/// Each program as its instructions' canonical texts.
fn texts(s: &Scenario, thread: &str) -> Vec<String> {
    s.threads.iter().find(|t| t.name == thread).map_or_else(Vec::new, |t| t.program.iter().map(fencelab::syntax::instr_text).collect())
}

/// Indices of `a` kept by a longest common subsequence with `b`, as (a index, b index).
fn lcs(a: &[String], b: &[String]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    let mut t = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[i][j] = if a[i] == b[j] { t[i + 1][j + 1] + 1 } else { t[i + 1][j].max(t[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n && j < m {
        if a[i] == b[j] {
            out.push((i, j));
            i += 1;
            j += 1;
        } else if t[i + 1][j] >= t[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The buggy program's instructions a fix changes or inserts next to, per thread; and the
/// names of declarations the fix changes.
fn touched(buggy: &Scenario, fixed: &Scenario) -> (BTreeSet<(String, usize)>, BTreeSet<String>) {
    let mut lines = BTreeSet::new();
    for t in &buggy.threads {
        let (a, b) = (texts(buggy, &t.name), texts(fixed, &t.name));
        let kept = lcs(&a, &b);
        let kept_a: BTreeSet<usize> = kept.iter().map(|(i, _)| *i).collect();
        lines.extend((0..a.len()).filter(|i| !kept_a.contains(i)).map(|i| (t.name.clone(), i)));
        // An insertion between kept pairs touches the buggy lines on either side; a
        // replacement (lines removed in the same gap) touches only the lines it replaces.
        let mut prev: Option<(usize, usize)> = None;
        for &(i, j) in kept.iter().chain(std::iter::once(&(a.len(), b.len()))) {
            let (pi, pj) = prev.map_or((None, 0), |(pi, pj)| (Some(pi), pj + 1));
            let removed = i > pi.map_or(0, |p| p + 1);
            if j > pj && !removed {
                lines.extend(pi.map(|p| (t.name.clone(), p)));
                if i < a.len() {
                    lines.insert((t.name.clone(), i));
                }
            }
            prev = Some((i, j));
        }
    }
    let mut names = BTreeSet::new();
    for l in &buggy.locations {
        if fixed.locations.iter().find(|x| x.name == l.name) != Some(l) {
            names.insert(l.name.clone());
        }
    }
    for b in &buggy.mbarriers {
        if fixed.mbarriers.iter().find(|x| x.name == b.name) != Some(b) {
            names.insert(b.name.clone());
        }
    }
    (lines, names)
}

fn diff_size(buggy: &Scenario, fixed: &Scenario) -> usize {
    let (lines, names) = touched(buggy, fixed);
    let added: usize = fixed.threads.iter().map(|t| {
        let b = texts(buggy, &t.name);
        let f = texts(fixed, &t.name);
        f.len() - lcs(&b, &f).len()
    }).sum();
    lines.len() + names.len() + added
}

/// The instructions a finding blames: its accesses, its stuck agents, the ends of the
/// synchronization it says failed to form, the instructions its
/// message and explanation quote (what a reader is sent to change), or for undefined
/// behaviour without any, the step its witness ends on.
fn blamed(scenario: &Scenario, mode: fencelab::check::Mode, f: &Finding) -> BTreeSet<(String, usize)> {
    let mut out: BTreeSet<(String, usize)> = f.accesses.iter().map(|a| (a.thread.clone(), a.instr)).collect();
    out.extend(f.blocked.iter().map(|b| (b.thread.clone(), b.instr)));
    out.extend(f.missing_edge.iter().map(|e| (e.thread.clone(), e.instr)));
    let squash = |t: &str| t.split('#').next().unwrap_or("").split_whitespace().collect::<String>();
    let text = format!("{} {}", f.message, f.explanation);
    let quoted: Vec<String> = text.split('`').skip(1).step_by(2).map(squash).filter(|q| !q.is_empty()).collect();
    for t in &scenario.threads {
        for (pc, instr) in t.program.iter().enumerate() {
            if quoted.contains(&squash(&fencelab::syntax::instr_text(instr))) {
                out.insert((t.name.clone(), pc));
            }
        }
    }
    if out.is_empty() {
        if let Ok(stepper) = Stepper::replay(scenario, mode, &f.witness) {
            if let Some(last) = stepper.history().last() {
                // An async agent is named `kind#id (issuing thread)`.
                let name = &last.agent_name;
                let thread = name.split_once(" (").map_or(name.as_str(), |(_, rest)| rest.trim_end_matches(')'));
                out.extend(last.instr_index.map(|pc| (thread.to_string(), pc)));
            }
        }
    }
    out
}

fn instr_at<'s>(s: &'s Scenario, thread: &str, pc: usize) -> Option<&'s Instr> {
    s.threads.iter().find(|t| t.name == thread)?.program.get(pc)
}

/// Whether a blamed instruction is one the fix touches, or names a declaration it changes.
fn hits(buggy: &Scenario, blamed: &BTreeSet<(String, usize)>, lines: &BTreeSet<(String, usize)>, names: &BTreeSet<String>) -> bool {
    blamed.iter().any(|(t, pc)| {
        lines.contains(&(t.clone(), *pc)) || instr_at(buggy, t, *pc).is_some_and(|i| i.facts().names.iter().any(|n| names.contains(n.name)))
    })
}

/// Why the pair breaks the rule, if it does.
fn violation(pair: &Pair) -> Option<String> {
    let (lines, names) = touched(&pair.buggy, &pair.fixed);
    for mode in stated_modes(&pair.buggy) {
        let mut report = check(&pair.buggy, &Options { mode, max_states: 500_000, ..Options::default() });
        // The first finding the reader meets: the CLI and the app order findings by cause.
        fencelab::fix::order_by_cause(&pair.buggy, &mut report);
        if report.verdict == Verdict::Correct || report.verdict == Verdict::Partial {
            continue;
        }
        // A fix is one only in the modes where it is correct.
        if check(&pair.fixed, &Options { mode, max_states: 500_000, ..Options::default() }).verdict != Verdict::Correct {
            continue;
        }
        let first = report.findings.first()?;
        let blamed = blamed(&pair.buggy, mode, first);
        if !hits(&pair.buggy, &blamed, &lines, &names) && !a_verified_fix_changes(&pair.buggy, mode, &blamed) {
            return Some(format!(
                "{} in {} mode: first finding `{}` blames {:?}; the fix touches {:?} and declarations {:?}",
                pair.name,
                mode.name(),
                first.message,
                blamed,
                lines,
                names
            ));
        }
    }
    None
}

/// The lines one change touches: the instruction it replaces or moves, or those on both
/// sides of an insertion.
fn change_lines(s: &Scenario, change: &Change) -> BTreeSet<(String, usize)> {
    let name = |t: usize| s.threads.get(t).map_or_else(String::new, |t| t.name.clone());
    let pcs: Vec<(usize, usize)> = match change {
        Change::Replace { thread, at, .. } | Change::Remove { thread, at } => vec![(*thread, *at)],
        Change::MoveDown { thread, at } => vec![(*thread, *at), (*thread, at + 1)],
        Change::Move { thread, from, to } => vec![(*thread, *from), (*thread, *to), (*thread, to.saturating_sub(1))],
        Change::Insert { thread, before, .. } => vec![(*thread, *before), (*thread, before.saturating_sub(1))],
        Change::InsertAfter { thread, after, .. } => vec![(*thread, *after), (*thread, after + 1)],
        Change::DeclaredCount { .. } | Change::Declare { .. } => Vec::new(),
    };
    pcs.into_iter().map(|(t, pc)| (name(t), pc)).collect()
}

/// The widened rule: the blame names a line that a single-edit fix changes, where the fix
/// search (`fix::fix`) proves correct in the mode at hand (it re-checks every fix it reports,
/// and keeps only those that leave what the program computes unchanged).
/// A bug may have several mends, and the pair's written fix is only one of them (a flag
/// written twice relaxed is mended by releasing either write).
fn a_verified_fix_changes(buggy: &Scenario, mode: fencelab::check::Mode, blamed: &BTreeSet<(String, usize)>) -> bool {
    let limits = Limits { max_edits: 1, ..Limits::default() };
    let Ok(search) = fencelab::fix::fix(&fencelab::syntax::print(buggy), mode, &limits, &mut |_, _| true) else { return false };
    search
        .fixes
        .iter()
        .filter(|f| f.changes.len() == 1 && f.modes.iter().any(|m| m.mode == mode && m.verdict == Verdict::Correct))
        .flat_map(|f| change_lines(buggy, &f.changes[0]))
        .any(|line| blamed.contains(&line))
}

/// Every pair in the repository, with no exception list.
#[test]
fn every_first_finding_blames_a_line_its_fix_changes() {
    let pairs: Vec<Pair> = file_pairs().into_iter().chain(lesson_pairs()).collect();
    assert!(pairs.len() >= 60, "found only {} buggy/fixed pairs", pairs.len());
    let failures: Vec<String> = pairs.iter().filter_map(violation).collect();
    assert!(failures.is_empty(), "{} of {} pairs blame a bystander:\n{}", failures.len(), pairs.len(), failures.join("\n"));
}

/// The rule can fail: a blame on lines the fix leaves alone is caught, and a moved load
/// touches its own line, not its thread's other lines.
#[test]
fn a_bystander_blame_is_caught() {
    let buggy = fencelab::load("cta A\nshared x @A = 0\nshared y @A = 0\nthread p @A:\n    st.shared [y], 2\n    st.shared [x], 1\n    bar.sync 0, 64\nthread c @A:\n    ld.shared r0, [x]\n    bar.sync 0, 64\nexpect race\n").scenario;
    let fixed = fencelab::load("cta A\nshared x @A = 0\nshared y @A = 0\nthread p @A:\n    st.shared [y], 2\n    st.shared [x], 1\n    bar.sync 0, 64\nthread c @A:\n    bar.sync 0, 64\n    ld.shared r0, [x]\nexpect correct\n").scenario;
    let (lines, names) = touched(&buggy, &fixed);
    assert!(lines.contains(&("c".to_string(), 0)), "{lines:?}");
    assert!(!lines.contains(&("p".to_string(), 0)), "{lines:?}");
    let bystander: BTreeSet<(String, usize)> = [("p".to_string(), 0)].into();
    assert!(!hits(&buggy, &bystander, &lines, &names));
    let pair = Pair { name: "moved load".into(), buggy, fixed };
    assert!(violation(&pair).is_none());
}

/// Undefined behaviour an asynchronous agent meets when it signals an mbarrier names the
/// instruction that issued it (a lapping `.noinc` arrive, a multicast TMA on a peer's
/// barrier whose init is unpublished, quoted in the explanation).
#[test]
fn an_async_signal_blames_its_issue() {
    let pairs = file_pairs();
    for name in ["bug25_noinc_not_counted.fence", "bug27_multicast_init_not_published.fence"] {
        let pair = pairs.iter().find(|p| p.name.contains(name)).unwrap_or_else(|| panic!("no pair {name}"));
        assert_eq!(violation(pair), None);
    }
}

/// One pair per kind of blame the checker gives where it once named a bystander, so a
/// regression says which kind broke: a formed edge lacking a proxy fence (R1), a phase
/// completed early by an `expect_tx` too small (R2), a restricted fence (R3), a deadlock's
/// unmet debt and the thread that left it (R5), a livelock's writer that finished without
/// the write, an exited CTA's last line and a freed TMEM's dealloc (R6), a twin mended at
/// another line by a verified fix (R7), and the `tcgen05.commit` whose arrive-ons miss a
/// barrier nothing signals or a peer CTA that exits under the pair's mma (R8).
#[test]
fn each_kind_of_blame_names_a_line_a_fix_changes() {
    let pairs = file_pairs();
    for name in [
        "seed003_pair_release_cluster.fence",
        "bug16_bytes_too_low.fence",
        "bug4_restricted_fence_global_payload.fence",
        "bug17_tma_never_issued.fence",
        "lock_never_released.fence",
        "bug35_bulk_push_after_owner_exit.fence",
        "bug34_ld_after_dealloc.fence",
        "relaxed_then_relaxed_same_flag.fence",
        "mainloop_stage_commit_misses_peer.fence",
        "mainloop_stage_peer_exits_during_mma.fence",
    ] {
        let pair = pairs.iter().find(|p| p.name.contains(name)).unwrap_or_else(|| panic!("no pair {name}"));
        assert_eq!(violation(pair), None);
    }
}
