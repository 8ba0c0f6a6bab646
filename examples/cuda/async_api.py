"""The host keeps working while the GPU runs (cuda-samples' asyncAPI).

Ports NVIDIA cuda-samples `0_Introduction/asyncAPI`: copy in, a kernel that
adds a value to every element, copy out, all issued asynchronously on the
default stream between two events; then the CPU counts while it polls
cudaEventQuery(stop) until the GPU is done:

    while (cudaEventQuery(stop) == cudaErrorNotReady) counter++;

What it shows:
  * kernel launches and cudaMemcpyAsync with page-locked memory return at
    once: the host is free to work until it needs the results;
  * cudaEventQuery returns cudaErrorNotReady (not an exception) while work
    is pending, so the C polling idiom ports as is;
  * the time the GPU took, from cudaEventElapsedTime.

Run:  python async_api.py [n]          (default n = 16 * 1024 * 1024 ints)
"""
import sys
import time

import numpy as np
from pyemu.cuda import *

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
__global__ void increment_kernel(int *g_data, int inc_value)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    g_data[idx] = g_data[idx] + inc_value;
}
""")
increment_kernel = mod.get_function("increment_kernel")


# ------------------------------------------------------------------ host code
def main(n=16 * 1024 * 1024):
    n = (n + 511) // 512 * 512          # whole blocks, as the sample's size is
    nbytes = n * 4
    value = 26

    a = cudaMallocHost(nbytes, dtype=np.int32)      # page-locked
    a[:] = 0
    d_a = cudaMalloc(nbytes)
    cudaMemset(d_a, 255, nbytes)

    threads, blocks = 512, n // 512
    start, stop = cudaEventCreate(), cudaEventCreate()
    cudaDeviceSynchronize()

    t0 = time.perf_counter()
    cudaEventRecord(start, 0)
    cudaMemcpyAsync(d_a, a, nbytes, cudaMemcpyHostToDevice, 0)
    increment_kernel[blocks, threads, 0, 0](d_a, value)
    cudaMemcpyAsync(a, d_a, nbytes, cudaMemcpyDeviceToHost, 0)
    cudaEventRecord(stop, 0)
    issue_ms = (time.perf_counter() - t0) * 1000

    # have the CPU do some work while waiting for the GPU to finish
    counter = 0
    while cudaEventQuery(stop) == cudaErrorNotReady:
        counter += 1

    gpu_ms = cudaEventElapsedTime(start, stop)
    print(f"time spent executing by the GPU: {gpu_ms:.2f}")
    print(f"time spent by CPU in CUDA calls: {issue_ms:.2f}")
    print(f"CPU executed {counter} iterations while waiting for GPU to finish")

    ok = bool((a == value).all())
    cudaEventDestroy(start)
    cudaEventDestroy(stop)
    cudaFreeHost(a)
    cudaFree(d_a)
    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
