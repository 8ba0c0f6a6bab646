"""Vector addition in OpenCL: the whole host program, step by step.

Ports the OpenCL vector-add host program of the course slides (the OpenCL
counterpart of NVIDIA's "Vector Addition with Blocks and Threads"): find a
platform and a device, make a context and a command queue, build the kernel
from source, create buffers, set the kernel's arguments, enqueue it over an
NDRange, read the result back and release everything.

What it shows:
  * the objects CUDA keeps implicit: platform, context, command queue, program;
  * CL_MEM_COPY_HOST_PTR copies the inputs in when the buffer is created
    (CUDA: cudaMalloc, then cudaMemcpy);
  * the NDRange is counted in work-items, not in work-groups: the global size
    is totalSize, the local size workGroupSize (CUDA: totalSize / 256 blocks
    of 256 threads); in OpenCL 1.2 the global size must be a multiple of the
    local size, so the kernel needs no `idx < n` guard;
  * get_global_id(0) is blockIdx.x * blockDim.x + threadIdx.x.

Run:  python vector_add.py [totalSize]  (default 2^20 floats; a multiple of 256)
"""
import sys

import numpy as np
from pyemu.opencl import *

# ---------------------------------------------------------------- device code
programSource = r"""
__kernel void vectorAdd(__global const float *A,
                        __global const float *B,
                        __global float *C)
{
    int idx = get_global_id(0);
    C[idx] = A[idx] + B[idx];
}
"""

# ------------------------------------------------------------------ host code
workGroupSize = 256


def main(totalSize=1 << 20):
    if totalSize % workGroupSize != 0:
        print(f"totalSize must be a multiple of workGroupSize ({workGroupSize})")
        return 2

    # Host data
    A = np.random.rand(totalSize).astype(np.float32)
    B = np.random.rand(totalSize).astype(np.float32)
    C = np.empty(totalSize, dtype=np.float32)

    # Discover and initialise the platform, the context and the device
    platform = clGetPlatformIDs()[0]
    props = [CL_CONTEXT_PLATFORM, platform, 0]
    context = clCreateContextFromType(props, CL_DEVICE_TYPE_GPU)
    device = clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT)[0]

    # Create a command queue on the device
    commandQueue = clCreateCommandQueue(context, device, 0)

    # Create the program from source, build it, and take its kernel
    program = clCreateProgramWithSource(context, [programSource])
    clBuildProgram(program)
    kernel = clCreateKernel(program, "vectorAdd")

    # Create device buffers: A and B copied in from the host, C left to the kernel
    deviceA = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, totalSize * 4, A)
    deviceB = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, totalSize * 4, B)
    deviceC = clCreateBuffer(context, CL_MEM_WRITE_ONLY, totalSize * 4)

    # Set the kernel arguments (the C form, with a size, works too)
    clSetKernelArg(kernel, 0, deviceA)
    clSetKernelArg(kernel, 1, deviceB)
    clSetKernelArg(kernel, 2, deviceC)

    # Enqueue the kernel over a 1-D NDRange of totalSize work-items
    clEnqueueNDRangeKernel(commandQueue, kernel, 1, None, [totalSize], [workGroupSize])

    # Read the output buffer back to the host (blocking)
    clEnqueueReadBuffer(commandQueue, deviceC, CL_TRUE, 0, totalSize * 4, C)

    # Verify against NumPy
    ok = np.array_equal(C, A + B)
    if not ok:
        bad = np.flatnonzero(C != A + B)[0]
        print(f"Result verification failed at element {bad}: {C[bad]} != {A[bad] + B[bad]}")

    # Release OpenCL resources
    clReleaseKernel(kernel)
    clReleaseProgram(program)
    clReleaseCommandQueue(commandQueue)
    clReleaseMemObject(deviceA)
    clReleaseMemObject(deviceB)
    clReleaseMemObject(deviceC)
    clReleaseContext(context)

    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
