//! The axiomatic engine against the explorer on random small litmus programs
//! (`axiom::differ::litmus_from_bytes`: 2-4 threads of 2-4 instructions over two
//! locations and a surface alias; loads, stores, RMWs, thread and proxy fences,
//! `bar.sync`, all scopes), in the mode the first byte picks: every outcome the explorer
//! reaches is allowed by the axioms, and every outcome the axioms allow that the explorer
//! could perform is reached (`axiom::differ::mismatches`). Neither engine may panic.

#![no_main]

use fencelab::axiom::differ::{litmus_from_bytes, mismatches};
use fencelab::check::{Mode, Options};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, bytes)) = data.split_first() else { return };
    let mode = if mode % 2 == 0 { Mode::Strict } else { Mode::Pragmatic };
    let scenario = litmus_from_bytes(bytes);
    let options = Options { mode, max_states: 20_000, ..Options::default() };
    if let Some(problems) = mismatches(&scenario, &options) {
        assert!(problems.is_empty(), "{}\n{}", problems.join("\n"), fencelab::syntax::print(&scenario));
    }
});
