// Sum reduction, as examples/cuda/reduction.py: plus_reduce of Nickolls,
// Buck, Garland & Skadron, "Scalable Parallel Programming with CUDA" (ACM
// Queue, 2008).  Each block sums its elements with a tree in shared memory,
// then thread 0 adds the block's sum to the total with atomicAdd.
// Blocks of blocksize threads (-Dblocksize=256, a power of 2).
#ifndef blocksize
#define blocksize 256
#endif

__global__ void plus_reduce(const int *input, unsigned int N, int *total)
{
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    __shared__ int x[blocksize];
    x[tid] = (i < N) ? input[i] : 0;
    __syncthreads();

    for (int s = blockDim.x / 2; s > 0; s = s / 2) {
        if (tid < s)
            x[tid] += x[tid + s];
        __syncthreads();
    }

    if (tid == 0)
        atomicAdd(total, x[tid]);
}
