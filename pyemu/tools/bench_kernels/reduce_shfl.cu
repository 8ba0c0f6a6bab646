// Sum reduction with warp shuffles: each warp sums its 32 values with
// __shfl_down_sync (J. Luitjens, "Faster Parallel Reductions on Kepler",
// NVIDIA blog 2014, in its CUDA 9 _sync form), warp 0 sums the per-warp
// sums, thread 0 adds the block's sum with atomicAdd, as reduce.cu does.
// Blocks of blocksize threads (-Dblocksize=256, a multiple of 32).
#ifndef blocksize
#define blocksize 256
#endif

__inline__ __device__ int warp_sum(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__global__ void shfl_reduce(const int *input, unsigned int N, int *total)
{
    __shared__ int partial[blocksize / 32];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int v = warp_sum(i < N ? input[i] : 0);
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blocksize / 32 ? partial[lane] : 0;
        v = warp_sum(v);
        if (lane == 0)
            atomicAdd(total, v);
    }
}
