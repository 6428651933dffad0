//! `fencelab::import` on the committed PTX fixtures (tests/import/, PROVENANCE.md): the
//! scenarios they give, the verdicts in both modes, each reproduced bug found with its
//! kind and PTX line, and hostile input refused with a line and no panic.

use fencelab::check::{check, FindingKind, Mode, Options, Report, Verdict};
use fencelab::import::{entries, import, ErrorKind, ImportOptions, Imported, ParamValue};

const RELAY: &str = include_str!("import/relay_pipeline.ptx");

/// The line of `RELAY` holding the relay warp's arrive on CTA 0's barrier.
const RELAY_ARRIVE_LINE: usize = 262;

fn opts(iterations: u32) -> ImportOptions {
    ImportOptions { iterations, ..ImportOptions::default() }
}

/// `text` with `from` replaced by `to` on 1-based line `line` (which must hold it).
fn edit_line(text: &str, line: usize, from: &str, to: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert!(lines[line - 1].contains(from), "line {line} is `{}`", lines[line - 1]);
    lines[line - 1] = lines[line - 1].replace(from, to);
    lines.join("\n") + "\n"
}

fn both_modes(imported: &Imported) -> Vec<Report> {
    [Mode::Pragmatic, Mode::Strict].into_iter().map(|mode| check(&imported.scenario, &Options { mode, ..Options::default() })).collect()
}

fn assert_correct_in_both_modes(imported: &Imported) {
    for report in both_modes(imported) {
        assert_eq!(report.verdict, Verdict::Correct, "{:?} {:?}", report.mode, report.findings.first().map(|f| &f.message));
    }
}

fn ptx_lines_of(imported: &Imported, report: &Report) -> Vec<usize> {
    let mut lines: Vec<usize> = report.findings.iter().flat_map(|f| f.accesses.iter().filter_map(|a| imported.ptx_line(&a.thread, a.instr))).collect();
    lines.sort_unstable();
    lines.dedup();
    lines
}

#[test]
fn relay_pipeline_imports_with_ptx_lines_and_names() {
    let imported = import(RELAY, &opts(2)).expect("imports");
    let text = &imported.text;
    assert!(text.starts_with("# relay_pipeline (imported from PTX"), "{text}");
    // The launch comes from .reqnctapercluster and .maxntid: two CTAs of one cluster.
    assert_eq!(imported.scenario.ctas.len(), 2);
    // Names from the PTX symbols, one location per stage buffer.
    for name in ["stage_buf0_c0", "stage_buf1_c0", "relay_buf_c1"] {
        assert!(imported.scenario.location(name).is_some(), "{name} missing:\n{text}");
    }
    for name in ["full_bar0_c0", "empty_bar1_c1", "relay_bar_c0"] {
        assert!(imported.scenario.mbarrier(name).is_some(), "{name} missing:\n{text}");
    }
    // Every instruction carries its PTX line; the relay's arrive is PTX line 262.
    let instrs = text.lines().filter(|l| l.starts_with("    ")).count();
    let commented = text.lines().filter(|l| l.starts_with("    ") && l.contains("# ptx ")).count();
    assert_eq!(instrs, commented, "{text}");
    let relay = imported.scenario.thread("c1_w2").expect("relay warp thread");
    let arrive = imported.scenario.threads[relay]
        .program
        .iter()
        .position(|i| fencelab::syntax::instr_text(i).starts_with("mbarrier.arrive.release.cluster"))
        .expect("the relay arrive");
    assert_eq!(imported.ptx_line("c1_w2", arrive), Some(RELAY_ARRIVE_LINE));
    // The spin on try_wait became a wait; the loops of unknown bound ran twice.
    assert!(text.contains("wait mbarrier.try_wait.parity.acquire.cluster.shared::cta [relay_bar_c0], 0"), "{text}");
    assert_eq!(text.matches("cp.async.bulk.shared::cluster.global").count(), 4, "{text}");
    assert!(imported.fixed.values().any(|w| w.contains("loop back edge")), "{:?}", imported.fixed);
    // The 32 consumer lanes arrive as one arrive of count 32.
    assert!(text.contains("mbarrier.arrive.shared::cta [empty_bar0_c0], 32"), "{text}");
    // The printed scenario reads back as itself.
    let loaded = fencelab::load(text);
    assert!(!loaded.has_errors());
    assert_eq!(loaded.scenario, imported.scenario);
}

#[test]
fn relay_pipeline_is_correct_in_both_modes() {
    // At 1 iteration and at the default 2 (decided within the caps since the explorer's
    // stubborn sets), every interleaving explored.
    for iterations in [1, 2] {
        let imported = import(RELAY, &opts(iterations)).expect("imports");
        for report in both_modes(&imported) {
            assert!(report.stats.complete, "{iterations} iterations, {:?}: {:?}", report.mode, report.stats);
            assert_eq!(report.verdict, Verdict::Correct, "{:?} {:?}", report.mode, report.findings.first().map(|f| &f.message));
        }
    }
}

#[test]
fn seed_003_relay_default_release_cta_arrive_is_found_at_its_ptx_line() {
    let buggy = edit_line(RELAY, RELAY_ARRIVE_LINE, "mbarrier.arrive.release.cluster.shared::cluster.b64", "mbarrier.arrive.shared::cluster.b64");
    let imported = import(&buggy, &opts(1)).expect("imports");
    for report in both_modes(&imported) {
        assert_eq!(report.verdict, Verdict::Race, "{:?}", report.mode);
        let f = &report.findings[0];
        assert_eq!(f.kind, FindingKind::Race);
        // The racing accesses: the relay's cp.async (PTX 241) and the consumer's remote read (PTX 160).
        assert_eq!(ptx_lines_of(&imported, &report), vec![160, 241]);
        // The explanation names the arrive whose change fixes it.
        let named: Vec<usize> = imported.named_in(&f.explanation).into_iter().map(|(_, _, line)| line).collect();
        assert_eq!(named, vec![RELAY_ARRIVE_LINE], "{}", f.explanation);
    }
}

#[test]
fn removing_the_relay_warps_syncwarp_splits_its_lanes() {
    // Without `bar.warp.sync`, lane 0's arrive does not order the other lanes' copies:
    // lane 0 and lanes 1-31 become threads of their own.
    let line = RELAY.lines().position(|l| l.contains("bar.warp.sync")).expect("a bar.warp.sync") + 1;
    let buggy = edit_line(RELAY, line, "bar.warp.sync \t-1;", "");
    let imported = import(&buggy, &opts(1)).expect("imports");
    assert!(imported.scenario.thread("c1_w2").is_none(), "{}", imported.text);
    let lane0 = imported.scenario.thread("c1_w2_l0").expect("lane 0 alone");
    let rest = imported.scenario.thread("c1_w2_l1_31").expect("lanes 1-31");
    assert_eq!((imported.scenario.threads[lane0].lanes, imported.scenario.threads[rest].lanes), (1, 31));
    let arrives = |t: usize| imported.scenario.threads[t].program.iter().filter(|i| fencelab::syntax::instr_text(i).starts_with("mbarrier.arrive")).count();
    assert_eq!((arrives(lane0), arrives(rest)), (1, 0));
    // Their copies fill disjoint bytes of the relay buffer: lane 0's first four, the other
    // lanes' the rest, in the aligned 4-, 8- and 16-byte pieces a cp.async copies.
    let copies = |t: usize| -> Vec<String> {
        imported.scenario.threads[t].program.iter().map(fencelab::syntax::instr_text).filter(|i| i.starts_with("cp.async.ca")).collect()
    };
    assert_eq!(copies(lane0), vec!["cp.async.ca.shared::cta.global [relay_buf_c1+0], [param1_0], 4"]);
    let rest_copies = copies(rest);
    assert_eq!(rest_copies.len(), 9, "{rest_copies:?}");
    assert_eq!(rest_copies[..2], ["cp.async.ca.shared::cta.global [relay_buf_c1+4], [param1_1], 4", "cp.async.ca.shared::cta.global [relay_buf_c1+8], [param1_1], 8"]);
    assert_eq!(rest_copies[8], "cp.async.ca.shared::cta.global [relay_buf_c1+112], [param1_1], 16");
}

fn gunzip(bytes: &[u8]) -> String {
    // A gzip member of one deflate stream: 10-byte header (no optional fields), 8-byte trailer.
    let body = &bytes[10..bytes.len() - 8];
    String::from_utf8(miniz_oxide::inflate::decompress_to_vec(body).expect("inflates")).expect("utf-8")
}

#[test]
fn cutlass_sm90_ex48_imports_with_multicast_and_the_remote_consumer_release() {
    let text = gunzip(include_bytes!("import/cutlass_sm90_ex48_cluster2x1.ptx.gz"));
    let names = entries(&text).expect("parses");
    assert_eq!(names.len(), 4, "{names:?}");
    // Several entries and no choice: the error lists them.
    match import(&text, &opts(2)) {
        Err(e) => assert!(matches!(e.kind, ErrorKind::ChooseEntry(ref n) if n.len() == 4), "{e}"),
        Ok(_) => panic!("chose an entry by itself"),
    }
    let params = [(0, 256), (4, 128), (8, 64), (12, 1)]
        .into_iter()
        .map(|(offset, value)| ParamValue { name: "0".into(), offset, value })
        .collect();
    let options = ImportOptions { entry: Some("GemmUniversal".into()), cluster: Some([2, 1, 1]), params, ..ImportOptions::default() };
    let imported = import(&text, &options).expect("imports");
    let t = &imported.text;
    // Producer: expect-tx then a plain and a multicast tensor copy per stage.
    assert!(t.contains("mbarrier.arrive.expect_tx.shared::cta [full0_c0], 32768"), "{t}");
    assert!(t.contains(".multicast::cluster [tile3_c0], [tmap_param0_at384], 8192, [full0_c0], ([tile3_c1], [full0_c1])"), "{t}");
    // The producer warpgroup's idle warps run only CUTLASS's init fences (with no init of
    // their own to order) and the cluster barrier: they are folded, lanes and all, into a
    // thread passing the same barrier.
    assert!(imported.scenario.thread("c0_w1").is_none() && imported.scenario.thread("c1_w3").is_none(), "{t}");
    assert!(t.contains("init fences with no init to order"), "{t}");
    // Each consumer warpgroup is one thread of 128 lanes issuing wgmma.
    let wg = imported.scenario.thread("c0_wg1").expect("consumer warpgroup");
    assert_eq!(imported.scenario.threads[wg].lanes, 128);
    // The consumer releases a stage on both CTAs' empty barriers with the default
    // `.release.cta` (the §12 #17 pattern), at PTX line 2148.
    let program = &imported.scenario.threads[wg].program;
    let remote: Vec<usize> = program
        .iter()
        .enumerate()
        .filter(|(_, i)| fencelab::syntax::instr_text(i).starts_with("mbarrier.arrive.shared::cluster"))
        .filter_map(|(k, _)| imported.ptx_line("c0_wg1", k))
        .collect();
    assert!(!remote.is_empty() && remote.iter().all(|l| *l == 2148), "{remote:?}");
    assert!(t.contains("mbarrier.arrive.shared::cluster [bar4_c1]"), "{t}");
    // Strict mode (reference §12 #1): CTA 0's multicast copy completes on CTA 1's full
    // barrier, which CTA 1's consumers wait on at the default `.acquire.cta`, so the copy's
    // write (PTX 701) races with their wgmma reads (PTX 1307), and the explanation names
    // the wait (PTX 1265). Found before the whole space is explored.
    let report = check(&imported.scenario, &Options { mode: Mode::Strict, max_states: 100_000, ..Options::default() });
    assert_eq!(report.verdict, Verdict::Race, "{:?}", report.stats);
    let f = report.findings.iter().find(|f| f.kind == FindingKind::Race).expect("a race");
    let lines: Vec<usize> = f.accesses.iter().filter_map(|a| imported.ptx_line(&a.thread, a.instr)).collect();
    assert_eq!(lines, [701, 1307], "{}", f.message);
    assert!(f.explanation.contains("mbarrier.try_wait.parity.shared::cta [full0_c1], 0"), "{}", f.explanation);
}

#[test]
fn hostile_input_is_refused_with_a_line() {
    // Truncated in the middle of the kernel body.
    let cut = &RELAY[..RELAY.len() / 2];
    let e = import(cut, &opts(2)).expect_err("truncated");
    assert!(matches!(e.kind, ErrorKind::Syntax(_)) && e.line > 0, "{e}");
    // Binary bytes.
    let e = import("\u{0}\u{1}ELF", &opts(2)).expect_err("binary");
    assert_eq!(e.kind, ErrorKind::Binary);
    // 50 MB.
    let big = "//".repeat(25 << 20);
    let e = import(&big, &opts(2)).expect_err("too large");
    assert!(matches!(e.kind, ErrorKind::TooLarge { .. }), "{e}");
    // Deeply nested braces.
    let deep = format!(".version 9.0\n.target sm_90\n.address_size 64\n.entry k()\n.maxntid 32\n{}{}", "{\n".repeat(5000), "}\n".repeat(5000));
    let e = import(&deep, &opts(2)).expect_err("too deep");
    assert_eq!(e.kind, ErrorKind::TooDeep);
    // A loop with no bound on known values.
    let spin = ".version 9.0\n.target sm_90\n.address_size 64\n.entry k()\n.maxntid 32\n{\nL:\n bra L;\n}\n";
    let e = import(spin, &opts(2)).expect_err("runaway");
    assert!(matches!(e.kind, ErrorKind::Runaway { .. }) && e.line == 8, "{e}");
    // An address far outside its variable.
    let far = ".version 9.0\n.target sm_90\n.address_size 64\n.entry k()\n.maxntid 32\n{\n.reg .b64 %rd<3>;\n.shared .align 4 .b8 buf[4];\n mov.u64 %rd1, buf;\n add.s64 %rd2, %rd1, 9223372036854775800;\n st.shared.u32 [%rd2+100], 1;\n ret;\n}\n";
    let e = import(far, &opts(2)).expect_err("out of range");
    assert!(matches!(e.kind, ErrorKind::Unknown(_)) && e.line == 11, "{e}");
    // An instruction the importer does not follow names its line and the construct.
    let tex = ".version 9.0\n.target sm_90\n.address_size 64\n.entry k()\n.maxntid 32\n{\n.reg .b32 %r<3>;\n tex.1d.v4.f32.s32 {%r1, %r1, %r1, %r1}, [t, {%r2}];\n ret;\n}\n";
    let e = import(tex, &opts(2)).expect_err("unsupported");
    assert!(e.line == 8 && e.to_string().contains("tex.1d"), "{e}");
}

#[test]
fn a_loop_on_an_unknown_bound_runs_iterations_times() {
    let ptx = ".version 9.0\n.target sm_90\n.address_size 64\n.entry k(.param .u32 n)\n.maxntid 32\n{\n.reg .b32 %r<4>;\n.reg .pred %p<2>;\n.shared .align 4 .b8 flag[4];\n ld.param.u32 %r1, [n];\n mov.u32 %r2, 0;\nL:\n st.shared.u32 [flag], %r2;\n add.s32 %r2, %r2, 1;\n setp.lt.s32 %p1, %r2, %r1;\n @%p1 bra L;\n ret;\n}\n";
    for n in [1u32, 3] {
        let imported = import(ptx, &opts(n)).expect("imports");
        assert_eq!(imported.text.matches("st.shared::cta").count(), n as usize, "{}", imported.text);
        assert!(imported.fixed.contains_key(&16), "{:?}", imported.fixed);
    }
    // Given the bound, the loop runs by it.
    let given = ImportOptions { params: vec![ParamValue { name: "n".into(), offset: 0, value: 4 }], ..opts(2) };
    assert_eq!(import(ptx, &given).expect("imports").text.matches("st.shared::cta").count(), 4);
}

const TMA_STORE: &str = include_str!("import/tma_store_epilogue.ptx");

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).map(|i| i + 1).unwrap_or_else(|| panic!("no `{needle}`"))
}

#[test]
fn tma_store_epilogue_is_correct_in_both_modes() {
    let imported = import(TMA_STORE, &opts(2)).expect("imports");
    let t = &imported.text;
    // The tensor map parameter is a global location; the store reads the whole tile.
    assert!(t.contains("cp.async.bulk.tensor.global.shared::cta.bulk_group [tmap_param0_at0], [tile], 256"), "{t}");
    assert!(t.contains("fence.proxy.async.shared::cta"), "{t}");
    assert_correct_in_both_modes(&imported);
}

#[test]
fn tma_store_without_the_proxy_fence_races_at_its_ptx_lines() {
    let fence = line_of(TMA_STORE, "fence.proxy.async.shared::cta");
    let buggy = edit_line(TMA_STORE, fence, "fence.proxy.async.shared::cta;", "");
    let imported = import(&buggy, &opts(2)).expect("imports");
    let store = line_of(TMA_STORE, "st.shared.f32");
    let copy = line_of(TMA_STORE, "cp.async.bulk.tensor.2d.global.shared::cta");
    for report in both_modes(&imported) {
        assert_eq!(report.verdict, Verdict::Race, "{:?}", report.mode);
        let f = &report.findings[0];
        assert_eq!(f.kind, FindingKind::Race);
        assert_eq!(f.reason, Some(fencelab::check::RaceReason::MissingProxyFence), "{}", f.message);
        assert_eq!(ptx_lines_of(&imported, &report), vec![store, copy]);
    }
}

/// The options example 70 needs: its cluster shape (2x2, static in the kernel but not a
/// PTX directive) and two `Params` pointers set non-null so the epilogue reads C (the
/// barrier counts depend on it).
fn ex70_options() -> ImportOptions {
    let param = |offset| ParamValue { name: "0".into(), offset, value: 1 };
    ImportOptions { entry: Some("GemmUniversal".into()), cluster: Some([2, 2, 1]), params: vec![param(1296), param(1288)], ..ImportOptions::default() }
}

#[test]
fn cutlass_sm100_2sm_umma_imports_its_tcgen05_pipeline() {
    let text = gunzip(include_bytes!("import/cutlass_sm100_ex70_2sm.ptx.gz"));
    let imported = import(&text, &ex70_options()).expect("imports");
    let t = &imported.text;
    assert_eq!(imported.scenario.ctas.len(), 4);
    // The leader's pair MMA names both CTAs' halves; its commit multicasts to both pairs'
    // barriers; the TMA copies complete on the pair leader's barrier.
    let mma = t.lines().find(|l| l.contains("tcgen05.mma.cta_group::2")).unwrap_or_else(|| panic!("no pair mma:\n{t}"));
    assert!(mma.contains("_c0], [") && mma.contains("_c1], [") && mma.ends_with("# ptx 1676"), "{mma}");
    let commit = t.lines().find(|l| l.contains("tcgen05.commit.cta_group::2.mbarrier::arrive::one.multicast::cluster")).expect("multicast commit");
    assert!(["_c0]", "_c1]", "_c2]", "_c3]"].iter().all(|c| commit.contains(c)) && commit.ends_with("# ptx 1786"), "{commit}");
    assert!(t.contains("tcgen05.alloc.cta_group::2.sync.aligned") && t.contains("tcgen05.dealloc.cta_group::2.sync.aligned 512"), "{t}");
    assert!(t.lines().any(|l| l.starts_with("tmem ")), "TMEM locations:\n{t}");
    assert!(t.contains(".cta_group::2 [") && imported.fixed.get(&889).is_some_and(|w| w.contains("pair leader")), "{:?}", imported.fixed);
    // Cluster launch control's try_cancel is the bulk copy it acts as.
    assert!(imported.fixed.get(&1357).is_some_and(|w| w.contains("try_cancel")), "{:?}", imported.fixed);
    // The kernel emits no tcgen05 thread-sync fences (reference §10 #30, §12 #19).
    assert!(!text.contains("tcgen05.fence::") && !t.contains("tcgen05.fence::"));
    // Without its cluster shape the pair's peer is not in the launch: an error naming the line.
    let e = import(&text, &ImportOptions { cluster: None, ..ex70_options() }).expect_err("a pair needs two CTAs");
    assert!(matches!(e.kind, ErrorKind::Launch(_)) && e.line == 1676, "{e}");
}

/// A hand-written sm_100a pipeline (tests/import/tcgen05_pipeline.ptx): an MMA warp's
/// elected lane writes the accumulator twice, an epilogue warp reads it in between and
/// frees it with `tcgen05.wait::ld`, `fence::before_thread_sync` and an arrive.
const TC_PIPELINE: &str = include_str!("import/tcgen05_pipeline.ptx");

#[test]
fn tcgen05_pipeline_is_correct_and_without_its_wait_ld_races_at_its_ptx_lines() {
    let imported = import(TC_PIPELINE, &opts(2)).expect("imports");
    assert!(imported.text.contains("tmem tmem @cta0 = 0 size 64"), "the idesc's N=64 columns:\n{}", imported.text);
    for report in both_modes(&imported) {
        assert_eq!(report.verdict, Verdict::Correct, "{:?}: {:?}", report.mode, report.findings);
    }
    let wait = line_of(TC_PIPELINE, "tcgen05.wait::ld");
    let buggy = edit_line(TC_PIPELINE, wait, "tcgen05.wait::ld.sync.aligned;", "");
    let imported = import(&buggy, &opts(2)).expect("imports");
    let ld = line_of(TC_PIPELINE, "tcgen05.ld.sync.aligned");
    let second_mma = TC_PIPELINE.lines().enumerate().filter(|(_, l)| l.contains("tcgen05.mma")).nth(1).map(|(i, _)| i + 1).expect("two mmas");
    for report in both_modes(&imported) {
        let f = &report.findings[0];
        assert_eq!(f.kind, FindingKind::Race, "{:?}: {}", report.mode, f.message);
        assert_eq!(ptx_lines_of(&imported, &report)[..2], [second_mma, ld], "{:?}", report.mode);
        assert!(report.findings.iter().any(|f| f.explanation.contains("tcgen05.wait::ld")), "{:?}", report.findings);
    }
}

#[test]
fn tcgen05_without_the_after_thread_sync_fence_fails_strict_and_passes_pragmatic() {
    // Reference §10 #30 / §12 #19, CUTLASS's sm100 pattern: the wait alone orders the MMA
    // before the load only if release/acquire stands in for the thread-sync fence.
    let ld = line_of(TC_PIPELINE, "tcgen05.ld.sync.aligned");
    let buggy = edit_line(TC_PIPELINE, ld - 1, "tcgen05.fence::after_thread_sync;", "");
    let imported = import(&buggy, &opts(2)).expect("imports");
    let reports = both_modes(&imported);
    assert_eq!(reports[0].verdict, Verdict::Correct, "pragmatic: {:?}", reports[0].findings);
    assert_ne!(reports[1].verdict, Verdict::Correct, "strict");
    // Strict's first finding is the load at its PTX line, which no thread-sync fence
    // orders after the wait (nor after the alloc across `bar.sync`): the missing fence.
    let f = &reports[1].findings[0];
    assert!(matches!(f.kind, FindingKind::Race | FindingKind::Undefined), "{:?}: {}", f.kind, f.message);
    assert_eq!(ptx_lines_of(&imported, &reports[1]), vec![ld], "{}", f.message);
    assert!(f.explanation.contains("tcgen05.fence::after_thread_sync"), "{}", f.explanation);
}

#[test]
fn a_wait_on_a_state_token_waits_for_the_phase_of_the_lanes_own_arrive() {
    // Each lane arrives and waits on the token twice (cuda::barrier's arrive_and_wait):
    // the first token names phase 0, the second phase 1.
    let ptx = ".version 9.0\n.target sm_90\n.address_size 64\n.entry k()\n.maxntid 32\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<3>;\n.reg .pred %p<3>;\n.shared .align 8 .b8 bar[8];\n.shared .align 4 .b8 data[128];\n mov.u32 %r1, %tid.x;\n setp.ne.s32 %p1, %r1, 0;\n @%p1 bra SKIP;\n mbarrier.init.shared.b64 [bar], 32;\nSKIP:\n bar.sync 0;\n shl.b32 %r2, %r1, 2;\n mov.u32 %r3, data;\n add.s32 %r3, %r3, %r2;\n st.shared.u32 [%r3], 1;\n mbarrier.arrive.shared.b64 %rd1, [bar];\nW1:\n mbarrier.try_wait.shared.b64 %p2, [bar], %rd1;\n @!%p2 bra W1;\n mbarrier.arrive.shared.b64 %rd2, [bar];\nW2:\n mbarrier.try_wait.shared.b64 %p2, [bar], %rd2;\n @!%p2 bra W2;\n ret;\n}\n";
    let imported = import(ptx, &opts(2)).expect("imports");
    let waits: Vec<&str> = imported.text.lines().filter(|l| l.contains("wait mbarrier.try_wait")).collect();
    assert_eq!(waits.len(), 2, "{}", imported.text);
    assert!(waits[0].contains("[bar], 0") && waits[0].contains("# ptx 24"), "{}", waits[0]);
    assert!(waits[1].contains("[bar], 1") && waits[1].contains("# ptx 28"), "{}", waits[1]);
    assert!(imported.fixed.get(&24).is_some_and(|w| w.contains("state token")), "{:?}", imported.fixed);
    // A token that no arrive of the lane made is refused, naming the line.
    let foreign = ptx.replace(" mbarrier.try_wait.shared.b64 %p2, [bar], %rd1;", " mov.u64 %rd1, %rd0;\n mbarrier.try_wait.shared.b64 %p2, [bar], %rd1;");
    let err = import(&foreign, &opts(2)).expect_err("a token of unknown phase");
    assert!(matches!(err.kind, ErrorKind::Unknown(_)) && err.line == 25, "{err}");
}

#[test]
fn a_wgmma_with_a_in_registers_reads_only_its_b_tile() {
    // One warpgroup: B's descriptor holds the tile's address / 16 in bits 0-13; A is four
    // registers of each thread.
    let ptx = ".version 9.0\n.target sm_90a\n.address_size 64\n.entry k()\n.maxntid 128\n{\n.reg .b32 %r<9>;\n.reg .b64 %rd<3>;\n.reg .f32 %f<5>;\n.reg .pred %p<2>;\n.shared .align 1024 .b8 tileB[2048];\n mov.u32 %r1, tileB;\n shr.u32 %r2, %r1, 4;\n and.b32 %r2, %r2, 16383;\n cvt.u64.u32 %rd1, %r2;\n setp.ne.s32 %p1, %r1, 0;\n wgmma.fence.sync.aligned;\n wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, {%r5, %r6, %r7, %r8}, %rd1, %p1, 1, 1, 1;\n wgmma.commit_group.sync.aligned;\n wgmma.wait_group.sync.aligned 0;\n ret;\n}\n";
    let imported = import(ptx, &opts(2)).expect("imports");
    assert!(imported.text.contains("wgmma.mma_async.sync.aligned acc, [tileB], [tileB]  # ptx 18"), "{}", imported.text);
    assert!(imported.fixed.get(&18).is_some_and(|w| w.contains("A in registers")), "{:?}", imported.fixed);
    assert_eq!(imported.scenario.threads.len(), 1, "the warpgroup is one thread:\n{}", imported.text);
}

/// A 2-CTA kernel in the shape of CUTLASS #3324 (tests/import/src/pair_trampoline.cu):
/// each CTA's producer lanes fill its half of B with cp.async and signal a CTA-local
/// barrier; a trampoline lane waits for it and arrives on the leader's barrier, whose
/// consumer then reads both halves.
const TRAMPOLINE: &str = include_str!("import/pair_trampoline.ptx");

#[test]
fn cutlass_3324_trampoline_arrive_at_release_cta_races_at_its_ptx_lines() {
    let imported = import(TRAMPOLINE, &opts(2)).expect("imports");
    assert_correct_in_both_modes(&imported);
    // CUTLASS's ClusterBarrier::arrive(cta_id): the same arrive at the default .release.cta.
    // A data handoff through it is a race in both modes (reference §10 #1; §12 #17's
    // pragmatic leniency covers only a stage release after async-proxy reads completed).
    let arrive = line_of(TRAMPOLINE, "mbarrier.arrive.release.cluster.shared::cluster.b64");
    let buggy = edit_line(TRAMPOLINE, arrive, "mbarrier.arrive.release.cluster.shared::cluster.b64", "mbarrier.arrive.shared::cluster.b64");
    let imported = import(&buggy, &opts(2)).expect("imports");
    let copy = line_of(TRAMPOLINE, "cp.async.ca.shared.global");
    let remote_read = line_of(TRAMPOLINE, "ld.shared::cluster");
    for report in both_modes(&imported) {
        assert_eq!(report.verdict, Verdict::Race, "{:?}", report.mode);
        let f = &report.findings[0];
        assert_eq!((f.kind, f.reason), (FindingKind::Race, Some(fencelab::check::RaceReason::ScopeMismatch)), "{}", f.message);
        // The peer CTA's cp.async and the leader's read of the peer's half.
        assert_eq!(ptx_lines_of(&imported, &report), vec![copy, remote_read], "{:?}", report.mode);
        let named: Vec<usize> = imported.named_in(&f.explanation).into_iter().map(|(_, _, line)| line).collect();
        assert_eq!(named, vec![arrive], "{}", f.explanation);
    }
}

/// CTA 1 pushes four words with one st.async and a count with red.async into CTA 0's
/// shared memory, completing on CTA 0's barrier (tests/import/src/st_async_push.cu).
const ST_ASYNC: &str = include_str!("import/st_async_push.ptx");

#[test]
fn st_async_push_imports_with_its_complete_tx_and_is_correct() {
    let imported = import(ST_ASYNC, &opts(2)).expect("imports");
    let t = &imported.text;
    let store = line_of(ST_ASYNC, "st.async.weak.shared::cluster");
    let red = line_of(ST_ASYNC, "red.async.relaxed.cluster");
    assert!(t.contains(&format!("st.async.shared::cluster.mbarrier::complete_tx::bytes [inbox_c0], 1, [bar_c0]  # ptx {store}")), "{t}");
    assert!(t.contains(&format!("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add [pushes_c0], 1, [bar_c0]  # ptx {red}")), "{t}");
    // The owner arms its barrier for the 16 + 4 bytes the two complete.
    assert!(t.contains("mbarrier.arrive.expect_tx.release.cta.shared::cta [bar_c0], 20"), "{t}");
    assert_correct_in_both_modes(&imported);
}

#[test]
fn st_async_push_waited_at_the_default_acquire_cta_races_in_both_modes() {
    // Reference §10 #2: the complete-tx is a release at cluster scope by a thread of the
    // other CTA; a `.acquire.cta` wait does not include it.
    let wait = line_of(ST_ASYNC, "mbarrier.try_wait.parity.acquire.cluster");
    let buggy = edit_line(ST_ASYNC, wait, "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64", "mbarrier.try_wait.parity.shared::cta.b64");
    let imported = import(&buggy, &opts(2)).expect("imports");
    let lines = |needle: &str| line_of(ST_ASYNC, needle);
    let (store, red) = (lines("st.async.weak.shared::cluster"), lines("red.async.relaxed.cluster"));
    let (read_pushes, read_inbox) = (lines("ld.shared.u32"), lines("ld.shared.v4.u32"));
    for report in both_modes(&imported) {
        assert_eq!(report.verdict, Verdict::Race, "{:?}", report.mode);
        assert!(report.findings.iter().all(|f| f.kind == FindingKind::Race), "{:?}", report.findings);
        let mut expected = vec![store, red, read_pushes, read_inbox];
        expected.sort_unstable();
        assert_eq!(ptx_lines_of(&imported, &report), expected, "{:?}", report.mode);
        for f in &report.findings {
            let named: Vec<usize> = imported.named_in(&f.explanation).into_iter().map(|(_, _, line)| line).collect();
            assert_eq!(named, vec![wait], "{}", f.explanation);
        }
    }
}

#[test]
fn st_async_without_an_mbarrier_is_refused_naming_its_line() {
    let ptx = ".version 9.0\n.target sm_100a\n.address_size 64\n.entry k(.param .u64 p)\n.maxntid 32\n{\n.reg .b64 %rd<2>;\n ld.param.u64 %rd1, [p];\n st.async.mmio.release.sys.global.u32 [%rd1], 1;\n ret;\n}\n";
    let e = import(ptx, &opts(2)).expect_err("no mbarrier completion");
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)) && e.line == 9 && e.to_string().contains("st.async"), "{e}");
    // red.async must target another CTA: CTA 1's lanes reduce into their own buffer.
    let own = ".version 9.0\n.target sm_90a\n.address_size 64\n.entry k()\n.maxntid 32\n.reqnctapercluster 2, 1, 1\n{\n.reg .b32 %r<4>;\n.shared .align 8 .b8 buf[16];\n mov.u32 %r1, buf;\n mapa.shared::cluster.u32 %r2, %r1, 1;\n red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r2+8], 1, [%r2];\n ret;\n}\n";
    let e = import(own, &opts(2)).expect_err("into its own CTA");
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)) && e.line == 12 && e.to_string().contains("another CTA"), "{e}");
}

#[test]
fn each_lanes_cp_async_mbarrier_arrive_counts() {
    // 4 lanes each copy a word and arrive-on (noinc) a barrier expecting 4: the merged
    // thread arrives 4 times, so the phase completes.
    let ptx = ".version 9.0\n.target sm_90\n.address_size 64\n.entry k(.param .u64 src)\n.maxntid 4\n{\n.reg .b32 %r<6>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n.shared .align 8 .b8 bar[8];\n.shared .align 16 .b8 buf[16];\n mov.u32 %r1, %tid.x;\n setp.ne.s32 %p1, %r1, 0;\n @%p1 bra SKIP;\n mbarrier.init.shared.b64 [bar], 4;\nSKIP:\n bar.sync 0;\n ld.param.u64 %rd1, [src];\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n shl.b32 %r2, %r1, 2;\n mov.u32 %r3, buf;\n add.s32 %r3, %r3, %r2;\n cp.async.ca.shared.global [%r3], [%rd3], 4;\n cp.async.mbarrier.arrive.noinc.shared.b64 [bar];\nW:\n mbarrier.try_wait.parity.shared.b64 %p1, [bar], 0;\n @!%p1 bra W;\n ld.shared.u32 %r4, [buf];\n ret;\n}\n";
    let imported = import(ptx, &opts(2)).expect("imports");
    assert_eq!(imported.text.matches("cp.async.mbarrier.arrive.noinc.shared::cta [bar]").count(), 4, "{}", imported.text);
    assert_correct_in_both_modes(&imported);
}

/// One warp of 32 lanes: lane 0 initialises `bar`, arrives on it expecting 128 bytes and
/// copies `buf` from global memory; every lane waits and reads its word of `buf`.
const ELECTED_COPY: &str = ".version 9.0\n.target sm_90a\n.address_size 64\n.entry k(.param .u64 src)\n.maxntid 32\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.reg .pred %p<3>;\n.shared .align 8 .b8 bar[8];\n.shared .align 16 .b8 buf[128];\n.shared .align 16 .b8 other[128];\n mov.u32 %r1, %tid.x;\n shl.b32 %r4, %r1, 2;\n setp.ne.s32 %p1, %r1, 0;\n @%p1 bra SKIP;\n mbarrier.init.shared.b64 [bar], 1;\nSKIP:\n bar.sync 0;\n @%p1 bra NOCOPY;\n mbarrier.arrive.expect_tx.shared.b64 _, [bar], 128;\n ld.param.u64 %rd1, [src];\n cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 128, [bar];\nNOCOPY:\nW:\n mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;\n @!%p2 bra W;\n mov.u32 %r5, buf;\n add.s32 %r5, %r5, %r4;\n ld.shared.u32 %r3, [%r5];\n ret;\n}\n";

fn thread_names(imported: &Imported) -> Vec<&str> {
    imported.scenario.threads.iter().map(|t| t.name.as_str()).collect()
}

#[test]
fn an_elected_lanes_arrive_and_copy_before_the_warps_wait_leave_one_thread() {
    // What follows a release or a copy's issue gains no ordering from them, so the other
    // lanes' reads after the wait need no barrier to share lane 0's thread.
    let imported = import(ELECTED_COPY, &opts(2)).expect("imports");
    assert_eq!(thread_names(&imported), ["w0"], "{}", imported.text);
    assert_correct_in_both_modes(&imported);
}

#[test]
fn a_wait_only_the_elected_lane_makes_splits_the_warp_and_the_others_reads_race() {
    // The other lanes skip the wait: one thread would order their reads after the copy.
    let skip_wait = ELECTED_COPY.replace("NOCOPY:\nW:\n mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;\n @!%p2 bra W;\n", "W:\n mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;\n @!%p2 bra W;\nNOCOPY:\n");
    let imported = import(&skip_wait, &opts(2)).expect("imports");
    assert_eq!(thread_names(&imported), ["w0_l0", "w0_l1_31"], "{}", imported.text);
    for report in both_modes(&imported) {
        assert_eq!(report.verdict, Verdict::Race, "{:?}", report.mode);
        assert!(report.findings.iter().any(|f| f.accesses.iter().any(|a| a.thread == "w0_l1_31")), "{:?}", report.findings.first().map(|f| &f.message));
    }
}

/// `ELECTED_COPY` with an `expect_tx` of lane 0 and an arrive of every lane (a barrier of
/// 32), after every lane read its word of `READ` (`other` or `buf`).
fn elected_copy_after_reads_of(read: &str) -> String {
    ELECTED_COPY
        .replace("[bar], 1;", "[bar], 32;")
        .replace(" bar.sync 0;\n", &format!(" bar.sync 0;\n mov.u32 %r5, {read};\n add.s32 %r5, %r5, %r4;\n ld.shared.u32 %r3, [%r5];\n"))
        .replace(" mbarrier.arrive.expect_tx.shared.b64 _, [bar], 128;\n", " mbarrier.expect_tx.relaxed.cta.shared.b64 [bar], 128;\n")
        .replace("NOCOPY:\n", "NOCOPY:\n mbarrier.arrive.shared.b64 _, [bar];\n")
}

#[test]
fn an_elected_lanes_copy_after_the_warps_reads_of_other_bytes_leaves_one_thread() {
    // The copy's agent starts from what its thread knows at issue: the other lanes' reads
    // of `other` are no bytes it touches, and a relaxed expect_tx orders nothing.
    let imported = import(&elected_copy_after_reads_of("other"), &opts(2)).expect("imports");
    assert_eq!(thread_names(&imported), ["w0"], "{}", imported.text);
    assert_correct_in_both_modes(&imported);
}

#[test]
fn an_elected_lanes_copy_over_bytes_the_others_read_splits_the_warp_and_races() {
    // Lanes 1-31 read `buf` before lane 0's copy overwrites it, with no fence or barrier
    // between: in one thread the copy would inherit their reads and hide the race.
    let imported = import(&elected_copy_after_reads_of("buf"), &opts(2)).expect("imports");
    assert_eq!(thread_names(&imported), ["w0_l0", "w0_l1_31"], "{}", imported.text);
    let pragmatic = check(&imported.scenario, &Options { mode: Mode::Pragmatic, ..Options::default() });
    assert_eq!(pragmatic.verdict, Verdict::Race);
    let race = pragmatic.findings.iter().find(|f| f.accesses.iter().any(|a| a.thread == "w0_l1_31")).expect("the other lanes' read races");
    let lines: Vec<usize> = race.accesses.iter().filter_map(|a| imported.ptx_line(&a.thread, a.instr)).collect();
    let read = line_of(&elected_copy_after_reads_of("buf"), "ld.shared.u32 %r3, [%r5];");
    let copy = line_of(&elected_copy_after_reads_of("buf"), "cp.async.bulk.shared::cluster");
    assert!(lines.contains(&read) && lines.contains(&copy), "{lines:?} (read {read}, copy {copy})");
}

/// Two warps: warp 0's lanes each write a word of `words` and lane 0 arrives on `bar`;
/// warp 1 waits on `bar` and reads the words.
const ELECTED_ARRIVE: &str = ".version 9.0\n.target sm_90a\n.address_size 64\n.entry k()\n.maxntid 64\n{\n.reg .b32 %r<8>;\n.reg .pred %p<4>;\n.shared .align 8 .b8 bar[8];\n.shared .align 16 .b8 words[128];\n mov.u32 %r1, %tid.x;\n and.b32 %r6, %r1, 31;\n shl.b32 %r4, %r6, 2;\n mov.u32 %r5, words;\n add.s32 %r5, %r5, %r4;\n setp.ne.s32 %p1, %r1, 0;\n @%p1 bra SKIP;\n mbarrier.init.shared.b64 [bar], 1;\nSKIP:\n bar.sync 0;\n setp.gt.u32 %p3, %r1, 31;\n @%p3 bra READER;\n st.shared.u32 [%r5], 1;\n @%p1 bra DONE;\n mbarrier.arrive.release.cta.shared.b64 _, [bar];\n bra.uni DONE;\nREADER:\nW:\n mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;\n @!%p2 bra W;\n ld.shared.u32 %r3, [%r5];\nDONE:\n ret;\n}\n";

#[test]
fn an_elected_lanes_arrive_after_the_others_writes_splits_the_warp_unless_a_syncwarp_orders_them() {
    // The arrive releases only lane 0's own write: lane 0 signals for the warp after the
    // other lanes' accesses, so it stays a thread of its own.
    let imported = import(ELECTED_ARRIVE, &opts(2)).expect("imports");
    assert_eq!(thread_names(&imported), ["w0_l0", "w0_l1_31", "w1"], "{}", imported.text);
    // With `bar.warp.sync` before it, the arrive does release every lane's write.
    let synced = ELECTED_ARRIVE.replace(" @%p1 bra DONE;\n", " bar.warp.sync -1;\n @%p1 bra DONE;\n");
    let imported = import(&synced, &opts(2)).expect("imports");
    assert_eq!(thread_names(&imported), ["w0", "w1"], "{}", imported.text);
    assert_correct_in_both_modes(&imported);
}

#[test]
fn a_fence_repeated_right_after_itself_is_one_instruction_named_in_the_header() {
    let twice = ELECTED_COPY.replace(" bar.sync 0;\n", " bar.sync 0;\n fence.proxy.async.shared::cta;\n fence.proxy.async.shared::cta;\n");
    let imported = import(&twice, &opts(2)).expect("imports");
    let fences = imported.text.lines().filter(|l| l.trim_start().starts_with("fence.proxy.async")).count();
    assert_eq!(fences, 1, "{}", imported.text);
    let second = line_of(&twice, "fence.proxy.async") + 1;
    assert!(imported.text.contains(&format!("# merged: 1 repeats of a fence, or of a tcgen05.mma on the same locations, right after the same instruction, into it: ptx {second}")), "{}", imported.text);
    for report in both_modes(&imported) {
        assert_eq!(report.verdict, Verdict::Correct, "{:?}", report.mode);
    }
}

#[test]
fn cutlass_sm100_2sm_umma_keeps_apart_only_the_lanes_that_signal_after_the_others() {
    let text = gunzip(include_bytes!("import/cutlass_sm100_ex70_2sm.ptx.gz"));
    let imported = import(&text, &ImportOptions { iterations: 1, ..ex70_options() }).expect("imports");
    let names = thread_names(&imported);
    // The scheduler warp's lanes 0-3 each arrive on one CTA's response barrier and lane 0
    // issues the cancel; the epilogue-load warp's lane 0 issues the C copies. Nothing any
    // other lane did before is published by those, so each warp is one thread.
    for (cta, warp) in [(0, 1), (0, 3), (1, 3), (2, 3), (3, 3)] {
        assert!(names.contains(&format!("c{cta}_w{warp}").as_str()), "c{cta}_w{warp} in {names:?}");
    }
    // The MMA warp's elected lane commits the MMAs after every lane read the cancel
    // response: its commit would publish their reads, so it stays a thread of its own.
    for cta in [0, 2] {
        for part in ["w0_l0", "w0_l1_31"] {
            assert!(names.contains(&format!("c{cta}_{part}").as_str()), "c{cta}_{part} in {names:?}");
        }
    }
    assert_eq!(names.len(), 34, "{names:?}");
    // The mbarrier-init fences every warp runs six times in a row are one per run, and
    // the MMA warp's four MMAs of a stage on the same locations are one.
    let t = &imported.text;
    let threads = imported.scenario.threads.len();
    assert!(t.contains("# merged: ") && t.matches("fence.mbarrier_init.release.cluster").count() < 2 * threads, "{}", &t[..3000]);
    let mmas = t.lines().filter(|l| l.trim_start().starts_with("tcgen05.mma.cta_group::2")).count();
    assert_eq!(mmas, 2, "one tile's run of MMAs on each pair leader's MMA lane");
}

#[test]
fn a_load_of_global_memory_nothing_writes_is_dropped_and_counted() {
    // Every lane loads a word the launch gave (CUTLASS's warps each load a `Params` field).
    let with_load = ELECTED_COPY
        .replace(".entry k(.param .u64 src)", ".entry k(.param .u64 src, .param .u64 cfg)")
        .replace(" bar.sync 0;\n", " bar.sync 0;\n ld.param.u64 %rd2, [cfg];\n ld.global.u32 %r7, [%rd2];\n");
    let load = line_of(&with_load, "ld.global.u32");
    let imported = import(&with_load, &opts(2)).expect("imports");
    assert!(!imported.text.contains("ld.global"), "{}", imported.text);
    assert!(imported.text.contains(&format!("# dropped: ptx {load}: 1 plain loads of global memory no instruction writes")), "{}", imported.text);
    for report in both_modes(&imported) {
        assert_eq!(report.verdict, Verdict::Correct, "{:?}", report.mode);
    }
    // Once a lane writes that memory, the loads can race with it and stay.
    let written = with_load.replace(" ld.global.u32 %r7, [%rd2];\n", " ld.global.u32 %r7, [%rd2];\n @%p1 bra NOWRITE;\n st.global.u32 [%rd2], 1;\nNOWRITE:\n");
    let imported = import(&written, &opts(2)).expect("imports");
    assert!(imported.text.contains("ld.global") && !imported.text.contains("plain loads of global memory"), "{}", imported.text);
}
