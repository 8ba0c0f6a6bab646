"""Parallel sum with OpenCL sub-groups: sub_group_reduce_add, then one atomic_add.

The OpenCL form of examples/cuda/warp_reduce.py's block_sum_shfl: the
sub-groups of pyemu's device are the executor's warps, 32 work-items in
linear local id order (cl_khr_subgroups; the last sub-group of a
work-group is shorter when the work-group size is not a multiple of 32).

What it shows:
  * sub_group_reduce_add(v): every work-item of a sub-group gets the sum of
    the sub-group's values, with no __local memory and no barrier;
  * the sub-group's first work-item (get_sub_group_local_id() == 0) writes
    that sum to __local memory, one slot per sub-group (get_sub_group_id());
  * after barrier(CLK_LOCAL_MEM_FENCE), sub-group 0 sums those partial sums
    with sub_group_reduce_add again, and adds the work-group's sum to the
    total with atomic_add (as examples/opencl/reduction.py does);
  * clGetKernelSubGroupInfo tells the host how many sub-groups a work-group
    of 256 has (CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE).

What changes from CUDA:
  * __shfl_down_sync(0xffffffff, v, offset) in a loop -> sub_group_reduce_add(v)
    (one call: the loop of shuffles is the implementation's business);
  * threadIdx.x % warpSize, threadIdx.x / warpSize -> get_sub_group_local_id(),
    get_sub_group_id().

Run:  python subgroup_reduce.py [N]         (default N = 2^20 ints)
"""
import sys

import numpy as np
from pyemu.opencl import *

blocksize = 256

# ---------------------------------------------------------------- device code
programSource = r"""
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
__kernel
void subgroup_reduce(__global const int *input, unsigned int N, __global int *total)
{
    __local int partial[32];                   // one slot per sub-group
    unsigned int i = get_global_id(0);

    // 1. each sub-group sums its values: every work-item gets the sum
    int v = sub_group_reduce_add(i < N ? input[i] : 0);
    if (get_sub_group_local_id() == 0)
        partial[get_sub_group_id()] = v;
    barrier(CLK_LOCAL_MEM_FENCE);

    // 2. sub-group 0 sums the partial sums of the work-group
    if (get_sub_group_id() == 0) {
        unsigned int lane = get_sub_group_local_id();
        int p = lane < get_num_sub_groups() ? partial[lane] : 0;
        p = sub_group_reduce_add(p);
        if (lane == 0)
            atomic_add(total, p);               // 3. one atomic per work-group
    }
}
"""

# -------------------------------- set-up that CUDA does implicitly, done once
platform = clGetPlatformIDs()[0]
device = clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU)[0]
context = clCreateContext(None, [device])
commandQueue = clCreateCommandQueue(context, device, 0)
program = clCreateProgramWithSource(context, [programSource])
clBuildProgram(program, [device])
subgroup_reduce = clCreateKernel(program, "subgroup_reduce")


# ------------------------------------------------------------------ host code
def main(N=1 << 20):
    size = N * np.dtype(np.int32).itemsize
    h_input = np.random.randint(-100, 100, size=N, dtype=np.int32)
    h_total = np.zeros(1, dtype=np.int32)

    count = clGetKernelSubGroupInfo(subgroup_reduce, device,
                                    CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, [blocksize])
    sg_size = clGetKernelSubGroupInfo(subgroup_reduce, device,
                                      CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, [blocksize])
    print(f"a work-group of {blocksize} has {count} sub-groups of {sg_size}")

    d_input = clCreateBuffer(context, CL_MEM_READ_ONLY, size)
    d_total = clCreateBuffer(context, CL_MEM_READ_WRITE, h_total.nbytes)
    clEnqueueWriteBuffer(commandQueue, d_input, CL_TRUE, 0, size, h_input)
    zero = np.zeros(1, dtype=np.int32)              # the running total starts at 0
    clEnqueueFillBuffer(commandQueue, d_total, zero, zero.nbytes, 0, h_total.nbytes)

    nblocks = (N + blocksize - 1) // blocksize
    clSetKernelArg(subgroup_reduce, 0, d_input)
    clSetKernelArg(subgroup_reduce, 1, np.uint32(N))
    clSetKernelArg(subgroup_reduce, 2, d_total)
    clEnqueueNDRangeKernel(commandQueue, subgroup_reduce, 1, None,
                           [nblocks * blocksize], [blocksize])

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
