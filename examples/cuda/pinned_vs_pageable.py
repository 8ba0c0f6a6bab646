"""Copy bandwidth from pageable and from page-locked host memory.

After NVIDIA's "How to Optimize Data Transfers in CUDA C/C++" (M. Harris,
2012, `bandwidthtest`): the same array is copied host-to-device and back,
once from a plain (pageable) host array and once from page-locked memory
(cudaMallocHost), each timed with events:

    cudaEventRecord(startEvent, 0);
    cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice);
    cudaEventRecord(stopEvent, 0);
    cudaEventSynchronize(stopEvent);
    cudaEventElapsedTime(&time, startEvent, stopEvent);

What it shows:
  * how bandwidth is measured with events (bytes * 1e-6 / ms = GB/s);
  * page-locked memory is what lets a copy be asynchronous; on a GPU it is
    also faster (no staging through a driver buffer).  On the CPU both are
    memory copies, so the two bandwidths come out close: the difference
    that remains is cudaMemcpyAsync's behaviour (see streams_overlap.py);
  * the copies are checked: what comes back equals what went in.

Run:  python pinned_vs_pageable.py [MiB]     (default 64 MiB)
"""
import sys

import numpy as np
from pyemu.cuda import *


def profile_copies(h_a, h_b, d, nbytes, desc):
    start, stop = cudaEventCreate(), cudaEventCreate()
    results = []
    for kind, dst, src in ((cudaMemcpyHostToDevice, d, h_a), (cudaMemcpyDeviceToHost, h_b, d)):
        best = None
        for _ in range(3):
            cudaEventRecord(start, 0)
            cudaMemcpy(dst, src, nbytes, kind)
            cudaEventRecord(stop, 0)
            cudaEventSynchronize(stop)
            ms = cudaEventElapsedTime(start, stop)
            best = ms if best is None else min(best, ms)
        results.append(nbytes * 1e-6 / best)
    print(f"\n{desc} transfers")
    print(f"  Host to Device bandwidth (GB/s): {results[0]:.2f}")
    print(f"  Device to Host bandwidth (GB/s): {results[1]:.2f}")
    cudaEventDestroy(start)
    cudaEventDestroy(stop)
    return bool(np.array_equal(h_a, h_b))


def main(mib=64):
    nbytes = mib << 20
    n = nbytes // 4
    h_aPageable = np.random.rand(n).astype(np.float32)
    h_bPageable = np.empty(n, np.float32)
    h_aPinned = cudaMallocHost(nbytes, dtype=np.float32)
    h_bPinned = cudaMallocHost(nbytes, dtype=np.float32)
    h_aPinned[:] = h_aPageable
    d_a = cudaMalloc(nbytes)

    print(f"Device: {cudaGetDeviceProperties(0).name}")
    print(f"Transfer size (MB): {nbytes // (1 << 20)}")
    ok = profile_copies(h_aPageable, h_bPageable, d_a, nbytes, "Pageable")
    ok = profile_copies(h_aPinned, h_bPinned, d_a, nbytes, "Pinned") and ok

    cudaFree(d_a)
    cudaFreeHost(h_aPinned)
    cudaFreeHost(h_bPinned)
    print("Test PASSED" if ok else "Test FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(arg) for arg in sys.argv[1:2])))
