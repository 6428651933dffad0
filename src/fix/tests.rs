use super::change::{apply, edit_source, expectations, Change};
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
