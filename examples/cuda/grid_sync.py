"""A whole-grid barrier: phases of one kernel separated by grid.sync().

After the CUDA Programming Guide, "Cooperative Groups: Grid Synchronization",
and cuda-samples' reductionMultiBlockCG: one kernel sums an array in two
phases that used to need two launches.

What it shows:
  * phase 1: every block sums its part of the input (a grid-stride loop and a
    shared-memory tree) and writes one partial sum to global memory;
  * grid.sync(): no thread goes on before every thread of every block got
    here, so phase 2 sees every partial sum written in phase 1 (the kernel
    boundary of the two-launch version, inside one kernel);
  * phase 2: block 0 adds the partial sums; then every block reads the total
    back (after a second grid.sync()) and scales its part of the array by it;
  * the launch: cudaLaunchCooperativeKernel, with a grid no larger than the
    blocks that can be resident at once
    (cudaOccupancyMaxActiveBlocksPerMultiprocessor x multiProcessorCount);
    a larger grid fails with cudaErrorCooperativeLaunchTooLarge, and
    grid.sync() in an ordinary <<<...>>> launch fails the launch.

Run:  python grid_sync.py [N]         (default N = 2^20 ints)
"""
import sys

import numpy as np
from pyemu.cuda import *

BLOCK = 256

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void sum_then_scale(const int *in, long long *partial, long long *out, int n)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    __shared__ long long s[BLOCK];

    // phase 1: this block's partial sum (grid-stride loop, then a tree)
    long long mine = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size())
        mine += in[i];
    s[threadIdx.x] = mine;
    block.sync();
    for (int step = blockDim.x / 2; step > 0; step >>= 1) {
        if (threadIdx.x < step) s[threadIdx.x] += s[threadIdx.x + step];
        block.sync();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];

    grid.sync();                       // every partial sum is written

    // phase 2: block 0 adds the partial sums of all blocks
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        long long total = 0;
        for (int b = 0; b < gridDim.x; b++) total += partial[b];
        partial[gridDim.x] = total;
    }

    grid.sync();                       // the total is written

    // phase 3: every block uses the total
    long long total = partial[gridDim.x];
    for (int i = grid.thread_rank(); i < n; i += grid.size())
        out[i] = in[i] * total;
}
""", options=[f"-DBLOCK={BLOCK}"])
sum_then_scale = mod.get_function("sum_then_scale")


# ------------------------------------------------------------------ host code
def main(N=1 << 20):
    h_in = np.random.randint(-100, 100, size=N, dtype=np.int32)

    # the largest grid whose blocks are all resident at once
    per_sm = cudaOccupancyMaxActiveBlocksPerMultiprocessor(sum_then_scale, BLOCK, 0)
    sms = cudaGetDeviceProperties(0).multiProcessorCount
    nblocks = per_sm * sms
    print(f"{nblocks} blocks of {BLOCK} threads ({per_sm} per multiprocessor x {sms})")

    d_in = cudaMalloc(h_in.nbytes)
    d_partial = cudaMalloc(8 * (nblocks + 1))
    d_out = cudaMalloc(8 * N)
    cudaMemcpy(d_in, h_in, h_in.nbytes, cudaMemcpyHostToDevice)

    cudaLaunchCooperativeKernel(sum_then_scale, nblocks, BLOCK, (d_in, d_partial, d_out, N))
    cudaDeviceSynchronize()

    h_partial = np.empty(nblocks + 1, np.int64)
    h_out = np.empty(N, np.int64)
    cudaMemcpy(h_partial, d_partial, h_partial.nbytes, cudaMemcpyDeviceToHost)
    cudaMemcpy(h_out, d_out, h_out.nbytes, cudaMemcpyDeviceToHost)

    total = int(h_in.sum(dtype=np.int64))
    print(f"GPU sum: {int(h_partial[-1])}  CPU sum: {total}")
    ok = int(h_partial[-1]) == total and np.array_equal(h_out, h_in.astype(np.int64) * total)

    cudaFree(d_in)
    cudaFree(d_partial)
    cudaFree(d_out)
    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
