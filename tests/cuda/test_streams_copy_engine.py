"""The copy engine (csrc/copyengine.c): a copy on one stream runs while
another stream's kernel holds every worker, as a GPU's copy engine runs
beside its multiprocessors (cudaDevAttrAsyncEngineCount)."""
import time

import numpy as np
import pytest

from pyemu.cuda import *  # noqa: F401,F403

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

GATED = r"""
#include <time.h>
// every block spins until gate[0] != 0 (at most 20 s)
__global__ void gated(const int *gate, int *out) {
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (((volatile const int *)gate)[0] == 0) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 20) return;
    }
    out[blockIdx.x] = 1;
}
"""


def _poll(event, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cudaEventQuery(event) == cudaSuccess:
            return True
        time.sleep(0.001)
    return False


def test_cudaMemcpyAsync_runs_while_another_streams_kernel_holds_the_workers():
    gated = SourceModule(GATED).get_function("gated")
    a, b = (cudaStreamCreateWithFlags(cudaStreamNonBlocking) for _ in range(2))
    gate = cudaMallocManaged(4, cudaMemAttachGlobal, np.int32)
    gate[0] = 0
    nblocks = 64                              # more blocks than workers: items wait
    out = cudaMalloc(4 * nblocks)
    cudaMemset(out, 0, 4 * nblocks)
    n = 1 << 20
    h = cudaMallocHost(4 * n, np.float32)
    h[:] = np.arange(n, dtype=np.float32)
    d = cudaMalloc(4 * n)
    k_done, c_done = cudaEventCreate(), cudaEventCreate()
    try:
        gated[nblocks, 1, 0, a](gate, out)
        cudaEventRecord(k_done, a)
        time.sleep(0.05)                      # the workers are in the kernel now
        cudaMemcpyAsync(d, h, 4 * n, cudaMemcpyHostToDevice, b)
        cudaEventRecord(c_done, b)
        copied = _poll(c_done, 10)
        kernel_still_running = cudaEventQuery(k_done) == cudaErrorNotReady
    finally:
        gate[0] = 1
        cudaDeviceSynchronize()
    assert copied, "the copy waited for the other stream's kernel"
    assert kernel_still_running
    back = np.empty(n, np.float32)
    cudaMemcpy(back, d, 4 * n, cudaMemcpyDeviceToHost)
    np.testing.assert_array_equal(back, h)
    flags = np.empty(nblocks, np.int32)
    cudaMemcpy(flags, out, 4 * nblocks, cudaMemcpyDeviceToHost)
    assert (flags == 1).all()
    for s in (a, b):
        cudaStreamDestroy(s)
    cudaFree(gate)
    cudaFreeHost(h)
    cudaFree(d)
    cudaFree(out)


def test_copies_of_one_stream_stay_in_order_across_the_copy_engine():
    # a copy on the copy engine and the next one on the workers must not overtake
    s = cudaStreamCreate()
    n = 1 << 18
    src = cudaMallocHost(4 * n, np.float32)
    dst = cudaMallocHost(4 * n, np.float32)
    d = cudaMalloc(4 * n)
    busy = SourceModule("__global__ void nop(int *p) { if (p[0] == 12345) p[1] = 1; }")
    nop = busy.get_function("nop")
    other = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    flag = cudaMalloc(8)
    cudaMemset(flag, 0, 8)
    for r in range(20):
        src[:] = r
        nop[4096, 32, 0, other](flag)         # keeps the workers busy now and then
        cudaMemcpyAsync(d, src, 4 * n, cudaMemcpyHostToDevice, s)
        cudaMemcpyAsync(dst, d, 4 * n, cudaMemcpyDeviceToHost, s)
        cudaStreamSynchronize(s)
        assert (dst == r).all(), r
    cudaDeviceSynchronize()
    for x in (s, other):
        cudaStreamDestroy(x)
    cudaFreeHost(src)
    cudaFreeHost(dst)
    cudaFree(d)
    cudaFree(flag)


@pytest.mark.parametrize("offset,size", [(0, 1 << 20), (1, 3 << 20), (13, (2 << 20) + 77),
                                         (0, 64 << 10), (5, (64 << 10) + 1)])
def test_large_and_small_copies_at_any_alignment_arrive_whole(offset, size):
    # large copies go to the copy engine with non-temporal stores (head bytes
    # up to 16-byte alignment, a tail under 64 bytes); small ones may run on
    # the calling thread: every byte arrives, and nothing past the end
    src = np.random.randint(0, 256, size + 64, dtype=np.uint8)
    d = cudaMalloc(size + 64)
    cudaMemset(d, 0xAB, size + 64)
    cudaMemcpy(DevicePointer(int(d) + offset), src[3:], size, cudaMemcpyHostToDevice)
    back = np.zeros(size + 64, np.uint8)
    cudaMemcpy(back, d, size + 64, cudaMemcpyDeviceToHost)
    assert (back[:offset] == 0xAB).all()
    np.testing.assert_array_equal(back[offset:offset + size], src[3:3 + size])
    assert (back[offset + size:] == 0xAB).all()
    s = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    h = cudaMallocHost(size + 64, np.uint8)
    cudaMemcpyAsync(h[offset:], d, size, cudaMemcpyDeviceToHost, s)   # device to page-locked
    cudaStreamSynchronize(s)
    np.testing.assert_array_equal(h[offset:offset + size], back[:size])
    cudaStreamDestroy(s)
    cudaFreeHost(h)
    cudaFree(d)



BUSY = r"""
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
// some arithmetic; thread 0 spins until the block has lasted `ns` nanoseconds
// (so the kernel's length does not depend on how fast the host computes), then
// notes when the block ended and which thread ran it
__global__ void busy(float *out, long long *when, int *who, int rounds, long long ns) {
    float x = threadIdx.x;
    for (int r = 0; r < rounds; r++)
        x = x * 0.999f + 0.5f;
    if (threadIdx.x == 0) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long long t0 = t.tv_sec * 1000000000LL + t.tv_nsec, now = t0;
        while (now - t0 < ns) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            now = t.tv_sec * 1000000000LL + t.tv_nsec;
        }
        when[blockIdx.x] = now;
        who[blockIdx.x] = (int)syscall(SYS_gettid);
        out[blockIdx.x] = x;
    }
}
"""


def test_while_a_large_copy_runs_the_workers_leave_its_core_to_the_copy_engine():
    """A CPU has no copy engine of its own: the copy engine's thread needs a
    core.  When the workers use every core, one core's worth of them step
    aside (once their chunk of at most 64 blocks is done) while a large copy
    is queued or runs, and the kernel's blocks go on on the others: at most
    `keep` worker threads run more than a chunk of blocks between the copy's
    start and end (CLOCK_MONOTONIC, as the blocks read it)."""
    import os
    from pyemu.cuda.stream import queue_of
    from pyemu.runtime.core import ffi, lib
    k = SourceModule(BUSY).get_function("busy")
    a, b = (cudaStreamCreateWithFlags(cudaStreamNonBlocking) for _ in range(2))
    nblocks, n, rounds = 20000, 16 << 20, 50     # a 64 MiB copy (~5-10 ms)
    out, when, who = cudaMalloc(4 * nblocks), cudaMalloc(8 * nblocks), cudaMalloc(4 * nblocks)
    h = cudaMallocHost(4 * n, np.float32)
    h[:] = 1.5                                   # every page touched before: the copy copies
    h[::1000] = np.arange(len(h[::1000]), dtype=np.float32)
    d = cudaMalloc(4 * n)
    cudaMemset(d, 0, 4 * n)
    cudaDeviceSynchronize()                      # (stream b does not wait for the memset)
    workers = lib.pyemu_num_workers()            # the pool has started
    cores = len(os.sched_getaffinity(0))
    keep = workers if workers < cores else max(cores - 1, 1)
    ev = ffi.new("pyemu_cmd **")
    block_ns = int(0.4e9 * workers / nblocks)   # ~0.4 s of blocks, however fast the host
    k[nblocks, 32, 0, a](out, when, who, rounds, block_ns)
    time.sleep(0.02)                             # the workers are in the kernel now
    assert lib.pyemu_enqueue_copy(queue_of(b, "test"), ffi.cast("void *", int(d)),
                                  ffi.from_buffer(h), 4 * n, ffi.NULL, 0, ev) == 0
    cudaDeviceSynchronize()
    t = [ffi.new("unsigned long long *") for _ in range(4)]
    assert lib.pyemu_cmd_times(ev[0], *t) == 0
    lib.pyemu_cmd_release(ev[0])
    c0, c1 = t[2][0], t[3][0]
    ends, tids = np.empty(nblocks, np.int64), np.empty(nblocks, np.int32)
    cudaMemcpy(ends, when, 8 * nblocks, cudaMemcpyDeviceToHost)
    cudaMemcpy(tids, who, 4 * nblocks, cudaMemcpyDeviceToHost)
    assert ends.max() > c1, "the kernel ended before the copy: nothing to see"
    during = tids[(ends > c0) & (ends < c1)]
    per_thread = sorted(np.unique(during, return_counts=True)[1].tolist(), reverse=True)
    assert len(set(tids.tolist())) <= workers
    assert all(c <= 64 for c in per_thread[keep:]), (per_thread, keep, (c1 - c0) / 1e6)
    back = np.empty(n, np.float32)
    cudaMemcpy(back, d, 4 * n, cudaMemcpyDeviceToHost)
    np.testing.assert_array_equal(back, h)
    res = np.empty(nblocks, np.float32)
    cudaMemcpy(res, out, 4 * nblocks, cudaMemcpyDeviceToHost)
    x = np.float32(0)
    for _ in range(rounds):
        x = x * np.float32(0.999) + np.float32(0.5)
    np.testing.assert_allclose(res, x, rtol=1e-4)
    for s in (a, b):
        cudaStreamDestroy(s)
    for p in (out, when, who, d):
        cudaFree(p)
    cudaFreeHost(h)


WHO = r"""
#include <unistd.h>
#include <sys/syscall.h>
// which thread ran each block; a block lasts 0.2 ms, so that every worker takes some
__global__ void who(int *tid) {
    if (threadIdx.x == 0) {
        usleep(200);
        tid[blockIdx.x] = (int)syscall(SYS_gettid);
    }
}
"""


def test_while_large_copies_run_the_kept_workers_stay_off_the_copy_engines_core():
    """With no core idle the scheduler would put a worker woken for a kernel
    on the copy engine's core (the waker's), and the two would run by turns:
    while large copies run, the copy engine stays on the process's last core
    and the workers that keep running (all but one core's worth) stay off
    it; after the copies every worker may run anywhere again."""
    import os
    from pyemu.runtime.core import lib
    who = SourceModule(WHO).get_function("who")
    nblocks = 512
    tids_d = cudaMalloc(4 * nblocks)
    tids = np.empty(nblocks, np.int32)
    workers = lib.pyemu_num_workers()
    seen = set()
    for _ in range(20):                           # until every worker ran a block
        who[nblocks, 32](tids_d)
        cudaMemcpy(tids, tids_d, 4 * nblocks, cudaMemcpyDeviceToHost)
        seen |= set(tids.tolist())
        if len(seen) == workers:
            break
    worker_tids = sorted(seen)
    assert len(worker_tids) == workers, (worker_tids, workers)
    cpus = os.sched_getaffinity(0)
    keep = workers if workers < len(cpus) else max(len(cpus) - 1, 1)
    placed = keep < workers and len(cpus) >= 2
    off_last = cpus - {max(cpus)}

    def kept_off_last():
        return sum(os.sched_getaffinity(t) == off_last for t in worker_tids)

    s = cudaStreamCreateWithFlags(cudaStreamNonBlocking)
    n, copies = 16 << 20, 8                       # 8 copies of 64 MiB: tens of ms
    h = cudaMallocHost(4 * n, np.float32)
    h[:] = np.arange(n, dtype=np.float32)
    d = cudaMalloc(4 * n)
    done = cudaEventCreate()
    for _ in range(copies):
        cudaMemcpyAsync(d, h, 4 * n, cudaMemcpyHostToDevice, s)
    cudaEventRecord(done, s)
    most = 0
    while cudaEventQuery(done) == cudaErrorNotReady:
        most = max(most, kept_off_last())
    cudaStreamSynchronize(s)
    if placed:
        # every worker the kernel used that keeps running: at most `keep`, and
        # at least one unless the poll missed every copy (8 of them)
        assert 1 <= most <= keep, (most, keep, worker_tids)
    else:
        assert most == 0
    end = time.monotonic() + 5
    while any(os.sched_getaffinity(t) != cpus for t in worker_tids) and time.monotonic() < end:
        time.sleep(0.001)                         # the copy engine lets go after the last copy
    assert all(os.sched_getaffinity(t) == cpus for t in worker_tids)
    back = np.empty(n, np.float32)
    cudaMemcpy(back, d, 4 * n, cudaMemcpyDeviceToHost)
    np.testing.assert_array_equal(back, h)
    cudaStreamDestroy(s)
    cudaEventDestroy(done)
    cudaFreeHost(h)
    cudaFree(d)
    cudaFree(tids_d)
