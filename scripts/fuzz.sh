#!/usr/bin/env bash
# Runs one cargo-fuzz target for a number of executions, starting from the checked-in
# seeds (fuzz/seeds/TARGET) and the local corpus (fuzz/corpus/TARGET, git-ignored).
#
#   scripts/fuzz.sh TARGET RUNS [WORKERS]
#
# TARGET is a file name in fuzz/fuzz_targets/ without `.rs`. With WORKERS > 1 libFuzzer
# runs in fork mode: RUNS counts the executions of all workers together, and a crash is
# recorded (fuzz/artifacts/TARGET/) without stopping the run. Exits non-zero on a crash.
set -euo pipefail
usage="usage: scripts/fuzz.sh TARGET RUNS [WORKERS]"
target=${1:?$usage}
runs=${2:?$usage}
workers=${3:-1}
cd "$(dirname "$0")/../fuzz"
if [ ! -f "fuzz_targets/$target.rs" ]; then
    echo "no fuzz target \`$target\`; there are: $(ls fuzz_targets | sed 's/\.rs$//' | tr '\n' ' ')" >&2
    exit 2
fi
if ! command -v cargo-fuzz >/dev/null; then
    echo "cargo-fuzz is missing: cargo install cargo-fuzz" >&2
    exit 2
fi
# cargo-fuzz passes nightly-only rustc flags; a stable toolchain accepts them with this.
export RUSTC_BOOTSTRAP=1
mkdir -p "corpus/$target" "artifacts/$target"
parallel=()
if [ "$workers" -gt 1 ]; then
    parallel=(-fork="$workers" -ignore_crashes=1)
fi
# No sanitizer: the core has no `unsafe`, so what we look for is panics, overflows
# (debug assertions are on), hangs and memory blow-ups, at twice the speed of ASan.
cargo fuzz run --sanitizer none --debug-assertions "$target" "corpus/$target" "seeds/$target" -- \
    -runs="$runs" -artifact_prefix="artifacts/$target/" -print_final_stats=1 "${parallel[@]}"
# libFuzzer also saves inputs that merely ran slowly (slow-unit-*, over 10 s, which a
# loaded machine produces): they are listed but fail nothing; crashes, timeouts and
# out-of-memory inputs do.
if compgen -G "artifacts/$target/slow-unit-*" >/dev/null; then
    echo "slow inputs (not failures) in fuzz/artifacts/$target/:" >&2
    ls "artifacts/$target" | grep '^slow-unit-' >&2
fi
if compgen -G "artifacts/$target/[!s]*" >/dev/null; then
    echo "crash inputs in fuzz/artifacts/$target/:" >&2
    ls "artifacts/$target" | grep -v '^slow-unit-' >&2
    exit 1
fi
