#!/usr/bin/env bash
# Runs prebuilt fuzz binaries side by side until each has done RUNS executions (or
# MAX_SECONDS passed), for a machine without Rust. Build them with
# `RUSTC_BOOTSTRAP=1 cargo fuzz build --sanitizer none --debug-assertions` and copy
# fuzz/target/x86_64-unknown-linux-gnu/release/TARGET into BIN, fuzz/seeds/ into BIN/seeds/
# and, to go on from an earlier run, its (merged) corpus into BIN/corpus/TARGET/.
#
#   scripts/fuzz-batch.sh BIN OUT RUNS MAX_SECONDS TARGET:WORKERS[:RUNS]...
#
# Each target runs WORKERS libFuzzer jobs of RUNS/WORKERS executions at once, sharing one
# corpus (reread every 30 s); oversubscribe the cores and the kernel hands the cores of a
# finished target to the others, in proportion to their workers. MAX_SECONDS bounds each
# job, so the whole run. A job that crashes stops (its input is OUT/TARGET-crash-...).
# Writes OUT/summary.tsv (executions summed over the jobs' final stats; cov and ft of the
# final corpus), each job's final lines in OUT/jobs.log, the final corpus as
# OUT/TARGET-corpus.tar.gz.
set -uo pipefail
usage="usage: scripts/fuzz-batch.sh BIN OUT RUNS MAX_SECONDS TARGET:WORKERS[:RUNS]..."
bin=$(cd "${1:?$usage}" && pwd)
out=${2:?$usage}
runs=${3:?$usage}
max_seconds=${4:?$usage}
shift 4
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
for spec in "$@"; do
    IFS=: read -r target workers target_runs <<<"$spec"
    target_runs=${target_runs:-$runs}
    mkdir -p "$work/$target/corpus"
    earlier=()
    if [ -d "$bin/corpus/$target" ]; then
        earlier=("$bin/corpus/$target")
    fi
    (cd "$work/$target" && "$bin/$target" corpus "$bin/seeds/$target" "${earlier[@]}" -jobs="$workers" \
        -workers="$workers" -runs=$((target_runs / workers)) -max_total_time="$max_seconds" -reload=30 \
        -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$out/$target-" >/dev/null 2>&1) &
done
wait
printf 'target\texecutions\tjobs\tcrashed_jobs\tcov\tft\tcorpus_files\n' >"$out/summary.tsv"
for spec in "$@"; do
    target=${spec%%:*}
    cd "$work/$target"
    for log in fuzz-*.log; do
        echo "== $target $log"
        grep -E 'ERROR|DONE|Done [0-9]+ runs|stat::|SUMMARY' "$log"
        grep -A8 'panicked' "$log" | head -20
    done >>"$out/jobs.log" 2>&1
    executions=$(cat fuzz-*.log | awk '/stat::number_of_executed_units/ { s += $2 } END { print s + 0 }')
    crashed=$(grep -l 'ERROR: libFuzzer' fuzz-*.log 2>/dev/null | wc -l)
    jobs=$(ls fuzz-*.log | wc -l)
    # Coverage of everything the jobs kept: load the whole corpus once.
    earlier=()
    if [ -d "$bin/corpus/$target" ]; then
        earlier=("$bin/corpus/$target")
    fi
    inited=$("$bin/$target" corpus "$bin/seeds/$target" "${earlier[@]}" -runs=0 2>&1 | grep -E 'INITED|DONE' | head -1)
    cov=$(echo "$inited" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$inited" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    files=$(find corpus "$bin/seeds/$target" "${earlier[@]}" -type f | wc -l)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "$executions" "$jobs" "$crashed" "$cov" "$ft" "$files" >>"$out/summary.tsv"
    tar -czf "$out/$target-corpus.tar.gz" corpus
done
cd /
rm -rf "$work"
cat "$out/summary.tsv"
