//! What the stepper records of each step for the machine view: the write a read returned,
//! the newer write a stale read missed and why, and the mbarrier debts gauges show.

use fencelab::check::view::{EventView, MachineView};
use fencelab::check::{Mode, Stepper};
use fencelab::schedule::Step;

fn stepper(src: &str) -> Stepper {
    let loaded = fencelab::load(src);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>());
    Stepper::new(&loaded.scenario, Mode::Pragmatic).unwrap_or_else(|e| panic!("{e}"))
}

fn take(st: &mut Stepper, agent: u32, choice: u32) -> EventView {
    st.step(Step { agent, choice }).unwrap_or_else(|e| panic!("step {agent}/{choice}: {e}"))
}

const MP_RELAXED: &str = include_str!("../components/templates/mp-relaxed.fence");
const MP_RELEASE_ACQUIRE: &str = include_str!("../components/templates/mp-release-acquire.fence");
const TMA_LOAD: &str = include_str!("scenarios/templates/tma-load.fence");

/// The message-passing race: the consumer sees the flag and reads the initial 0 of `data`.
fn mp_race() -> (Stepper, EventView) {
    let mut st = stepper(MP_RELAXED);
    take(&mut st, 0, 0); // data = 42
    take(&mut st, 0, 0); // flag = 1
    take(&mut st, 1, 0); // the spin reads flag = 1
    // Both writes of data are visible to the consumer: choice 0 is the initial value.
    let read = take(&mut st, 1, 0);
    (st, read)
}

#[test]
fn a_stale_read_names_its_write_the_write_it_missed_and_why() {
    let (st, event) = mp_race();
    let [read] = event.reads.as_slice() else { panic!("one read expected: {:?}", event.reads) };
    assert_eq!((read.location.as_str(), read.value, read.write), ("data", 0, 0), "{read:?}");
    assert_eq!(read.from.writer, "init");
    let stale = read.stale.as_ref().unwrap_or_else(|| panic!("the read of 0 is stale: {read:?}"));
    assert_eq!((stale.missed, stale.missed_write.value, stale.missed_write.writer.as_str()), (1, 42, "producer"));
    assert!(!stale.reason.is_empty() && !stale.reason.contains('\n'), "one line: {}", stale.reason);
    // The final picture keeps both of the consumer's reads: the flag's 1 and data's stale 0.
    let MachineView { reads, .. } = st.snapshot();
    let kept: Vec<(&str, i64, bool)> = reads.iter().map(|r| (r.location.as_str(), r.value, r.stale.is_some())).collect();
    assert_eq!(kept, [("flag", 1, false), ("data", 0, true)]);
}

#[test]
fn the_flag_read_names_the_write_it_returned() {
    let (st, _) = mp_race();
    let flag = st.history()[2].reads.first().cloned().unwrap_or_else(|| panic!("the spin reads the flag"));
    assert_eq!((flag.value, flag.write, flag.from.writer.as_str(), flag.from.step), (1, 1, "producer", Some(1)));
}

#[test]
fn a_read_ordered_by_release_acquire_is_not_stale() {
    let mut st = stepper(MP_RELEASE_ACQUIRE);
    take(&mut st, 0, 0);
    take(&mut st, 0, 0);
    take(&mut st, 1, 0);
    let event = take(&mut st, 1, 0);
    let [read] = event.reads.as_slice() else { panic!("one read expected: {:?}", event.reads) };
    assert_eq!((read.value, read.stale.is_none()), (42, true), "{read:?}");
}

/// An RMW writes after it reads: its own new value is not a write its read missed.
#[test]
fn an_rmw_reading_the_latest_write_is_not_stale() {
    let mut st = stepper("cta A\nglobal lock = 0\nthread t0 @A:\n    atom.acquire.gpu.global.exch r0, [lock], 1\nexpect correct\n");
    let event = take(&mut st, 0, 0);
    let [read] = event.reads.as_slice() else { panic!("one read expected: {:?}", event.reads) };
    assert_eq!((read.value, read.from.writer.as_str()), (0, "init"), "{read:?}");
    assert!(read.stale.is_none(), "the exchange's own 1 is not a write it missed: {read:?}");
}

#[test]
fn a_write_step_reads_nothing() {
    let mut st = stepper(MP_RELAXED);
    assert!(take(&mut st, 0, 0).reads.is_empty());
}

#[test]
fn the_completing_transaction_shows_the_phase_it_paid() {
    let mut st = stepper(TMA_LOAD);
    let expect = take(&mut st, 0, 0); // arrive.expect_tx 64
    let change = expect.mbarriers.first().cloned().unwrap_or_else(|| panic!("the arrive changes full"));
    assert_eq!((change.pending_after, change.tx_after, change.completed_phase()), (0, 64, false));
    let debt = st.snapshot().debts.first().cloned().unwrap_or_else(|| panic!("one mbarrier"));
    assert_eq!((debt.phase, debt.just_completed, debt.tx_expected, debt.tx_landed, debt.arrivals_made), (0, false, 64, 0, 1));
    take(&mut st, 0, 0); // issue the copy
    // Run the copy agent until the phase completes.
    let mut completed = false;
    for _ in 0..8 {
        let Some(agent) = st.agents().iter().find(|a| a.id >= 2 && matches!(a.status, fencelab::check::view::AgentStatusView::Enabled { .. })).map(|a| a.id) else { break };
        let event = take(&mut st, agent, 0);
        if event.mbarriers.iter().any(|c| c.completed_phase()) {
            completed = true;
            break;
        }
    }
    assert!(completed, "the copy's complete_tx completes phase 0");
    let debt = st.snapshot().debts.first().cloned().unwrap_or_else(|| panic!("one mbarrier"));
    assert_eq!((debt.phase, debt.just_completed, debt.tx_expected, debt.tx_landed, debt.arrivals_made), (0, true, 64, 64, 1));
    assert_eq!(st.snapshot().mbarriers.first().map(|b| b.phase), Some(1), "the machine itself is in phase 1");
}

#[test]
fn an_unpaid_transaction_debt_stays_on_the_gauge() {
    // Lesson 7: expect 32 bytes, deliver 16: the waiter hangs.
    let src = "cta A\nshared x @A = 0\nmbarrier bar @A count 1\n\nthread producer @A:\n    \
               mbarrier.arrive.expect_tx.shared::cta [bar], 32\n    mbarrier.complete_tx.relaxed.cta.shared::cta [bar], 16\n\n\
               thread consumer @A:\n    wait mbarrier.try_wait.parity.shared::cta [bar], 0\n    ld.shared r0, [x]\n";
    let mut st = stepper(src);
    take(&mut st, 0, 0);
    take(&mut st, 0, 0);
    let debt = st.snapshot().debts.first().cloned().unwrap_or_else(|| panic!("one mbarrier"));
    assert_eq!((debt.just_completed, debt.tx_expected, debt.tx_landed), (false, 32, 16));
    assert_eq!(st.snapshot().mbarriers.first().map(|b| b.tx), Some(16), "16 bytes still owed");
}


/// A bulk-group TMA store reads its source in one step and writes the destination in a
/// later one. Without `fence.proxy.async`, its async-proxy read of `buf` may return the
/// initial 0 while the writer's generic 42 sits newer in the cell: the step shows the read,
/// through which proxy, and the write it missed.
#[test]
fn a_tma_store_copy_shows_its_stale_read_through_the_async_proxy() {
    let src = include_str!("scenarios/templates/tma-store.fence").replace("    fence.proxy.async.shared::cta\n", "");
    let mut st = stepper(&src);
    take(&mut st, 0, 0); // buf = 42
    take(&mut st, 0, 0); // the writer arrives at the barrier
    take(&mut st, 1, 0); // the storer arrives; the barrier completes
    take(&mut st, 1, 0); // the storer issues the copy (agent 2)
    let event = take(&mut st, 2, 0); // the copy reads buf: choice 0 is the initial value
    let [read] = event.reads.as_slice() else { panic!("the copy's read of buf: {:?}", event.reads) };
    assert_eq!((read.location.as_str(), read.proxy.as_str(), read.value, read.from.writer.as_str()), ("buf", "async", 0, "init"), "{read:?}");
    let stale = read.stale.as_ref().unwrap_or_else(|| panic!("the read of 0 is stale: {read:?}"));
    assert_eq!((stale.missed_write.value, stale.missed_write.proxy.as_str()), (42, "generic"));
}
