#!/usr/bin/env bash
# Trunk's post_build hook (Trunk.toml): builds the speed-built checker engine (`engine/`)
# as its own wasm and puts it beside the app, as fencelab-engine.js and
# fencelab-engine_bg.wasm. The checker worker fetches it after the first load and hands
# it its requests (components/src/worker.rs, docs/performance.md).
set -euo pipefail
cd "${TRUNK_SOURCE_DIR:-$(dirname "$0")/..}"
out=${TRUNK_STAGING_DIR:?run by trunk (Trunk.toml hooks), which sets TRUNK_STAGING_DIR}
if [ "${TRUNK_PROFILE:-debug}" = release ]; then
    profile=wasm-speed
else
    profile=dev
fi
cargo build --quiet --offline --package fencelab-engine --lib --target wasm32-unknown-unknown --profile "$profile"
dir=$([ "$profile" = dev ] && echo debug || echo "$profile")
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name fencelab-engine \
    "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$dir/fencelab_engine.wasm"
if [ "$profile" = wasm-speed ]; then
    wasm-opt -O3 "$out/fencelab-engine_bg.wasm" -o "$out/fencelab-engine_bg.wasm"
fi
