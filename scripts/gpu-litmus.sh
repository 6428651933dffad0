#!/bin/bash
# On a machine with an sm_90a GPU: compile every harness in cu/ (written by `fencelab cuda`,
# 16 in parallel), run them in order within a time budget, and pack res/ (one JSON per
# harness, plus the GPU, driver, nvcc and date) into $OUT/results.tgz.
# Usage: copy this script beside a cu/ folder, then `bash gpu-litmus.sh TRIALS BUDGET_SECONDS`.
# `fencelab observed SCENARIO res/NAME.json --date ... --driver ...` attaches each result.
TRIALS=${1:-307200}; BUDGET=${2:-360}
cd "$(dirname "$0")"
mkdir -p bin res
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > res/gpu.txt 2>&1
nvcc --version > res/nvcc.txt 2>&1
date -u +%Y-%m-%dT%H:%MZ > res/date.txt
t0=$(date +%s)
ls cu/*.cu | xargs -P 16 -I{} sh -c 'n=$(basename {} .cu); nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o bin/$n {} > res/$n.build.txt 2>&1 || echo $n >> res/build_failed.txt'
echo "compiled in $(( $(date +%s) - t0 )) s; failed: $(cat res/build_failed.txt 2>/dev/null | wc -l)"
start=$(date +%s)
for f in $(ls cu/*.cu | sort); do
  n=$(basename $f .cu)
  [ -x bin/$n ] || continue
  now=$(date +%s)
  if [ $((now - start)) -gt $BUDGET ]; then echo $n >> res/skipped.txt; continue; fi
  timeout -s KILL 60 bin/$n $TRIALS > res/$n.json 2> res/$n.err
  echo "$n rc=$? s=$(( $(date +%s) - now ))" >> res/run.txt
done
tar czf $OUT/results.tgz res
cat res/gpu.txt; grep -v "rc=0" res/run.txt; echo "ran: $(wc -l < res/run.txt) skipped: $(cat res/skipped.txt 2>/dev/null | wc -l)"
for n in $(head -5 res/build_failed.txt 2>/dev/null); do echo "== $n"; grep -m3 error res/$n.build.txt; done
