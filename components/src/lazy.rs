//! Panels whose code is not in the first load: each lives in a wasm chunk of its own
//! (split off by `scripts/split-app-wasm.sh`, docs/loading.md), fetched the first time the
//! panel is shown. Until then the panel's place says it is loading; if its chunk cannot be
//! fetched, it says so, and a later showing tries again (the split loader keeps no failure).
//!
//! A split function is declared with `#[leptos::wasm_split::wasm_split(CHUNK, fallible,
//! wasm_split_path = ::leptos::wasm_split)]` and returns `Result<AnyView, ChunkLoadFailed>`:
//! calling it fetches CHUNK (once) and then runs it. Its arguments and result cross an
//! `extern "C"` boundary, so they are concrete types and it must not panic.

use std::future::{poll_fn, Future};
use std::task::{Context, Poll, Waker};

pub use gate::ChunkGate;

use leptos::prelude::*;
use leptos::task;

/// A panel's chunk did not load (the browser's console has the network's reason).
#[derive(Clone, Copy, Debug)]
pub struct ChunkLoadFailed;

impl From<leptos::wasm_split::SplitLoaderError> for ChunkLoadFailed {
    fn from(_: leptos::wasm_split::SplitLoaderError) -> ChunkLoadFailed {
        ChunkLoadFailed
    }
}

/// The view a split function builds, once its chunk is here. `what` names the panel in
/// the loading and failure messages ("the lessons"). Once the chunk has loaded, the
/// future is ready at its first poll and the panel renders with no loading state.
///
/// Not Leptos's `<Suspense>`: a Suspense keeps the view it shows (and every effect in it)
/// alive for one more turn of the task queue after its page is gone, because its state is
/// an effect whose value only that effect's own task drops; a plain reactive closure drops
/// its view at once. In that turn an effect of the panel could still run, on values its
/// disposed owner had held: leaving the explorer clears the fix search's step marks (its
/// cleanup writes `InstrNotes`), which woke the lanes' program lists ahead of the
/// Suspense's task, and they panicked reading their disposed `programs` signal
/// (benches/results/2026-11-25-loading-rounds.md, "Seventh round"). Here the panel is the
/// value of a reactive closure, so it goes with its page like any other view.
pub fn lazy_panel(what: &'static str, panel: impl Future<Output = Result<AnyView, ChunkLoadFailed>> + 'static) -> impl IntoView {
    let mut panel = Box::pin(panel);
    let (gate, first) = first_poll(&mut panel);
    let arrived = RwSignal::new_local(match first {
        Poll::Ready(result) => Some(result),
        Poll::Pending => None,
    });
    if arrived.with_untracked(Option::is_none) {
        // Dropped when the panel's place goes: a chunk that arrives later builds nothing.
        task::spawn_local_scoped_with_cancellation(async move {
            let result = rest(gate, panel).await;
            // Rendered in a task of its own: one pack brings several panels' chunks at
            // once, and their renders in the task that instantiated it were one task of
            // 25 ms of CPU (benches/results/2026-11-25-loading-rounds.md).
            // Gone by then if the learner left.
            set_timeout(move || drop(arrived.try_set(Some(result))), std::time::Duration::ZERO);
        });
    }
    move || {
        arrived.track();
        match arrived.try_update_untracked(Option::take).flatten() {
            None => view! { <p class="lazy-loading" data-lazy-loading=what aria-busy="true">{format!("Loading {what}…")}</p> }.into_any(),
            Some(Ok(view)) => view,
            Some(Err(ChunkLoadFailed)) => view! {
                <p class="step-error lazy-failed" data-lazy-failed=what role="alert">
                    {format!("The code for {what} did not load (the browser's console says why). Leave it and come back to try again, or reload the page.")}
                </p>
            }
            .into_any(),
        }
    }
}

/// A view of what a split function returns: `view(Some(..))` at once if its chunk is
/// here, else `view(None)` until it arrives, then `view(Some(..))`. A chunk that does not
/// load leaves `view(None)` (the browser's console has the network's reason).
pub fn with_chunk<T: 'static>(
    result: impl Future<Output = Result<T, ChunkLoadFailed>> + 'static,
    view: impl Fn(Option<&T>) -> AnyView + Send + 'static,
) -> AnyView {
    let mut result = Box::pin(result);
    let (gate, first) = first_poll(&mut result);
    match first {
        Poll::Ready(result) => view(result.ok().as_ref()),
        Poll::Pending => {
            let arrived = RwSignal::new_local(None);
            task::spawn_local_scoped_with_cancellation(async move {
                if let Ok(value) = rest(gate, result).await {
                    arrived.set(Some(value));
                }
            });
            (move || arrived.with(|value| view(value.as_ref()))).into_any()
        }
    }
}

/// A split function's first poll, now: none while the page's chunk fetches are held
/// (`ChunkGate`), which `rest` then waits for.
fn first_poll<F: Future + ?Sized>(future: &mut std::pin::Pin<Box<F>>) -> (Option<ChunkGate>, Poll<F::Output>) {
    let gate = use_context::<ChunkGate>();
    let first = if gate.is_some_and(ChunkGate::is_held) { Poll::Pending } else { poll_now(future) };
    (gate, first)
}

/// The rest of a split function's future after a pending `first_poll`: once `gate` lets
/// its fetch go, untracked like the first poll.
async fn rest<F: Future + ?Sized>(gate: Option<ChunkGate>, mut future: std::pin::Pin<Box<F>>) -> F::Output {
    ChunkGate::pass(gate).await;
    poll_fn(|cx| untrack(|| future.as_mut().poll(cx))).await
}

/// What a split function returns when its chunk has loaded already; `None` if it has not
/// (the load it starts then goes on) or failed. For calls that can only come after the
/// chunk's first use, such as the stepping session's (`crate::tape`).
pub fn if_loaded<T>(result: impl Future<Output = Result<T, ChunkLoadFailed>>) -> Option<T> {
    match poll_now(&mut Box::pin(result)) {
        Poll::Ready(Ok(value)) => Some(value),
        Poll::Ready(Err(ChunkLoadFailed)) | Poll::Pending => None,
    }
}

/// Polls a split function's future once, without a waker: ready at once when its chunk
/// has loaded. Untracked, as a component body is, so the signals the split function
/// reads do not rerun the caller.
pub(crate) fn poll_now<F: Future + ?Sized>(future: &mut std::pin::Pin<Box<F>>) -> Poll<F::Output> {
    untrack(|| future.as_mut().poll(&mut Context::from_waker(Waker::noop())))
}

mod gate {
    use std::future::poll_fn;
    use std::task::{Poll, Waker};

    use leptos::prelude::*;

    /// Holds back the page's chunk fetches while something more urgent runs:
    /// - the worker's fetch of the code the first verdict needs. A page opened on a shared
    ///   link checks its scenario at once, and its worker's fetches (its glue, the
    ///   checker's chunks) would otherwise queue behind the panels' dozens of chunks on the
    ///   browser's few connections per host. Released for good once the worker has the
    ///   checker or the first check has ended (`crate::check_client`).
    /// - the explorer's first verdict (`crate::explore`): the panels it renders (the fix
    ///   panel, the outcome table's observations) start their chunks' fetches after the
    ///   frame that shows it, not in the task that renders it, which the fetches' own
    ///   work made long (benches/results/2026-11-25-loading-rounds.md).
    ///
    /// Provided at the root; without one, nothing waits.
    #[derive(Clone, Copy)]
    pub struct ChunkGate(StoredValue<Gate, LocalStorage>);

    struct Gate {
        for_worker: bool,
        for_first_verdict: bool,
        waiting: Vec<Waker>,
    }

    impl Gate {
        fn held(&self) -> bool {
            self.for_worker || self.for_first_verdict
        }
    }

    impl ChunkGate {
        /// `for_worker`: held until `release`.
        pub fn new(for_worker: bool) -> ChunkGate {
            ChunkGate(StoredValue::new_local(Gate { for_worker, for_first_verdict: false, waiting: Vec::new() }))
        }

        pub fn is_held(self) -> bool {
            self.0.try_with_value(Gate::held).unwrap_or(false)
        }

        /// Whether the fetches wait for the worker (until `release`).
        pub fn waits_for_worker(self) -> bool {
            self.0.try_with_value(|g| g.for_worker).unwrap_or(false)
        }

        /// The worker has what it needs: the fetches go, unless a verdict still holds them.
        pub fn release(self) {
            self.open(|g| g.for_worker = false);
        }

        /// Holds the fetches until `verdict_shown`.
        pub fn hold_for_verdict(self) {
            let _ = self.0.try_update_value(|g| g.for_first_verdict = true);
        }

        /// The verdict is on screen: the fetches go, unless the worker still holds them.
        pub fn verdict_shown(self) {
            self.open(|g| g.for_first_verdict = false);
        }

        fn open(self, clear: impl FnOnce(&mut Gate)) {
            let waiting = self.0.try_update_value(|g| {
                clear(g);
                if g.held() { Vec::new() } else { std::mem::take(&mut g.waiting) }
            });
            waiting.into_iter().flatten().for_each(Waker::wake);
        }

        /// Waits until `gate` (if any) is released, or gone with its owner.
        pub async fn pass(gate: Option<ChunkGate>) {
            let Some(gate) = gate else { return };
            poll_fn(|cx| {
                let held = gate.0.try_update_value(|g| {
                    let held = g.held();
                    if held {
                        g.waiting.push(cx.waker().clone());
                    }
                    held
                });
                if held == Some(true) { Poll::Pending } else { Poll::Ready(()) }
            })
            .await;
        }
    }

    #[cfg(test)]
    mod tests {
        use std::future::Future;
        use std::pin::pin;
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::Arc;
        use std::task::{Context, Wake};

        use super::*;

        /// Counts its wakes.
        struct Wakes(AtomicUsize);

        impl Wake for Wakes {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }

        #[test]
        fn a_fetch_waits_for_both_holds_and_is_woken_once_when_the_last_goes() {
            let owner = Owner::new();
            owner.with(|| {
                let gate = ChunkGate::new(true);
                gate.hold_for_verdict();
                let wakes = Arc::new(Wakes(AtomicUsize::new(0)));
                let waker = Waker::from(wakes.clone());
                let mut cx = Context::from_waker(&waker);
                let mut passing = pin!(ChunkGate::pass(Some(gate)));
                assert!(passing.as_mut().poll(&mut cx).is_pending());
                gate.release();
                assert!(gate.is_held() && !gate.waits_for_worker(), "the verdict still holds it");
                assert_eq!(wakes.0.load(Ordering::SeqCst), 0);
                gate.verdict_shown();
                assert!(!gate.is_held());
                assert_eq!(wakes.0.load(Ordering::SeqCst), 1);
                assert!(passing.as_mut().poll(&mut cx).is_ready());
                // A verdict shown twice (its task, then the page's cleanup) changes nothing.
                gate.verdict_shown();
                assert!(!gate.is_held());
            });
        }

        #[test]
        fn the_verdict_alone_holds_an_explorer_gate() {
            let owner = Owner::new();
            owner.with(|| {
                let gate = ChunkGate::new(false);
                assert!(!gate.is_held());
                gate.hold_for_verdict();
                assert!(gate.is_held() && !gate.waits_for_worker());
                gate.verdict_shown();
                assert!(!gate.is_held());
            });
        }
    }
}
