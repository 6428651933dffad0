//! Refactors must not change what the checker or the verifier says. Where
//! `checker_snapshot.rs` keeps every scenario file's whole report in the default mode, this
//! test keeps a one-line digest (verdict, finding kinds, state count, hash of the whole
//! report) of:
//! - every scenario file (templates included) in both modes;
//! - every lesson program (```` ```fence ```` blocks in their own mode, exercise starts
//!   and solutions in both), keyed by a hash of its source, so a lesson edit leaves the
//!   edited program unrecorded instead of failing;
//! - [`RANDOM`] scenarios drawn from a fixed seed by [`checkable`] (programs from the
//!   proptest strategy in `common/strategy.rs`, in a machine that declares their names),
//!   each with its verifier diagnostics, in both modes under a small state cap.
//!
//! Re-record with `FENCELAB_UPDATE_SNAPSHOT=1 cargo test --test verdict_digest` and
//! explain every changed line in the commit.

#[path = "common/mod.rs"]
#[allow(dead_code)]
mod common;
#[path = "support/fence_files.rs"]
mod fence_files;
#[path = "support/recorded.rs"]
mod recorded;

use std::collections::BTreeMap;
use std::path::Path;

use fencelab::check::{check, Mode, Options, Report};
use fencelab::lesson::{parse_lesson, Block};
use fencelab::model::Scenario;
use proptest::prelude::any;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;

const DIGEST: &str = "tests/snapshots/digest.tsv";

/// How many random scenarios are recorded: about 30 s of a debug run on a busy 2-core machine.
const RANDOM: usize = 2_500;

/// State cap for random scenarios: enough to reach findings in most, small enough to
/// keep the run short (a capped run is recorded as `partial` with its counts).
const RANDOM_MAX_STATES: u64 = 400;

/// FNV-1a: stable across Rust versions, unlike `DefaultHasher`.
fn hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn digest(report: &Report) -> String {
    let kinds: Vec<String> = report
        .findings
        .iter()
        .map(|f| match f.reason {
            Some(reason) => format!("{:?}.{reason:?}", f.kind),
            None => format!("{:?}", f.kind),
        })
        .collect();
    let full = serde_json::to_string(report).unwrap_or_else(|e| format!("unserializable: {e}"));
    format!(
        "{} n={} f={} h={}",
        report.verdict.name(),
        report.stats.states,
        kinds.join(","),
        &hash(&full)[..10]
    )
}

fn both_modes(scenario: &Scenario, max_states: u64) -> String {
    [Mode::Strict, Mode::Pragmatic]
        .map(|mode| digest(&check(scenario, &Options { mode, max_states, ..Options::default() })))
        .join("\t")
}

fn scenario_files(out: &mut BTreeMap<String, String>) {
    let mut files = Vec::new();
    fence_files::fence_files(Path::new("tests/scenarios"), &mut files);
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap_or_default();
        let scenario = fencelab::load(&src).scenario;
        out.insert(format!("file {}", path.display()), both_modes(&scenario, Options::default().max_states));
    }
}

/// Lesson programs, keyed by the hash of their source (see the module doc).
fn lesson_programs(out: &mut BTreeMap<String, String>) {
    let mut paths: Vec<_> = std::fs::read_dir("lessons").into_iter().flatten().flatten().map(|e| e.path()).collect();
    paths.sort();
    let max_states = Options::default().max_states;
    for path in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "md")) {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let (lesson, _) = parse_lesson(&text);
        for block in &lesson.blocks {
            match block {
                Block::Prose(_) => {}
                Block::Scenario { source, mode, .. } => {
                    let mode = mode.unwrap_or_default();
                    let report = check(&fencelab::load(source).scenario, &Options { mode, max_states, ..Options::default() });
                    out.insert(format!("lesson {:?} {}", mode, hash(source)), digest(&report));
                }
                Block::Exercise(exercise) => {
                    for part in [&exercise.start, &exercise.solution].into_iter().filter(|p| !p.source.is_empty()) {
                        let scenario = fencelab::load(&part.source).scenario;
                        out.insert(format!("exercise {}", hash(&part.source)), both_modes(&scenario, max_states));
                    }
                }
            }
        }
    }
}

/// A scenario the checker explores: programs drawn from `common::strategy::instr`, in a
/// machine that declares every name the instruction pools use (locations `g0 g1 s0 t0`,
/// mbarriers `m0 m1`, labels `L0 L1` at the end of each program).
fn checkable() -> impl Strategy<Value = Scenario> {
    use fencelab::model::*;
    use proptest::collection::vec;
    let thread = (0usize..3, proptest::sample::select(vec![1u32, 32]), vec(common::strategy::instr(), 1..7));
    let conditions = vec(common::strategy::cond(), 0..2);
    (0usize..3, any::<bool>(), 1u32..3, vec(thread, 2..4), conditions).prop_map(
        |(extra_ctas, one_cluster, bar_count, threads, conditions)| {
            let cta_count = 1 + extra_ctas;
            let clusters = if one_cluster {
                vec![Cluster { name: "C0".into(), gpu: 0 }]
            } else {
                (0..cta_count).map(|i| Cluster { name: format!("A{i}"), gpu: 0 }).collect()
            };
            let ctas = (0..cta_count)
                .map(|i| Cta { name: format!("A{i}"), cluster: if one_cluster { 0 } else { i } })
                .collect();
            let loc = |name: &str, space| Location { name: name.into(), space, size: 4, init: 0, alias: None };
            let locations = vec![
                loc("g0", Space::Global),
                loc("g1", Space::Global),
                loc("s0", Space::Shared(0)),
                loc("t0", Space::Tmem(0)),
            ];
            let mbarriers = vec![
                Mbarrier { name: "m0".into(), cta: 0, count: Some(bar_count) },
                Mbarrier { name: "m1".into(), cta: cta_count - 1, count: Some(1) },
            ];
            let threads = threads
                .into_iter()
                .enumerate()
                .map(|(i, (cta, lanes, mut program))| {
                    program.push(Instr::Label("L0".into()));
                    program.push(Instr::Label("L1".into()));
                    Thread { name: format!("t{i}"), cta: cta % cta_count, lanes, program }
                })
                .collect();
            let conditions = conditions
                .into_iter()
                .map(|cond| FinalCondition { quantifier: Quantifier::Exists, cond })
                .collect();
            Scenario { title: None, clusters, ctas, locations, mbarriers, threads, expect: Vec::new(), conditions }
        },
    )
}

/// The random scenarios: index, hash of the scenario, distinct verifier codes and a hash
/// of all diagnostics, then the digest in each mode.
fn random_scenarios(out: &mut BTreeMap<String, String>) {
    let mut runner = TestRunner::deterministic();
    let strategy = checkable();
    for index in 0..RANDOM {
        let scenario = match strategy.new_tree(&mut runner) {
            Ok(tree) => tree.current(),
            Err(e) => panic!("strategy rejected a draw: {e}"),
        };
        let text = fencelab::syntax::print(&scenario);
        let loaded = fencelab::load(&text);
        // Distinct codes keep the line short; the message hash covers the rest.
        let codes: std::collections::BTreeSet<&str> = loaded.diagnostics.iter().map(|d| d.code.as_str()).collect();
        let messages = serde_json::to_string(&loaded.diagnostics).unwrap_or_default();
        let scenario_json = serde_json::to_string(&scenario).unwrap_or_default();
        out.insert(
            format!("random {index:05}"),
            format!(
                "{}\tv={} {}\t{}",
                &hash(&scenario_json)[..10],
                codes.into_iter().collect::<Vec<_>>().join(","),
                &hash(&messages)[..10],
                both_modes(&loaded.scenario, RANDOM_MAX_STATES)
            ),
        );
    }
}

/// Generating nested strategies and checking in debug builds recurse deeply.
fn on_big_stack(body: impl FnOnce() + Send + 'static) {
    let thread = std::thread::Builder::new().stack_size(64 << 20).spawn(body);
    match thread.map(|t| t.join()) {
        Ok(Ok(())) => {}
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(e) => panic!("cannot spawn the test thread: {e}"),
    }
}

#[test]
fn every_digest_matches_the_recorded_one() {
    on_big_stack(|| {
        let mut now = BTreeMap::new();
        scenario_files(&mut now);
        lesson_programs(&mut now);
        random_scenarios(&mut now);
        if std::env::var_os("FENCELAB_UPDATE_SNAPSHOT").is_some() {
            recorded::write(DIGEST, &now);
            return;
        }
        let before = recorded::read(DIGEST);
        assert!(before.len() > RANDOM, "{DIGEST} is missing or short");
        let changed = recorded::changes(&before, &now);
        // A random index whose scenario hash changed means the strategy changed, not the
        // checker: say so rather than list two thousand differences.
        let scenario_hash = |line: &str| line.split('\t').next().map(str::to_string);
        let regenerated = now
            .iter()
            .filter(|(name, line)| {
                name.starts_with("random") && before.get(*name).map(|old| scenario_hash(old)) != Some(scenario_hash(line))
            })
            .count();
        assert!(
            regenerated == 0,
            "{regenerated} random scenarios differ: if tests/common/strategy.rs changed, re-record {DIGEST}"
        );
        assert!(changed.is_empty(), "{} digest(s) changed:\n{}", changed.len(), changed.join("\n"));
    });
}
