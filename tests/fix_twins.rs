//! Fix search over the reference bug scenarios that have a fixed twin
//! (`bugNN_*` beside `bugNN_fixed*` in one folder of tests/scenarios): at least one fix,
//! every fix re-checks correct in the searched mode, the cheapest costs no more than the
//! twin.
//! The two searches over many scenarios run in optimised builds only (`make test` and CI
//! should run `cargo test --release --test fix_twins`); `src/fix/tests.rs` covers the
//! search on small scenarios in every build.

use std::path::{Path, PathBuf};

use fencelab::check::{Mode, Verdict};
use fencelab::cost::cost;
use fencelab::fix::{fix, improve, Limits};
use fencelab::model::Expect;

/// Bug scenarios whose `bugNN_fixed*` files repair other programs of the same number, so
/// there is no twin to price against (a fix must still be found and re-check correct).
const TWINS_FIX_OTHER_PROGRAMS: &[(&str, &str)] = &[(
    "async/bug34_alloc_blocks_forever.fence",
    "bug34_fixed_* repair the ld-after-dealloc, commit-then-dealloc and alloc-then-barrier programs; none starts from two allocations that exceed 512 columns",
)];

/// Modes an `expect` line of `src` claims correct in.
fn correct_modes(src: &str) -> Vec<Mode> {
    let loaded = fencelab::load(src);
    [Mode::Strict, Mode::Pragmatic]
        .into_iter()
        .filter(|m| loaded.scenario.expect.iter().any(|e| e.holds_in(*m) && e.verdict == Expect::Correct))
        .collect()
}

/// `(bug, twins)` for every bugNN_* with bugNN_fixed* beside it. A twin named for the bug
/// (`bug35_red_fixed` for `bug35_red_after_owner_exit`, `bug20_strict_fixed` for
/// `bug20_strict_no_war_proxy_fence`) is its only twin; otherwise every `bugNN_fixed*` is.
fn pairs() -> Vec<(PathBuf, Vec<PathBuf>)> {
    let mut out = Vec::new();
    for dir in ["tests/scenarios/async", "tests/scenarios/checker"] {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("bug") && n.ends_with(".fence"))
            .collect();
        names.sort();
        let is_twin = |n: &str| n.split('_').skip(1).any(|word| word.starts_with("fixed"));
        for name in &names {
            let Some((number, _)) = name.split_once('_') else { continue };
            if is_twin(name) {
                continue;
            }
            let correct = |n: &String| !correct_modes(&std::fs::read_to_string(Path::new(dir).join(n)).unwrap_or_default()).is_empty();
            let own: Vec<&String> = names
                .iter()
                .filter(|n| n.split_once("fixed").is_some_and(|(prefix, _)| prefix.len() > number.len() + 1 && name.starts_with(prefix)))
                .filter(|n| correct(n))
                .collect();
            let generic: Vec<&String> = names.iter().filter(|n| n.starts_with(&format!("{number}_fixed")) && correct(n)).collect();
            let twins: Vec<PathBuf> = if own.is_empty() { generic } else { own }.into_iter().map(|n| Path::new(dir).join(n)).collect();
            let bug = Path::new(dir).join(name);
            if !twins.is_empty() && !correct(name) {
                out.push((bug, twins));
            }
        }
    }
    out
}

/// The mode to search in: strict when the bug is not claimed correct there and a twin is,
/// else pragmatic.
fn search_mode(bug: &str, twins: &[String]) -> Mode {
    let fixed_in = |mode: Mode| !correct_modes(bug).contains(&mode) && twins.iter().any(|t| correct_modes(t).contains(&mode));
    if fixed_in(Mode::Strict) { Mode::Strict } else { Mode::Pragmatic }
}

// Thousands of checker runs: minutes in a debug build, under a minute optimised.
#[test]
#[cfg_attr(debug_assertions, ignore = "run optimised: cargo test --release --test fix_twins")]
fn every_bug_with_a_fixed_twin_gets_a_verified_fix_no_dearer_than_the_twin() {
    let pairs = pairs();
    assert!(pairs.len() >= 40, "found only {} bug/twin pairs", pairs.len());
    let limits = Limits::default();
    let mut failures = Vec::new();
    for (bug, twins) in &pairs {
        let key = bug.strip_prefix("tests/scenarios/").unwrap_or(bug).to_string_lossy().into_owned();
        let src = std::fs::read_to_string(bug).unwrap_or_default();
        let twin_srcs: Vec<String> = twins.iter().map(|t| std::fs::read_to_string(t).unwrap_or_default()).collect();
        let mode = search_mode(&src, &twin_srcs);
        let no_twin = TWINS_FIX_OTHER_PROGRAMS.iter().any(|(k, _)| *k == key);
        let twin_cost = twin_srcs.iter().filter(|t| correct_modes(t).contains(&mode)).map(|t| cost(&fencelab::load(t).scenario).total).max().filter(|_| !no_twin);
        let search = fix(&src, mode, &limits, &mut |_, _| true).unwrap_or_else(|e| panic!("{key}: {e}"));
        let Some(cheapest) = search.fixes.first() else {
            failures.push(format!("{key}: no fix in {} mode after {} checks", mode.name(), search.checks));
            continue;
        };
        for f in &search.fixes {
            // The fixed text is loaded and checked again from scratch.
            let report = fencelab::check::check_one_mode(&fencelab::load(&f.text).scenario, &fencelab::check::Options { mode, max_states: limits.max_states, ..fencelab::check::Options::default() });
            if report.verdict != Verdict::Correct {
                failures.push(format!("{key}: a fix re-checks {}:\n{}", report.verdict.name(), f.text));
            }
            if !f.modes.iter().any(|m| m.mode == mode && m.verdict == Verdict::Correct) {
                failures.push(format!("{key}: a fix's per-mode result does not say correct in {}", mode.name()));
            }
        }
        if twin_cost.is_some_and(|twin| cheapest.cost > twin) {
            failures.push(format!("{key}: cheapest fix costs {}, the twin {twin_cost:?}", cheapest.cost));
        }
    }
    // Every listed bug is a pair this test searches, so no entry goes stale unnoticed.
    for (listed, _) in TWINS_FIX_OTHER_PROGRAMS {
        if !pairs.iter().any(|(bug, _)| bug.ends_with(listed)) {
            failures.push(format!("{listed}: listed, but not a bug with a fixed twin"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn seed(name: &str) -> String {
    std::fs::read_to_string(format!("tests/scenarios/seeds/{name}")).unwrap_or_default()
}

#[test]
#[cfg_attr(debug_assertions, ignore = "run optimised: cargo test --release --test fix_twins")]
fn seed_003s_relay_bug_gets_the_sync_restrict_fix_first() {
    for mode in [Mode::Pragmatic, Mode::Strict] {
        // Room for more than the default 8 fixes: cheaper cluster-barrier repairs come
        // between the first fix and the release.cluster arrive.
        let limits = Limits { max_fixes: 32, ..Limits::default() };
        let search = fix(&seed("003-relay-warp-as-seed.fence"), mode, &limits, &mut |_, _| true).expect("seed 003 loads");
        let first = search.fixes.first().unwrap_or_else(|| panic!("no fix in {}", mode.name()));
        // Strict mode also needs the proxy crossing: the restricted release of
        // `fence.proxy.async::generic` does both in one fence, at the same price.
        let restricted_release = ["fence.release.sync_restrict::shared::cta.cluster", "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster"];
        assert!(restricted_release.iter().any(|f| first.text.contains(f)), "{}", first.text);
        assert!(first.text.contains("mbarrier.arrive.relaxed.cluster.shared::cluster [a_ready]"), "{}", first.text);
        assert!(!first.cost_change.iter().any(|c| c.contains("MEMBAR.ALL.GPU")), "{:?}", first.cost_change);
        // The release.cluster arrive also fixes it, ranked below.
        assert!(search.fixes.iter().any(|f| f.text.contains("mbarrier.arrive.release.cluster") && f.cost > first.cost));
    }
}

#[test]
fn seed_003s_cluster_scope_fix_is_offered_its_cheaper_restricted_variant() {
    let src = seed("003-relay-warp-fully-fixed.fence");
    let found = improve(&src, Mode::Strict, &Limits::default(), &mut |_, _| true).expect("seed 003 loads");
    let original = cost(&fencelab::load(&src).scenario).total;
    let variant = found
        .cheaper
        .iter()
        .find(|f| f.text.contains("fence.release.sync_restrict::shared::cta.cluster") && f.text.contains("mbarrier.arrive.relaxed.cluster"))
        .expect("the sync_restrict + relaxed arrive variant");
    assert!(variant.cost < original);
    assert!(variant.modes.iter().all(|m| m.verdict == Verdict::Correct), "{:?}", variant.modes);
    // The cluster-scope release is necessary: narrowing it breaks the scenario.
    assert!(found.necessary.iter().any(|n| n.text.contains("mbarrier.arrive.release.cluster")));
}

#[test]
fn a_correct_scenarios_redundant_steps_can_really_go() {
    let src = seed("003-relay-warp-fully-fixed.fence");
    let found = improve(&src, Mode::Strict, &Limits::default(), &mut |_, _| true).expect("loads");
    assert!(!found.necessary.is_empty());
    for variant in &found.cheaper {
        assert!(variant.text.contains("expect correct"), "{}", variant.text);
    }
}
