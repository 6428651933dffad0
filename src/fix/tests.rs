use super::change::{apply, edit_source, expectations};
use super::outcome::Change;
use crate::model::{Expect, Fence, FenceSem, Instr, Mode, Scope};

const MP: &str = "# message passing
cta A
cta B
global data = 0
global flag = 0

thread p @A:
    st.global [data], 42  # payload
    st.relaxed.gpu.global [flag], 1

thread c @B:
    wait ld.relaxed.gpu.global r0, [flag] == 1
    ld.global r1, [data]

expect race
exists (c:r1 == 0)
";

fn fence_gpu() -> Instr {
    Instr::Fence(Fence::Thread { sem: Some(FenceSem::AcqRel), scope: Scope::Gpu, restrict: None, sugar: None })
}

#[test]
fn edits_land_in_the_authors_source_with_comments_kept() {
    let loaded = crate::load(MP);
    let changes = vec![
        Change::Insert { thread: 0, before: 1, instr: fence_gpu() },
        Change::Insert { thread: 1, before: 1, instr: fence_gpu() },
    ];
    let expect = expectations(&[(Mode::Strict, Expect::Correct), (Mode::Pragmatic, Expect::Correct)]);
    let (text, edits) = edit_source(MP, &loaded.source_map, &loaded.scenario, &changes, &expect, &[0]).expect("edits apply");
    assert!(text.contains("    st.global [data], 42  # payload\n    fence.acq_rel.gpu\n    st.relaxed.gpu.global [flag], 1"), "{text}");
    assert!(text.contains("== 1\n    fence.acq_rel.gpu\n    ld.global r1, [data]"), "{text}");
    assert!(text.contains("expect correct") && !text.contains("expect race") && !text.contains("exists"), "{text}");
    assert_eq!(edits.iter().map(|e| e.line).collect::<Vec<_>>(), [9, 13]);
    assert!(edits.iter().all(|e| e.before.is_empty() && e.after == "fence.acq_rel.gpu"));
    // The text and the model agree.
    let (model, _) = apply(&loaded.scenario, &changes);
    assert_eq!(crate::load(&text).scenario.threads, model.threads);
}

#[test]
fn a_move_and_a_removal_keep_the_model_and_the_text_in_step() {
    let loaded = crate::load(MP);
    let changes = vec![Change::MoveDown { thread: 0, at: 0 }, Change::Remove { thread: 1, at: 1 }];
    let expect = expectations(&[(Mode::Strict, Expect::Race), (Mode::Pragmatic, Expect::Correct)]);
    let (text, edits) = edit_source(MP, &loaded.source_map, &loaded.scenario, &changes, &expect, &[]).expect("edits apply");
    let (model, origins) = apply(&loaded.scenario, &changes);
    assert_eq!(crate::load(&text).scenario.threads, model.threads);
    assert_eq!(origins[0], [Some(1), Some(0)]);
    assert!(text.contains("expect strict race\nexpect pragmatic correct"), "{text}");
    assert_eq!(edits[0].after, "st.relaxed.gpu.global [flag], 1 / st.global [data], 42");
    assert_eq!(edits[1].before, "ld.global r1, [data]");
}

#[test]
fn message_passing_gets_release_acquire_as_its_cheapest_fix_and_every_fix_rechecks() {
    let src = MP.replace("st.global [data], 42  # payload", "st.global [data], 42");
    let search = super::fix(&src, Mode::Strict, &super::Limits::default(), &mut |_, _| true).expect("loads");
    assert_eq!(search.verdict, crate::check::Verdict::Race);
    let first = search.fixes.first().expect("a fix");
    // A release store and an acquire (one MEMBAR.ALL.GPU, one CCTL.IVALL) beat two fences;
    // edits a fix does not need are dropped.
    assert!(first.text.contains("st.release.gpu.global [flag], 1"), "{}", first.text);
    assert_eq!(first.edits.len(), 2, "{:?}", first.edits);
    assert!(search.fixes.iter().any(|f| f.cost == first.cost && f.text.contains("ld.acquire.gpu.global r0, [flag]")));
    for f in &search.fixes {
        let report = crate::check::check_one_mode(&crate::load(&f.text).scenario, &crate::check::Options { mode: Mode::Strict, ..Default::default() });
        assert_eq!(report.verdict, crate::check::Verdict::Correct, "{}", f.text);
    }
    assert!(search.fixes.windows(2).all(|w| (w[0].cost, w[0].changes.len()) <= (w[1].cost, w[1].changes.len())));
}

#[test]
fn a_cancelled_search_says_it_stopped_early() {
    let mut calls = 0;
    let search = super::fix(MP, Mode::Strict, &super::Limits::default(), &mut |_, _| {
        calls += 1;
        calls < 5
    })
    .expect("loads");
    assert_eq!(search.checks, 5);
    assert!(search.stopped_early.as_deref().is_some_and(|s| s.starts_with("cancelled")), "{:?}", search.stopped_early);
}

#[test]
fn invalid_source_is_a_typed_error() {
    let err = super::fix("thread t @Nowhere:\n    bogus\n", Mode::Strict, &super::Limits::default(), &mut |_, _| true);
    assert!(matches!(err, Err(super::FixError::Invalid(_))));
}

#[test]
fn proxy_fence_halves_are_offered_only_where_the_reference_documents_them() {
    let src = std::fs::read_to_string("tests/scenarios/seeds/003-relay-warp-as-seed.fence").unwrap_or_default();
    let scenario = crate::load(&src).scenario;
    let mut halves = 0;
    for (changes, _) in super::candidates::all(&scenario) {
        for change in changes {
            let Change::Insert { thread, before, instr: Instr::Fence(Fence::Proxy(crate::model::ProxyKind::AsyncGeneric { sem, .. })) } = change else {
                continue;
            };
            halves += 1;
            let program = &scenario.threads[thread].program;
            let sync = |i: &Instr| i.facts().sync;
            if sem == FenceSem::Release {
                assert!(program[before..].iter().any(|i| sync(i).is_some_and(|s| s.signals)), "release half with no later signal in thread {thread} at {before}");
            } else {
                assert!(program[..before].iter().any(|i| sync(i).is_some_and(|s| s.observes)), "acquire half with no earlier observation in thread {thread} at {before}");
            }
        }
    }
    assert!(halves > 0, "seed 003 has places where a half is documented");
}

fn scenario_file(path: &str) -> String {
    std::fs::read_to_string(format!("tests/scenarios/{path}.fence")).unwrap_or_default()
}

/// The search on `src` in strict mode with a small budget; every fix re-checks correct.
fn small_search(src: &str, max_edits: usize) -> super::Search {
    let limits = super::Limits { max_edits, max_checks: 400, ..super::Limits::default() };
    let search = super::fix(src, Mode::Strict, &limits, &mut |_, _| true).expect("loads");
    for f in &search.fixes {
        let report = crate::check::check_one_mode(&crate::load(&f.text).scenario, &crate::check::Options { mode: Mode::Strict, ..Default::default() });
        assert_eq!(report.verdict, crate::check::Verdict::Correct, "{}", f.text);
    }
    search
}

/// The body of `thread` in a fixed text, one trimmed instruction per line.
fn body(text: &str, thread: &str) -> Vec<String> {
    let head = format!("thread {thread} ");
    text.lines()
        .skip_while(|l| !l.starts_with(&head))
        .skip(1)
        .take_while(|l| l.starts_with(' ') || l.ends_with(':'))
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn a_cluster_barrier_goes_into_every_thread_of_the_cluster_before_the_owner_exits() {
    let search = small_search(&scenario_file("async/bug35_red_after_owner_exit"), 1);
    let first = search.fixes.first().expect("a fix");
    // The owner waits for the cluster; the counter arrives after its remote `red` (its
    // own wait adds nothing, so the minimizing dropped it).
    let owner = body(&first.text, "owner");
    let arrive = owner.iter().position(|l| l.starts_with("barrier.cluster.arrive"));
    let wait = owner.iter().position(|l| l == "barrier.cluster.wait");
    assert!(arrive.is_some() && wait.is_some() && arrive < wait, "{owner:?}\n{}", first.text);
    let counter = body(&first.text, "counter");
    assert!(counter.first().is_some_and(|l| l.starts_with("red.")), "{counter:?}");
    assert!(counter.get(1).is_some_and(|l| l.starts_with("barrier.cluster.arrive")), "{counter:?}");
}

#[test]
fn bar_sync_goes_into_every_thread_of_the_cta_with_the_tcgen05_fences_it_needs() {
    let search = small_search(&scenario_file("async/bug33_tmem_address_unsynchronized"), 1);
    let first = search.fixes.first().expect("a fix");
    let (allocator, user) = (body(&first.text, "allocator"), body(&first.text, "user"));
    let bar = |lines: &[String]| lines.iter().position(|l| l.starts_with("bar.sync"));
    let (a, u) = (bar(&allocator).expect("allocator bar.sync"), bar(&user).expect("user bar.sync"));
    assert_eq!(allocator[a], user[u], "one barrier id");
    // The allocation's address is written before the barrier and read after it.
    assert!(allocator[..a].iter().any(|l| l.starts_with("tcgen05.alloc")), "{allocator:?}");
    assert!(user[u + 1..].iter().any(|l| l.starts_with("ld.shared")), "{user:?}");
}

#[test]
fn the_owner_waits_on_its_mbarrier_so_a_remote_arrive_finds_it_alive() {
    let search = small_search(&scenario_file("async/bug35_remote_arrive_after_owner_exit"), 1);
    assert!(
        search.fixes.iter().any(|f| body(&f.text, "owner").iter().any(|l| l.starts_with("wait mbarrier.try_wait.parity") && l.ends_with("[bar], 0"))),
        "{:?}",
        search.fixes.iter().map(|f| &f.text).collect::<Vec<_>>()
    );
}

#[test]
fn noinc_is_toggled_to_match_the_init_count() {
    let search = small_search(&scenario_file("async/bug25_counted_without_noinc"), 1);
    assert!(search.fixes.iter().any(|f| f.text.contains("cp.async.mbarrier.arrive.noinc.shared::cta [bar]")), "{:?}", search.fixes.first().map(|f| &f.text));
    let search = small_search(&scenario_file("async/bug25_noinc_not_counted"), 1);
    assert!(search.fixes.iter().any(|f| f.edits.iter().any(|e| e.before.contains(".noinc") && e.after == "cp.async.mbarrier.arrive.shared::cta [bar]")));
}

#[test]
fn a_thread_arrive_after_its_own_mma_can_become_a_commit() {
    let scenario = crate::load(&scenario_file("async/bug31_thread_arrive_releases_mma_stage")).scenario;
    let commits: Vec<_> = super::candidates::all(&scenario)
        .into_iter()
        .filter(|(step, _)| matches!(step.as_slice(), [Change::Replace { with: Instr::Tc(crate::model::TcOp::Commit { .. }), .. }]))
        .collect();
    // Only the mma thread's arrive on `empty` follows an mma of its own.
    assert_eq!(commits.len(), 1, "{commits:?}");
    assert!(matches!(&commits[0].0[0], Change::Replace { thread: 1, at: 2, .. }));
}

#[test]
fn a_red_meant_to_observe_a_flag_becomes_an_atom_spin() {
    let search = small_search(&scenario_file("checker/bug40_red_is_not_acquire"), 1);
    let first = search.fixes.first().expect("a fix");
    let consumer = body(&first.text, "consumer");
    assert_eq!(consumer.first().map(String::as_str), Some("spin0:"), "{consumer:?}");
    assert!(consumer.get(1).is_some_and(|l| l.starts_with("atom.relaxed.gpu.global.cas") && l.ends_with("[flag], 1, 1")), "{consumer:?}");
    assert!(consumer.get(2).is_some_and(|l| l.contains("spin0")), "{consumer:?}");
}

#[test]
fn an_instruction_moves_several_places_and_the_text_follows() {
    let src = scenario_file("async/bug34_ld_after_dealloc");
    let loaded = crate::load(&src);
    // The dealloc (5) goes to the end, past the load and its wait.
    let changes = vec![Change::Move { thread: 0, from: 5, to: 8 }];
    let (text, edits) = edit_source(&src, &loaded.source_map, &loaded.scenario, &changes, &[], &[]).expect("edits apply");
    let (model, origins) = apply(&loaded.scenario, &changes);
    assert_eq!(crate::load(&text).scenario.threads, model.threads);
    assert_eq!(origins[0][5..], [Some(6), Some(7), Some(5)]);
    assert_eq!(edits.len(), 2, "{edits:?}");
    let search = small_search(&src, 1);
    let first = search.fixes.first().expect("a fix");
    assert!(body(&first.text, "mma").last().is_some_and(|l| l.starts_with("tcgen05.dealloc")), "{}", first.text);
}

#[test]
fn a_missing_dealloc_is_added_at_the_allocating_threads_end() {
    let search = small_search(&scenario_file("async/bug34_missing_dealloc_at_exit"), 1);
    let first = search.fixes.first().expect("a fix");
    assert!(body(&first.text, "mma").last().is_some_and(|l| l == "tcgen05.dealloc.cta_group::1.sync.aligned 32"), "{}", first.text);
}

#[test]
fn tcgen05_fences_on_the_wrong_sides_of_a_barrier_turn_round_together() {
    let search = small_search(&scenario_file("async/bug34_alloc_handoff_fences_swapped"), 1);
    let first = search.fixes.first().expect("a fix");
    assert_eq!(first.edits.len(), 2, "{:?}", first.edits);
    let (allocator, mma) = (body(&first.text, "allocator"), body(&first.text, "mma"));
    assert_eq!(allocator[1..3], ["tcgen05.fence::before_thread_sync", "bar.sync 1, 64"], "{allocator:?}");
    assert_eq!(mma[..2], ["bar.sync 1, 64", "tcgen05.fence::after_thread_sync"], "{mma:?}");
}

#[test]
fn an_open_cluster_barrier_instance_is_closed_by_a_wait() {
    let search = small_search(&scenario_file("async/bug35_dsmem_store_after_owner_exit"), 1);
    let first = search.fixes.first().expect("a fix");
    assert_eq!(body(&first.text, "owner"), ["barrier.cluster.arrive", "barrier.cluster.wait"], "{}", first.text);
    assert_eq!(first.edits.len(), 1, "{:?}", first.edits);
}

#[test]
fn moves_inserts_and_swaps_at_one_place_give_the_model_and_the_text_the_same_program() {
    let src = scenario_file("async/bug11_accumulator_written_after_fence");
    let loaded = crate::load(&src);
    let wgmma_fence = Instr::Wgmma(crate::model::WgmmaOp::Fence);
    let steps: Vec<Vec<Change>> = super::candidates::all(&loaded.scenario)
        .into_iter()
        .map(|(step, _)| step)
        .filter(|step| {
            step.iter().all(|c| match c {
                Change::Insert { instr, .. } | Change::InsertAfter { instr, .. } => *instr == wgmma_fence,
                Change::Move { .. } | Change::MoveDown { .. } => true,
                Change::Replace { .. } | Change::Remove { .. } | Change::DeclaredCount { .. } | Change::Declare { .. } => false,
            })
        })
        .collect();
    assert!(steps.iter().any(|s| matches!(s.as_slice(), [Change::Move { .. }])));
    for a in &steps {
        for b in steps.iter().filter(|b| super::change::compatible_step(a, b)) {
            let changes = super::change::with(a, b.clone());
            let (text, _) = edit_source(&src, &loaded.source_map, &loaded.scenario, &changes, &[], &[]).expect("edits apply");
            let (model, _) = apply(&loaded.scenario, &changes);
            assert_eq!(crate::load(&text).scenario.threads, model.threads, "{changes:?}");
        }
    }
}

#[test]
fn a_declared_arrival_count_is_corrected_in_its_declaration() {
    let src = scenario_file("async/bug28_empty_count_too_low");
    let limits = super::Limits { max_edits: 1, max_checks: 400, ..super::Limits::default() };
    let search = super::fix(&src, Mode::Pragmatic, &limits, &mut |_, _| true).expect("loads");
    let fix = search.fixes.iter().find(|f| f.text.contains("mbarrier empty @A count 2")).expect("the count fix");
    assert_eq!(fix.edits.len(), 1, "{:?}", fix.edits);
    assert_eq!((fix.edits[0].line, fix.edits[0].before.as_str()), (8, "mbarrier empty @A count 1"));
    assert!(fix.modes.iter().any(|m| m.mode == Mode::Pragmatic && m.verdict == crate::check::Verdict::Correct), "{:?}", fix.modes);
    let loaded = crate::load(&src);
    let changes = [Change::DeclaredCount { bar: 1, count: 2 }];
    let (model, _) = apply(&loaded.scenario, &changes);
    assert_eq!(crate::load(&fix.text).scenario.mbarriers, model.mbarriers);
}

/// The search on `src` in `mode`, with a small budget; every fix re-checks correct there.
fn search_in(src: &str, mode: Mode, max_edits: usize) -> super::Search {
    let limits = super::Limits { max_edits, max_checks: 400, ..super::Limits::default() };
    let search = super::fix(src, mode, &limits, &mut |_, _| true).expect("loads");
    for f in &search.fixes {
        let report = crate::check::check_one_mode(&crate::load(&f.text).scenario, &crate::check::Options { mode, ..Default::default() });
        assert_eq!(report.verdict, crate::check::Verdict::Correct, "{}", f.text);
    }
    search
}

fn cost_of(path: &str) -> u32 {
    crate::cost::cost(&crate::load(&scenario_file(path)).scenario).total
}

#[test]
fn a_dealloc_waits_for_the_mma_committed_to_a_new_mbarrier() {
    let search = small_search(&scenario_file("async/bug34_dealloc_with_mma_in_flight"), 1);
    let first = search.fixes.first().expect("a fix");
    assert!(first.text.contains("\nmbarrier done @A count 1\n"), "{}", first.text);
    assert_eq!(
        body(&first.text, "mma")[1..],
        [
            "tcgen05.mma.cta_group::1 [acc], [a], [b]",
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one [done]",
            "wait mbarrier.try_wait.parity.shared::cta [done], 0",
            "tcgen05.dealloc.cta_group::1.sync.aligned 32",
        ],
        "{}",
        first.text
    );
    assert!(first.cost <= cost_of("async/bug34_fixed_commit_then_dealloc"), "{}", first.cost);
}

#[test]
fn a_reader_hands_the_slot_back_on_a_new_empty_barrier() {
    let search = search_in(&scenario_file("async/bug20_reuse_without_release"), Mode::Pragmatic, 1);
    let first = search.fixes.first().expect("a fix");
    assert!(first.text.contains("\nmbarrier handoff @A count 1\n"), "{}", first.text);
    let (producer, consumer) = (body(&first.text, "producer"), body(&first.text, "consumer"));
    assert_eq!(producer[2], "wait mbarrier.try_wait.parity.shared::cta [handoff], 0", "{producer:?}");
    assert_eq!(consumer[1..3], ["ld.shared r0, [slot]", "mbarrier.arrive.shared::cta [handoff]"], "{consumer:?}");
    assert!(first.cost <= cost_of("async/bug20_fixed_empty_barrier"), "{}", first.cost);
}

#[test]
fn a_cp_async_handoff_on_a_new_mbarrier_replaces_the_bar_sync() {
    let search = small_search(&scenario_file("async/bug24_cp_async_bar_sync_only"), 1);
    let first = search.fixes.first().expect("a fix");
    let (issuer, reader) = (body(&first.text, "issuer"), body(&first.text, "reader"));
    assert!(!issuer.iter().chain(&reader).any(|l| l.starts_with("bar.sync")), "{}", first.text);
    assert!(issuer.get(1).is_some_and(|l| l.starts_with("cp.async.mbarrier.arrive")), "{}", first.text);
    assert_eq!(body(&first.text, "reader")[0], "wait mbarrier.try_wait.parity.shared::cta [done], 0", "{}", first.text);
    assert!(first.cost <= cost_of("async/bug24_fixed_arrive"), "{}", first.cost);
}

#[test]
fn a_closing_wait_goes_ahead_of_a_new_cluster_round_at_the_same_place() {
    let search = small_search(&scenario_file("async/bug35_dsmem_load_after_owner_exit"), 1);
    let first = search.fixes.first().expect("a fix");
    let twin = scenario_file("async/bug35_dsmem_load_fixed");
    assert_eq!(body(&first.text, "owner"), body(&twin, "owner"), "{}", first.text);
    assert!(first.cost <= cost_of("async/bug35_dsmem_load_fixed"), "{}", first.cost);
}

#[test]
fn a_remote_reader_arrives_on_the_producers_empty_barrier_with_the_count_and_wait_linked() {
    let scenario = crate::load(&scenario_file("async/bug29_multicast_war")).scenario;
    let twin = crate::load(&scenario_file("async/bug29_fixed")).scenario;
    let found = super::handoffs::remote_arrivals(&scenario).into_iter().any(|(step, _)| {
        let (model, _) = apply(&scenario, &step);
        model.threads == twin.threads && model.mbarriers == twin.mbarriers
    });
    assert!(found, "one step writes the twin's three edits");
    // From the original the linked step is tried although single edits rank nearer.
    let search = search_in(&scenario_file("async/bug29_multicast_war"), Mode::Pragmatic, 1);
    let first = search.fixes.first().expect("a fix");
    assert!(first.text.contains("mbarrier ea @A count 2"), "{}", first.text);
    assert!(body(&first.text, "consumer_b").iter().any(|l| l == "mbarrier.arrive.release.cluster.shared::cluster [ea]"), "{}", first.text);
    assert!(first.cost <= cost_of("async/bug29_fixed"), "{}", first.cost);
}

#[test]
fn inserts_at_one_place_follow_their_synchronization_roles() {
    use crate::model::{AddrSpace, MbarKind, MbarOp, Operand, TcOp};
    let arrive = Instr::Mbar(MbarOp {
        kind: MbarKind::Arrive { count: None, expect_tx: None, no_complete: false, drop: false, state: None },
        sem: None,
        scope: None,
        space: Some(AddrSpace::SharedCta),
        bar: "z".into(),
    });
    let wait = Instr::Wait {
        instr: Box::new(Instr::Mbar(MbarOp {
            kind: MbarKind::Wait { blocking: true, parity: true, phase: Operand::Imm(0), dst: None },
            sem: None,
            scope: None,
            space: Some(AddrSpace::SharedCta),
            bar: "a".into(),
        })),
        until: None,
    };
    let commit = Instr::Tc(TcOp::Commit { bar: "z".into(), multicast: Vec::new(), cta_group: 1 });
    let cp_arrive = Instr::CpAsyncMbarArrive { bar: "z".into(), noinc: false, space: Some(AddrSpace::SharedCta) };
    // Names chosen so that text order would put each pair the wrong way round.
    let insert = |instr: &Instr| Change::Insert { thread: 0, before: 0, instr: instr.clone() };
    for (first, second) in [(&arrive, &wait), (&commit, &wait), (&cp_arrive, &arrive)] {
        let set = super::change::with(&[insert(second)], vec![insert(first)]);
        assert_eq!(set, [insert(first), insert(second)], "{first:?} goes before {second:?}");
    }
}

#[test]
fn two_edits_reach_the_release_acquire_repair_of_message_passing() {
    // The beam keeps the release-side partial fix beside the acquire-side ones, so the
    // pair is found with two edits, as with more.
    let src = MP.replace("st.global [data], 42  # payload", "st.global [data], 42");
    let cheapest = |max_edits| {
        let limits = super::Limits { max_edits, ..super::Limits::default() };
        let search = super::fix(&src, Mode::Strict, &limits, &mut |_, _| true).expect("loads");
        search.fixes.first().map(|f| (f.cost, f.text.clone()))
    };
    let (two, four) = (cheapest(2).expect("a fix with two edits"), cheapest(4).expect("a fix with four"));
    assert_eq!(two.0, four.0, "{}\n---\n{}", two.1, four.1);
    assert!(two.1.contains("st.release.gpu.global [flag], 1"), "{}", two.1);
}

/// Every execution of `text`'s program in strict mode ends with `reader:r0 == 42`.
fn reader_reads_the_owners_value(text: &str) -> bool {
    let report = crate::check::check_one_mode(&crate::load(text).scenario, &crate::check::Options { mode: Mode::Strict, ..Default::default() });
    !report.outcomes.is_empty()
        && report.outcomes.iter().all(|o| o.values.iter().any(|(term, v)| term == "reader:r0" && *v == 42))
}

#[test]
fn no_fix_turns_the_data_flow_round_to_read_the_initial_value() {
    // Bug 35's reader reads the owner's 42 after a cluster barrier. Its load moved above
    // the barrier, with a new round before the owner's store, re-checks correct; it
    // reads 0.
    let search = small_search(&scenario_file("async/bug35_dsmem_load_after_owner_exit"), 2);
    assert!(!search.fixes.is_empty());
    for f in &search.fixes {
        assert!(reader_reads_the_owners_value(&f.text), "{}", f.text);
    }
}

#[test]
fn a_move_never_carries_a_read_above_a_wait_or_a_write_below_an_arrive() {
    let scenario = crate::load(&scenario_file("async/bug35_dsmem_load_after_owner_exit")).scenario;
    let moves = |thread: usize| -> Vec<(usize, usize)> {
        super::candidates::all(&scenario)
            .into_iter()
            .filter_map(|(step, _)| match step.as_slice() {
                [Change::MoveDown { thread: t, at }] if *t == thread => Some((*at, at + 1)),
                [Change::Move { thread: t, from, to }] if *t == thread => Some((*from, *to)),
                _ => None,
            })
            .collect()
    };
    // reader: arrive, wait, ld. The wait may not go below the load, nor the load above it.
    let reader = moves(0);
    assert!(!reader.contains(&(1, 2)), "{reader:?}");
    assert!(!reader.iter().any(|(from, _)| *from == 2), "{reader:?}");
    // The arrive may still move down past the wait (how it synchronizes, not what it reads).
    assert!(reader.contains(&(0, 1)), "{reader:?}");
    // owner: st, arrive. The store may not go below the arrive that publishes it.
    assert!(!moves(1).contains(&(0, 1)), "{:?}", moves(1));
}

#[test]
fn a_fix_may_not_end_with_a_value_the_original_never_ends_with() {
    let strict = |src: &str| crate::check::check_one_mode(&crate::load(src).scenario, &crate::check::Options { mode: Mode::Strict, ..Default::default() });
    let original = strict(&scenario_file("async/bug35_dsmem_load_after_owner_exit"));
    let twin = strict(&scenario_file("async/bug35_dsmem_load_fixed"));
    let inverted = strict(
        "cluster C\ncta A in C\ncta B in C\nshared y @B = 0\n\nthread reader @A:\n    ld.shared::cluster r0, [y]\n    barrier.cluster.arrive\n    barrier.cluster.wait\n    barrier.cluster.arrive.relaxed\n\nthread owner @B:\n    barrier.cluster.arrive.relaxed\n    barrier.cluster.wait\n    st.shared [y], 42\n    barrier.cluster.arrive\n\nexpect correct\n",
    );
    assert_eq!(inverted.verdict, crate::check::Verdict::Correct);
    // The twin ends with r0 == 42 only; the inverted program with 0.
    assert!(super::search::keeps_outcomes(&twin, &twin));
    assert!(!super::search::keeps_outcomes(&twin, &inverted));
    // Bug 35 itself has no complete execution (the owner's last step exits B before any
    // read), so its outcomes say nothing: the move rule above is what guards it.
    assert!(original.outcomes.is_empty());
    assert!(super::search::keeps_outcomes(&original, &inverted));
}
