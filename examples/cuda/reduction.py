"""Parallel sum: a tree reduction per block, then one atomicAdd per block.

Ports plus_reduce from J. Nickolls, I. Buck, M. Garland, K. Skadron,
"Scalable Parallel Programming with CUDA", ACM Queue 6(2), 2008 (the
parallel-reduction figure).  `blocksize` is a compile-time constant in the
paper; here it is given to the compiler as -Dblocksize=256.

What it shows:
  * each block loads its elements into __shared__ memory, padding with 0 past
    the end of the input;
  * a summation tree in shared memory: at each step half the remaining
    threads add a partner's value, with __syncthreads() between the steps;
  * thread 0 then adds the block's sum to the running total with atomicAdd,
    so blocks never race on `total` (the total must start at 0: cudaMemset).

Run:  python reduction.py [N]         (default N = 2^20 ints)
"""
import sys

import numpy as np
from pyemu.cuda import *

blocksize = 256

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
__global__
void plus_reduce(int *input, unsigned int N, int *total)
{
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x*blockDim.x + threadIdx.x;

    // Each block loads its elements into shared memory, padding
    // with 0 if N is not a multiple of blocksize
    __shared__ int x[blocksize];
    x[tid] = (i<N) ? input[i] : 0;
    __syncthreads();

    // Every thread now holds 1 input value in x[]
    //
    // Build summation tree over elements.
    for(int s=blockDim.x/2; s>0; s=s/2)
    {
        if(tid < s)  x[tid] += x[tid + s];
        __syncthreads();
    }

    // Thread 0 now holds the sum of all input values
    // to this block. Have it add that sum to the running total
    if( tid==0 )  atomicAdd(total, x[tid]);
}
""", options=[f"-Dblocksize={blocksize}"])
plus_reduce = mod.get_function("plus_reduce")


# ------------------------------------------------------------------ host code
def main(N=1 << 20):
    size = N * np.dtype(np.int32).itemsize
    h_input = np.random.randint(0, 10, size=N, dtype=np.int32)
    h_total = np.zeros(1, dtype=np.int32)

    d_input = cudaMalloc(size)
    d_total = cudaMalloc(h_total.nbytes)
    cudaMemcpy(d_input, h_input, size, cudaMemcpyHostToDevice)
    cudaMemset(d_total, 0, h_total.nbytes)          # the running total starts at 0

    nblocks = (N + blocksize - 1) // blocksize
    plus_reduce[nblocks, blocksize](d_input, N, d_total)

    cudaMemcpy(h_total, d_total, h_total.nbytes, cudaMemcpyDeviceToHost)

    expected = int(h_input.sum(dtype=np.int64))
    print(f"GPU sum: {int(h_total[0])}  CPU sum: {expected}")
    ok = int(h_total[0]) == expected

    cudaFree(d_input)
    cudaFree(d_total)

    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
