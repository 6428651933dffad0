use super::*;
use crate::load;

fn priced(program: &str) -> Cost {
    let src = format!(
        "cluster C\ncta P in C\ncta Q in C\nshared data @P = 0\nglobal g = 0\nmbarrier bar @Q count 1\n\nthread t @P:\n{program}\nexpect correct\n"
    );
    let loaded = load(&src);
    assert!(!loaded.has_errors(), "{program}: {:?}", loaded.diagnostics);
    cost(&loaded.scenario)
}

fn ops(program: &str) -> Vec<String> {
    priced(program).threads[0].instrs.iter().flat_map(|i| i.sass.clone()).collect()
}

#[test]
fn rows_of_the_sm90a_table() {
    let gpu_release = ["MEMBAR.ALL.GPU", "ERRBAR", "CGAERRBAR"];
    assert_eq!(ops("    fence.acq_rel.cta"), ["MEMBAR.ALL.CTA"]);
    assert_eq!(ops("    fence.acq_rel.cluster"), ["MEMBAR.ALL.GPU", "ERRBAR", "CGAERRBAR", "CCTL.IVALL"]);
    assert_eq!(ops("    fence.sc.gpu"), ["MEMBAR.SC.GPU", "ERRBAR", "CGAERRBAR", "CCTL.IVALL"]);
    assert_eq!(ops("    fence.release.gpu"), gpu_release);
    assert!(ops("    fence.acquire.cta").is_empty());
    assert_eq!(ops("    fence.acquire.gpu"), ["CCTL.IVALL"]);
    assert_eq!(ops("    fence.release.sync_restrict::shared::cta.cluster"), ["MEMBAR.ALL.CTA", "FENCE.VIEW.ASYNC.S"]);
    assert!(ops("    fence.acquire.sync_restrict::shared::cluster.cluster").is_empty());
    assert_eq!(ops("    fence.proxy.async"), ["MEMBAR.ALL.GPU", "FENCE.VIEW.ASYNC.S"]);
    assert_eq!(ops("    fence.proxy.async.global"), ["FENCE.VIEW.ASYNC.G"]);
    assert_eq!(ops("    st.release.gpu.global [g], 1"), gpu_release);
    assert_eq!(ops("    ld.acquire.gpu.global r0, [g]"), ["CCTL.IVALL"]);
    assert_eq!(ops("    __syncthreads()"), ["BAR.SYNC.DEFER_BLOCKING"]);
    assert_eq!(ops("    mbarrier.arrive.shared::cluster [bar]"), ["SYNCS.ARRIVE.TRANS64.RED.A1T0"]);
    assert_eq!(
        ops("    mbarrier.arrive.release.cluster.shared::cluster [bar]"),
        ["MEMBAR.ALL.CTA", "MEMBAR.ALL.GPU", "ERRBAR", "CGAERRBAR", "SYNCS.ARRIVE.TRANS64.RED.A1T0"]
    );
    assert_eq!(ops("    barrier.cluster.arrive.relaxed\n    barrier.cluster.wait"), ["UCGABAR_ARV", "UCGABAR_WAIT", "CCTL.IVALL"]);
}

#[test]
fn seed_003s_restricted_fence_avoids_the_gpu_membar() {
    let release_cluster = priced("    mbarrier.arrive.release.cluster.shared::cluster [bar]");
    let restricted = priced("    fence.release.sync_restrict::shared::cta.cluster\n    mbarrier.arrive.relaxed.cluster.shared::cluster [bar]");
    assert!(restricted.total < release_cluster.total, "{restricted:?} vs {release_cluster:?}");
    assert!(restricted.sass.iter().all(|s| s.op != "MEMBAR.ALL.GPU"));
    assert_eq!(
        difference(&release_cluster, &restricted),
        ["-1 MEMBAR.ALL.GPU", "-1 ERRBAR", "-1 CGAERRBAR", "+1 FENCE.VIEW.ASYNC.S"]
    );
}

#[test]
fn totals_add_up_per_thread_and_per_op() {
    let c = priced("    fence.sc.gpu\n    fence.acq_rel.cta\n    fence.acq_rel.cta\n    st.relaxed.gpu.global [g], 1");
    assert_eq!(c.total, c.threads.iter().map(|t| t.cost).sum::<u32>());
    assert_eq!(c.total, c.sass.iter().map(|s| s.cost).sum::<u32>());
    let cta = c.sass.iter().find(|s| s.op == "MEMBAR.ALL.CTA").map(|s| s.count);
    assert_eq!(cta, Some(2));
    // A relaxed store adds no synchronization.
    assert_eq!(c.threads[0].instrs.len(), 3);
}

#[test]
fn an_instruction_is_looked_up_by_its_thread_and_index() {
    let priced = priced("    st.shared [data], 1\n    fence.acq_rel.cta\n    st.release.gpu.global [g], 1");
    assert_eq!(priced.instr(0, 0), None, "a plain store emits no synchronization");
    let fence = priced.instr(0, 1).expect("the fence is priced");
    assert_eq!((fence.sass.as_slice(), fence.cost), (["MEMBAR.ALL.CTA".to_string()].as_slice(), Sass::MembarAllCta.weight()));
    assert_eq!(priced.instr(0, 2).map(|c| c.instr), Some(2));
    assert_eq!(priced.instr(1, 0), None, "no second thread");
}
