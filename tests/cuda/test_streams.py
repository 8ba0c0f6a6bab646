"""CUDA streams: creation and flags, the legacy default stream's implicit
synchronisation against blocking and non-blocking streams, host functions in
stream order, cudaStreamWaitEvent, Python threads using streams at once.
The ordering guarantees under stress are in test_streams_stress.py."""
import threading
import time

import numpy as np
import pytest

from pyemu.cuda import *  # noqa: F401,F403
from pyemu.cuda import _errors

pytestmark = pytest.mark.usefixtures("cuda_clean_state")


@pytest.fixture(scope="module")
def k():
    return SourceModule(r"""
    #include <time.h>
    // spins until gate[0] != 0 (at most 20 s), then sets *flag
    __global__ void gated(const int *gate, int *flag) {
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (((volatile const int *)gate)[0] == 0) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if (t.tv_sec - t0.tv_sec > 20) return;
        }
        ((volatile int *)flag)[0] = 1;
    }
    __global__ void store(int *a, int v) { ((volatile int *)a)[0] = v; }
    """)


def raises_code(code, fn, *args):
    with pytest.raises(CudaError) as info:
        fn(*args)
    assert int(info.value.code) == int(code), str(info.value)


def managed_int(n=1):
    # zeroed: like CUDA's, pyemu's allocations start undefined (reused memory
    # may hold a 1, and a gate that starts open holds nothing back)
    m = cudaMallocManaged(4 * n, cudaMemAttachGlobal, np.int32)
    m[:] = 0
    return m


def test_cudaStreamCreate_flags_priority_and_destroy():
    s = cudaStreamCreate()
    assert cudaStreamGetFlags(s) == cudaStreamDefault
    assert cudaStreamGetPriority(s) == 0
    nb = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    assert cudaStreamGetFlags(nb) == cudaStreamNonBlocking
    least, greatest = cudaDeviceGetStreamPriorityRange()
    assert (least, greatest) == (0, -5)
    hi = cudaStreamCreateWithPriority(cudaStreamNonBlocking, -100)
    assert cudaStreamGetPriority(hi) == greatest          # clamped, as CUDA does
    lo = cudaStreamCreateWithPriority(cudaStreamDefault, 7)
    assert cudaStreamGetPriority(lo) == least
    for x in (s, nb, hi, lo):
        assert cudaStreamDestroy(x) == cudaSuccess
    assert cudaStreamGetFlags(0) == cudaStreamDefault


def test_destroyed_stream_gives_invalid_resource_handle(k):
    s = cudaStreamCreate()
    cudaStreamDestroy(s)
    code = cudaErrorInvalidResourceHandle
    raises_code(code, cudaStreamDestroy, s)
    raises_code(code, cudaStreamSynchronize, s)
    raises_code(code, cudaStreamQuery, s)
    raises_code(code, cudaStreamGetFlags, s)
    raises_code(code, cudaStreamWaitEvent, s, cudaEventCreate(), 0)
    raises_code(code, cudaLaunchHostFunc, s, lambda d: None, None)
    raises_code(code, cudaEventRecord, cudaEventCreate(), s)
    d = cudaMalloc(4)
    raises_code(code, cudaMemsetAsync, d, 0, 4, s)
    raises_code(code, cudaMemcpyAsync, d, np.zeros(1, np.int32), 4, cudaMemcpyHostToDevice, s)
    with pytest.raises(CudaError) as info:
        k.store[1, 1, 0, s](d, 1)
    assert info.value.code == code
    cudaFree(d)


def test_cudaStreamDestroy_returns_at_once_and_queued_work_still_runs(k):
    gate, flag, after = managed_int(), managed_int(), managed_int()
    ran = []
    s = cudaStreamCreate()
    e = cudaEventCreate()
    try:
        k.gated[1, 1, 0, s](gate, flag)            # holds the stream
        k.store[1, 1, 0, s](after, 4)
        cudaLaunchHostFunc(s, ran.append, "host function")
        cudaEventRecord(e, s)
        t0 = time.perf_counter()
        assert cudaStreamDestroy(s) == cudaSuccess
        assert time.perf_counter() - t0 < 1.0       # did not wait for the gate
        assert cudaEventQuery(e) == cudaErrorNotReady and after[0] == 0 and ran == []
        gate[0] = 1
        assert cudaEventSynchronize(e) == cudaSuccess   # the event of a destroyed stream completes
        assert flag[0] == 1 and after[0] == 4 and ran == ["host function"]
    finally:
        gate[0] = 1
        cudaDeviceSynchronize()
        cudaEventDestroy(e)


def test_invalid_stream_arguments():
    raises_code(cudaErrorInvalidValue, cudaStreamCreateWithFlags, 4)
    raises_code(cudaErrorInvalidValue, cudaStreamCreateWithFlags, "x")
    raises_code(cudaErrorInvalidValue, cudaStreamCreateWithPriority, 0, "high")
    raises_code(cudaErrorInvalidResourceHandle, cudaStreamSynchronize, "stream")
    raises_code(cudaErrorInvalidResourceHandle, cudaStreamDestroy, 0)
    raises_code(cudaErrorInvalidResourceHandle, cudaStreamDestroy, cudaStreamLegacy)
    raises_code(cudaErrorInvalidValue, cudaStreamAddCallback, 0, lambda *a: None, None, 1)
    raises_code(cudaErrorInvalidValue, cudaLaunchHostFunc, 0, "not callable", None)
    raises_code(cudaErrorInvalidValue, cudaStreamWaitEvent, 0, cudaEventCreate(), 5)


def test_cudaStreamQuery_not_ready_is_returned_not_raised(k):
    gate, flag = managed_int(), managed_int()
    s = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    try:
        k.gated[1, 1, 0, s](gate, flag)
        assert cudaStreamQuery(s) == cudaErrorNotReady
        assert cudaGetLastError() == cudaSuccess     # not an error
        gate[0] = 1
        assert cudaStreamSynchronize(s) == cudaSuccess
        assert cudaStreamQuery(s) == cudaSuccess
        assert flag[0] == 1
    finally:
        gate[0] = 1
        cudaDeviceSynchronize()
        cudaStreamDestroy(s)


@pytest.mark.parametrize("flags,blocks", [(cudaStreamDefault, True),
                                          (cudaStreamNonBlocking, False)])
def test_legacy_default_stream_waits_for_blocking_streams_only(k, flags, blocks):
    gate, flag, after = managed_int(), managed_int(), managed_int()
    s = cudaStreamCreateWithFlags(flags)
    try:
        k.gated[1, 1, 0, s](gate, flag)          # holds stream s
        k.store[1, 1](after, 7)                  # legacy default stream
        time.sleep(0.3)
        assert after[0] == (0 if blocks else 7)
        gate[0] = 1
        cudaDeviceSynchronize()
        assert after[0] == 7 and flag[0] == 1
    finally:
        gate[0] = 1
        cudaDeviceSynchronize()
        cudaStreamDestroy(s)


def test_blocking_stream_waits_for_legacy_default_stream(k):
    gate, flag, after = managed_int(), managed_int(), managed_int()
    s = cudaStreamCreate()
    nb = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    after2 = managed_int()
    try:
        k.gated[1, 1](gate, flag)                # legacy default stream
        k.store[1, 1, 0, s](after, 1)            # waits for it
        k.store[1, 1, 0, nb](after2, 1)          # does not
        time.sleep(0.3)
        assert after[0] == 0 and after2[0] == 1
        gate[0] = 1
        cudaStreamSynchronize(s)
        assert after[0] == 1
    finally:
        gate[0] = 1
        cudaDeviceSynchronize()
        cudaStreamDestroy(s)
        cudaStreamDestroy(nb)


def test_long_kernel_on_one_stream_does_not_delay_another(k):
    gate, flag, other = managed_int(), managed_int(), managed_int()
    s1 = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    s2 = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    try:
        k.gated[1, 1, 0, s1](gate, flag)
        k.store[1, 1, 0, s2](other, 3)
        cudaStreamSynchronize(s2)              # would hang (20 s) if s1 held it up
        assert other[0] == 3 and flag[0] == 0
        assert cudaStreamQuery(s1) == cudaErrorNotReady
    finally:
        gate[0] = 1
        cudaDeviceSynchronize()
        cudaStreamDestroy(s1)
        cudaStreamDestroy(s2)


def test_per_thread_default_stream_handle_is_a_blocking_stream(k):
    gate, flag, after = managed_int(), managed_int(), managed_int()
    try:
        k.gated[1, 1, 0, cudaStreamPerThread](gate, flag)
        k.store[1, 1, 0, cudaStreamLegacy](after, 5)     # waits for the per-thread stream
        time.sleep(0.2)
        assert after[0] == 0
        gate[0] = 1
        cudaStreamSynchronize(cudaStreamLegacy)
        assert after[0] == 5 and flag[0] == 1
    finally:
        gate[0] = 1
        cudaDeviceSynchronize()


def test_set_default_stream_per_thread_gives_each_thread_its_own_stream(k):
    gate, flag, out = managed_int(), managed_int(), managed_int()
    set_default_stream("per-thread")
    try:
        k.gated[1, 1](gate, flag)                  # this thread's stream 0

        def other():
            k.store[1, 1](out, 9)                  # another thread's stream 0: not held up
            cudaStreamSynchronize(0)
        t = threading.Thread(target=other)
        t.start()
        t.join(10)
        assert not t.is_alive() and out[0] == 9 and flag[0] == 0
    finally:
        set_default_stream("legacy")
        gate[0] = 1
        cudaDeviceSynchronize()
    raises_code(cudaErrorInvalidValue, set_default_stream, "fast")


PER_THREAD_BODY = """
    mod = SourceModule(SOURCE)
    gate = cudaMallocManaged(4, cudaMemAttachGlobal, np.int32); gate[0] = 0
    flag = cudaMallocManaged(4, cudaMemAttachGlobal, np.int32); flag[0] = 0
    out = cudaMallocManaged(4, cudaMemAttachGlobal, np.int32); out[0] = 0
    mod.gated[1, 1](gate, flag)             # this thread's stream 0
    def other():
        mod.store[1, 1](out, 9)             # another thread's stream 0
        cudaStreamSynchronize(0)
    t = threading.Thread(target=other); t.start(); t.join(2)
    R["other_done"] = (not t.is_alive()) and int(out[0]) == 9
    R["held"] = int(flag[0])
    gate[0] = 1
    cudaDeviceSynchronize()
    R["flag"] = int(flag[0])
"""


@pytest.mark.parametrize("mode,independent", [("per-thread", True), ("legacy", False)])
def test_PYEMU_DEFAULT_STREAM_sets_the_default_stream_at_import(run_cuda, mode, independent):
    src = ("#include <time.h>\n__global__ void gated(const int *g, int *f) { struct timespec a, b;"
           " clock_gettime(CLOCK_MONOTONIC, &a); while (((volatile const int *)g)[0] == 0) {"
           " clock_gettime(CLOCK_MONOTONIC, &b); if (b.tv_sec - a.tv_sec > 8) return; }"
           " ((volatile int *)f)[0] = 1; }\n"
           "__global__ void store(int *a, int v) { ((volatile int *)a)[0] = v; }")
    res = run_cuda(PER_THREAD_BODY, env={"PYEMU_DEFAULT_STREAM": mode}, consts={"SOURCE": src})
    assert res.returncode == 0, res.explain()
    assert res.R["other_done"] is independent and res.R["held"] == 0 and res.R["flag"] == 1


def test_PYEMU_DEFAULT_STREAM_misspelt_is_refused(run_cuda):
    res = run_cuda("", env={"PYEMU_DEFAULT_STREAM": "per-threads"})
    assert res.returncode != 0 and "PYEMU_DEFAULT_STREAM='per-threads'" in res.stderr


def test_host_functions_run_in_stream_order_off_the_workers(k):
    d = cudaMalloc(4)
    s = cudaStreamCreate()
    seen = []
    main = threading.get_ident()
    host = np.zeros(1, np.int32)

    def fn(tag):
        seen.append((tag, threading.current_thread().name, threading.get_ident() != main))

    try:
        k.store[1, 1, 0, s](d, 11)
        cudaLaunchHostFunc(s, fn, "a")
        cudaStreamAddCallback(s, lambda st, status, ud: seen.append((ud, status)), "b", 0)
        cudaLaunchHostFunc(s, lambda _: time.sleep(0.1), None)
        k.store[1, 1, 0, s](d, 12)               # waits for the sleeping host function
        cudaMemcpyAsync(host, d, 4, cudaMemcpyDeviceToHost, s)
        assert host[0] == 12
        assert seen == [("a", "pyemu-host-functions", True), ("b", cudaSuccess)]
    finally:
        cudaStreamDestroy(s)
        cudaFree(d)


def test_host_function_that_raises_does_not_stop_the_stream(capsys):
    s = cudaStreamCreate()
    out = []

    def bad(_):
        raise RuntimeError("oops")
    cudaLaunchHostFunc(s, bad, None)
    cudaLaunchHostFunc(s, out.append, 1)
    cudaStreamSynchronize(s)
    cudaStreamDestroy(s)
    assert out == [1]
    assert "RuntimeError: oops" in capsys.readouterr().err


def test_cudaStreamWaitEvent_orders_across_streams(k):
    gate, flag, after = managed_int(), managed_int(), managed_int()
    a = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    b = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    e = cudaEventCreateWithFlags(cudaEventDisableTiming)
    try:
        k.gated[1, 1, 0, a](gate, flag)
        cudaEventRecord(e, a)
        cudaStreamWaitEvent(b, e, 0)
        k.store[1, 1, 0, b](after, 1)
        time.sleep(0.2)
        assert after[0] == 0
        gate[0] = 1
        cudaStreamSynchronize(b)
        assert after[0] == 1 and flag[0] == 1
        # an event never recorded is no wait
        cudaStreamWaitEvent(b, cudaEventCreate(), 0)
        cudaStreamSynchronize(b)
    finally:
        gate[0] = 1
        cudaDeviceSynchronize()
        cudaStreamDestroy(a)
        cudaStreamDestroy(b)


def test_many_python_threads_use_streams_at_once(k):
    nthreads, iters = 8, 20
    results = [None] * nthreads

    def worker(t):
        try:
            s = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
            d = cudaMalloc(4)
            host = np.zeros(1, np.int32)
            for i in range(iters):
                k.store[1, 1, 0, s](d, t * 1000 + i)
                cudaMemcpyAsync(host, d, 4, cudaMemcpyDeviceToHost, s)
                if host[0] != t * 1000 + i:
                    results[t] = f"thread {t} read {host[0]} at {i}"
                    return
            cudaStreamSynchronize(s)
            cudaStreamDestroy(s)
            cudaFree(d)
            results[t] = "ok"
        except Exception as exc:     # reported below
            results[t] = repr(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(nthreads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == ["ok"] * nthreads


def test_kernel_fault_in_one_stream_is_sticky_for_the_device(run_cuda):
    res = run_cuda("""
        import numpy as np
        mod = SourceModule('__global__ void bad(int *p) { p[1 << 28] = 1; }')
        s1 = cudaStreamCreate(); s2 = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
        d = cudaMalloc(16)
        ev = cudaEventCreate()
        mod.bad[1, 1, 0, s1](d)
        R["sync1"] = code_of(cudaStreamSynchronize, s1)
        R["sync2"] = code_of(cudaStreamSynchronize, s2)
        R["async"] = code_of(cudaMemsetAsync, d, 0, 16, s2)
        R["event"] = code_of(cudaEventRecord, ev, s2)
        R["hostfn"] = code_of(cudaLaunchHostFunc, s2, print, None)
        cudaDeviceReset()
        s3 = cudaStreamCreate()
        d = cudaMalloc(16)
        R["after_reset"] = code_of(cudaMemsetAsync, d, 0, 16, s3)
        R["after_reset_sync"] = code_of(cudaStreamSynchronize, s3)
    """)
    assert res.returncode == 0, res.explain()
    ill = int(cudaErrorIllegalAddress)
    assert res.R["sync1"] == ill
    assert res.R["sync2"] == ill and res.R["async"] == ill
    assert res.R["event"] == ill and res.R["hostfn"] == ill
    assert res.R["after_reset"] == 0 and res.R["after_reset_sync"] == 0


def test_host_function_that_waits_for_the_device_gets_not_permitted():
    s = cudaStreamCreate()
    got = []

    def waits(_):
        for fn, args in ((cudaDeviceSynchronize, ()), (cudaStreamSynchronize, (s,)),
                         (cudaMemcpy, (np.zeros(1), np.zeros(1), 8, cudaMemcpyHostToHost))):
            try:
                fn(*args)
                got.append(0)
            except CudaError as exc:
                got.append(int(exc.code))
    cudaLaunchHostFunc(s, waits, None)
    cudaStreamSynchronize(s)            # would hang if the function waited for itself
    cudaStreamDestroy(s)
    cudaGetLastError()
    assert got == [int(cudaErrorNotPermitted)] * 3


def test_cudaMallocAsync_and_cudaFreeAsync_in_stream_order(k):
    gate, flag = managed_int(), managed_int()
    s = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    try:
        d = cudaMallocAsync(64, s)
        k.gated[1, 1, 0, s](gate, flag)
        k.store[1, 1, 0, s](d, 42)              # queued before the free: still valid then
        out = cudaMallocHost(4, np.int32)
        cudaMemcpyAsync(out, d, 4, cudaMemcpyDeviceToHost, s)
        assert cudaFreeAsync(d, s) == cudaSuccess       # returns at once
        assert cudaStreamQuery(s) == cudaErrorNotReady
        gate[0] = 1
        cudaStreamSynchronize(s)
        assert out[0] == 42
        raises_code(cudaErrorInvalidValue, cudaMemsetAsync, d, 0, 4, s)    # freed now
        raises_code(cudaErrorInvalidValue, cudaFreeAsync, d, s)
        raises_code(cudaErrorInvalidValue, cudaFreeAsync, "x", s)
        d2 = cudaMallocAsync(64, s)
        raises_code(cudaErrorInvalidValue, cudaFreeAsync, d2 + 8, s)
        assert cudaFreeAsync(d2, s) == cudaSuccess and cudaFreeAsync(0, s) == cudaSuccess
        raises_code(cudaErrorInvalidValue, cudaMallocAsync, -1, s)
        raises_code(cudaErrorInvalidResourceHandle, cudaMallocAsync, 64, "s")
        cudaStreamSynchronize(s)
    finally:
        gate[0] = 1
        cudaDeviceSynchronize()
        cudaStreamDestroy(s)


def test_a_pointer_whose_cudaFreeAsync_is_still_queued_is_refused(k):
    """Until the free runs the allocation is still there, but a second free
    (which would run later and could free whatever took the address by then)
    and copies or fills queued after the free (which would touch unmapped
    memory) get cudaErrorInvalidValue, as freed memory does."""
    gate, flag = managed_int(), managed_int()
    s = cudaStreamCreate()
    try:
        d = cudaMallocAsync(64, s)
        k.gated[1, 1, 0, s](gate, flag)         # holds the free back
        cudaFreeAsync(d, s)
        assert cudaStreamQuery(s) == cudaErrorNotReady
        raises_code(cudaErrorInvalidValue, cudaFreeAsync, d, s)
        raises_code(cudaErrorInvalidValue, cudaMemsetAsync, d, 0, 4, s)
        raises_code(cudaErrorInvalidValue, cudaMemcpyAsync, d + 4, np.zeros(1, np.int32), 4,
                    cudaMemcpyHostToDevice, s)
        other = cudaMalloc(64)                  # other allocations are not affected
        assert cudaMemsetAsync(other, 0, 64, s) == cudaSuccess
        gate[0] = 1
        cudaStreamSynchronize(s)
        raises_code(cudaErrorInvalidValue, cudaFreeAsync, d, s)    # freed now
        d2 = cudaMallocAsync(64, s)             # may take the address again: a free of it is fine
        assert cudaFreeAsync(d2, s) == cudaSuccess
        cudaStreamSynchronize(s)
        cudaFree(other)
    finally:
        gate[0] = 1
        cudaDeviceSynchronize()
        cudaStreamDestroy(s)


@pytest.mark.parametrize("size", [256, 4 << 20])     # a slab slot; a mapping of its own
def test_cudaFreeAsync_on_another_stream_does_not_pull_memory_from_under_queued_work(k, size):
    """A copy and a kernel queued on stream A before a cudaFreeAsync of their
    memory on an unordered stream B (a race CUDA leaves undefined) read what
    was there, instead of faulting or crashing; the memory is freed for
    every later call at once."""
    gate, flag = managed_int(), managed_int()
    a = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    b = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    try:
        d = cudaMalloc(size)
        n = size // 4
        cudaMemcpy(d, np.arange(n, dtype=np.int32), size, cudaMemcpyHostToDevice)
        out = cudaMallocHost(size, np.int32)
        k.gated[1, 1, 0, a](gate, flag)         # holds A's copy back
        cudaMemcpyAsync(out, d, size, cudaMemcpyDeviceToHost, a)
        cudaFreeAsync(d, b)
        cudaStreamSynchronize(b)                # the free has run; A's copy has not
        assert cudaStreamQuery(a) == cudaErrorNotReady
        raises_code(cudaErrorInvalidValue, cudaMemsetAsync, d, 0, 4, b)    # freed for later calls
        raises_code(cudaErrorInvalidValue, cudaFreeAsync, d, b)
        gate[0] = 1
        cudaStreamSynchronize(a)
        np.testing.assert_array_equal(out, np.arange(n, dtype=np.int32))
        d2 = cudaMalloc(size)                   # the device computes right afterwards
        cudaMemset(d2, 0, size)
        k.store[1, 1, 0](d2, 7)
        back = np.zeros(n, np.int32)
        cudaMemcpy(back, d2, size, cudaMemcpyDeviceToHost)
        assert back[0] == 7 and not back[1:].any()
        cudaFree(d2)
        cudaFreeHost(out)
    finally:
        gate[0] = 1
        cudaDeviceSynchronize()
        cudaStreamDestroy(a)
        cudaStreamDestroy(b)


def test_cudaDeviceReset_destroys_streams_events_and_page_locked_memory(run_cuda):
    res = run_cuda("""
        import numpy as np
        s = cudaStreamCreate(); e = cudaEventCreate(); h = cudaMallocHost(64)
        cudaEventRecord(e, s)
        cudaDeviceReset()
        R["stream"] = code_of(cudaStreamSynchronize, s)
        R["event"] = code_of(cudaEventRecord, e, 0)
        R["freehost"] = code_of(cudaFreeHost, h)
        R["attr"] = int(cudaPointerGetAttributes(h).type)
        s2 = cudaStreamCreate()
        R["new"] = code_of(cudaStreamSynchronize, s2)
    """)
    assert res.returncode == 0, res.explain()
    bad = int(cudaErrorInvalidResourceHandle)
    assert res.R == {"stream": bad, "event": bad, "freehost": int(cudaErrorInvalidValue),
                     "attr": int(cudaMemoryTypeUnregistered), "new": 0}
