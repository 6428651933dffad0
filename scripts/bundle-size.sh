#!/usr/bin/env bash
# Prints the size of every wasm and js file trunk put in dist/, raw and gzipped, against
# the load budget (issue 19: wasm + js at most 350 KiB gzipped), then what is fetched
# only on demand, on the first lessons page: the lessons (lessons/*.md, which a page fetches
# as one file, lessons/course.txt: scripts/bundle-course.mjs) and the Markdown renderer
# (fencelab-markdown*, built by scripts/build-wasm-crate.sh), and what the checker worker
# fetches after load: the speed-built engine (fencelab-engine*, scripts/build-wasm-crate.sh),
# and the chunks of the app's lazy panels (split_*.wasm and chunk_*.wasm, shared by several
# panels: scripts/split-app-wasm.sh), each fetched the first time its panel shows, and the
# packs (pack_*.wasm) that hold the explorer's waves of them, the lessons' and the worker's
# checker's (scripts/pack-chunks.mjs). Their
# loader, __wasm_split.js, is imported by the app's glue and counts in the first load.
# Usage: scripts/bundle-size.sh [dist dir]
set -euo pipefail
cd "$(dirname "$0")/.."
dist=${1:-dist}
budget_kib=350
if [ ! -d "$dist" ]; then
    echo "no $dist/ directory: run \`trunk build --release\` (or \`make build\`) first" >&2
    exit 2
fi
gz() { gzip -9 -c "$1" | wc -c; }
total_raw=0
total_gz=0
printf '%-44s %10s %10s\n' file bytes gzipped
for f in "$dist"/*.wasm "$dist"/*.js; do
    [ -e "$f" ] || continue
    case "$(basename "$f")" in fencelab-markdown* | fencelab-engine* | split_*.wasm | chunk_*.wasm | pack_*.wasm) continue ;; esac
    raw=$(wc -c < "$f")
    packed=$(gz "$f")
    total_raw=$((total_raw + raw))
    total_gz=$((total_gz + packed))
    printf '%-44s %10d %10d\n' "$(basename "$f")" "$raw" "$packed"
done
printf '%-44s %10d %10d  (%d KiB gzipped; budget %d KiB: %s)\n' total "$total_raw" "$total_gz" \
    $(((total_gz + 1023) / 1024)) "$budget_kib" "$([ "$total_gz" -le $((budget_kib * 1024)) ] && echo met || echo OVER)"
for f in "$dist"/fencelab-markdown*; do
    [ -e "$f" ] || continue
    printf '%-44s %10d %10d\n' "on demand: $(basename "$f")" "$(wc -c < "$f")" "$(gz "$f")"
done
for f in "$dist"/fencelab-engine*; do
    [ -e "$f" ] || continue
    printf '%-44s %10d %10d\n' "after load: $(basename "$f")" "$(wc -c < "$f")" "$(gz "$f")"
done
for f in "$dist"/split_*.wasm "$dist"/chunk_*.wasm "$dist"/pack_*.wasm; do
    [ -e "$f" ] || continue
    printf '%-44s %10d %10d\n' "after load: $(basename "$f")" "$(wc -c < "$f")" "$(gz "$f")"
done
if [ -d "$dist/lessons" ]; then
    lessons_raw=0
    lessons_gz=0
    for f in "$dist"/lessons/*.md; do
        lessons_raw=$((lessons_raw + $(wc -c < "$f")))
        lessons_gz=$((lessons_gz + $(gz "$f")))
    done
    printf '%-44s %10d %10d\n' "on demand: lessons/*.md" "$lessons_raw" "$lessons_gz"
    if [ -e "$dist/lessons/course.txt" ]; then
        printf '%-44s %10d %10d\n' "on demand: lessons/course.txt" "$(wc -c < "$dist/lessons/course.txt")" "$(gz "$dist/lessons/course.txt")"
    fi
fi
