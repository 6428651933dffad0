#!/usr/bin/env bash
# Trunk's post_build hook (Trunk.toml) for the wasms that load after the app: builds the
# cdylib PACKAGE for wasm32 and puts its wasm-bindgen glue and wasm beside the app, as
# PACKAGE.js and PACKAGE_bg.wasm. Release builds use PROFILE and then run wasm-opt with
# the remaining arguments; other builds use the dev profile and no wasm-opt.
#   the lesson Markdown renderer (`markdown/`, docs/loading.md): fetched with the course
#   the checker engine (`engine/`, docs/performance.md): fetched by the worker after load
# Usage: scripts/build-wasm-crate.sh PACKAGE PROFILE WASM_OPT_FLAG...
set -euo pipefail
cd "${TRUNK_SOURCE_DIR:-$(dirname "$0")/..}"
out=${TRUNK_STAGING_DIR:?run by trunk (Trunk.toml hooks), which sets TRUNK_STAGING_DIR}
package=$1 release_profile=$2
shift 2
if [ "${TRUNK_PROFILE:-debug}" = release ]; then
    profile=$release_profile
else
    profile=dev
fi
cargo build --quiet --offline --package "$package" --lib --target wasm32-unknown-unknown --profile "$profile"
dir=$([ "$profile" = dev ] && echo debug || echo "$profile")
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name "$package" \
    "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$dir/${package//-/_}.wasm"
if [ "$profile" != dev ]; then
    wasm-opt "$@" "$out/${package}_bg.wasm" -o "$out/${package}_bg.wasm"
fi
