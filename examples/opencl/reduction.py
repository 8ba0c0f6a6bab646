"""Parallel sum in OpenCL: a tree per work-group, then one atomic_add each.

The OpenCL form of examples/cuda/reduction.py: plus_reduce of J. Nickolls,
I. Buck, M. Garland, K. Skadron, "Scalable Parallel Programming with CUDA"
(ACM Queue, 2008), with the same algorithm and host steps in OpenCL terms.
`blocksize` is given to the compiler as the build option -Dblocksize=256.

What changes from CUDA:
  * __shared__ int x[blocksize] -> __local int x[blocksize];
  * blockIdx.x*blockDim.x + threadIdx.x -> get_group_id(0)*get_local_size(0)
    + get_local_id(0) (get_global_id(0) says the same);
  * __syncthreads() -> barrier(CLK_LOCAL_MEM_FENCE); atomicAdd -> atomic_add;
  * cudaMemset(d_total, 0, ...) -> clEnqueueFillBuffer with a zero pattern;
  * the global size is rounded up to a whole number of work-groups (OpenCL
    1.2 requires it); the padding work-items load 0, as in CUDA.

Run:  python reduction.py [N]         (default N = 2^20 ints)
"""
import sys

import numpy as np
from pyemu.opencl import *

blocksize = 256

# ---------------------------------------------------------------- device code
programSource = r"""
__kernel
void plus_reduce(__global int *input, unsigned int N, __global int *total)
{
    unsigned int tid = get_local_id(0);
    unsigned int i = get_group_id(0)*get_local_size(0) + get_local_id(0);

    // Each work-group loads its elements into local memory, padding
    // with 0 if N is not a multiple of blocksize
    __local int x[blocksize];
    x[tid] = (i<N) ? input[i] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    // Every work-item now holds 1 input value in x[]
    //
    // Build summation tree over elements.
    for(int s=get_local_size(0)/2; s>0; s=s/2)
    {
        if(tid < s)  x[tid] += x[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    // Work-item 0 now holds the sum of all input values
    // to this work-group. Have it add that sum to the running total
    if( tid==0 )  atomic_add(total, x[tid]);
}
"""

# -------------------------------- set-up that CUDA does implicitly, done once
platform = clGetPlatformIDs()[0]
device = clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU)[0]
context = clCreateContext(None, [device])
commandQueue = clCreateCommandQueue(context, device, 0)
program = clCreateProgramWithSource(context, [programSource])
clBuildProgram(program, [device], f"-Dblocksize={blocksize}")
plus_reduce = clCreateKernel(program, "plus_reduce")


# ------------------------------------------------------------------ host code
def main(N=1 << 20):
    size = N * np.dtype(np.int32).itemsize
    h_input = np.random.randint(0, 10, size=N, dtype=np.int32)
    h_total = np.zeros(1, dtype=np.int32)

    d_input = clCreateBuffer(context, CL_MEM_READ_ONLY, size)
    d_total = clCreateBuffer(context, CL_MEM_READ_WRITE, h_total.nbytes)
    clEnqueueWriteBuffer(commandQueue, d_input, CL_TRUE, 0, size, h_input)
    zero = np.zeros(1, dtype=np.int32)              # the running total starts at 0
    clEnqueueFillBuffer(commandQueue, d_total, zero, zero.nbytes, 0, h_total.nbytes)

    nblocks = (N + blocksize - 1) // blocksize
    clSetKernelArg(plus_reduce, 0, d_input)
    clSetKernelArg(plus_reduce, 1, np.uint32(N))
    clSetKernelArg(plus_reduce, 2, d_total)
    clEnqueueNDRangeKernel(commandQueue, plus_reduce, 1, None, [nblocks * blocksize], [blocksize])

    clEnqueueReadBuffer(commandQueue, d_total, CL_TRUE, 0, h_total.nbytes, h_total)

    expected = int(h_input.sum(dtype=np.int64))
    print(f"GPU sum: {int(h_total[0])}  CPU sum: {expected}")
    ok = int(h_total[0]) == expected

    clReleaseMemObject(d_input)
    clReleaseMemObject(d_total)

    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
