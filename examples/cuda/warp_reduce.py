"""A block sum three ways: shared memory, __shfl_down_sync, cg::reduce.

After M. Harris, "Optimizing Parallel Reduction in CUDA" (2007) and
J. Luitjens, "Faster Parallel Reductions on Kepler" (NVIDIA blog, 2014),
in their CUDA 9 (_sync) form, and the CUDA Programming Guide's
cooperative groups chapter.

What it shows:
  * block_sum_shared: the classic tree in __shared__ memory with a
    __syncthreads() between the steps;
  * block_sum_shfl: each warp sums its 32 values with __shfl_down_sync (no
    shared memory, no barrier inside the warp), warp 0 then sums the
    per-warp partial sums;
  * block_sum_cg: the same with cooperative groups, tiled_partition<32> and
    cg::reduce(tile, v, cg::plus<int>());
  * all three give the same per-block sums, checked against NumPy.

Run:  python warp_reduce.py [N]         (default N = 2^20 ints)
"""
import sys

import numpy as np
from pyemu.cuda import *

BLOCK = 256

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void block_sum_shared(const int *in, int *out, int n)
{
    __shared__ int s[BLOCK];
    unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int step = blockDim.x / 2; step > 0; step >>= 1) {
        if (tid < step) s[tid] += s[tid + step];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

__inline__ __device__ int warpReduceSum(int val)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        val += __shfl_down_sync(0xffffffff, val, offset);
    return val;
}

__global__ void block_sum_shfl(const int *in, int *out, int n)
{
    __shared__ int partial[32];                 // one per warp
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % warpSize, wid = threadIdx.x / warpSize;
    int val = warpReduceSum(i < n ? in[i] : 0); // lane 0 of each warp has its sum
    if (lane == 0) partial[wid] = val;
    __syncthreads();
    val = threadIdx.x < blockDim.x / warpSize ? partial[lane] : 0;
    if (wid == 0) val = warpReduceSum(val);     // warp 0 sums the partial sums
    if (threadIdx.x == 0) out[blockIdx.x] = val;
}

__global__ void block_sum_cg(const int *in, int *out, int n)
{
    __shared__ int partial[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    unsigned int i = blockIdx.x * blockDim.x + block.thread_rank();
    int val = cg::reduce(warp, i < n ? in[i] : 0, cg::plus<int>());
    if (warp.thread_rank() == 0) partial[warp.meta_group_rank()] = val;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        val = warp.thread_rank() < warp.meta_group_size() ? partial[warp.thread_rank()] : 0;
        val = cg::reduce(warp, val, cg::plus<int>());
        if (warp.thread_rank() == 0) out[blockIdx.x] = val;
    }
}
""", options=[f"-DBLOCK={BLOCK}"])


# ------------------------------------------------------------------ host code
def main(N=1 << 20):
    h_in = np.random.randint(-100, 100, size=N, dtype=np.int32)
    nblocks = (N + BLOCK - 1) // BLOCK
    d_in = cudaMalloc(h_in.nbytes)
    d_out = cudaMalloc(4 * nblocks)
    cudaMemcpy(d_in, h_in, h_in.nbytes, cudaMemcpyHostToDevice)

    padded = np.zeros(nblocks * BLOCK, np.int64)
    padded[:N] = h_in
    expected = padded.reshape(nblocks, BLOCK).sum(axis=1)
    ok = True
    for name in ("block_sum_shared", "block_sum_shfl", "block_sum_cg"):
        cudaMemset(d_out, 0, 4 * nblocks)
        mod.get_function(name)[nblocks, BLOCK](d_in, d_out, N)
        h_out = np.empty(nblocks, np.int32)
        cudaMemcpy(h_out, d_out, h_out.nbytes, cudaMemcpyDeviceToHost)
        same = np.array_equal(h_out, expected)
        print(f"{name:17s} total {int(h_out.sum(dtype=np.int64)):>12d}  "
              f"{'matches' if same else 'DIFFERS from'} NumPy")
        ok = ok and same

    cudaFree(d_in)
    cudaFree(d_out)
    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
