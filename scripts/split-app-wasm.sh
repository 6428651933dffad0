#!/usr/bin/env bash
# Trunk's post_build hook (Trunk.toml) that cuts the app's wasm into the first load and
# the chunks its lazy panels load later (components/src/lazy.rs, docs/loading.md).
# Trunk 0.21 cannot split, and the split needs cargo's wasm with its relocations, not
# wasm-bindgen's output, so this redoes trunk's last steps on top of what trunk staged:
#   wasm-split-cli   cargo's wasm → the main wasm, split_<chunk>.wasm, __wasm_split.js
#                    (the loader the main wasm imports to fetch a chunk)
#   wasm-bindgen     the main wasm → trunk's glue and wasm, under trunk's (hashed) names,
#                    so index.html's preload links stay right; `--keep-lld-exports`
#                    keeps the exports the chunks import (memory, table, shared globals)
#   wasm-opt         in release builds, on the main wasm and on each chunk (index.html
#                    tells trunk to skip it: trunk's pass would run on the wasm replaced here)
#   pack-chunks.mjs  modules that load together (the explorer's waves, the lessons, the
#                    worker's checker) in one file each, and the loader pointed at them
#                    (docs/loading.md, "What comes later")
set -euo pipefail
cd "${TRUNK_SOURCE_DIR:-$(dirname "$0")/..}"
out=${TRUNK_STAGING_DIR:?run by trunk (Trunk.toml hooks), which sets TRUNK_STAGING_DIR}
if ! command -v wasm-split-cli >/dev/null; then
    echo "split-app-wasm: wasm-split-cli is not on PATH: run scripts/install.sh (make install)" >&2
    exit 1
fi
if [ "${TRUNK_PROFILE:-debug}" = release ]; then dir=wasm-release; else dir=debug; fi
input="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$dir/fencelab-app.wasm"
shopt -s nullglob
glue=("$out"/fencelab-app-*.js)
if [ "${#glue[@]}" -ne 1 ]; then
    echo "split-app-wasm: expected one fencelab-app-*.js in $out, found ${#glue[@]}" >&2
    exit 1
fi
name=$(basename "${glue[0]}" .js)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wasm-split-cli "$input" "$work" --target web --out-name "$name"
wasm-bindgen --target web --no-typescript --keep-lld-exports --out-dir "$out" --out-name "$name" "$work/$name.wasm"
chunks=("$work"/split_*.wasm "$work"/chunk_*.wasm)
if [ "$dir" = debug ]; then
    cp "${chunks[@]}" "$out"/
else
    wasm-opt -Oz --converge "$out/${name}_bg.wasm" -o "$out/${name}_bg.wasm"
    for chunk in "${chunks[@]}"; do
        wasm-opt -Oz --converge "$chunk" -o "$out/$(basename "$chunk")"
    done
fi
cp "$work/__wasm_split.js" "$out"/
node scripts/pack-chunks.mjs "$out"
