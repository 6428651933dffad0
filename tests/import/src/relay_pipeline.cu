// fencelab import fixture: a two-stage TMA pipeline plus a cross-CTA relay, written with
// libcu++ cuda::ptx. Cluster of 2 CTAs, 3 warps per CTA:
//   warp 0 (producer): one elected lane waits for a free stage, arms the stage's full
//          barrier with expect_tx and starts a bulk copy (TMA) into the stage buffer;
//   warp 1 (consumer): waits for a full stage, reads it, frees it (32 lane arrivals);
//          in CTA 0 it also waits for the relay and reads CTA 1's relay buffer;
//   warp 2 (relay, CTA 1 only): gathers with cp.async into its relay buffer, waits for
//          the copies and arrives on CTA 0's relay barrier with .release.cluster
//          (the seed-003 bug is this arrive with the default .release.cta).
#include <cuda/ptx>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cstdint>

namespace ptx = cuda::ptx;
namespace cg = cooperative_groups;

constexpr int STAGES = 2;
constexpr int TILE_FLOATS = 256;
#define TILE_BYTES (uint32_t(TILE_FLOATS * sizeof(float)))

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(96)
relay_pipeline(const float* __restrict__ in, const float* __restrict__ gather, float* __restrict__ out, int ntiles)
{
    __shared__ alignas(128) float stage_buf[STAGES][TILE_FLOATS];
    __shared__ alignas(16) float relay_buf[32];
    __shared__ alignas(8) uint64_t full_bar[STAGES];
    __shared__ alignas(8) uint64_t empty_bar[STAGES];
    __shared__ alignas(8) uint64_t relay_bar;

    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            ptx::mbarrier_init(&full_bar[s], 1);
            ptx::mbarrier_init(&empty_bar[s], 32);
        }
        ptx::mbarrier_init(&relay_bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    cluster.sync();

    if (warp == 0) {
        if (ptx::elect_sync(0xffffffffu)) {
            for (int t = 0; t < ntiles; ++t) {
                const int s = t % STAGES;
                const uint32_t phase = (t / STAGES) & 1;
                while (!ptx::mbarrier_try_wait_parity(&empty_bar[s], phase ^ 1)) {
                }
                ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full_bar[s], TILE_BYTES);
                ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, stage_buf[s], in + t * TILE_FLOATS, TILE_BYTES, &full_bar[s]);
            }
        }
    } else if (warp == 1) {
        float acc = 0.f;
        for (int t = 0; t < ntiles; ++t) {
            const int s = t % STAGES;
            const uint32_t phase = (t / STAGES) & 1;
            while (!ptx::mbarrier_try_wait_parity(&full_bar[s], phase)) {
            }
            acc += stage_buf[s][lane];
            ptx::mbarrier_arrive(&empty_bar[s]);
        }
        if (rank == 0) {
            while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, &relay_bar, 0)) {
            }
            float* peer_relay = cluster.map_shared_rank(relay_buf, 1);
            acc += peer_relay[lane];
        }
        out[(rank * 32) + lane] = acc;
    } else if (rank == 1) {
        __pipeline_memcpy_async(&relay_buf[lane], &gather[lane], sizeof(float));
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncwarp();
        if (lane == 0) {
            uint64_t* leader_relay = cluster.map_shared_rank(&relay_bar, 0);
            ptx::mbarrier_arrive(ptx::sem_release, ptx::scope_cluster, ptx::space_cluster, leader_relay);
        }
    }
    // Neither CTA may exit while its peer can still reach its shared memory.
    cluster.sync();
}
