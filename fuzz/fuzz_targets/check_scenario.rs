//! Fuzzes the checker on well-formed scenarios. The fuzz bytes choose a small machine
//! (clusters, CTAs, memory, mbarriers) and short programs drawn from a table of
//! instruction forms covering every family; the text goes through `load`, and only
//! scenarios the verifier accepts are checked, under a small state cap. Every witness
//! the checker reports must replay in the stepper, and a `correct` verdict must come from
//! a complete exploration.

#![no_main]

use fencelab::check::{check, Mode, Options, Stepper, Verdict};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

/// Small enough that one input runs in well under a millisecond.
const MAX_STATES: u64 = 300;

/// Memory every scenario declares; `A0` always exists, `A1` and `A2` when chosen.
/// Instruction holes: `{g}` global, `{s}` shared, `{m}` any data location, `{b}` an
/// mbarrier, `{r}` a register, `{v}` a small value, `{l}` a label.
const FORMS: &[&str] = &[
    // Memory.
    "ld r{r}, [{m}]",
    "ld.relaxed.gpu r{r}, [{m}]",
    "ld.acquire.cta r{r}, [{m}]",
    "ld.acquire.cluster r{r}, [{m}]",
    "ld.acquire.gpu r{r}, [{m}]",
    "ld.volatile r{r}, [{m}]",
    "ld.relaxed.cluster.shared::cluster r{r}, [{s}]",
    "st [{m}], {v}",
    "st.relaxed.gpu [{m}], {v}",
    "st.release.cta [{m}], {v}",
    "st.release.cluster [{m}], {v}",
    "st.release.gpu [{m}], {v}",
    "st.release.cluster.shared::cluster [{s}], {v}",
    "atom.add r{r}, [{m}], 1",
    "atom.acquire.gpu.exch r{r}, [{m}], {v}",
    "atom.acq_rel.cluster.cas r{r}, [{m}], 0, {v}",
    "red.release.gpu.add [{m}], 1",
    "suld r{r}, [sx]",
    "sust [sx], {v}",
    "tld r{r}, [tx]",
    "wait ld.acquire.gpu r{r}, [{m}] == {v}",
    "wait ld.relaxed.cta r{r}, [{m}] != 0",
    // Fences.
    "fence.sc.gpu",
    "fence.acq_rel.cta",
    "fence.acquire.cluster",
    "fence.release.gpu",
    "fence.release.sync_restrict::shared::cta.cluster",
    "fence.acquire.sync_restrict::shared::cluster.cluster",
    "fence.mbarrier_init.release.cluster",
    "fence.proxy.alias",
    "fence.proxy.surface",
    "fence.proxy.texture",
    "fence.proxy.async",
    "fence.proxy.async.shared::cta",
    "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster",
    "membar.gl",
    // Barriers.
    "bar.sync 0",
    "bar.arrive 1, 64",
    "bar.sync 1, 64",
    "barrier.cluster.arrive.release",
    "barrier.cluster.arrive.relaxed",
    "barrier.cluster.wait.acquire",
    // mbarrier.
    "mbarrier.init.shared::cta [{b}], {v}",
    "mbarrier.inval.shared::cta [{b}]",
    "mbarrier.arrive.release.cta.shared::cta _, [{b}]",
    "mbarrier.arrive.release.cluster.shared::cluster _, [{b}]",
    "mbarrier.arrive.relaxed.cta.shared::cta st, [{b}]",
    "mbarrier.arrive.expect_tx.release.cta.shared::cta _, [{b}], 4",
    "mbarrier.expect_tx.relaxed.cta.shared::cta [{b}], 4",
    "mbarrier.complete_tx.relaxed.cta.shared::cta [{b}], 4",
    "mbarrier.arrive_drop.release.cta.shared::cta _, [{b}]",
    "mbarrier.test_wait.parity.acquire.cta.shared::cta p, [{b}], 0",
    "mbarrier.try_wait.acquire.cta.shared::cta p, [{b}], st",
    "wait mbarrier.try_wait.parity.acquire.cta.shared::cta p, [{b}], 0",
    "wait mbarrier.try_wait.parity.acquire.cluster.shared::cluster p, [{b}], 1",
    // Asynchronous copies.
    "cp.async.ca.shared.global [{s}], [{g}], 4",
    "cp.async.commit_group",
    "cp.async.wait_group 0",
    "cp.async.wait_all",
    "cp.async.mbarrier.arrive.noinc.shared::cta [{b}]",
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [{s}], [{g}], 4, [{b}]",
    "cp.async.bulk.global.shared::cta.bulk_group [{g}], [{s}], 4",
    "cp.async.bulk.commit_group",
    "cp.async.bulk.wait_group 0",
    "cp.async.bulk.wait_group.read 0",
    "st.async.shared::cluster.mbarrier::complete_tx::bytes [{s}], {v}, [{b}]",
    // wgmma.
    "wgmma.fence.sync.aligned",
    "wgmma.mma_async.sync.aligned acc, [{s}], [{s}]",
    "wgmma.commit_group.sync.aligned",
    "wgmma.wait_group.sync.aligned 0",
    // tcgen05.
    "tcgen05.alloc.cta_group::1.sync.aligned [{s}], 32",
    "tcgen05.dealloc.cta_group::1.sync.aligned 32",
    "tcgen05.mma.cta_group::1 [tm], [{s}], [{s}]",
    "tcgen05.cp.cta_group::1 [tm], [{s}]",
    "tcgen05.ld.sync.aligned r{r}, [tm]",
    "tcgen05.st.sync.aligned [tm], {v}",
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one [{b}]",
    "tcgen05.wait::ld.sync.aligned",
    "tcgen05.wait::st.sync.aligned",
    "tcgen05.fence::before_thread_sync",
    "tcgen05.fence::after_thread_sync",
    // Control.
    "mov r{r}, {v}",
    "add r{r}, r{r}, 1",
    "{l}:",
    "bra {l}",
    "bne r{r}, 0, {l}",
    "beq p, 0, {l}",
    "exit",
];

fuzz_target!(|data: &[u8]| {
    let Ok((text, mode)) = scenario_text(&mut Unstructured::new(data)) else { return };
    let Ok((scenario, _, _)) = fencelab::load(&text).into_result() else { return };
    let report = check(&scenario, &Options { mode, max_states: MAX_STATES, ..Options::default() });
    if report.verdict == Verdict::Correct {
        assert!(report.stats.complete, "correct without a complete exploration:\n{text}");
    }
    for finding in &report.findings {
        if let Err(e) = Stepper::replay(&scenario, mode, &finding.witness) {
            panic!("the witness of `{}` does not replay: {e}\n{text}", finding.message);
        }
    }
    for result in &report.conditions {
        if let Some(witness) = &result.witness {
            if let Err(e) = Stepper::replay(&scenario, mode, witness) {
                panic!("a condition witness does not replay: {e}\n{text}");
            }
        }
    }
});

/// The `.fence` text the bytes describe, and the mode to check it in.
fn scenario_text(u: &mut Unstructured) -> Result<(String, Mode)> {
    let mode = if u.arbitrary::<bool>()? { Mode::Strict } else { Mode::Pragmatic };
    let mut text = String::new();
    let clusters = u.int_in_range(1..=2u8)?;
    for c in 0..clusters {
        text += &format!("cluster C{c}\n");
    }
    let ctas = u.int_in_range(1..=3u8)?;
    for a in 0..ctas {
        text += &format!("cta A{a} in C{}\n", u.int_in_range(0..=clusters - 1)?);
    }
    let cta = |u: &mut Unstructured| -> Result<String> { Ok(format!("A{}", u.int_in_range(0..=ctas - 1)?)) };
    text += "global x = 0 size 64\nglobal y = 0\nalias sx = x via surface\nalias tx = y via texture\n";
    text += &format!("shared s @{} = 0 size 64\nshared d @{} = 0 size 64\n", cta(u)?, cta(u)?);
    text += &format!("tmem tm @{} = 0\n", cta(u)?);
    for bar in ["bar", "full"] {
        match u.int_in_range(0..=2u8)? {
            0 => text += &format!("mbarrier {bar} @{}\n", cta(u)?),
            n => text += &format!("mbarrier {bar} @{} count {n}\n", cta(u)?),
        }
    }
    let threads = u.int_in_range(1..=3u8)?;
    for t in 0..threads {
        let lanes = if u.arbitrary::<bool>()? { "" } else { " lanes 1" };
        text += &format!("\nthread t{t} @{}{lanes}:\n", cta(u)?);
        for _ in 0..u.int_in_range(1..=4u8)? {
            text += &format!("    {}\n", instruction(u)?);
        }
    }
    if u.arbitrary::<bool>()? {
        let thread = u.int_in_range(0..=threads - 1)?;
        text += &format!("\nexists (t{thread}:r0 == 1 /\\ x == {})\n", u.int_in_range(0..=2u8)?);
    }
    Ok((text, mode))
}

/// One instruction from [`FORMS`] with its holes filled.
fn instruction(u: &mut Unstructured) -> Result<String> {
    let mut out = u.choose(FORMS)?.to_string();
    let holes: [(&str, &[&str]); 7] = [
        ("{g}", &["x", "y"]),
        ("{s}", &["s", "d"]),
        ("{m}", &["x", "y", "s", "d"]),
        ("{b}", &["bar", "full"]),
        ("{r}", &["0", "1"]),
        ("{v}", &["1", "2"]),
        ("{l}", &["L0", "L1"]),
    ];
    for (hole, choices) in holes {
        while out.contains(hole) {
            out = out.replacen(hole, u.choose(choices)?, 1);
        }
    }
    Ok(out)
}
