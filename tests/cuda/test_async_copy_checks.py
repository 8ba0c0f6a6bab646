"""cudaMemcpyAsync's quick path (async_copy.py: the kind's sides from a
table, each address looked up once, a NumPy array taken without a
memoryview) keeps every check of cudaMemcpy with CUDA's codes, and every
argument form the general path takes gives the same result."""
import numpy as np
import pytest

from pyemu.cuda import *  # noqa: F401,F403

pytestmark = pytest.mark.usefixtures("cuda_clean_state")


def raises_code(code, fn, *args):
    with pytest.raises(CudaError) as info:
        fn(*args)
    assert int(info.value.code) == int(code), str(info.value)


def _round_trip(kind_h2d, kind_d2h, count=64):
    src = np.arange(64, dtype=np.uint8)
    out = np.zeros(64, np.uint8)
    d = cudaMalloc(64)
    s = cudaStreamCreate()
    try:
        assert cudaMemcpyAsync(d, src, count, kind_h2d, s) == cudaSuccess
        assert cudaMemcpyAsync(out, d, count, kind_d2h, s) == cudaSuccess
        cudaStreamSynchronize(s)
    finally:
        cudaStreamDestroy(s)
        cudaFree(d)
    np.testing.assert_array_equal(out, src)


@pytest.mark.parametrize("h2d,d2h", [
    (cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost),            # the enum
    (1, 2),                                                      # plain ints
    (np.int32(1), np.int64(2)),                                  # NumPy integers: general path
    (cudaMemcpyDefault, cudaMemcpyDefault),                      # unified addressing
])
def test_every_kind_form_copies(h2d, d2h):
    _round_trip(h2d, d2h)


@pytest.mark.parametrize("count", [64, np.int64(64), 64.0])
def test_every_count_form_copies(count):
    _round_trip(cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, count)


def test_invalid_kinds_and_counts_keep_their_codes():
    d = cudaMalloc(16)
    h = np.zeros(16, np.uint8)
    for kind in (5, -1, "x", None, [1]):
        raises_code(cudaErrorInvalidMemcpyDirection, cudaMemcpyAsync, d, h, 16, kind, 0)
    for count in (-1, "16", float("nan"), None):
        raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, d, h, count, cudaMemcpyHostToDevice, 0)
    cudaFree(d)


def test_invalid_pointers_keep_their_codes():
    d = cudaMalloc(16)
    h = np.zeros(16, np.uint8)
    H2D, D2H, D2D = cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice
    raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, 0, h, 16, H2D, 0)         # NULL dst
    raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, h, 0, 16, D2H, 0)         # NULL src
    raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, d, 0, 16, D2D, 0)
    raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, 0x1000, h, 16, H2D, 0)    # outside
    raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, h, 0x1000, 16, D2H, 0)
    raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, h, h, 16, cudaMemcpyHostToDevice, 0)
    raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, d + 8, h, 16, H2D, 0)     # past the end
    raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, d, object(), 16, H2D, 0)
    raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, d, h[::2], 8, H2D, 0)     # strided
    ro = np.zeros(16, np.uint8)
    ro.flags.writeable = False
    raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, ro, d, 16, D2H, 0)        # read-only dst
    assert cudaMemcpyAsync(d, ro, 16, H2D, 0) == cudaSuccess                      # ... fine as src
    raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, d, h[:8], 16, H2D, 0)     # host too short
    assert cudaMemcpyAsync(0, h, 0, H2D, 0) == cudaSuccess                        # nothing, NULL
    assert cudaMemcpyAsync(h, 0, 0, D2H, 0) == cudaSuccess
    cudaDeviceSynchronize()
    cudaFree(d)
    raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, d, h, 16, H2D, 0)         # freed
    raises_code(cudaErrorInvalidValue, cudaMemsetAsync, d, 0, 16, 0)


def test_destroyed_stream_and_non_streams():
    d = cudaMalloc(16)
    h = np.zeros(16, np.uint8)
    s = cudaStreamCreate()
    cudaStreamDestroy(s)
    raises_code(cudaErrorInvalidResourceHandle, cudaMemcpyAsync, d, h, 16,
                cudaMemcpyHostToDevice, s)
    raises_code(cudaErrorInvalidResourceHandle, cudaMemsetAsync, d, 0, 16, s)
    raises_code(cudaErrorInvalidResourceHandle, cudaMemcpyAsync, d, h, 16,
                cudaMemcpyHostToDevice, 1.5)
    cudaFree(d)


def test_pinned_pageable_and_device_to_device_results():
    n = 4096
    pinned = cudaMallocHost(n, dtype=np.uint8)
    pageable = np.zeros(n, np.uint8)
    d, d2 = cudaMalloc(n), cudaMalloc(n)
    s = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    try:
        pinned[:] = np.arange(n) % 251
        cudaMemcpyAsync(d, pinned, n, cudaMemcpyHostToDevice, s)
        cudaMemcpyAsync(d2, d, n, cudaMemcpyDeviceToDevice, s)
        cudaMemsetAsync(d, 7, n // 2, s)
        cudaMemcpyAsync(pageable, d2, n, cudaMemcpyDeviceToHost, s)   # has arrived on return
        np.testing.assert_array_equal(pageable, np.arange(n) % 251)
        cudaMemcpyAsync(pinned, d, n, cudaMemcpyDeviceToHost, s)
        cudaStreamSynchronize(s)
        assert (pinned[:n // 2] == 7).all()
        np.testing.assert_array_equal(pinned[n // 2:], np.arange(n // 2, n) % 251)
    finally:
        cudaStreamDestroy(s)
        cudaFree(d)
        cudaFree(d2)
        cudaFreeHost(pinned)


def test_calls_from_many_threads_keep_their_own_results():
    """The out-parameters are one a thread: threads copying at once never
    see each other's command."""
    import threading
    n, rounds = 256, 200
    errors = []

    def one(t):
        try:
            s = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
            d = cudaMalloc(n)
            src = np.full(n, t, np.uint8)
            out = np.zeros(n, np.uint8)
            for i in range(rounds):
                src[:] = (t + i) % 256
                cudaMemcpyAsync(d, src, n, cudaMemcpyHostToDevice, s)     # staged at the call
                cudaMemcpyAsync(out, d, n, cudaMemcpyDeviceToHost, s)     # arrived on return
                if not (out == (t + i) % 256).all():
                    errors.append((t, i))
                    break
            cudaStreamDestroy(s)
            cudaFree(d)
        except Exception as exc:        # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(t,)) for t in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
