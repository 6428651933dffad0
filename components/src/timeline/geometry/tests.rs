use fencelab::check::view::AsyncOpState;
use fencelab::check::{Mode, Stepper};

use super::*;
use crate::state::STARTER_SCENARIO;
use crate::tape::Tape;

fn tape(src: &str) -> Tape {
    let loaded = fencelab::load(src);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    Tape::new(loaded.scenario, Mode::Strict).expect("stepper starts")
}

fn run_to_end(t: &mut Tape) {
    let mut taken = 0;
    while t.forward().expect("step") {
        taken += 1;
        assert!(taken < 100, "the scenario ends");
    }
}

/// The diagram of the whole line on `t`, as the component builds it.
fn timeline_of(t: &Tape, rings: &[usize]) -> Timeline {
    let whole: Stepper = t.whole_line().expect("replays");
    let now = t.stepper().snapshot();
    let all = whole.snapshot();
    Timeline::of(&TimelineInput {
        agents: &whole.agents(),
        events: whole.history(),
        position: t.position(),
        edges: &all.edges,
        failed: &all.failed_edges,
        async_ops: &now.async_ops,
        rings,
    })
}

#[test]
fn the_starter_has_one_cta_arrow_from_the_arrive_to_the_wait() {
    let mut t = tape(STARTER_SCENARIO);
    run_to_end(&mut t);
    let tl = timeline_of(&t, &[]);
    let names: Vec<&str> = tl.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["producer", "consumer"]);
    assert_eq!(tl.rows.len(), 5, "start + four steps");
    assert_eq!(tl.dots.len(), 4);
    let formed: Vec<&Arrow> = tl.arrows.iter().filter(|a| matches!(&a.kind, ArrowKind::Formed { scope } if scope == "cta")).collect();
    assert_eq!(formed.len(), 1, "{:?}", tl.arrows);
    let arrow = formed[0];
    let (producer, consumer) = (tl.columns[0].x, tl.columns[1].x);
    // The arrive is the producer's second step (row 2), the wait the consumer's (row 3).
    assert!(arrow.from.0 > producer && arrow.from.0 < producer + DOT_RADIUS + 0.1, "{arrow:?}");
    assert!(arrow.to.0 < consumer && arrow.to.0 > consumer - DOT_RADIUS - 1.1, "{arrow:?}");
    assert!(arrow.from.1 > row_y(2) && arrow.from.1 < row_y(3), "leaves the arrive's dot downwards");
    assert!(arrow.to.1 > row_y(2) && arrow.to.1 < row_y(3), "reaches the wait's dot");
    assert!(arrow.caption.contains("producer (step 2) ⇢ consumer (step 3)"), "{}", arrow.caption);
    assert!(arrow.head.starts_with(&format!("{:.1},{:.1}", arrow.to.0, arrow.to.1)), "the head's tip is the end");
    assert!(tl.rows.iter().all(|r| !r.ahead) && tl.rows.last().is_some_and(|r| r.current));
}

#[test]
fn steps_and_edges_ahead_on_the_tape_are_marked_ahead() {
    let mut t = tape(STARTER_SCENARIO);
    run_to_end(&mut t);
    t.jump(2).expect("back to after the arrive");
    let tl = timeline_of(&t, &[]);
    assert_eq!(tl.dots.len(), 4, "the whole line is drawn");
    let ahead: Vec<usize> = tl.dots.iter().filter(|d| d.ahead).map(|d| d.step).collect();
    assert_eq!(ahead, [3, 4]);
    assert!(tl.dots.iter().any(|d| d.step == 2 && d.current));
    assert!(tl.rows.get(2).is_some_and(|r| r.current) && tl.rows.get(3).is_some_and(|r| r.ahead));
    assert!(tl.arrows.iter().all(|a| a.ahead), "the only edge forms at the wait, step 3");
}

#[test]
fn a_scope_too_narrow_draws_a_failed_edge_with_its_reason() {
    // The consumer sits in another CTA of the cluster, so a .cta release does not reach it.
    let src = "\
cluster K
cta A in K
cta B in K
global x = 0
global flag = 0

thread producer @A:
    st.global [x], 42
    st.release.cta.global [flag], 1

thread consumer @B:
    wait ld.acquire.cluster.global r0, [flag] == 1
    ld.global r1, [x]
";
    let mut t = tape(src);
    run_to_end(&mut t);
    let tl = timeline_of(&t, &[]);
    let failed: Vec<&Arrow> = tl.arrows.iter().filter(|a| matches!(a.kind, ArrowKind::Failed { .. })).collect();
    assert_eq!(failed.len(), 1, "one arrow per distinct failed attempt: {:?}", tl.arrows);
    let ArrowKind::Failed { reason } = &failed[0].kind else { unreachable!() };
    assert!(reason.contains("scope"), "{reason}");
    assert!(failed[0].caption.starts_with("✗ no synchronization from producer (step 2) to consumer"), "{}", failed[0].caption);
    let expected = format!("0 synchronizes-with edge(s), {} failed attempt(s)", failed.len());
    assert!(tl.summary().contains(&expected), "{}", tl.summary());
    assert!(failed.iter().all(|a| a.path.starts_with('M')), "{failed:?}");
}

#[test]
fn async_agents_get_a_column_with_their_state() {
    let src = include_str!("../../../../tests/scenarios/templates/tma-load.fence");
    let mut t = tape(src);
    run_to_end(&mut t);
    let end = timeline_of(&t, &[]);
    let tma = end.columns.iter().find(|c| c.name.starts_with("tma")).expect("a TMA column");
    assert_eq!(tma.badge, ColumnBadge::Async(AsyncOpState::Completed));
    assert!(tma.life_from > row_y(0), "an async agent's lifeline starts at its first step");
    t.jump(0).expect("rewind");
    let start = timeline_of(&t, &[]);
    let tma = start.columns.iter().find(|c| c.name.starts_with("tma")).expect("the column stays");
    assert_eq!(tma.badge, ColumnBadge::NotIssued, "not issued at the start");
    assert!(start.width > GUTTER + 2.0 * COLUMN_WIDTH, "three columns");
    let tma_labels: Vec<&str> =
        end.dots.iter().filter(|d| (d.x - tma.x).abs() < 0.1).map(|d| d.label.as_str()).collect();
    assert_eq!(tma_labels, ["copied", "complete_tx"], "an async step is labelled by what it did");
}

#[test]
fn ringed_steps_are_the_ones_asked_for() {
    let mut t = tape(STARTER_SCENARIO);
    run_to_end(&mut t);
    let tl = timeline_of(&t, &[0, 3]);
    let ringed: Vec<usize> = tl.dots.iter().filter(|d| d.ringed).map(|d| d.step).collect();
    assert_eq!(ringed, [1, 4], "0-based witness steps ring 1-based rows");
}

#[test]
fn an_edge_within_one_column_loops_to_the_right() {
    let path = arrow((100.0, 50.0), (100.0, 110.0), ArrowKind::Formed { scope: "cta".into() }, false, String::new())
        .expect("an arrow");
    assert!(path.path.contains(" C "), "{}", path.path);
    assert!(path.from.0 > 100.0 && path.to.0 > 100.0);
    assert!(arrow((1.0, 1.0), (1.0, 1.0), ArrowKind::Formed { scope: "cta".into() }, false, String::new()).is_none());
}

#[test]
fn a_relaxed_arrive_is_a_failed_edge_from_its_own_step() {
    let src = STARTER_SCENARIO.replace("mbarrier.arrive.release.cta", "mbarrier.arrive.relaxed.cta");
    let mut t = tape(&src);
    run_to_end(&mut t);
    let tl = timeline_of(&t, &[]);
    let failed: Vec<&Arrow> = tl.arrows.iter().filter(|a| matches!(a.kind, ArrowKind::Failed { .. })).collect();
    assert_eq!(failed.len(), 1, "{:?}", tl.arrows);
    assert!(failed[0].caption.contains("from producer (step 2) to consumer (step 3)"), "{}", failed[0].caption);
    assert!(failed[0].caption.contains("relaxed"), "{}", failed[0].caption);
    // The arrow leaves the edge of the arrive's dot, a few pixels off the row's centre.
    assert!((failed[0].from.1 - row_y(2)).abs() < ROW_HEIGHT / 4.0, "drawn from the arrive's row: {}", failed[0].from.1);
    assert!(!tl.arrows.iter().any(|a| matches!(a.kind, ArrowKind::Formed { .. })), "nothing formed");
}

#[test]
fn a_cluster_handoff_draws_a_cluster_arrow() {
    let src = include_str!("../../../../tests/scenarios/templates/cluster-handoff.fence");
    let mut t = tape(src);
    run_to_end(&mut t);
    let tl = timeline_of(&t, &[]);
    assert!(
        tl.arrows.iter().any(|a| matches!(&a.kind, ArrowKind::Formed { scope } if scope == "cluster")),
        "{:?}",
        tl.arrows
    );
}

#[test]
fn a_failed_edge_with_no_releasing_agent_comes_from_nowhere() {
    // Waiting for parity 1 of a fresh barrier passes at once and observes no phase.
    let src = STARTER_SCENARIO.replace("[bar], 0", "[bar], 1").replace("expect correct", "");
    let mut t = tape(&src);
    t.take(fencelab::schedule::Step { agent: 1, choice: 0 }).expect("the consumer waits first");
    run_to_end(&mut t);
    let tl = timeline_of(&t, &[]);
    let orphan = tl
        .arrows
        .iter()
        .find(|a| a.caption.starts_with("✗ no synchronization to consumer"))
        .unwrap_or_else(|| panic!("an arrow from nowhere: {:?}", tl.arrows));
    assert!(orphan.from.0 < orphan.to.0 && orphan.from.1 < orphan.to.1, "comes in from the upper left: {orphan:?}");
}
