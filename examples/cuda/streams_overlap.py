"""Overlapping copies and kernels with 4 streams (the course's stream loop).

Ports the CUDA C Programming Guide's "Overlapping Behavior" example (section
Asynchronous Concurrent Execution, Streams): the input is cut in 4 parts and
each part is copied in, processed and copied out on a stream of its own, so
that the copy of one part overlaps the kernel of another:

    for (int i = 0; i < 4; ++i) {
        cudaMemcpyAsync(inputDevPtr + i * size, hostPtr + i * size, size,
                        cudaMemcpyHostToDevice, stream[i]);
        MyKernel<<<100, 512, 0, stream[i]>>>(outputDevPtr + i * size,
                                               inputDevPtr + i * size, size);
        cudaMemcpyAsync(hostPtr + i * size, outputDevPtr + i * size, size,
                        cudaMemcpyDeviceToHost, stream[i]);
    }

against the same work done serially on the default stream, both timed with
events (events between the serial steps also time its copies and its kernel).

On a 2-core CPU the copy engine's thread takes a core while it copies, so
the kernels get the other one then: the 4-stream loop takes at least
max(C, K + C/2 + C/8), K and C being the serial kernel's and copies' times
(C/8: the first copy in and the last copy out have no kernel beside them).
That is why the kernel does a little arithmetic on each element: with
copies somewhat longer than the kernel (C = 1.5 K: 1.29x; C = 2 K: 1.33x)
the streams gain the most.

What it shows:
  * host memory for asynchronous copies is page-locked (cudaMallocHost);
  * work on different streams runs concurrently (here: a copy on one worker
    thread while kernel blocks run on the other);
  * events time work on the device: cudaEventRecord, cudaEventSynchronize,
    cudaEventElapsedTime;
  * the host must synchronise before it reads what an asynchronous copy wrote.

Run:  python streams_overlap.py [n]     (default n = 2^20 floats a stream)
With PYEMU_TRACE=streams.json (if this pyemu has the timeline), view the
overlap with `python -m pyemu timeline streams.json -o timeline.png`.
"""
import sys

import numpy as np
from pyemu.cuda import *

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
__global__ void MyKernel(float *out, const float *in, int size)
{
    // one element a thread, with some arithmetic on each: 12 multiply-adds,
    // so that run serially the copies take somewhat longer than the kernel
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        float x = in[i];
        for (int r = 0; r < 4; r++) {
            x = x * 0.999f + 0.5f;
            x = x * 0.999f + 0.5f;
            x = x * 0.999f + 0.5f;
        }
        out[i] = x;
    }
}
""")
MyKernel = mod.get_function("MyKernel")


def reference(x):
    """MyKernel's arithmetic with NumPy, in float32."""
    x = x.copy()
    for _ in range(12):
        x = x * np.float32(0.999) + np.float32(0.5)
    return x


# ------------------------------------------------------------------ host code
def main(n=1 << 20):
    nstreams = 4
    size = n * 4                                  # bytes a stream
    stream = [cudaStreamCreate() for i in range(nstreams)]
    hostPtr = cudaMallocHost(nstreams * size, dtype=np.float32)   # page-locked
    inputDevPtr = cudaMalloc(nstreams * size)
    outputDevPtr = cudaMalloc(nstreams * size)
    data = np.random.rand(nstreams * n).astype(np.float32)
    expected = reference(data)
    start, stop = cudaEventCreate(), cudaEventCreate()
    copied, computed = cudaEventCreate(), cudaEventCreate()   # between the serial steps

    # serial: everything on the default stream, one step after the other
    # (run twice: the first run also touches the device memory's pages first)
    for rep in range(2):
        hostPtr[:] = data
        cudaEventRecord(start, 0)
        cudaMemcpyAsync(inputDevPtr, hostPtr, nstreams * size, cudaMemcpyHostToDevice, 0)
        cudaEventRecord(copied, 0)
        MyKernel[(nstreams * n + 511) // 512, 512, 0, 0](outputDevPtr, inputDevPtr, nstreams * n)
        cudaEventRecord(computed, 0)
        cudaMemcpyAsync(hostPtr, outputDevPtr, nstreams * size, cudaMemcpyDeviceToHost, 0)
        cudaEventRecord(stop, 0)
        cudaEventSynchronize(stop)
        serial_ms = cudaEventElapsedTime(start, stop)
        kernel_ms = cudaEventElapsedTime(copied, computed)
        copy_ms = serial_ms - kernel_ms
    ok = np.allclose(hostPtr, expected, rtol=1e-5)

    # 4 streams: copy in, kernel, copy out of each part on its own stream
    hostPtr[:] = data
    cudaEventRecord(start, 0)
    for i in range(nstreams):
        cudaMemcpyAsync(inputDevPtr + i * size, hostPtr[i * n:], size,
                        cudaMemcpyHostToDevice, stream[i])
        MyKernel[(n + 511) // 512, 512, 0, stream[i]](outputDevPtr + i * size,
                                                  inputDevPtr + i * size, n)
        cudaMemcpyAsync(hostPtr[i * n:], outputDevPtr + i * size, size,
                        cudaMemcpyDeviceToHost, stream[i])
    cudaEventRecord(stop, 0)
    cudaEventSynchronize(stop)
    streams_ms = cudaEventElapsedTime(start, stop)
    ok = ok and np.allclose(hostPtr, expected, rtol=1e-5)

    print(f"serial:    {serial_ms:8.2f} ms  (copies {copy_ms:.2f} ms, kernel {kernel_ms:.2f} ms)")
    print(f"{nstreams} streams: {streams_ms:8.2f} ms  ({serial_ms / streams_ms:.2f}x)")

    for s in stream:
        cudaStreamDestroy(s)
    for e in (start, stop, copied, computed):
        cudaEventDestroy(e)
    cudaFreeHost(hostPtr)
    cudaFree(inputDevPtr)
    cudaFree(outputDevPtr)
    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
