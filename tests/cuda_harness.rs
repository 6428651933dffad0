//! The CUDA harness generator (`fencelab cuda`) and observations (`fencelab observed`):
//! golden outputs, refusals that name the instruction, a compile check where `nvcc`
//! exists, and the comparison that flags outcomes the model forbids.

use std::path::{Path, PathBuf};
use std::process::Command;

use fencelab::check::{check, Options};
use fencelab::cuda::{compare, generate, HarnessOptions, Observation, ObservedOutcome};

#[path = "support/fence_files.rs"]
mod fence_files;

/// Scenarios whose generated harness is frozen in `tests/cuda/NAME.cu`; together they use
/// every family the generator maps (ld/st/fences, mbarriers, clusters and DSMEM, bar.sync,
/// cp.async, bulk copies, multicast, st.async, wgmma).
const GOLDEN: &[(&str, &str)] = &[
    ("mp_relaxed_no_fence", "tests/scenarios/checker/mp_relaxed_no_fence.fence"),
    ("push_default_arrive_seed003", "tests/scenarios/hardware/push_default_arrive_seed003.fence"),
    ("bar_named_producer_consumer", "tests/scenarios/checker/bar_named_producer_consumer.fence"),
    ("cp_async_arrive", "tests/scenarios/async/bug24_fixed_arrive.fence"),
    ("tma_load", "tests/scenarios/templates/tma-load.fence"),
    ("multicast", "tests/scenarios/async/bug27_multicast_fixed.fence"),
    ("st_async_push", "tests/scenarios/async/st_async_push.fence"),
    ("wgmma", "tests/scenarios/async/bug09_fixed.fence"),
];

fn scenario(path: &str) -> fencelab::model::Scenario {
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let loaded = fencelab::load(&src);
    assert!(!loaded.has_errors(), "{path} has errors");
    loaded.scenario
}

/// `FENCELAB_BLESS=1 cargo test --test cuda_harness` rewrites the goldens.
#[test]
fn generated_harnesses_match_their_goldens() {
    let bless = std::env::var_os("FENCELAB_BLESS").is_some();
    let mut stale = Vec::new();
    for (name, path) in GOLDEN {
        let code = generate(&scenario(path), &HarnessOptions::default()).unwrap_or_else(|e| panic!("{path}: {e}"));
        let golden = Path::new("tests/cuda").join(format!("{name}.cu"));
        if bless {
            std::fs::write(&golden, &code).unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
        } else if std::fs::read_to_string(&golden).ok().as_deref() != Some(code.as_str()) {
            stale.push(golden.display().to_string());
        }
    }
    assert!(stale.is_empty(), "generated code differs from {stale:?}; rerun with FENCELAB_BLESS=1 and review the diff");
}

#[test]
fn the_harness_maps_instructions_as_written() {
    let code = generate(&scenario("tests/scenarios/hardware/push_default_arrive_seed003.fence"), &HarnessOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    // The peer's shared memory through mapa, the default-scope remote arrive, a cluster of two.
    assert!(code.contains("st.shared::cluster.s32 [%0], %1;"), "{code}");
    assert!(code.contains("mbarrier.arrive.shared::cluster.b64 _, [%0];"));
    assert!(code.contains("mbarrier.try_wait.parity.acquire.cta.shared::cta.b64"));
    assert!(code.contains("__cluster_dims__(CLUSTER_SIZE, 1, 1)") && code.contains("constexpr unsigned CLUSTER_SIZE = 2;"));
    // Bounded spins and a watchdog: a wrong harness cannot hang the GPU.
    assert!(code.contains("while (++spins_ < SPIN_LIMIT)") && code.contains("WATCHDOG_SECONDS"));
    let mp = generate(&scenario("tests/scenarios/checker/mp_relaxed_no_fence.fence"), &HarnessOptions { trials: 5000, instances: 64 })
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(mp.contains("primed += prime(gm + "), "the consumer's data line is primed into L1");
    assert!(mp.contains("st.relaxed.gpu.global.s32") && mp.contains("ld.global.s32"));
    assert!(mp.contains("TRIALS = 5000;") && mp.contains("INSTANCES = 64;"));
}

#[test]
fn tcgen05_is_refused_naming_blackwell_and_the_line() {
    let src = "cta A\nshared a @A = 1 size 64\nshared b @A = 1 size 64\nshared d @A = 0 size 64\ntmem acc @A = 0\n\
               thread t @A:\n    tcgen05.mma.cta_group::1 [acc], [a], [b]\n";
    let loaded = fencelab::load(src);
    let err = generate(&loaded.scenario, &HarnessOptions::default()).expect_err("tcgen05 must be refused");
    assert!(err.to_string().contains("Blackwell"), "{err}");
    let dir = std::env::temp_dir().join(format!("fencelab-cuda-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_default();
    let file = dir.join("tc.fence");
    std::fs::write(&file, "cta A\ntmem acc @A = 0\nshared b @A = 1 size 64\n\nthread t @A:\n    ld.shared r0, [b]\n    tcgen05.wait::st.sync.aligned\n")
        .unwrap_or_default();
    let out = Command::new(env!("CARGO_BIN_EXE_fencelab")).arg("cuda").arg(&file).output().unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("`acc` lives in tensor memory") && stderr.contains("Blackwell"), "{stderr}");
    assert!(stderr.contains("tc.fence:7:5") && stderr.contains("tcgen05 needs Blackwell"), "names the line: {stderr}");
}

#[test]
fn a_scenario_that_can_hang_on_bar_sync_is_refused() {
    let src = "cta A\nthread t0 @A:\n    bar.sync 1, 64\nthread t1 @A:\n    mov r0, 1\n";
    let err = generate(&fencelab::load(src).scenario, &HarnessOptions::default()).expect_err("would hang");
    assert!(err.to_string().contains("hang"), "{err}");
}

#[test]
fn most_repository_scenarios_generate_and_the_rest_say_why() {
    let mut files: Vec<PathBuf> = Vec::new();
    fence_files::fence_files(Path::new("tests/scenarios"), &mut files);
    let (mut generated, mut refused) = (0, 0);
    for path in &files {
        let loaded = fencelab::load(&std::fs::read_to_string(path).unwrap_or_default());
        match generate(&loaded.scenario, &HarnessOptions::default()) {
            Ok(code) => {
                assert!(code.contains("int main("), "{}", path.display());
                generated += 1;
            }
            Err(e) => {
                assert!(!e.problems.is_empty() && e.problems.iter().all(|p| !p.message.is_empty()), "{}", path.display());
                refused += 1;
            }
        }
    }
    assert!(generated >= 40, "only {generated} of {} scenarios generate ({refused} refused)", files.len());
}

/// Compiles the goldens for sm_90a where `nvcc` is installed; CI has no CUDA and skips.
#[test]
fn goldens_compile_with_nvcc_when_present() {
    let Ok(version) = Command::new("nvcc").arg("--version").output() else {
        println!("skipped: nvcc is not installed here; the goldens are compiled on the GPU machine (docs/hardware.md)");
        return;
    };
    assert!(version.status.success());
    let dir = std::env::temp_dir().join(format!("fencelab-nvcc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_default();
    for (name, _) in GOLDEN {
        let out = Command::new("nvcc")
            .args(["-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-c", "-o"])
            .arg(dir.join(format!("{name}.o")))
            .arg(Path::new("tests/cuda").join(format!("{name}.cu")))
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

fn observation(outcomes: Vec<(i64, u64)>) -> Observation {
    let trials = outcomes.iter().map(|(_, n)| n).sum();
    Observation {
        gpu: "NVIDIA H200".into(),
        cc: "9.0".into(),
        driver: "580.159.04".into(),
        cuda: "13.0".into(),
        date: None,
        command: None,
        scenario: None,
        trials,
        timeouts: 0,
        opaque: Vec::new(),
        outcomes: outcomes
            .into_iter()
            .map(|(r1, count)| ObservedOutcome {
                regs: [("consumer:r1".to_string(), r1)].into_iter().collect(),
                mem: Default::default(),
                timeout: false,
                count,
            })
            .collect(),
    }
}

#[test]
fn an_outcome_outside_the_model_is_counted_as_forbidden() {
    let correct = scenario("tests/scenarios/hardware/mp_release_gpu_fence_acquire_gpu.fence");
    let report = check(&correct, &Options::default());
    let cmp = compare(&correct, &report, &observation(vec![(42, 990), (0, 10)]));
    assert_eq!(cmp.forbidden_but_observed, 10, "{cmp:?}");
    assert!(cmp.rows.iter().any(|r| r.model.is_none() && r.observed == 10 && r.flagged));
    let racy = scenario("tests/scenarios/hardware/mp_release_gpu_fence_acquire_cta.fence");
    let cmp = compare(&racy, &check(&racy, &Options::default()), &observation(vec![(42, 990), (0, 10)]));
    assert_eq!(cmp.forbidden_but_observed, 0, "the race allows the stale read: {cmp:?}");
    assert!(cmp.rows.iter().any(|r| r.flagged && r.observed == 10 && r.model.is_some()));
}

#[test]
fn observation_files_must_add_up() {
    let mut obs = observation(vec![(42, 5)]);
    obs.trials = 6;
    let text = serde_json::to_string(&obs).unwrap_or_default();
    assert!(Observation::from_json(&text).is_err());
    assert!(Observation::from_json("{\"gpu\": 1}").is_err());
}

#[test]
fn check_json_reports_the_sidecar_observation() {
    let out = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args(["check", "--json", "tests/scenarios/hardware/push_default_arrive_seed003.fence"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    let observed = &json["observed"];
    assert_eq!(observed["gpu"], "NVIDIA H200");
    assert_eq!(observed["forbidden_but_observed"], 0);
    let stale = observed["outcomes"].as_array().into_iter().flatten().find(|o| o["values"]["consumer:r0"] == 0);
    assert!(stale.is_some_and(|o| o["observed"].as_u64().is_some_and(|n| n > 0) && o["flagged"] == true), "{observed}");
}
