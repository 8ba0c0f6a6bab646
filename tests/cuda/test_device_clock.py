"""The device clock: clock() and clock64() tick at cudaDevAttrClockRate kHz,
so the cuda-samples idiom `while (clock() - start < ms * clockRate)` spins for
about ms milliseconds (it used to be glibc's CPU-time clock(), 2400x slower)."""
import time

import numpy as np
import pytest

from pyemu.cuda import (SourceModule, cudaDevAttrClockRate, cudaDeviceGetAttribute,
                        cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy,
                        cudaMemcpyDeviceToHost)

SPIN = r'''
__global__ void spin(long long *out, clock_t cycles) {
    clock_t start = clock();
    clock_t offset = 0;
    while (offset < cycles) offset = clock() - start;
    out[0] = offset;
    out[1] = clock64();
}
'''


@pytest.fixture(scope="module")
def spin():
    return SourceModule(SPIN).get_function("spin")


def test_clock_spins_for_the_milliseconds_clock_rate_says(spin):
    rate = cudaDeviceGetAttribute(cudaDevAttrClockRate, 0)       # kHz
    d = cudaMalloc(16)
    t = time.perf_counter()
    spin[1, 1](d, 40 * rate)                                      # 40 ms of device clock
    cudaDeviceSynchronize()
    took = time.perf_counter() - t
    out = np.zeros(2, np.int64)
    cudaMemcpy(out, d, 16, cudaMemcpyDeviceToHost)
    cudaFree(d)
    assert out[0] >= 40 * rate
    assert 0.035 < took < 5.0, took        # wall time of the same order, not 2400x


def test_clock64_only_goes_up(spin):
    d = cudaMalloc(16)
    out = np.zeros(2, np.int64)
    seen = []
    for _ in range(3):
        spin[1, 1](d, 1000)
        cudaMemcpy(out, d, 16, cudaMemcpyDeviceToHost)
        seen.append(int(out[1]))
    cudaFree(d)
    assert seen == sorted(seen) and len(set(seen)) == 3
