#!/usr/bin/env bash
# Wall time of two fencelab CLI builds on the same scenarios, run in turn (one run of each
# per round), so that both meet the same load: prints each build's fastest and median
# check time (the CLI's own `stats.ms`, no process start-up) and how many times more
# states per second the new build explores, by the fastest runs and as the median of the
# rounds' own ratios. States per second, not time: the builds may explore different
# numbers of states (a better reduction), as issue 21's target is stated.
#
# Usage: scripts/wall-ratio.sh OLD_CLI NEW_CLI ROUNDS FILE... [> results.jsonl]
# The per-run records go to stdout as JSON lines; the summary to stderr.
# On a host with 8 or more cores each run is pinned to core 5 (`taskset`).
set -euo pipefail
if [ $# -lt 4 ]; then
    echo "usage: $0 OLD_CLI NEW_CLI ROUNDS FILE..." >&2
    exit 2
fi
old=$1 new=$2 rounds=$3
shift 3
pin=()
if [ "$(nproc)" -ge 8 ] && command -v taskset >/dev/null; then pin=(taskset -c 5); fi
# "MS STATES" of one check.
check_stats() {
    local report
    # exit 1 only means an expectation failed; the report is still printed
    report=$({ "${pin[@]}" "$1" check --mode pragmatic --json "$2" || true; } 2>/dev/null)
    echo "$(grep -o '"ms": *[0-9.]*' <<<"$report" | head -1 | sed 's/.*: *//') $(grep -o '"states": *[0-9]*' <<<"$report" | head -1 | sed 's/.*: *//')"
}
records=$(mktemp)
trap 'rm -f "$records"' EXIT
for round in $(seq 1 "$rounds"); do
    for file in "$@"; do
        read -r a_ms a_states <<<"$(check_stats "$old" "$file")"
        read -r b_ms b_states <<<"$(check_stats "$new" "$file")"
        echo "{\"round\":$round,\"file\":\"$file\",\"old_ms\":$a_ms,\"old_states\":$a_states,\"new_ms\":$b_ms,\"new_states\":$b_states}" | tee -a "$records"
    done
done
for file in "$@"; do
    grep -F "\"file\":\"$file\"" "$records" |
        sed 's/.*"old_ms":\([0-9.]*\),"old_states":\([0-9]*\),"new_ms":\([0-9.]*\),"new_states":\([0-9]*\).*/\1 \2 \3 \4/' |
        awk -v name="$(basename "$file")" '
            # ratio: new states per second over old states per second
            { old[NR] = $1; new[NR] = $3; so = $2; sn = $4; ratio[NR] = ($4 / $3) / ($2 / $1) }
            function median(a, n,   i, j, t) {
                for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
                return a[int((n + 1) / 2)]
            }
            END {
                # median() sorts in place, so [1] is the fastest run afterwards
                n = NR; mo = median(old, n); mn = median(new, n); mr = median(ratio, n)
                printf "%-40s states %6d / %6d  old best %8.1f median %8.1f ms  new best %7.1f median %7.1f ms  states/s x%.2f by bests, x%.2f median of rounds\n", name, so, sn, old[1], mo, new[1], mn, (sn / new[1]) / (so / old[1]), mr > "/dev/stderr"
            }'
done
