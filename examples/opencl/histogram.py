"""Histogram of bytes in OpenCL: why atomics are needed.

The OpenCL form of examples/cuda/histogram.py: the global-memory-atomics
histogram of J. Sanders & E. Kandrot, "CUDA by Example", ch. 9
(histo_kernel), with the same kernel using a plain `histo[buffer[i]]++` in
front of it, and the same host steps in OpenCL terms.

What changes from CUDA:
  * threadIdx.x + blockIdx.x * blockDim.x -> get_local_id(0) +
    get_group_id(0) * get_local_size(0); the grid-stride step blockDim.x *
    gridDim.x -> get_local_size(0) * get_num_groups(0) (= get_global_size(0));
  * atomicAdd(&histo[bin], 1) -> atomic_add(&histo[bin], 1u);
  * prop.multiProcessorCount -> clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS);
  * <<<blocks*2, 256>>> -> a global size of blocks*2*256 work-items in
    work-groups of 256.

Run:  python histogram.py [SIZE]      (default SIZE = 100 * 1024 * 1024 bytes)
"""
import sys

import numpy as np
from pyemu.opencl import *

# ---------------------------------------------------------------- device code
programSource = r"""
__kernel void histo_kernel_no_atomics( __global unsigned char *buffer,
                                       long size,
                                       __global unsigned int *histo ) {
    int i = get_local_id(0) + get_group_id(0) * get_local_size(0);
    int offset = get_local_size(0) * get_num_groups(0);
    while (i < size) {
        histo[buffer[i]]++;                     // racy read-modify-write
        i += offset;
    }
}

__kernel void histo_kernel( __global unsigned char *buffer,
                            long size,
                            __global unsigned int *histo ) {
    int i = get_local_id(0) + get_group_id(0) * get_local_size(0);
    int offset = get_local_size(0) * get_num_groups(0);
    while (i < size) {
        atomic_add( &(histo[buffer[i]]), 1u );
        i += offset;
    }
}
"""

# -------------------------------- set-up that CUDA does implicitly, done once
platform = clGetPlatformIDs()[0]
device = clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU)[0]
context = clCreateContext(None, [device])
commandQueue = clCreateCommandQueue(context, device, 0)
program = clCreateProgramWithSource(context, [programSource])
clBuildProgram(program)
histo_kernel_no_atomics = clCreateKernel(program, "histo_kernel_no_atomics")
histo_kernel = clCreateKernel(program, "histo_kernel")


# ------------------------------------------------------------------ host code
def big_random_block(size):
    return np.random.randint(0, 256, size=size, dtype=np.uint8)


def run_histogram(kernel, dev_buffer, SIZE, dev_histo, blocks):
    """Zero the bins, launch `kernel` over blocks*2 work-groups of 256, read the bins."""
    zero = np.zeros(1, dtype=np.uint32)
    clEnqueueFillBuffer(commandQueue, dev_histo, zero, zero.nbytes, 0, 256 * 4)
    clSetKernelArg(kernel, 0, dev_buffer)
    clSetKernelArg(kernel, 1, np.int64(SIZE))
    clSetKernelArg(kernel, 2, dev_histo)
    clEnqueueNDRangeKernel(commandQueue, kernel, 1, None, [blocks * 2 * 256], [256])
    histo = np.empty(256, dtype=np.uint32)
    clEnqueueReadBuffer(commandQueue, dev_histo, CL_TRUE, 0, 256 * 4, histo)
    return histo


def main(SIZE=100 * 1024 * 1024):
    buffer = big_random_block(SIZE)

    # allocate memory on the device for the file's data
    dev_buffer = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, SIZE, buffer)
    dev_histo = clCreateBuffer(context, CL_MEM_READ_WRITE, 256 * 4)     # 256 * sizeof(int)

    # kernel launch - 2x the number of compute units gave best timing
    blocks = clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS)

    # First the racy kernel: a plain histo[bin]++
    racy_histo = run_histogram(histo_kernel_no_atomics, dev_buffer, SIZE, dev_histo, blocks)
    racyCount = int(racy_histo.sum(dtype=np.int64))
    print(f"Histogram Sum (no atomics):  {racyCount}")

    # Then the book's kernel, with atomic_add
    histo = run_histogram(histo_kernel, dev_buffer, SIZE, dev_histo, blocks)
    histoCount = int(histo.sum(dtype=np.int64))
    print(f"Histogram Sum (atomic_add):  {histoCount}")

    # verify that we have the same counts via CPU (NumPy, a megabyte at a time)
    cpu_histo = np.zeros(256, dtype=np.int64)
    for start in range(0, SIZE, 1 << 20):
        cpu_histo += np.bincount(buffer[start:start + (1 << 20)], minlength=256)
    ok = True
    for i in np.flatnonzero(histo != cpu_histo):
        print(f"Failure at {i}!")
        ok = False

    # A racy ++ can lose counts, but never invent them
    print(f"Updates lost without atomics: {SIZE - racyCount}")
    if racyCount > SIZE:
        ok = False

    clReleaseMemObject(dev_histo)
    clReleaseMemObject(dev_buffer)

    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
