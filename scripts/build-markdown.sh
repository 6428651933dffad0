#!/usr/bin/env bash
# Trunk's post_build hook (Trunk.toml): builds the lesson Markdown renderer (`markdown/`)
# as its own wasm and puts it beside the app, as fencelab-markdown.js and
# fencelab-markdown_bg.wasm. The app loads it when a lessons page first opens, so the
# first load carries no Markdown parser (docs/loading.md).
set -euo pipefail
cd "${TRUNK_SOURCE_DIR:-$(dirname "$0")/..}"
out=${TRUNK_STAGING_DIR:?run by trunk (Trunk.toml hooks), which sets TRUNK_STAGING_DIR}
if [ "${TRUNK_PROFILE:-debug}" = release ]; then
    profile=wasm-release
else
    profile=dev
fi
cargo build --quiet --offline --package fencelab-markdown --lib --target wasm32-unknown-unknown --profile "$profile"
dir=$([ "$profile" = dev ] && echo debug || echo "$profile")
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name fencelab-markdown \
    "target/wasm32-unknown-unknown/$dir/fencelab_markdown.wasm"
if [ "$profile" = wasm-release ]; then
    # The app's settings (index.html `data-wasm-opt`).
    wasm-opt -Oz --converge "$out/fencelab-markdown_bg.wasm" -o "$out/fencelab-markdown_bg.wasm"
fi
