"""Stream priorities (cudaStreamCreateWithPriority) scheduled: when a worker
frees up it takes the blocks of the most urgent ready kernel first; running
blocks are not preempted, and a less urgent kernel still completes (nothing
starves once the urgent work is done)."""
import random

import numpy as np
import pytest

from pyemu.cuda import *  # noqa: F401,F403

pytestmark = pytest.mark.usefixtures("cuda_clean_state")


@pytest.fixture(scope="module")
def k():
    return SourceModule(r"""
    #include <time.h>
    // each block spins `us` microseconds, then writes its index + 1
    __global__ void spin(int *out, int us) {
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
            clock_gettime(CLOCK_MONOTONIC, &t);
        } while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
        if (threadIdx.x == 0) out[blockIdx.x] = blockIdx.x + 1;
    }
    """)


def _race(k, low_priority, high_priority):
    """A long kernel (300 one-thread blocks of 1 ms) on one stream, then a shorter one (40 blocks) on
    another: (whether the short one finished while the long one still ran,
    both results right)."""
    least, greatest = cudaDeviceGetStreamPriorityRange()
    lo = cudaStreamCreateWithPriority(cudaStreamNonBlocking, low_priority)
    hi = cudaStreamCreateWithPriority(cudaStreamNonBlocking, high_priority)
    e_lo, e_hi = cudaEventCreate(), cudaEventCreate()
    nlo, nhi = 300, 40
    d_lo, d_hi = cudaMalloc(4 * nlo), cudaMalloc(4 * nhi)
    try:
        k.spin[nlo, 1, 0, lo](d_lo, 1000)
        cudaEventRecord(e_lo, lo)
        k.spin[nhi, 1, 0, hi](d_hi, 1000)
        cudaEventRecord(e_hi, hi)
        cudaEventSynchronize(e_hi)
        early = cudaEventQuery(e_lo) == cudaErrorNotReady
        cudaEventSynchronize(e_lo)
        order = cudaEventElapsedTime(e_hi, e_lo)     # > 0: the short one ended first
        a, b = np.zeros(nlo, np.int32), np.zeros(nhi, np.int32)
        cudaMemcpy(a, d_lo, 4 * nlo, cudaMemcpyDeviceToHost)
        cudaMemcpy(b, d_hi, 4 * nhi, cudaMemcpyDeviceToHost)
        ok = (a == np.arange(1, nlo + 1)).all() and (b == np.arange(1, nhi + 1)).all()
        return early and order > 0, ok
    finally:
        for s in (lo, hi):
            cudaStreamDestroy(s)
        for e in (e_lo, e_hi):
            cudaEventDestroy(e)
        cudaFree(d_lo)
        cudaFree(d_hi)


def test_high_priority_kernel_overtakes_a_long_low_priority_one(k):
    least, greatest = cudaDeviceGetStreamPriorityRange()
    first, ok = _race(k, least, greatest)
    assert ok
    assert first, "the high-priority kernel did not finish before the low-priority one"


def test_equal_priorities_keep_launch_order(k):
    # the control: at the same priority the workers finish the first kernel's
    # blocks before the second's (FIFO), so the short one ends last
    least, _ = cudaDeviceGetStreamPriorityRange()
    first, ok = _race(k, least, least)
    assert ok
    assert not first


def test_priority_of_stream_in_the_engine_is_clamped(k):
    least, greatest = cudaDeviceGetStreamPriorityRange()
    s = cudaStreamCreateWithPriority(cudaStreamDefault, greatest - 10)
    try:
        assert cudaStreamGetPriority(s) == greatest
        d = cudaMalloc(4 * 8)
        k.spin[8, 1, 0, s](d, 0)
        cudaStreamSynchronize(s)
        out = np.zeros(8, np.int32)
        cudaMemcpy(out, d, 32, cudaMemcpyDeviceToHost)
        assert (out == np.arange(1, 9)).all()
        cudaFree(d)
    finally:
        cudaStreamDestroy(s)


def test_mixed_priorities_under_stress_nothing_starves(k):
    # 12 streams of every priority, 10 kernels each, random lengths: every
    # kernel completes with its result, whatever its priority
    least, greatest = cudaDeviceGetStreamPriorityRange()
    rng = random.Random(11)
    streams = [cudaStreamCreateWithPriority(cudaStreamNonBlocking, least - (i % (least - greatest + 1)))
               for i in range(12)]
    bufs = []
    try:
        for rnd in range(10):
            for s in streams:
                n = rng.randint(1, 40)
                d = cudaMalloc(4 * n)
                k.spin[n, 1, 0, s](d, rng.randint(0, 300))
                bufs.append((d, n))
        for s in streams:
            assert cudaStreamQuery(s) in (cudaSuccess, cudaErrorNotReady)
        cudaDeviceSynchronize()
        for s in streams:
            assert cudaStreamQuery(s) == cudaSuccess
        for d, n in bufs:
            out = np.zeros(n, np.int32)
            cudaMemcpy(out, d, 4 * n, cudaMemcpyDeviceToHost)
            assert (out == np.arange(1, n + 1)).all()
    finally:
        for s in streams:
            cudaStreamDestroy(s)
        for d, _ in bufs:
            cudaFree(d)
