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
