"""Inclusive prefix sum with __shfl_up_sync: a warp scan, then a block scan.

After cuda-samples' shfl_scan and the CUDA Programming Guide's warp shuffle
examples, in their CUDA 9 (_sync) form.

What it shows:
  * each warp scans its 32 values in 5 steps: at step d every lane adds the
    value of the lane d below it (__shfl_up_sync leaves the lowest d lanes
    unchanged, so `if (lane >= d)` keeps them);
  * the last lane of each warp writes the warp's total to __shared__ memory;
    after a __syncthreads() warp 0 scans those totals the same way, and
    every warp adds the totals of the warps before it;
  * blocks are independent here: each block's scan restarts at 0, checked
    against NumPy's cumsum block by block.

Run:  python warp_scan.py [N]         (default N = 2^20 ints)
"""
import sys

import numpy as np
from pyemu.cuda import *

BLOCK = 256

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
__device__ int warp_inclusive_scan(int v, int lane)
{
    for (int d = 1; d < 32; d *= 2) {
        int below = __shfl_up_sync(0xffffffff, v, d);
        if (lane >= d) v += below;
    }
    return v;
}

__global__ void block_scan(const int *in, int *out, int n)
{
    __shared__ int warp_total[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    int v = warp_inclusive_scan(i < n ? in[i] : 0, lane);
    if (lane == 31) warp_total[wid] = v;
    __syncthreads();
    if (wid == 0) {
        int t = lane < (int)(blockDim.x >> 5) ? warp_total[lane] : 0;
        warp_total[lane] = warp_inclusive_scan(t, lane);
    }
    __syncthreads();
    if (wid > 0) v += warp_total[wid - 1];
    if (i < n) out[i] = v;
}
""")


# ------------------------------------------------------------------ host code
def main(N=1 << 20):
    h_in = np.random.randint(0, 10, size=N, dtype=np.int32)
    d_in, d_out = cudaMalloc(h_in.nbytes), cudaMalloc(h_in.nbytes)
    cudaMemcpy(d_in, h_in, h_in.nbytes, cudaMemcpyHostToDevice)
    nblocks = (N + BLOCK - 1) // BLOCK
    mod.block_scan[nblocks, BLOCK](d_in, d_out, N)
    h_out = np.empty_like(h_in)
    cudaMemcpy(h_out, d_out, h_out.nbytes, cudaMemcpyDeviceToHost)
    cudaFree(d_in)
    cudaFree(d_out)

    padded = np.zeros(nblocks * BLOCK, np.int32)
    padded[:N] = h_in
    expected = np.cumsum(padded.reshape(nblocks, BLOCK), axis=1).reshape(-1)[:N]
    ok = np.array_equal(h_out, expected)
    print(f"scanned {N} ints in {nblocks} blocks of {BLOCK}; last block ends at {int(h_out[-1])}")
    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
