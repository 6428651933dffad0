// fencelab import fixture: one CTA of a cluster pushes data into its peer's shared memory
// with st.async and red.async, written with libcu++ cuda::ptx. Cluster of 2 CTAs, 2 warps:
//   CTA 0, thread 0: initialises its mbarrier (count 1) and publishes the init to the
//          cluster, arms the barrier for the 20 bytes CTA 1 will push (expect_tx), waits
//          for the phase with .acquire.cluster and reads what arrived;
//   CTA 1, thread 0: stores four words into CTA 0's inbox with one st.async and counts
//          itself in CTA 0's `pushes` with red.async; both complete on CTA 0's barrier with
//          a complete-tx that is a release at cluster scope (reference §6.5).
// The bug (reference §10 #2) is the wait at the default .acquire.cta: the pushing thread is
// in the other CTA, so release and acquire do not include each other.
#include <cuda/ptx>
#include <cooperative_groups.h>
#include <cstdint>

namespace ptx = cuda::ptx;
namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(64)
st_async_push(const int* __restrict__ in, int* __restrict__ out)
{
    __shared__ alignas(16) int inbox[4];
    __shared__ alignas(4) uint32_t pushes;
    __shared__ alignas(8) uint64_t bar;

    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();

    if (rank == 0 && threadIdx.x == 0) {
        pushes = 0;
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    // CTA 0's barrier is initialised, and its `pushes` zeroed, before CTA 1 pushes.
    cluster.sync();

    if (threadIdx.x == 0) {
        if (rank == 0) {
            ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(inbox) + sizeof(pushes));
            while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, &bar, 0)) {
            }
            int sum = static_cast<int>(pushes);
            for (int i = 0; i < 4; ++i) {
                sum += inbox[i];
            }
            out[0] = sum;
        } else {
            const int values[4] = {in[0], in[1], in[2], in[3]};
            ptx::st_async(cluster.map_shared_rank(inbox, 0), values, cluster.map_shared_rank(&bar, 0));
            ptx::red_async(ptx::op_add, cluster.map_shared_rank(&pushes, 0), 1u, cluster.map_shared_rank(&bar, 0));
        }
    }
    // CTA 0 does not exit while CTA 1's pushes into it may be in flight.
    cluster.sync();
}
