use super::*;
use crate::litmus::import;

fn bit(src: &str) -> bool {
    let scenario = import(src).expect("test imports");
    let allowed = allowed(&scenario, &Limits::default()).expect("in the fragment");
    allowed.holds(&scenario, &scenario.conditions[0])
}

#[test]
fn load_buffering_without_dependencies_is_allowed() {
    let lb = "PTX LB\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n ld.relaxed.gpu r0, x | ld.relaxed.gpu r1, y ;\n st.relaxed.gpu y, 1 | st.relaxed.gpu x, 1 ;\nexists (P0:r0 == 1 /\\ P1:r1 == 1)\n";
    assert!(bit(lb));
}

#[test]
fn load_buffering_through_data_dependencies_is_thin_air() {
    let lb = "PTX LB+data\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n ld.relaxed.gpu r0, x | ld.relaxed.gpu r1, y ;\n st.relaxed.gpu y, r0 | st.relaxed.gpu x, r1 ;\nexists (P0:r0 == 1 /\\ P1:r1 == 1)\n";
    assert!(!bit(lb));
}

#[test]
fn message_passing_needs_release_and_acquire() {
    let synced = "PTX MP\n{ x=0; f=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.acquire.gpu r0, f ;\n st.release.gpu f, 1 | ld.weak r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";
    assert!(!bit(synced));
    let relaxed = synced.replace("st.release.gpu", "st.relaxed.gpu");
    assert!(bit(&relaxed));
    let narrow = synced.replace("ld.acquire.gpu", "ld.acquire.cta");
    assert!(bit(&narrow), "a .cta acquire in another CTA does not synchronize");
}

#[test]
fn store_buffering_needs_fence_sc() {
    let sb = "PTX SB\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ;\n fence.sc.gpu | fence.sc.gpu ;\n ld.relaxed.gpu r0, y | ld.relaxed.gpu r1, x ;\nexists (P0:r0 == 0 /\\ P1:r1 == 0)\n";
    assert!(!bit(sb));
    assert!(bit(&sb.replace("fence.sc.gpu", "fence.acq_rel.gpu")));
}

#[test]
fn strong_reads_of_one_location_do_not_go_back() {
    let corr = "PTX CoRR\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x ;\n | ld.relaxed.gpu r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";
    assert!(!bit(corr));
}

#[test]
fn racing_weak_writes_stay_unordered() {
    // Two weak writes are not morally strong, so coherence need not order them and the
    // final value may be either; a final `x == 1` and `x == 2` are both allowed.
    let src = "PTX W+W\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.weak x, 1 | st.weak x, 2 ;\nexists (x == 1)\n";
    assert!(bit(src));
    assert!(bit(&src.replace("x == 1", "x == 2")));
}

#[test]
fn outside_the_fragment_names_the_instruction() {
    let scenario = import("PTX T\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n").expect("imports");
    let mut scenario = scenario;
    scenario.threads[0].program.push(crate::model::Instr::CpAsyncCommit);
    let err = allowed(&scenario, &Limits::default()).expect_err("outside");
    assert!(err.is_outside());
    assert!(err.to_string().contains("cp.async"), "{err}");
}

/// Dat3M's `Manual/XF-Barrier-weak` (liveness 0): P0's weak store of 0 may be
/// coherence-before P1's weak store of 1 (its weak read of 1 orders nothing), so P1 can
/// read its own 1 for ever, and P2 waits at barrier 2 for it.
const XF_BARRIER_WEAK: &str = "PTX XF-Barrier-weak\n{ x=0; f=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 1,gpu 0 ;\n st.weak x, 1 | bar.cta.sync 1 | bar.cta.sync 1 ;\n LC00: | st.weak f, 1 | bar.cta.sync 2 ;\n ld.weak r2, f | LC10: | ;\n bne r2, 0, LC01 | ld.weak r2, f | ;\n goto LC00 | bne r2, 1, LC11 | ;\n LC01: | goto LC10 | ;\n bar.cta.sync 1 | LC11: | ;\n st.weak f, 0 | bar.cta.sync 2 | ;\n | ld.weak r1, x | ;\nexists (P1:r2 != 1 /\\ P1:r1 == 0)\n";

fn hang_of(src: &str) -> Option<Hang> {
    let scenario = import(src).expect("test imports");
    hang(&scenario, &Limits { mode: crate::model::Mode::Strict, ..Limits::default() }).expect("in the fragment")
}

#[test]
fn a_weak_spin_may_never_see_the_other_threads_weak_store() {
    let found = hang_of(XF_BARRIER_WEAK).expect("Dat3M: liveness 0");
    let [p0, p1, p2] = found.threads.as_slice() else { panic!("three threads: {:?}", found.threads) };
    assert_eq!(p0, &Stay::Finished);
    let Stay::Spins { instr, reads } = p1 else { panic!("P1 spins: {p1:?}") };
    assert_eq!(*instr, 5, "P1's `bra LC10`");
    assert_eq!(p2, &Stay::Waits { instr: 1 }, "P2 waits at barrier 2");
    // P1's last read reads its own store of 1, which coherence leaves after P0's store of 0.
    let execution = &found.execution;
    let [read] = reads.as_slice() else { panic!("one read a round: {reads:?}") };
    let (source, _) = *execution.rf.iter().find(|(_, r)| r == read).expect("the read reads from a write");
    assert_eq!((execution.events[source].thread, execution.events[source].value), (Some(1), 1));
    assert!(execution.co.iter().all(|(w, _)| *w != source), "P1's store is coherence-last: {:?}", execution.co);
}

#[test]
fn a_strong_flag_spin_ends() {
    // Relaxed (Dat3M's XF-Barrier-rlx) or release/acquire: the stores of f are morally
    // strong, P0's read of 1 puts its store of 0 coherence-after P1's 1, and P1 sees it.
    let relaxed = XF_BARRIER_WEAK.replace("ld.weak r2, f", "ld.relaxed.gpu r2, f").replace("st.weak f,", "st.relaxed.gpu f,");
    assert!(hang_of(&relaxed).is_none());
    let synced = XF_BARRIER_WEAK.replace("ld.weak r2, f", "ld.acquire.gpu r2, f").replace("st.weak f,", "st.release.gpu f,");
    assert!(hang_of(&synced).is_none());
}

#[test]
fn a_spin_on_a_flag_nobody_writes_hangs_and_one_somebody_writes_ends() {
    let never = "PTX spin\n{ f=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n LC00: | ld.relaxed.gpu r1, f ;\n ld.relaxed.gpu r0, f | ;\n beq r0, 0, LC00 | ;\nexists (P0:r0 == 1)\n";
    let found = hang_of(never).expect("nothing ever writes f");
    assert!(matches!(found.threads[0], Stay::Spins { .. }) && found.threads[1] == Stay::Finished, "{:?}", found.threads);
    let written = never.replace("| ld.relaxed.gpu r1, f", "| st.relaxed.gpu f, 1");
    assert!(hang_of(&written).is_none(), "under fair memory P0 eventually reads the 1");
    // The same with a weak store: the spin reads the initial value, never coherence-last
    // while another write exists.
    let weak = never.replace("| ld.relaxed.gpu r1, f", "| st.weak f, 1");
    assert!(hang_of(&weak).is_none());
}

#[test]
fn a_thread_blocked_at_a_barrier_the_spinner_never_reaches_is_part_of_the_hang() {
    // Without P1's spin, P2's barrier completes and there is no hang at all.
    let no_spin = "PTX B\n{ f=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n bar.cta.sync 1 | bar.cta.sync 1 ;\n st.relaxed.gpu f, 1 | ld.relaxed.gpu r0, f ;\nexists (P1:r0 == 1)\n";
    assert!(hang_of(no_spin).is_none());
    let spin = "PTX B\n{ f=0; g=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n LC00: | bar.cta.sync 1 ;\n ld.relaxed.gpu r0, g | ;\n beq r0, 0, LC00 | ;\n bar.cta.sync 1 | ;\nexists (P1:r0 == 1)\n";
    let found = hang_of(spin).expect("P0 spins on g, nobody writes it");
    assert_eq!(found.threads[1], Stay::Waits { instr: 0 });
}

fn hang_of_fence(src: &str) -> Option<Hang> {
    let loaded = crate::load(src);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    hang(&loaded.scenario, &Limits::default()).expect("in the fragment")
}

#[test]
fn a_wait_that_reads_its_own_unordered_weak_write_for_ever_hangs() {
    // `a` raises the flag weakly and waits for `b` to lower it, `b` lowers it weakly after
    // reading 1: the two weak stores need not be ordered, so `a` may read its own 1 for ever.
    let src = "cta A\ncta B\nglobal f = 0\nthread a @A:\n    st.global [f], 1\n    wait ld.global r0, [f] == 0\nthread b @B:\n    wait ld.global r1, [f] == 1\n    st.global [f], 0\n";
    let found = hang_of_fence(src).expect("coherence may leave a's store last");
    assert!(matches!(found.threads[0], Stay::Spins { instr: 1, .. }) && found.threads[1] == Stay::Finished, "{:?}", found.threads);
    // Relaxed stores and loads are morally strong: b's store comes after the 1 it read.
    let strong = src.replace("st.global", "st.relaxed.gpu.global").replace("ld.global", "ld.relaxed.gpu.global");
    assert!(hang_of_fence(&strong).is_none());
}

#[test]
fn a_program_without_a_spin_has_no_hang_to_search() {
    let src = "cta A\nglobal f = 0\nthread a @A:\n    st.global [f], 1\nthread b @A:\n    ld.global r0, [f]\n";
    assert!(hang_of_fence(src).is_none());
}
