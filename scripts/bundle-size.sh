#!/usr/bin/env bash
# Prints the size of every wasm and js file trunk put in dist/, raw and gzipped.
set -euo pipefail
cd "$(dirname "$0")/.."
dist=${1:-dist}
if [ ! -d "$dist" ]; then
    echo "no $dist/ directory: run \`trunk build --release\` (or \`make build\`) first" >&2
    exit 2
fi
total_raw=0
total_gz=0
printf '%-44s %10s %10s\n' file bytes gzipped
for f in "$dist"/*.wasm "$dist"/*.js; do
    [ -e "$f" ] || continue
    raw=$(wc -c < "$f")
    gz=$(gzip -9 -c "$f" | wc -c)
    total_raw=$((total_raw + raw))
    total_gz=$((total_gz + gz))
    printf '%-44s %10d %10d\n' "$(basename "$f")" "$raw" "$gz"
done
printf '%-44s %10d %10d\n' total "$total_raw" "$total_gz"
