"""Copies of several 1 MiB slices, shared by the copy engine's thread and the
idle workers (csrc/copyengine.c, csrc/pool.c: help_copy): every kind of
cudaMemcpyAsync / cudaMemcpy at sizes around the slice boundaries, odd
offsets, many streams at once, and errors inside such copies."""
import numpy as np
import pytest

from pyemu.cuda import *  # noqa: F401,F403

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

MIB = 1 << 20
SIZES = [MIB - 1, MIB, MIB + 1, 2 * MIB - 3, 3 * MIB + 7, 5 * MIB]


def _pattern(n, seed):
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("pinned", [True, False], ids=["pinned", "pageable"])
def test_round_trip_through_the_device_at_slice_boundaries(n, pinned):
    src = _pattern(n + 3, n)
    if pinned:
        h_in = cudaMallocHost(n + 3, np.uint8)
        h_out = cudaMallocHost(n + 3, np.uint8)
        h_in[:] = src
        h_out[:] = 0
    else:
        h_in, h_out = src.copy(), np.zeros(n + 3, np.uint8)
    d1, d2 = cudaMalloc(n + 8), cudaMalloc(n + 8)
    s = cudaStreamCreate()
    # odd offsets on both sides: slices do not start on aligned addresses
    cudaMemcpyAsync(d1 + 1, h_in[3:], n, cudaMemcpyHostToDevice, s)
    cudaMemcpyAsync(d2 + 5, d1 + 1, n, cudaMemcpyDeviceToDevice, s)
    cudaMemcpyAsync(h_out[1:], d2 + 5, n, cudaMemcpyDeviceToHost, s)
    cudaStreamSynchronize(s)
    assert np.array_equal(h_out[1:n + 1], src[3:n + 3])
    assert h_out[0] == 0 and not h_out[n + 1:].any()   # nothing past the ends
    cudaStreamDestroy(s)
    cudaFree(d1)
    cudaFree(d2)
    if pinned:
        cudaFreeHost(h_in)
        cudaFreeHost(h_out)


@pytest.mark.parametrize("n", [MIB + 1, 4 * MIB + 5])
def test_synchronous_cudaMemcpy_every_kind(n):
    src = _pattern(n, 7)
    d1, d2 = cudaMalloc(n), cudaMalloc(n)
    out = np.zeros(n, np.uint8)
    cudaMemcpy(d1, src, n, cudaMemcpyHostToDevice)
    cudaMemcpy(d2, d1, n, cudaMemcpyDeviceToDevice)
    cudaMemcpy(out, d2, n, cudaMemcpyDeviceToHost)
    assert np.array_equal(out, src)
    h2 = np.zeros(n, np.uint8)
    cudaMemcpy(h2, src, n, cudaMemcpyHostToHost)
    assert np.array_equal(h2, src)
    cudaMemcpy(out, d1, n, cudaMemcpyDefault)
    assert np.array_equal(out, src)
    cudaFree(d1)
    cudaFree(d2)


def test_stream_order_holds_across_chunked_copies():
    """a later copy on the stream starts only after every slice of the
    earlier one: overwrite the same device range twice, read it back"""
    n = 3 * MIB + 11
    a, b = _pattern(n, 1), _pattern(n, 2)
    d = cudaMalloc(n)
    out = np.zeros(n, np.uint8)
    s = cudaStreamCreate()
    for _ in range(5):
        cudaMemcpyAsync(d, a, n, cudaMemcpyHostToDevice, s)
        cudaMemcpyAsync(d, b, n, cudaMemcpyHostToDevice, s)
        cudaMemcpyAsync(out, d, n, cudaMemcpyDeviceToHost, s)
        assert np.array_equal(out, b)
        cudaMemcpyAsync(d, b, n, cudaMemcpyHostToDevice, s)
        cudaMemcpyAsync(d, a, n, cudaMemcpyHostToDevice, s)
        cudaMemcpyAsync(out, d, n, cudaMemcpyDeviceToHost, s)
        assert np.array_equal(out, a)
    cudaFree(d)


SCALE = r"""
__global__ void scale(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i] + 1.0f;
}
"""


def test_many_streams_copy_kernel_copy_at_once():
    scale = SourceModule(SCALE).get_function("scale")
    nstreams, n = 12, (MIB // 4) * 3 + 5           # 3 MiB + 20 bytes a stream
    h = cudaMallocHost(4 * n * nstreams, np.float32)
    h[:] = np.arange(n * nstreams, dtype=np.float32) % 1000
    want = 2.0 * h + 1.0
    d_in, d_out = cudaMalloc(4 * n * nstreams), cudaMalloc(4 * n * nstreams)
    streams = [cudaStreamCreateWithFlags(cudaStreamNonBlocking) for _ in range(nstreams)]
    for i, s in enumerate(streams):
        cudaMemcpyAsync(d_in + 4 * n * i, h[n * i:], 4 * n, cudaMemcpyHostToDevice, s)
        scale[(n + 255) // 256, 256, 0, s](d_out + 4 * n * i, d_in + 4 * n * i, np.int32(n))
        cudaMemcpyAsync(h[n * i:], d_out + 4 * n * i, 4 * n, cudaMemcpyDeviceToHost, s)
    cudaDeviceSynchronize()
    assert np.array_equal(h, want)
    for s in streams:
        cudaStreamDestroy(s)
    cudaFreeHost(h)


def test_events_around_a_chunked_copy_are_ordered():
    n = 8 * MIB
    h = cudaMallocHost(n, np.uint8)
    d = cudaMalloc(n)
    s = cudaStreamCreate()
    e0, e1 = cudaEventCreate(), cudaEventCreate()
    cudaEventRecord(e0, s)
    cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s)
    cudaEventRecord(e1, s)
    cudaEventSynchronize(e1)
    assert cudaEventQuery(e1) == cudaSuccess
    assert cudaEventElapsedTime(e0, e1) > 0.0


def test_invalid_range_in_a_chunked_copy_gets_invalid_value_and_nothing_else_breaks():
    n = 3 * MIB
    d = cudaMalloc(n)
    h = np.ones(n + 1, np.uint8)
    s = cudaStreamCreate()
    with pytest.raises(CudaError) as exc:
        cudaMemcpyAsync(d, h, n + 1, cudaMemcpyHostToDevice, s)   # one byte past d
    assert exc.value.code == cudaErrorInvalidValue
    with pytest.raises(CudaError) as exc:
        cudaMemcpyAsync(d + MIB, d, n, cudaMemcpyDeviceToDevice, s)
    assert exc.value.code == cudaErrorInvalidValue
    assert cudaGetLastError() == cudaErrorInvalidValue            # not sticky
    cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s)
    out = np.zeros(n, np.uint8)
    cudaMemcpyAsync(out, d, n, cudaMemcpyDeviceToHost, s)
    assert out.all()


def test_kernel_fault_before_a_chunked_copy_is_reported_and_sticky(run_cuda):
    res = run_cuda("""
        import numpy as np
        mod = SourceModule('__global__ void bad(int *p) { p[1 << 28] = 1; }')
        n = 6 << 20
        s1 = cudaStreamCreate(); s2 = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
        d, d2 = cudaMalloc(n), cudaMalloc(n)
        h = cudaMallocHost(n, np.uint8); h[:] = 5
        cudaMemcpyAsync(d2, h, n, cudaMemcpyHostToDevice, s2)    # beside the fault
        mod.bad[1, 1, 0, s1](d)
        R["copy"] = code_of(cudaMemcpyAsync, d, h, n, cudaMemcpyHostToDevice, s1)
        R["sync1"] = code_of(cudaStreamSynchronize, s1)
        R["sync2"] = code_of(cudaStreamSynchronize, s2)
        cudaDeviceReset()
        d = cudaMalloc(n); out = np.zeros(n, np.uint8)
        R["after"] = code_of(cudaMemcpy, d, np.full(n, 9, np.uint8), n, cudaMemcpyHostToDevice)
        cudaMemcpy(out, d, n, cudaMemcpyDeviceToHost)
        R["ok"] = bool((out == 9).all())
    """)
    assert res.returncode == 0, res.explain()
    ill = int(cudaErrorIllegalAddress)
    assert res.R["copy"] in (0, ill)      # queued before or after the fault was seen
    assert res.R["sync1"] == ill and res.R["sync2"] == ill
    assert res.R["after"] == 0 and res.R["ok"] is True


def test_trace_names_the_workers_that_helped_a_copy():
    """PYEMU_TRACE's worker lanes show who ran a copy's slices: the copy
    engine (lane = the pool's size) and the idle workers that helped (the
    awake ones: a small kernel on another stream, launched once the copy
    has begun, wakes them, and they help when it is done); the copy is one
    command on its stream's lane whoever ran it."""
    from pyemu.runtime import trace
    n = 64 << 20
    h = cudaMallocHost(n, np.uint8)
    d = cudaMalloc(n)
    cudaMemcpy(d, h, n, cudaMemcpyHostToDevice)          # pages touched
    scale = SourceModule(SCALE).get_function("scale")
    tiny = cudaMalloc(4096)
    helped = False
    for _ in range(5):                                    # a loaded host may not wake a worker in time
        trace.start()
        s = cudaStreamCreate()
        s2 = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
        cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s)
        scale[8, 128, 0, s2](tiny, tiny, np.int32(1024))
        cudaStreamSynchronize(s)
        cudaStreamSynchronize(s2)
        doc = trace.stop()
        spans = [e for e in doc["traceEvents"] if e.get("ph") == "X" and e["name"].startswith("copy H2D")]
        on_stream = [e for e in spans if e["pid"] == 0]
        on_workers = {e["tid"] for e in spans if e["pid"] == 1}
        assert len(on_stream) == 1
        assert on_workers and all(isinstance(t, int) and t >= 0 for t in on_workers)
        cudaStreamDestroy(s)
        cudaStreamDestroy(s2)
        if len(on_workers) > 1:
            helped = True
            break
    assert helped, "no worker helped a 64 MiB copy once a kernel beside it was done, in 5 tries"


@pytest.mark.parametrize("value", ["0", "2", "", "x", "9", "11", "-1"])
def test_every_PYEMU_COPY_HELPERS_value_copies_correctly(run_cuda, value):
    """0 (the copy engine alone), 2 (sleepers woken), anything else the default."""
    res = run_cuda("""
        import numpy as np
        n = (5 << 20) + 3
        src = (np.arange(n) % 251).astype(np.uint8)
        d, d2 = cudaMalloc(n), cudaMalloc(n)
        out = np.zeros(n, np.uint8)
        s = cudaStreamCreate()
        cudaMemcpyAsync(d, src, n, cudaMemcpyHostToDevice, s)
        cudaMemcpyAsync(d2, d, n, cudaMemcpyDeviceToDevice, s)
        cudaMemcpyAsync(out, d2, n, cudaMemcpyDeviceToHost, s)
        R["ok"] = bool(np.array_equal(out, src))
    """, env={"PYEMU_COPY_HELPERS": value})
    assert res.returncode == 0, res.explain()
    assert res.R["ok"] is True
