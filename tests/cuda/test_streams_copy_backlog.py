"""The copy engine's backlog (csrc/copyengine.c): a copy that other copies
wait behind on the copy engine is shared with the awake idle workers too,
every byte still arrives in stream order, and the copy engine gives its
core back once it goes idle."""
import os
import time

import numpy as np
import pytest

from pyemu.cuda import *  # noqa: F401,F403

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

MIB = 1 << 20
SCALE = r"""
__global__ void scale(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i] + 1.0f;
}
"""


def test_a_worker_helps_a_copy_that_another_copy_waits_behind():
    """Three large copies on three streams, enqueued back to back, then a
    small kernel on a fourth (which wakes the workers, idle once it is
    done): the second copy is taken from the copy engine's list while the
    third waits behind it (the first takes milliseconds), and an idle
    worker runs some of its slices (the trace's worker lanes say who ran
    what)."""
    from pyemu.runtime import trace
    from pyemu.runtime.core import lib
    sizes = (64 * MIB, 48 * MIB, 32 * MIB)     # told apart by their byte counts
    hs = [cudaMallocHost(n, np.uint8) for n in sizes]
    ds = [cudaMalloc(n) for n in sizes]
    for h, d, n in zip(hs, ds, sizes):
        h[:] = n // MIB
        cudaMemcpy(d, h, n, cudaMemcpyHostToDevice)       # pages touched
    scale = SourceModule(SCALE).get_function("scale")
    tiny = cudaMalloc(4096)
    streams = [cudaStreamCreateWithFlags(cudaStreamNonBlocking) for _ in range(4)]
    ce_lane = lib.pyemu_num_workers()
    helped = False
    for r in range(5):                          # a loaded host may not wake a worker in time
        for h in hs:
            h[:] = r
        trace.start()
        for h, d, n, s in zip(hs, ds, sizes, streams):
            cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s)
        scale[8, 128, 0, streams[3]](tiny, tiny, np.int32(1024))
        cudaDeviceSynchronize()
        doc = trace.stop()
        for d, n in zip(ds, sizes):              # whoever ran the slices, all arrived
            back = np.empty(n, np.uint8)
            cudaMemcpy(back, d, n, cudaMemcpyDeviceToHost)
            assert (back == r).all(), (r, n)
        lanes = {e["tid"] for e in doc["traceEvents"]
                 if e.get("ph") == "X" and e["pid"] == 1 and e["name"] == f"copy H2D {sizes[1]} B"}
        assert lanes, "the copy is missing from the workers' lanes"
        if lanes - {ce_lane}:
            helped = True
            break
    assert helped, "no worker helped a copy with another queued behind it in 5 tries"
    for s in streams:
        cudaStreamDestroy(s)
    for h, d in zip(hs, ds):
        cudaFreeHost(h)
        cudaFree(d)
    cudaFree(tiny)


def test_an_idle_copy_engine_gives_its_core_back():
    """While large copies run, the copy engine is pinned to one core and the
    workers that keep running are kept off it; once it has had nothing to
    copy for a while (it spins 50 us, then sleeps) every thread of the
    process may run on every core of the process again."""
    n = 32 * MIB
    h = cudaMallocHost(n, np.uint8)
    d = cudaMalloc(n)
    s = cudaStreamCreate()
    h[:] = 7
    for _ in range(3):
        cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s)
        cudaMemcpyAsync(h, d, n, cudaMemcpyDeviceToHost, s)
    cudaStreamSynchronize(s)
    assert (h == 7).all()
    cpus = os.sched_getaffinity(0)

    def narrowed():
        out = []
        for tid in os.listdir("/proc/self/task"):
            try:
                if os.sched_getaffinity(int(tid)) != cpus:
                    out.append(int(tid))
            except OSError:                     # a thread that has just ended
                pass
        return out

    end = time.monotonic() + 10
    while narrowed() and time.monotonic() < end:
        time.sleep(0.01)
    assert not narrowed(), "threads still kept off a core after the copy engine went idle"
    cudaStreamDestroy(s)
    cudaFreeHost(h)
    cudaFree(d)


def test_a_small_kernel_is_not_left_waiting_behind_a_backlog_of_copies():
    """A one-block kernel launched while the copy engine works through a
    long backlog of large copies, with the workers asleep: the wake goes to
    one worker, which may be one that steps aside for the copy engine; it
    passes the wake on, so the kernel runs beside the copies instead of
    after them all (checked in every round: its event completes while the
    backlog's last copy has not)."""
    n, ncopies = 32 * MIB, 40                    # some 40-100 ms of copies
    a, b = cudaMalloc(n), cudaMalloc(n)
    cudaMemset(a, 3, n)
    one = cudaMalloc(4096)
    cudaMemset(one, 0, 4096)
    scale = SourceModule(SCALE).get_function("scale")
    copies = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    other = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    k_done, c_done = cudaEventCreate(), cudaEventCreate()
    cudaDeviceSynchronize()
    for r in range(5):
        time.sleep(0.01)                         # the workers go to sleep
        for i in range(ncopies):
            cudaMemcpyAsync(a if i % 2 else b, b if i % 2 else a, n, cudaMemcpyDeviceToDevice, copies)
        cudaEventRecord(c_done, copies)
        time.sleep(0.002)                        # the backlog has begun
        scale[1, 32, 0, other](one, one, np.int32(32))
        cudaEventRecord(k_done, other)
        while cudaEventQuery(k_done) == cudaErrorNotReady and cudaEventQuery(c_done) == cudaErrorNotReady:
            time.sleep(0.0002)
        kernel_first = cudaEventQuery(k_done) == cudaSuccess and cudaEventQuery(c_done) == cudaErrorNotReady
        cudaDeviceSynchronize()
        assert kernel_first, f"round {r}: the kernel waited for the whole backlog of copies"
    out = np.empty(32, np.float32)
    cudaMemcpy(out, one, 128, cudaMemcpyDeviceToHost)
    assert (out == (2.0 ** 5 - 1)).all(), out     # 0 -> 1 -> 3 -> 7 -> 15 -> 31
    back = np.empty(n, np.uint8)
    cudaMemcpy(back, b, n, cudaMemcpyDeviceToHost)
    assert (back == 3).all()
    for s in (copies, other):
        cudaStreamDestroy(s)
    for e in (k_done, c_done):
        cudaEventDestroy(e)
    for p in (a, b, one):
        cudaFree(p)


@pytest.mark.parametrize("helpers", ["0", "1", "2"])
def test_four_stream_loop_results_and_order_for_each_PYEMU_COPY_HELPERS(run_cuda, helpers):
    """The benchmark's 4-stream copy/kernel/copy loop, 10 rounds with new data
    each, against NumPy: the copies that queue on the copy engine (shared or
    not) neither lose a slice nor overtake their stream's kernel."""
    res = run_cuda("""
        import numpy as np
        src = r'''
        __global__ void scale(float *out, const float *in, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) out[i] = 2.0f * in[i] + 1.0f;
        }'''
        scale = SourceModule(src).get_function("scale")
        ns, n = 4, (3 << 18) + 5                  # 3 MiB + 20 bytes a stream
        st = [cudaStreamCreate() for _ in range(ns)]
        h = cudaMallocHost(4 * n * ns, np.float32)
        di, do = cudaMalloc(4 * n * ns), cudaMalloc(4 * n * ns)
        ok = True
        for r in range(10):
            data = (np.arange(n * ns) % 1000 + r).astype(np.float32)
            h[:] = data
            for i in range(ns):
                cudaMemcpyAsync(di + 4 * n * i, h[n * i:], 4 * n, cudaMemcpyHostToDevice, st[i])
                scale[(n + 255) // 256, 256, 0, st[i]](do + 4 * n * i, di + 4 * n * i, np.int32(n))
                cudaMemcpyAsync(h[n * i:], do + 4 * n * i, 4 * n, cudaMemcpyDeviceToHost, st[i])
            cudaDeviceSynchronize()
            ok = ok and bool(np.array_equal(h, 2.0 * data + 1.0))
        R["ok"] = ok
    """, env={"PYEMU_COPY_HELPERS": helpers})
    assert res.returncode == 0, res.explain()
    assert res.R["ok"] is True


@pytest.mark.parametrize("helpers,woken", [("2", True), ("1", False)])
def test_PYEMU_COPY_HELPERS_2_wakes_a_sleeping_worker_for_a_lone_copy(run_cuda, helpers, woken):
    """With the workers asleep (nothing ran for 20 ms), three large copies
    on three streams: with PYEMU_COPY_HELPERS=2 the copy engine wakes the
    sleeping workers for the last one (no copy queued behind it), and one of
    them runs some of its slices; with 1 (the default) nobody wakes, and the
    copy engine copies alone.  Every byte arrives either way."""
    res = run_cuda("""
        import time
        import numpy as np
        from pyemu.runtime import trace
        from pyemu.runtime.core import lib
        MIB = 1 << 20
        sizes = (48 * MIB, 32 * MIB, 64 * MIB)
        hs = [cudaMallocHost(n, np.uint8) for n in sizes]
        ds = [cudaMalloc(n) for n in sizes]
        for h, d, n in zip(hs, ds, sizes):
            cudaMemcpy(d, h, n, cudaMemcpyHostToDevice)      # pages touched
        st = [cudaStreamCreateWithFlags(cudaStreamNonBlocking) for _ in sizes]
        ce = lib.pyemu_num_workers()
        R["helped"], R["ok"] = [], True
        for r in range(5):
            for h in hs:
                h[:] = r + 1
            time.sleep(0.02)                                 # every worker asleep
            trace.start()
            for h, d, n, s in zip(hs, ds, sizes, st):
                cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s)
            cudaDeviceSynchronize()
            doc = trace.stop()
            lanes = {e["tid"] for e in doc["traceEvents"] if e.get("ph") == "X"
                     and e["pid"] == 1 and e["name"] == f"copy H2D {sizes[2]} B"}
            R["helped"].append(bool(lanes - {ce}))
            for d, n in zip(ds, sizes):
                back = np.empty(n, np.uint8)
                cudaMemcpy(back, d, n, cudaMemcpyDeviceToHost)
                R["ok"] = R["ok"] and bool((back == r + 1).all())
            if R["helped"][-1] and %r:
                break
    """ % woken, env={"PYEMU_COPY_HELPERS": helpers})
    assert res.returncode == 0, res.explain()
    assert res.R["ok"] is True
    if woken:
        assert any(res.R["helped"]), res.R["helped"]
    else:
        assert not any(res.R["helped"]), res.R["helped"]


def test_the_first_kernel_of_a_process_is_not_left_behind_a_backlog(run_cuda):
    """The same in a fresh process: the kernel is the first command that
    wakes a worker, whose first sleep began as the pool started."""
    res = run_cuda("""
        import time
        import numpy as np
        n = 32 << 20
        a, b = cudaMalloc(n), cudaMalloc(n)
        one = cudaMalloc(128)                       # no memset: nothing wakes a worker before the kernel
        k = SourceModule("__global__ void one(float *p) { p[threadIdx.x] = 1.0f; }").get_function("one")
        copies = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
        other = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
        k_done, c_done = cudaEventCreate(), cudaEventCreate()
        for i in range(40):
            cudaMemcpyAsync(a if i % 2 else b, b if i % 2 else a, n, cudaMemcpyDeviceToDevice, copies)
        cudaEventRecord(c_done, copies)
        time.sleep(0.002)
        k[1, 32, 0, other](one)                     # the first kernel this process runs
        cudaEventRecord(k_done, other)
        while cudaEventQuery(k_done) == cudaErrorNotReady and cudaEventQuery(c_done) == cudaErrorNotReady:
            time.sleep(0.0002)
        R["first"] = cudaEventQuery(k_done) == cudaSuccess and cudaEventQuery(c_done) == cudaErrorNotReady
        cudaDeviceSynchronize()
        out = np.empty(32, np.float32)
        cudaMemcpy(out, one, 128, cudaMemcpyDeviceToHost)
        R["ran"] = bool((out == 1).all())
    """)
    assert res.returncode == 0, res.explain()
    assert res.R["ran"] is True
    assert res.R["first"] is True, "the kernel waited for the whole backlog of copies"
