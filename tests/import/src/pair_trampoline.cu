// fencelab import fixture: the synchronization of CUTLASS issue #3324 (a 2-CTA kernel
// that loads B with cp.async and hands both CTAs' halves to the leader CTA through a
// "trampoline" ClusterBarrier), written with libcu++ cuda::ptx. Cluster of 2 CTAs, 3 warps:
//   warp 0 (producer): each lane copies one word of this CTA's half of B with cp.async,
//          waits for its copies, and after the warp's __syncwarp lane 0 arrives on the CTA's
//          own `b_full` barrier (CUTLASS's producers signal only CTA-local barriers);
//   warp 1 (trampoline), one lane: waits for `b_full` and arrives on the leader's (CTA 0's)
//          `pair_full` barrier with .release.cluster, so the copies it observed are published
//          to the leader;
//   warp 2 of the leader (consumer, standing in for the 2-CTA MMA): waits for `pair_full`
//          with .acquire.cluster and reads both halves, its own and the peer's.
// The bug is CUTLASS's ClusterBarrier::arrive(cta_id): the same arrive at the default
// .release.cta (reference §10 #1), which does not include the leader's threads.
#include <cuda/ptx>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cstdint>

namespace ptx = cuda::ptx;
namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(96)
pair_trampoline(const float* __restrict__ b, float* __restrict__ out)
{
    __shared__ alignas(16) float tile_b[32];
    __shared__ alignas(8) uint64_t b_full;
    __shared__ alignas(8) uint64_t pair_full;

    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;

    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&b_full, 1);
        ptx::mbarrier_init(&pair_full, 2);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    cluster.sync();

    if (warp == 0) {
        __pipeline_memcpy_async(&tile_b[lane], &b[rank * 32 + lane], sizeof(float));
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncwarp();
        if (lane == 0) {
            ptx::mbarrier_arrive(&b_full);
        }
    } else if (warp == 1) {
        if (lane == 0) {
            while (!ptx::mbarrier_try_wait_parity(&b_full, 0)) {
            }
            ptx::mbarrier_arrive(ptx::sem_release, ptx::scope_cluster, ptx::space_cluster, cluster.map_shared_rank(&pair_full, 0));
        }
    } else if (rank == 0) {
        while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, &pair_full, 0)) {
        }
        const float* peer_b = cluster.map_shared_rank(tile_b, 1);
        out[lane] = tile_b[lane] + peer_b[lane];
    }
    // The leader reads the peer's shared memory: neither CTA exits before both are done.
    cluster.sync();
}
