"""cudaMemcpyAsync (every kind) and cudaMemsetAsync on streams: results
against NumPy, CUDA's pageable vs page-locked rules (pageable host-to-device
is staged at the call, device-to-pageable-host has arrived on return,
page-locked returns at once), and the NumPy arrays an in-flight copy uses
stay alive whatever the caller does with them."""
import gc
import time
import weakref

import numpy as np
import pytest

from pyemu.cuda import *  # noqa: F401,F403
from pyemu.runtime import holds

pytestmark = pytest.mark.usefixtures("cuda_clean_state")


@pytest.fixture(scope="module")
def k():
    return SourceModule(r"""
    #include <time.h>
    __global__ void gated(const int *gate, int *flag) {
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (((volatile const int *)gate)[0] == 0) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if (t.tv_sec - t0.tv_sec > 20) return;
        }
        ((volatile int *)flag)[0] = 1;
    }
    __global__ void add1(float *a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) a[i] += 1.0f;
    }
    """)


def raises_code(code, fn, *args):
    with pytest.raises(CudaError) as info:
        fn(*args)
    assert int(info.value.code) == int(code), str(info.value)


class Gate:
    """Holds a non-blocking stream behind a kernel until opened."""

    def __init__(self, k):
        self.gate = cudaMallocManaged(4, cudaMemAttachGlobal, np.int32)
        self.flag = cudaMallocManaged(4, cudaMemAttachGlobal, np.int32)
        self.gate[0] = self.flag[0] = 0     # allocations start undefined (reused memory)
        self.stream = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
        k.gated[1, 1, 0, self.stream](self.gate, self.flag)

    def open(self):
        self.gate[0] = 1

    def close(self):
        self.gate[0] = 1
        cudaDeviceSynchronize()
        cudaStreamDestroy(self.stream)


@pytest.mark.parametrize("pinned", [False, True])
def test_round_trip_every_kind(k, pinned):
    n = 100_000
    s = cudaStreamCreate()
    a = np.random.rand(n).astype(np.float32)
    src = cudaMallocHost(4 * n, np.float32) if pinned else np.empty(n, np.float32)
    dst = cudaMallocHost(4 * n, np.float32) if pinned else np.empty(n, np.float32)
    hh = np.empty(n, np.float32)
    src[:] = a
    d1, d2 = cudaMalloc(4 * n), cudaMalloc(4 * n)
    cudaMemcpyAsync(hh, src, 4 * n, cudaMemcpyHostToHost, s)
    cudaMemcpyAsync(d1, src, 4 * n, cudaMemcpyHostToDevice, s)
    k.add1[(n + 255) // 256, 256, 0, s](d1, n)
    cudaMemcpyAsync(d2, d1, 4 * n, cudaMemcpyDeviceToDevice, s)
    cudaMemsetAsync(d1, 0, 4 * n, s)
    cudaMemcpyAsync(dst, d2, 4 * n, cudaMemcpyDeviceToHost, s)
    cudaStreamSynchronize(s)
    assert np.array_equal(hh, a)
    assert np.array_equal(dst, a + 1)
    cudaMemcpyAsync(dst, d1, 4 * n, cudaMemcpyDefault, s)
    cudaStreamSynchronize(s)
    assert not dst.any()
    cudaStreamDestroy(s)
    cudaFree(d1)
    cudaFree(d2)
    if pinned:
        cudaFreeHost(src)
        cudaFreeHost(dst)


def test_pageable_host_to_device_is_staged_at_the_call(k):
    g = Gate(k)
    try:
        d = cudaMalloc(16)
        a = np.array([1, 2, 3, 4], np.int32)
        cudaMemcpyAsync(d, a, 16, cudaMemcpyHostToDevice, g.stream)   # returns: stream is held
        a[:] = 99                      # allowed: the data was taken
        g.open()
        out = np.zeros(4, np.int32)
        cudaMemcpyAsync(out, d, 16, cudaMemcpyDeviceToHost, g.stream)  # pageable: arrived on return
        assert list(out) == [1, 2, 3, 4]
    finally:
        g.close()


def test_page_locked_copy_returns_at_once(k):
    g = Gate(k)
    try:
        d = cudaMalloc(16)
        cudaMemsetAsync(d, 7, 16, g.stream)
        h = cudaMallocHost(16, np.uint8)
        t0 = time.perf_counter()
        cudaMemcpyAsync(h, d, 16, cudaMemcpyDeviceToHost, g.stream)
        assert time.perf_counter() - t0 < 1.0
        assert not h.any()             # not yet: the stream is held
        assert cudaStreamQuery(g.stream) == cudaErrorNotReady
        g.open()
        cudaStreamSynchronize(g.stream)
        assert (h == 7).all()
        cudaFreeHost(h)
    finally:
        g.close()


def test_async_copy_source_out_of_scope_stays_alive(k):
    g = Gate(k)
    try:
        n = 1 << 16
        d = cudaMalloc(4 * n)
        h = cudaMallocHost(4 * n, np.float32)
        h[:] = np.arange(n)
        view = h[: n]                 # only a view is handed over, then dropped
        ref = weakref.ref(h)
        before = holds.count()
        cudaMemcpyAsync(d, view, 4 * n, cudaMemcpyHostToDevice, g.stream)
        del view, h
        gc.collect()
        assert ref() is not None      # the in-flight copy keeps it
        assert holds.count() > before
        g.open()
        cudaStreamSynchronize(g.stream)
        out = np.empty(n, np.float32)
        cudaMemcpy(out, d, 4 * n, cudaMemcpyDeviceToHost)
        assert np.array_equal(out, np.arange(n, dtype=np.float32))
        gc.collect()
        assert ref() is None          # and lets go once it completed
    finally:
        g.close()


def test_pageable_device_to_host_dst_out_of_scope(k):
    s = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    d = cudaMalloc(4096)
    cudaMemsetAsync(d, 1, 4096, s)
    out = np.zeros(4096, np.uint8)
    cudaMemcpyAsync(out, d, 4096, cudaMemcpyDeviceToHost, s)
    assert (out == 1).all()
    cudaStreamDestroy(s)


def test_invalid_async_arguments():
    d = cudaMalloc(16)
    h = np.zeros(4, np.int32)
    raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, d, h, -1, cudaMemcpyHostToDevice, 0)
    raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, d, h, 32, cudaMemcpyHostToDevice, 0)
    raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, h, d, 17, cudaMemcpyDeviceToHost, 0)
    raises_code(cudaErrorInvalidMemcpyDirection, cudaMemcpyAsync, d, h, 16, 9, 0)
    raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, h, h, 16, cudaMemcpyDeviceToDevice, 0)
    raises_code(cudaErrorInvalidResourceHandle, cudaMemcpyAsync, d, h, 16,
                cudaMemcpyHostToDevice, "s")
    raises_code(cudaErrorInvalidValue, cudaMemsetAsync, d, 0, -4, 0)
    raises_code(cudaErrorInvalidValue, cudaMemsetAsync, d, 0, 17, 0)
    raises_code(cudaErrorInvalidValue, cudaMemsetAsync, h, 0, 16, 0)
    raises_code(cudaErrorInvalidValue, cudaMemsetAsync, d, "x", 16, 0)
    assert cudaMemcpyAsync(d, h, 0, cudaMemcpyHostToDevice, 0) == cudaSuccess
    assert cudaMemsetAsync(d, 0, 0, 0) == cudaSuccess
    cudaFree(d)
