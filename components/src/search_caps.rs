//! The caps of the explorer's checks, which its worker runs (issue 49). The core bounds a
//! search by states and by memory (`Options::max_states`, `Options::max_bytes`); the
//! browser needs its own memory cap, smaller than the CLI's, because every wasm memory the
//! tab holds counts against one renderer process and a wasm memory never shrinks
//! (ARCHITECTURE.md, "components/").

use fencelab::check::{Mode, Options};

/// 512 MiB: the worker's engine holds at most about this much (it counts its heap,
/// `engine/src/alloc.rs`, and measured peaks stay within 10% of the cap:
/// benches/results/2026-12-05-worker-memory.md); the fix panel's worker may hold as much
/// again, and the page's own wasm and DOM come on top. Chromium ends a tab near 4 GiB on
/// desktops and often near 2 GiB on phones, so two full workers and the page stay clear
/// of both.
pub const BROWSER_MAX_BYTES: u64 = 512 << 20;

/// localStorage key of a cap in MiB that replaces the default: for the browser tests,
/// which stop a search at a small cap in seconds, and for a person who wants another.
const MAX_MEMORY_KEY: &str = "fencelab.max-memory-mib";

/// localStorage key of a state cap that replaces the core's default (200,000, which keeps
/// a check to seconds): the memory measurements raise it so that the memory cap stops
/// the search (e2e/worker-memory.mjs).
const MAX_STATES_KEY: &str = "fencelab.max-states";

/// The range a stored cap is held to (MiB): below it the worker's own start-up heap is
/// most of the cap; above it a wasm32 memory cannot grow.
const MIB_RANGE: (u64, u64) = (16, 3072);

/// The memory cap of the explorer's checks, in bytes.
pub fn max_bytes() -> u64 {
    crate::storage::get(MAX_MEMORY_KEY)
        .and_then(|mib| mib.trim().parse::<u64>().ok())
        .map_or(BROWSER_MAX_BYTES, |mib| mib.clamp(MIB_RANGE.0, MIB_RANGE.1) << 20)
}

/// The state cap of the explorer's checks.
pub fn max_states() -> u64 {
    crate::storage::get(MAX_STATES_KEY)
        .and_then(|n| n.trim().parse::<u64>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(Options::default().max_states)
}

/// The options of an explorer check in `mode`.
pub fn check_options(mode: Mode) -> Options {
    Options { mode, max_bytes: max_bytes(), max_states: max_states(), ..Options::default() }
}
