//! The comparison logic against hand-made reports (the checker is not needed here).

use super::*;
use crate::check::{ConditionResult, Finding, FindingKind, Mode, Stats};
use crate::schedule::Step;

fn scenario() -> Scenario {
    crate::litmus::import(
        "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.weak x, 1 | ld.weak r0, x ;\nexists (P1:r0 == 0)",
    )
    .unwrap()
}

fn report(holds: bool, hangs: bool, complete: bool) -> Report {
    let witness = Schedule {
        steps: vec![
            Step {
                agent: 1,
                choice: 0,
            },
            Step {
                agent: 0,
                choice: 2,
            },
        ],
    };
    Report {
        mode: Mode::Strict,
        verdict: if complete {
            Verdict::Race
        } else {
            Verdict::Partial
        },
        findings: vec![Finding {
            kind: FindingKind::Deadlock,
            reason: None,
            message: "`P1` waits forever".into(),
            explanation: String::new(),
            accesses: Vec::new(),
            blocked: Vec::new(),
            missing_edge: Vec::new(),
            witness: witness.clone(),
        }],
        outcomes: Vec::new(),
        conditions: vec![ConditionResult {
            index: 0,
            holds,
            witness: Some(witness),
        }],
        expectations: Vec::new(),
        hangs,
        mode_note: None,
        stats: Stats {
            states: 12,
            transitions: 20,
            complete,
            memory_cap: false,
        },
    }
}

#[test]
fn condition_bits_agree_or_disagree_with_a_witness() {
    let s = scenario();
    let agree = judge(
        "a.litmus",
        Property::Condition,
        true,
        &s,
        &report(true, false, true),
    );
    assert_eq!((agree.status, agree.ours), (Status::Agree, Some(true)));
    let disagree = judge(
        "a.litmus",
        Property::Condition,
        false,
        &s,
        &report(true, false, true),
    );
    assert_eq!(disagree.status, Status::Disagree);
    assert_eq!(
        disagree.to_string(),
        "a.litmus (condition): expected 0, ours 1: witness P1 P0#2"
    );
}

#[test]
fn liveness_is_the_negation_of_hangs() {
    let s = scenario();
    let terminates = judge(
        "b",
        Property::Liveness,
        true,
        &s,
        &report(true, false, true),
    );
    assert_eq!(terminates.status, Status::Agree);
    let hangs = judge("b", Property::Liveness, true, &s, &report(true, true, true));
    assert_eq!((hangs.status, hangs.ours), (Status::Disagree, Some(false)));
    assert!(hangs.detail.contains("waits forever"), "{}", hangs.detail);
}

#[test]
fn partial_exploration_proves_nothing() {
    let j = judge(
        "c",
        Property::Condition,
        true,
        &scenario(),
        &report(true, false, false),
    );
    assert_eq!((j.status, j.ours), (Status::Disagree, None));
    assert!(j.detail.contains("12 states"));
}

#[test]
fn summary_line_and_csv() {
    let s = scenario();
    let judgements = vec![
        judge(
            "a",
            Property::Condition,
            true,
            &s,
            &report(true, false, true),
        ),
        judge(
            "b",
            Property::Condition,
            false,
            &s,
            &report(true, false, true),
        ),
        unsupported("c", Property::Condition, true, "mul"),
    ];
    assert_eq!(
        Summary::of(&judgements).to_string(),
        "1 agree, 1 disagree, 1 unsupported"
    );
    let csv = "Manual/a.litmus,1\n\nb/c.litmus,0\n";
    assert_eq!(
        parse_expected(csv).unwrap(),
        vec![
            Expected {
                path: "Manual/a.litmus".into(),
                bit: true
            },
            Expected {
                path: "b/c.litmus".into(),
                bit: false
            }
        ]
    );
    assert_eq!(
        parse_expected("a,2").unwrap_err(),
        "line 1: expected `path,0` or `path,1`, found `a,2`"
    );
}

#[test]
fn deviation_table_rows() {
    let md = "# x\n| test | property | reason |\n|---|---|---|\n| `A/b.litmus` | liveness | why |\n| C.litmus | import | no |\n| D | other | skip |\n";
    assert_eq!(
        parse_deviations(md),
        vec![
            ("A/b.litmus".to_string(), Some(Property::Liveness)),
            ("C.litmus".to_string(), None)
        ]
    );
}

#[test]
fn import_failures_are_unsupported_for_every_property() {
    let wanted = [(Property::Condition, true), (Property::Liveness, true)];
    let judged = judge_source(
        "m",
        "PTX m\n{ }\n P0@cta 0,gpu 0 ;\n mul r0, r0, 2 ;\nexists (0 == 0)",
        &wanted,
        &Options::default(),
    );
    assert_eq!(judged.len(), 2);
    assert!(judged
        .iter()
        .all(|j| j.status == Status::Unsupported && j.detail.contains("mul")));
}

#[test]
fn a_weak_spin_hang_only_the_axioms_find_makes_liveness_zero() {
    let xf = "PTX XF-Barrier-weak\n{ x=0; f=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 1,gpu 0 ;\n st.weak x, 1 | bar.cta.sync 1 | bar.cta.sync 1 ;\n LC00: | st.weak f, 1 | bar.cta.sync 2 ;\n ld.weak r2, f | LC10: | ;\n bne r2, 0, LC01 | ld.weak r2, f | ;\n goto LC00 | bne r2, 1, LC11 | ;\n LC01: | goto LC10 | ;\n bar.cta.sync 1 | LC11: | ;\n st.weak f, 0 | bar.cta.sync 2 | ;\n | ld.weak r1, x | ;\nexists (P1:r2 != 1 /\\ P1:r1 == 0)\n";
    let options = Options { mode: Mode::Strict, ..Options::default() };
    let [judged] = judge_source("xf", xf, &[(Property::Liveness, false)], &options).try_into().expect("one judgement");
    assert_eq!((judged.status, judged.ours), (Status::Agree, Some(false)), "{judged}");
    assert!(judged.detail.starts_with(AXIOMS_HANG), "{judged}");
    // Relaxed accesses of the flag (Dat3M's XF-Barrier-rlx): every fair execution ends.
    let rlx = xf.replace("ld.weak r2, f", "ld.relaxed.gpu r2, f").replace("st.weak f,", "st.relaxed.gpu f,");
    let [judged] = judge_source("rlx", &rlx, &[(Property::Liveness, true)], &options).try_into().expect("one judgement");
    assert_eq!((judged.status, judged.ours), (Status::Agree, Some(true)), "{judged}");
}
