//! `fencelab litmus` end to end on a tiny corpus written here, and `--print` round trips.

use std::path::{Path, PathBuf};
use std::process::Command;

const MP: &str = "PTX MP\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.acquire.gpu r1, y ;\n \
                  st.release.gpu y, 1 | ld.weak r2, x ;\nexists (P1:r1 == 1 /\\ P1:r2 == 0)";
const HANG: &str = "PTX hang\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n bar.cta.sync 1, 1, 3 | bar.cta.sync 1, 1, 3 ;\n \
                    ld.weak r0, x | ;\nexists (P0:r0 == 0)";
const MUL: &str = "PTX mul\n{ }\n P0@cta 0,gpu 0 ;\n mul r0, r0, 2 ;\nexists (P0:r0 == 0)";

fn corpus(name: &str, expected: &str, liveness: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("fencelab-litmus-cli-{name}-{}", std::process::id()));
    let sub = dir.join("t");
    std::fs::create_dir_all(&sub).unwrap();
    for (file, text) in [
        ("t/mp.litmus", MP),
        ("t/hang.litmus", HANG),
        ("mul.litmus", MUL),
    ] {
        std::fs::write(dir.join(file), text).unwrap();
    }
    std::fs::write(dir.join("expected.csv"), expected).unwrap();
    std::fs::write(dir.join("liveness.csv"), liveness).unwrap();
    dir
}

fn run(dir: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .arg("litmus")
        .arg(dir)
        .arg("--expected")
        .arg(dir.join("expected.csv"))
        .arg("--liveness")
        .arg(dir.join("liveness.csv"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn agreeing_corpus_exits_zero_with_the_summary_line() {
    // MP across CTAs at .gpu is synchronized: the stale read is unreachable. The quorum of 3
    // is never met by two threads: no terminating execution, and the run hangs.
    let dir = corpus(
        "agree",
        "t/mp.litmus,0\nt/hang.litmus,0\nmul.litmus,1\n",
        "t/hang.litmus,0\n",
    );
    let (code, stdout) = run(&dir);
    assert_eq!(code, 0, "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].starts_with("mul.litmus (condition): unsupported: line 4"),
        "{stdout}"
    );
    assert_eq!(lines[1], "3 agree, 0 disagree, 1 unsupported");
}

#[test]
fn disagreements_are_listed_and_exit_one() {
    let dir = corpus(
        "disagree",
        "t/mp.litmus,1\nt/hang.litmus,0\n",
        "t/hang.litmus,1\n",
    );
    let (code, stdout) = run(&dir);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("t/mp.litmus (condition): expected 1, ours 0"),
        "{stdout}"
    );
    assert!(
        stdout.contains("t/hang.litmus (liveness): expected 1, ours 0"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("1 agree, 2 disagree, 0 unsupported\n"),
        "{stdout}"
    );
}

#[test]
fn print_round_trips_through_the_fence_syntax() {
    let dir = corpus("print", "", "");
    for file in ["t/mp.litmus", "t/hang.litmus"] {
        let out = Command::new(env!("CARGO_BIN_EXE_fencelab"))
            .args(["litmus", "--print"])
            .arg(dir.join(file))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let printed = String::from_utf8_lossy(&out.stdout);
        let parsed = fencelab::syntax::parse(&printed);
        assert!(!parsed.has_errors(), "{printed}\n{:?}", parsed.diagnostics);
        let imported =
            fencelab::litmus::import(&std::fs::read_to_string(dir.join(file)).unwrap()).unwrap();
        assert_eq!(parsed.scenario, imported, "{printed}");
    }
}

#[test]
fn graph_writes_the_execution_of_a_condition_only_load_buffering_reaches() {
    const LB: &str = "PTX LB\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n ld.relaxed.gpu r0, x | ld.relaxed.gpu r1, y ;\n \
                      st.relaxed.gpu y, 1 | st.relaxed.gpu x, 1 ;\nexists (P0:r0 == 1 /\\ P1:r1 == 1)";
    let dir = corpus("graph", "t/mp.litmus,0\nt/lb.litmus,1\n", "");
    std::fs::write(dir.join("t/lb.litmus"), LB).unwrap();
    let graphs = dir.join("graphs");
    let out = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .arg("litmus")
        .arg(&dir)
        .arg("--expected")
        .arg(dir.join("expected.csv"))
        .arg("--graph")
        .arg(&graphs)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let svg = std::fs::read_to_string(graphs.join("t_lb.svg")).expect("LB's graph is written");
    assert_eq!(svg.matches(r#"class="rf""#).count(), 2, "{svg}");
    assert!(svg.contains("R x=1 rlx") && svg.contains("R y=1 rlx"), "{svg}");
    // MP's condition is unreachable: nothing to draw.
    assert!(!graphs.join("t_mp.svg").exists());
}

#[test]
fn a_hang_only_the_axioms_find_decides_liveness_and_has_a_graph() {
    // Dat3M's XF-Barrier-weak: liveness 0, P1 may read its own weak 1 for ever.
    const XF: &str = "PTX XF-Barrier-weak\n{ x=0; f=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 1,gpu 0 ;\n st.weak x, 1 | bar.cta.sync 1 | bar.cta.sync 1 ;\n LC00: | st.weak f, 1 | bar.cta.sync 2 ;\n ld.weak r2, f | LC10: | ;\n bne r2, 0, LC01 | ld.weak r2, f | ;\n goto LC00 | bne r2, 1, LC11 | ;\n LC01: | goto LC10 | ;\n bar.cta.sync 1 | LC11: | ;\n st.weak f, 0 | bar.cta.sync 2 | ;\n | ld.weak r1, x | ;\nexists (P1:r2 != 1 /\\ P1:r1 == 0)\n";
    let dir = corpus("xf", "t/xf.litmus,1\n", "t/xf.litmus,0\n");
    std::fs::write(dir.join("t/xf.litmus"), XF).unwrap();
    let graphs = dir.join("graphs");
    let out = Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .arg("litmus")
        .arg(&dir)
        .arg("--expected")
        .arg(dir.join("expected.csv"))
        .arg("--liveness")
        .arg(dir.join("liveness.csv"))
        .arg("--json")
        .arg("--graph")
        .arg(&graphs)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("2 agree, 0 disagree"), "{stdout}");
    assert!(stdout.contains("a hang no interleaving reaches: `P1` spins at `bra LC10` for ever"), "{stdout}");
    let svg = std::fs::read_to_string(graphs.join("t_xf-hang.svg")).expect("the hang's graph is written");
    assert!(svg.contains("for ever") && svg.contains("R f=1"), "{svg}");
}
