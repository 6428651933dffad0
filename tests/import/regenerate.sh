#!/usr/bin/env bash
# Regenerates the PTX fixtures of tests/import/ (see PROVENANCE.md). Needs nvcc 13.5 from
# PyPI (docs: /work/shared/reference/cuda-on-cpu.md) and, for the CUTLASS fixture, a
# CUTLASS checkout at commit 7107b05535f8977f5ecb9d01ee203205b1fd9bc4. CI uses the
# committed files and never runs this.
#   CUDA=/path/to/nvidia/cu13 CUTLASS=/path/to/cutlass tests/import/regenerate.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${CUDA:?set CUDA to the nvidia/cu13 directory of the PyPI wheels}"
export PATH=$CUDA/bin:$PATH
nvcc --version | tail -2

nvcc -std=c++17 -arch=sm_90a -ptx -I "$CUDA/include" -I "$CUDA/include/cccl" \
    "$here/src/relay_pipeline.cu" -o "$here/relay_pipeline.ptx"
nvcc -std=c++17 -arch=sm_90a -ptx -I "$CUDA/include" -I "$CUDA/include/cccl" \
    "$here/src/tma_store_epilogue.cu" -o "$here/tma_store_epilogue.ptx"
nvcc -std=c++17 -arch=sm_90a -ptx -I "$CUDA/include" -I "$CUDA/include/cccl" \
    "$here/src/pair_trampoline.cu" -o "$here/pair_trampoline.ptx"
nvcc -std=c++17 -arch=sm_90a -ptx -I "$CUDA/include" -I "$CUDA/include/cccl" \
    "$here/src/st_async_push.cu" -o "$here/st_async_push.ptx"

if [ -n "${CUTLASS:-}" ]; then
    ex="$CUTLASS/examples/48_hopper_warp_specialized_gemm"
    # Example 48 with a 2x1x1 cluster (upstream: 4x2x1), so one cluster is two CTAs.
    sed 's/using ClusterShape        = Shape<_4,_2,_1>;/using ClusterShape        = Shape<_2,_1,_1>;/' \
        "$ex/48_hopper_warp_specialized_gemm.cu" > "$ex/ex48_cluster2x1.cu"
    (cd "$CUTLASS" && nvcc -std=c++17 --expt-relaxed-constexpr -arch=sm_90a -ptx -I "$CUDA/include" \
        -I include -I tools/util/include -I examples/common -DNDEBUG \
        "$ex/ex48_cluster2x1.cu" -o "$here/cutlass_sm90_ex48_cluster2x1.ptx")
    gzip -9nf "$here/cutlass_sm90_ex48_cluster2x1.ptx"
    (cd "$CUTLASS" && nvcc -std=c++17 --expt-relaxed-constexpr -arch=sm_100a -ptx -I "$CUDA/include" \
        -I include -I tools/util/include -I examples/common -DNDEBUG \
        examples/70_blackwell_gemm/70_blackwell_fp16_gemm.cu -o "$here/cutlass_sm100_ex70_2sm.ptx")
    gzip -9nf "$here/cutlass_sm100_ex70_2sm.ptx"
fi
