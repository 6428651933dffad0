// fencelab import fixture: a TMA-store epilogue written with libcu++ cuda::ptx. Two warps
// write a tile into shared memory, make the writes visible to the async proxy with
// fence.proxy.async.shared::cta, meet at __syncthreads(), and one elected thread stores
// the tile through the tensor map and waits until the store has read shared memory.
// The known bug is this kernel without the proxy fence.
#include <cuda/ptx>
#include <cuda.h>
#include <cstdint>

namespace ptx = cuda::ptx;

__global__ void __launch_bounds__(64)
tma_store_epilogue(const __grid_constant__ CUtensorMap out_map, float alpha)
{
    __shared__ alignas(128) float tile[64];
    tile[threadIdx.x] = alpha * threadIdx.x;
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    if (threadIdx.x / 32 == 0 && ptx::elect_sync(0xffffffffu)) {
        const int32_t coords[2] = {0, 0};
        ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &out_map, coords, tile);
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
    }
}
