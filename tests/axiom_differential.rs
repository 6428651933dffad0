//! Random small litmus programs (`axiom::differ::litmus_from_bytes`: 2-4 threads, 2-4
//! accesses, fences, proxies, barriers, scopes) on both engines, in both modes: the same
//! relation as `tests/axiom_cross.rs`. `fuzz/` has the same check as a cargo-fuzz target,
//! which runs the volume (`docs/fuzzing.md`); 24 cases keep this test short in debug.

use fencelab::axiom::differ::{litmus_from_bytes, mismatches};
use fencelab::check::{Mode, Options};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn explorer_and_axioms_agree_on_random_litmus(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let scenario = litmus_from_bytes(&bytes);
        for mode in [Mode::Strict, Mode::Pragmatic] {
            if let Some(problems) = mismatches(&scenario, &Options { mode, ..Options::default() }) {
                prop_assert!(problems.is_empty(), "{} mode:\n{}\n{}", mode.name(), problems.join("\n"), fencelab::syntax::print(&scenario));
            }
        }
    }
}
