"""The legacy default stream against blocking and non-blocking streams.

After the CUDA C Programming Guide, "Implicit Synchronization" and the
`cudaStreamNonBlocking` flag: two streams each run a kernel that takes
`ms` milliseconds, and a tiny kernel is launched on the default stream
(stream 0) between them:

    kernel<<<1, 1, 0, s1>>>(...);
    tiny<<<1, 1>>>(...);            // the legacy default stream
    kernel<<<1, 1, 0, s2>>>(...);

With streams made by cudaStreamCreate (blocking), the legacy default stream
waits for s1, and s2 waits for the default stream: the two long kernels run
one after the other.  With cudaStreamCreateWithFlags(cudaStreamNonBlocking)
there is no implicit synchronisation and they run at the same time.

What it shows:
  * the legacy default stream is a barrier between blocking streams;
  * non-blocking streams run concurrently with it and with each other;
  * the order of work is checked too: with blocking streams, `tiny` sees
    s1's kernel finished.

Run:  python default_stream.py [ms]     (default 100 ms a kernel; needs 2 workers)
"""
import sys
import time

import numpy as np
from pyemu.cuda import *

# ---------------------------------------------------------------- device code
mod = SourceModule(r"""
// runs for `ms` milliseconds of the device clock (clock_khz ticks a
// millisecond: cudaDevAttrClockRate), then marks itself done
__global__ void busy(int ms, long long clock_khz, int *done)
{
    long long start = clock64();
    while (clock64() - start < ms * clock_khz) { }
    *(volatile int *)done = 1;
}
// records whether the first long kernel had finished when it ran
__global__ void tiny(const int *done, int *seen) { *seen = *(volatile const int *)done; }
""")
busy, tiny = mod.get_function("busy"), mod.get_function("tiny")


# ------------------------------------------------------------------ host code
def run(flags, ms):
    s1, s2 = cudaStreamCreateWithFlags(flags), cudaStreamCreateWithFlags(flags)
    flag = cudaMallocManaged(12, cudaMemAttachGlobal, np.int32)   # done1, done2, seen
    cudaDeviceSynchronize()
    t0 = time.perf_counter()
    khz = cudaDeviceGetAttribute(cudaDevAttrClockRate, 0)
    busy[1, 1, 0, s1](ms, khz, flag.device_ptr)
    tiny[1, 1](flag.device_ptr, flag.device_ptr + 8)
    busy[1, 1, 0, s2](ms, khz, flag.device_ptr + 4)
    cudaDeviceSynchronize()
    elapsed = (time.perf_counter() - t0) * 1000
    seen = int(flag[2])
    cudaStreamDestroy(s1)
    cudaStreamDestroy(s2)
    cudaFree(flag)
    return elapsed, seen


def main(ms=100):
    workers = cudaGetDeviceProperties(0).multiProcessorCount
    blocking, seen_b = run(cudaStreamDefault, ms)
    nonblocking, _ = run(cudaStreamNonBlocking, ms)
    print(f"two {ms} ms kernels, a default-stream kernel between them:")
    print(f"  blocking streams:     {blocking:7.1f} ms (one after the other)")
    print(f"  non-blocking streams: {nonblocking:7.1f} ms (at the same time)")
    ok = blocking >= 2 * ms and seen_b == 1
    if workers >= 2:
        ok = ok and nonblocking < 1.8 * ms
    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
