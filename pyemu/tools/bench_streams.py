"""The benchmark's stream rows (pyemu/tools/bench.py), pyemu's alone:

streams_4x    the 4-stream copy/kernel/copy loop of examples/cuda/streams_overlap.py
              against the same work on the default stream; the row's time is
              the 4-stream loop's, its target the serial time / 1.3
              (so it is met at a 1.3x speed-up or more); both checked against NumPy
event_record  one cudaEventRecord on an idle non-blocking stream (< 5 us)
stream_sync   one cudaStreamSynchronize of a stream whose work is done (< 20 us)
"""
from __future__ import annotations

import statistics
import time

import numpy as np

STREAMS_SPEEDUP = 1.3
EVENT_RECORD_TARGET_S = 5e-6
STREAM_SYNC_TARGET_S = 20e-6

KERNEL = r"""
__global__ void MyKernel(float *out, const float *in, int size)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        float x = in[i];
        for (int r = 0; r < 8; r++) {   /* 24 multiply-adds, unrolled */
            x = x * 0.999f + 0.5f;
            x = x * 0.999f + 0.5f;
            x = x * 0.999f + 0.5f;
        }
        out[i] = x;
    }
}
"""


def _reference(x):
    x = x.copy()
    for _ in range(24):
        x = x * np.float32(0.999) + np.float32(0.5)
    return x


def streams_4x(cuda, quick: bool, repeat: int):
    """(seconds of the 4-stream loop, serial seconds, ok, why, size text, samples)."""
    n = 1 << (18 if quick else 20)
    ns = 4
    size = 4 * n
    k = cuda.SourceModule(KERNEL).get_function("MyKernel")
    st = [cuda.cudaStreamCreate() for _ in range(ns)]
    h = cuda.cudaMallocHost(ns * size, np.float32)
    di, do = cuda.cudaMalloc(ns * size), cuda.cudaMalloc(ns * size)
    a, b = cuda.cudaEventCreate(), cuda.cudaEventCreate()
    data = np.random.rand(ns * n).astype(np.float32)
    want = _reference(data)
    H2D, D2H = cuda.cudaMemcpyHostToDevice, cuda.cudaMemcpyDeviceToHost

    def serial():
        cuda.cudaMemcpyAsync(di, h, ns * size, H2D, 0)
        k[(ns * n + 511) // 512, 512](do, di, ns * n)
        cuda.cudaMemcpyAsync(h, do, ns * size, D2H, 0)

    def streams():
        for i in range(ns):
            cuda.cudaMemcpyAsync(di + i * size, h[i * n:], size, H2D, st[i])
            k[(n + 511) // 512, 512, 0, st[i]](do + i * size, di + i * size, n)
            cuda.cudaMemcpyAsync(h[i * n:], do + i * size, size, D2H, st[i])

    def timed(fn):
        h[:] = data
        cuda.cudaEventRecord(a, 0)
        fn()
        cuda.cudaEventRecord(b, 0)
        cuda.cudaEventSynchronize(b)
        ok = np.allclose(h, want, rtol=1e-5)
        return cuda.cudaEventElapsedTime(a, b) / 1e3, ok

    try:
        timed(serial)
        timed(streams)                   # warm-up: first touch of every page
        ts, tp, ok = [], [], True
        for _ in range(max(repeat, 1)):  # interleaved, so a passing load hits both
            t, o = timed(serial)
            ts.append(t)
            ok = ok and o
            t, o = timed(streams)
            tp.append(t)
            ok = ok and o
    finally:
        for s in st:
            cuda.cudaStreamDestroy(s)
        cuda.cudaFreeHost(h)
        cuda.cudaFree(di)
        cuda.cudaFree(do)
    why = "" if ok else "a result differs from NumPy"
    return (statistics.median(tp), statistics.median(ts), ok, why,
            f"4 x 2^{18 if quick else 20} floats", tp)


def event_record(cuda, quick: bool, repeat: int):
    """(seconds a record, ok, why, samples)."""
    n = 1000 if quick else 10000
    s = cuda.cudaStreamCreateWithFlags(cuda.cudaStreamNonBlocking)
    e = cuda.cudaEventCreate()
    samples = []
    try:
        for _ in range(max(repeat, 1)):
            t0 = time.perf_counter()
            for _ in range(n):
                cuda.cudaEventRecord(e, s)
            samples.append((time.perf_counter() - t0) / n)
            cuda.cudaEventSynchronize(e)
        ok = cuda.cudaEventQuery(e) == cuda.cudaSuccess
    finally:
        cuda.cudaStreamDestroy(s)
        cuda.cudaEventDestroy(e)
    return statistics.median(samples), ok, "" if ok else "the event did not complete", samples


def stream_sync(cuda, quick: bool, repeat: int):
    """(seconds a synchronize, ok, why, samples)."""
    n = 1000 if quick else 10000
    s = cuda.cudaStreamCreateWithFlags(cuda.cudaStreamNonBlocking)
    d = cuda.cudaMalloc(4)
    samples = []
    try:
        cuda.cudaMemsetAsync(d, 1, 4, s)
        for _ in range(max(repeat, 1)):
            t0 = time.perf_counter()
            for _ in range(n):
                cuda.cudaStreamSynchronize(s)
            samples.append((time.perf_counter() - t0) / n)
        out = np.zeros(4, np.uint8)
        cuda.cudaMemcpy(out, d, 4, cuda.cudaMemcpyDeviceToHost)
        ok = bool((out == 1).all())
    finally:
        cuda.cudaStreamDestroy(s)
        cuda.cudaFree(d)
    return statistics.median(samples), ok, "" if ok else "the memset did not arrive", samples


# ---- the rows, as bench.py shows them ----

NAMES = ("streams_4x", "event_record", "stream_sync")
TARGETS = {"streams_4x": (None, f">= {STREAMS_SPEEDUP:.1f}x serial"),
           "event_record": (EVENT_RECORD_TARGET_S, "< 5 us"),
           "stream_sync": (STREAM_SYNC_TARGET_S, "< 20 us")}


def row(name, env, quick, repeat):
    """The bench.Result of one stream row."""
    from .bench import ERROR, NA, OK, FAIL, Result, Side, one_line
    target, text = TARGETS[name]
    size = "1000 calls" if quick else "10,000 calls"
    if env.pyemu is None:
        return Result(name, "-", Side(ERROR, None, env.pyemu_why), Side(NA),
                      target_seconds=target, target_text=text, quick=quick)
    cuda = env.pyemu.cuda
    try:
        if name == "streams_4x":
            par, ser, ok, why, size, samples = streams_4x(cuda, quick, repeat)
            target = ser / STREAMS_SPEEDUP
            text = f">= {STREAMS_SPEEDUP:.1f}x serial ({ser / par:.2f}x of {ser * 1e3:.2f} ms)"
            side = Side(OK if ok else FAIL, par, why, samples)
        else:
            fn = event_record if name == "event_record" else stream_sync
            per, ok, why, samples = fn(cuda, quick, repeat)
            side = Side(OK if ok else FAIL, per, why, samples)
    except Exception as exc:
        side = Side(ERROR, None, one_line(exc))
    return Result(name, size, side, Side(NA), target_seconds=target, target_text=text,
                  quick=quick)
