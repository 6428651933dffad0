//! How Dat3M's barriers are lowered: `bar.sync`, counted mbarriers, run-time ids.

use super::{imm, reg};
use crate::litmus::import;
use crate::model::{BarKind, CmpOp, Instr, MbarKind, Operand, Scenario, Scope, Sem};

fn barrier_test(rows: &str, inits: &str) -> Scenario {
    let src = format!(
        "PTX b\n{{ x=0; {inits} }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 | P3@cta 1,gpu 0 ;\n{rows}\nexists (x == 0)"
    );
    import(&src).unwrap()
}

fn bar_of(s: &Scenario, thread: usize) -> Vec<&Instr> {
    s.threads[thread]
        .program
        .iter()
        .filter(|i| matches!(i, Instr::Bar { .. } | Instr::Mbar(_) | Instr::Wait { .. }))
        .collect()
}

fn bar_sync(id: i64) -> Instr {
    Instr::Bar {
        kind: BarKind::Sync,
        id: imm(id),
        count: None,
        sugar: None,
    }
}

/// The mbarrier a thread's barrier was lowered to, its count, and whether the thread waits.
fn mbar_use(s: &Scenario, thread: usize) -> (String, Option<u32>, bool) {
    let ops = bar_of(s, thread);
    let Some(Instr::Mbar(arrive)) = ops.first() else {
        panic!("no mbarrier arrive in {:?}", ops)
    };
    assert_eq!(
        (arrive.sem, arrive.scope),
        (Some(Sem::Release), Some(Scope::Cta))
    );
    assert!(matches!(arrive.kind, MbarKind::Arrive { count: None, .. }));
    let waits = match ops.get(1) {
        Some(Instr::Wait { instr, until: None }) => {
            let Instr::Mbar(wait) = &**instr else {
                panic!("wait on {instr:?}")
            };
            assert_eq!(
                (wait.sem, wait.scope, &wait.bar),
                (Some(Sem::Acquire), Some(Scope::Cta), &arrive.bar)
            );
            assert!(matches!(
                wait.kind,
                MbarKind::Wait {
                    parity: true,
                    phase: Operand::Imm(0),
                    ..
                }
            ));
            true
        }
        None => false,
        other => panic!("unexpected {other:?}"),
    };
    let mbar = s
        .mbarriers
        .iter()
        .find(|m| m.name == arrive.bar)
        .expect("declared mbarrier");
    assert_eq!(mbar.cta, s.threads[thread].cta);
    (arrive.bar.clone(), mbar.count, waits)
}

#[test]
fn whole_cta_barriers_are_bar_sync() {
    let s = barrier_test(
        " bar.cta.sync 1 | bar.cta.sync 1 | bar.cta.sync 1 | bar.cta.sync 1 ;\n          bar.cta.sync 3, 2 | bar.cta.sync 3, 2 | bar.cta.sync 3, r1 | ;\n          bar.cta.sync 2 | bar.cta.sync 2 | bar.cta.sync 2 | ;\n          bar.cta.sync 4, 6, 3 | bar.cta.sync 4, 6, 3 | bar.cta.sync 4, 6, 3 | ;",
        "P2:r1=2;",
    );
    assert!(s.mbarriers.is_empty());
    // Resource ids name the barrier; a plain barrier whose id is taken gets a free one.
    assert_eq!(
        bar_of(&s, 2),
        vec![&bar_sync(1), &bar_sync(2), &bar_sync(0), &bar_sync(6)]
    );
    assert_eq!(bar_of(&s, 3), vec![&bar_sync(1)]);
}

#[test]
fn partial_barriers_count_the_threads_that_hold_them() {
    let s = barrier_test(" bar.cta.sync 1 | bar.cta.sync 1 | bar.cta.sync 2 | ;", "");
    let (b0, c0, w0) = mbar_use(&s, 0);
    assert_eq!(
        (mbar_use(&s, 1), c0, w0),
        ((b0.clone(), Some(2), true), Some(2), true)
    );
    // Alone with its instance id in CTA 0: passes alone, as in Dat3M.
    let (b2, c2, _) = mbar_use(&s, 2);
    assert_ne!(b2, b0);
    assert_eq!(c2, Some(1));
    // `arrive` releases without waiting.
    let arrive = barrier_test(
        " bar.cta.arrive 3 | bar.cta.sync 3 | bar.cta.sync 3 | ;",
        "",
    );
    assert!(!mbar_use(&arrive, 0).2);
    assert_eq!(mbar_use(&arrive, 1).1, Some(3));
}

#[test]
fn resource_ids_split_barriers_and_registers_fold() {
    let s = barrier_test(
        " bar.cta.sync 1, r2 | bar.cta.sync 1, 2 | bar.cta.sync 1, r3 | ;",
        "P0:r2=2; P2:r3=4;",
    );
    let (b0, c0, _) = mbar_use(&s, 0);
    assert_eq!(mbar_use(&s, 1), (b0.clone(), c0, true));
    assert_eq!(c0, Some(2));
    let (b2, c2, _) = mbar_use(&s, 2);
    assert_ne!(b2, b0);
    assert_eq!(c2, Some(1));
}

#[test]
fn quorums_set_the_expected_count() {
    let s = barrier_test(
        " bar.cta.sync 1, 1, 2 | bar.cta.sync 1, 1, 2 | bar.cta.arrive 1, 1, 2 | ;",
        "",
    );
    let (name, count, waits) = mbar_use(&s, 0);
    assert_eq!((count, waits), (Some(2), true));
    assert_eq!(mbar_use(&s, 2), (name, Some(2), false));
    // A quorum above the participants never completes, as in Dat3M.
    let hang = barrier_test(
        " bar.cta.sync 1, 1, 4 | bar.cta.sync 1, 1, 4 | bar.cta.sync 1, 1, 4 | ;",
        "",
    );
    assert_eq!(mbar_use(&hang, 0).1, Some(4));
}

#[test]
fn run_time_resource_ids_arrive_everywhere_and_sync_on_their_own() {
    let s = barrier_test(
        " ld.weak r2, x | bar.cta.sync 1, 1 | bar.cta.sync 1, 2 | ;\n bar.cta.sync 1, r2 | | | ;",
        "",
    );
    let counts: Vec<(String, Option<u32>)> = s
        .mbarriers
        .iter()
        .map(|m| (m.name.clone(), m.count))
        .collect();
    assert_eq!(
        counts,
        vec![
            ("bar1_1_cta0".into(), Some(2)),
            ("bar1_2_cta0".into(), Some(2))
        ]
    );
    assert_eq!(mbar_use(&s, 1).0, "bar1_1_cta0");
    assert_eq!(mbar_use(&s, 2).0, "bar1_2_cta0");
    let p0 = &s.threads[0].program;
    let arrivals = |sem: Sem| -> Vec<&str> {
        p0.iter()
            .filter_map(|i| match i {
                Instr::Mbar(op)
                    if op.sem == Some(sem) && matches!(op.kind, MbarKind::Arrive { .. }) =>
                {
                    Some(op.bar.as_str())
                }
                _ => None,
            })
            .collect()
    };
    assert_eq!(arrivals(Sem::Relaxed), vec!["bar1_1_cta0", "bar1_2_cta0"]);
    assert_eq!(arrivals(Sem::Release), vec!["bar1_1_cta0", "bar1_2_cta0"]);
    // Each relaxed arrival is skipped when the register names that barrier; each
    // synchronizing one is skipped when it does not.
    assert_eq!(
        p0[1],
        Instr::Branch {
            target: "B1_r2_is_1".into(),
            cond: Some((reg("r2"), CmpOp::Eq, imm(1)))
        }
    );
    assert!(p0.contains(&Instr::Branch {
        target: "B1_r2_not_2".into(),
        cond: Some((reg("r2"), CmpOp::Ne, imm(2)))
    }));
    assert_eq!(p0.last(), Some(&Instr::Label("B1_r2_done".into())));
    assert_eq!(
        p0.iter()
            .filter(|i| matches!(i, Instr::Wait { .. }))
            .count(),
        2
    );
}

#[test]
fn inexpressible_barriers_are_unsupported() {
    let cases = [
        (
            " LC00: | | | ;\n ld.weak r2, x | bar.cta.sync 1, 1 | | ;\n bar.cta.sync 1, r2 | | | ;",
            "after a branch",
        ),
        (
            " ld.weak r2, x | ld.weak r3, x | | ;\n bar.cta.sync 1, r2 | bar.cta.sync 1, r3 | | ;",
            "two threads",
        ),
        (
            " ld.weak r2, x | | | ;\n bar.cta.sync 1, r2, 2 | | | ;",
            "quorum",
        ),
        (
            " ld.weak r2, x | | | ;\n bar.cta.sync 1, 1, r2 | | | ;",
            "quorum computed at run time",
        ),
        (
            " LC00: | | | ;\n bar.cta.sync 1 | | | ;\n goto LC00 | | | ;",
            "loop",
        ),
        (" bar.cta.sync 1 | | | ;\n bar.cta.sync 1 | | | ;", "twice"),
        (
            " bar.cta.sync 1, 1, 2 | bar.cta.sync 1, 1, 3 | | ;",
            "quorums",
        ),
    ];
    for (rows, reason) in cases {
        let src = format!(
            "PTX b\n{{ x=0; }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 | P3@cta 1,gpu 0 ;\n{rows}\nexists (x == 0)"
        );
        let err = import(&src).unwrap_err();
        assert!(err.is_unsupported(), "{rows}: {err}");
        assert!(err.to_string().contains(reason), "{rows}: {err}");
    }
}

#[test]
fn a_barrier_a_thread_may_jump_over_is_counted() {
    let s = barrier_test(
        " ld.weak r0, x | bar.cta.sync 1 | bar.cta.sync 1 | ;\n beq r0, 0, LC00 | | | ;\n \
         bar.cta.sync 1 | | | ;\n LC00: | | | ;",
        "",
    );
    // Exiting past a PTX `bar.sync` would release it; Dat3M's barrier waits forever.
    assert_eq!(mbar_use(&s, 0), ("bar1_cta0".to_string(), Some(3), true));
    assert_eq!(mbar_use(&s, 1).1, Some(3));
}
