//! A bound on how deep the model's self-nesting parts are when deserialized.
//!
//! Two types contain themselves: an `Instr` wraps an `Instr` (`Wait`, `Ranged`,
//! `Guarded`) and a `Cond` holds `Cond`s (`Not`, `And`, `Or`). Every other part of the
//! model nests to a depth its types fix. Postcard has no recursion limit, and a few hundred
//! compressed bytes of a link can describe tens of thousands of levels, enough to
//! overflow the stack (1 MiB on wasm32). So those fields deserialize through [`nested`],
//! which counts the levels; counting only there, rather than wrapping the whole
//! deserializer, keeps one copy of every model type's deserializer in the wasm
//! (benches/results/2026-11-25-loading-rounds.md, "Tenth round").

use std::cell::Cell;

use serde::{de, Deserialize, Deserializer};

/// Deepest nesting of an instruction in an instruction, or of a condition in a condition,
/// that deserializes. Real scenarios stay below 4; the parser's deepest conditions (32
/// levels of `(`/`~`) fit.
pub const MAX_NESTING: u32 = 96;

thread_local! {
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    static TOO_DEEP: Cell<bool> = const { Cell::new(false) };
}

/// Deserializes a self-nesting field one level deeper, or fails past [`MAX_NESTING`].
pub(super) fn nested<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<T, D::Error> {
    let depth = DEPTH.get();
    if depth >= MAX_NESTING {
        TOO_DEEP.set(true);
        return Err(de::Error::custom("nesting too deep"));
    }
    DEPTH.set(depth + 1);
    let value = T::deserialize(deserializer);
    DEPTH.set(depth);
    value
}

/// Runs `decode`, a deserialization from the top level, and says whether it met a part
/// nested deeper than [`MAX_NESTING`] (which made it fail).
pub(crate) fn bounded<T>(decode: impl FnOnce() -> T) -> (T, bool) {
    DEPTH.set(0);
    TOO_DEEP.set(false);
    let value = decode();
    (value, TOO_DEEP.replace(false))
}
