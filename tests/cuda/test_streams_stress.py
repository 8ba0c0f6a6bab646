"""The ordering CUDA promises for streams, checked under stress.

16 streams x 100 commands (issue 11's figures) of kernels of random length,
host functions (cudaLaunchHostFunc) with random sleeps, cudaStreamWaitEvent on
other streams' events, and commands on the legacy default stream, then a
second run with 4 Python threads enqueueing at once. Every command checks,
on the device or in the host function, the rules of the CUDA Programming
Guide ("Streams", "Implicit Synchronization", "Default Stream"):

  * stream order: a stream's commands run one after the other, none starts
    before the one before it has finished (a kernel sees its stream's counter
    at exactly the value it was enqueued after; a host function sees the
    kernels before it done and none after it started, before and after its
    sleep; no kernel runs while a host function of its stream does);
  * cudaStreamWaitEvent: what follows the wait starts after everything before
    the event's record on the other stream;
  * the legacy default stream: a command on it starts after every command
    already queued on the blocking streams and before any queued after it;
    the blocking streams' later commands start after it has finished;
  * timing events (cudaEventElapsedTime) of commands ordered by these rules
    give elapsed times >= 0 in that order, and none exceeds the wall time.

Nothing may deadlock: each run has a time limit.
"""
import random
import threading
import time

import numpy as np
import pytest

from pyemu.cuda import *  # noqa: F401,F403

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

# bad[] slots, so that a failure says which rule broke
ORDER, HOST_OVERLAP, LEGACY_AFTER, WAIT, LEGACY_BEFORE = range(5)
RULES = ["stream order", "kernel overlapping a host function of its stream",
         "blocking stream ran before a legacy command it follows",
         "cudaStreamWaitEvent", "legacy command ran before a blocking stream's earlier work"]


@pytest.fixture(scope="module")
def k():
    return SourceModule(r"""
    #define V(p) (*(volatile int *)&(p))
    // stream s's next step: its counter must be `expect`, no host function of
    // s may be running, and the legacy generation must be at least lmin
    __global__ void step(int *ctr, int s, int expect, int *bad, int spin,
                         int *hbusy, int *lgen, int lmin) {
        volatile int x = 0;
        for (int i = 0; i < spin; i++) x += i;
        if (V(hbusy[s]) != 0) atomicAdd(&bad[1], 1);
        if (V(lgen[0]) < lmin) atomicAdd(&bad[2], 1);
        if (V(ctr[s]) != expect) atomicAdd(&bad[0], 1);
        V(ctr[s]) = expect + 1;
    }
    // after a wait on stream src's event: src is at least `least` along
    __global__ void check_at_least(int *ctr, int src, int least, int *bad) {
        if (V(ctr[src]) < least) atomicAdd(&bad[3], 1);
    }
    // a legacy default stream command: every blocking stream (even index, of
    // this run's first..first+n) is exactly where it was when this was
    // queued, during and after a spin; then the legacy generation becomes gen
    __global__ void legacy_mark(int *ctr, int *want, int first, int n,
                                int *lgen, int gen, int *bad, int spin) {
        for (int i = first; i < first + n; i += 2)
            if (V(ctr[i]) != want[(i - first) / 2]) atomicAdd(&bad[4], 1);
        volatile int x = 0;
        for (int i = 0; i < spin; i++) x += i;
        for (int i = first; i < first + n; i += 2)
            if (V(ctr[i]) != want[(i - first) / 2]) atomicAdd(&bad[4], 1);
        V(lgen[0]) = gen;
    }
    """)


def managed(n):
    a = cudaMallocManaged(4 * n, cudaMemAttachGlobal, np.int32)
    a[:] = 0
    return a


def one_run(k, seed, first, nstreams, ncmds, ctr, bad, errors, stats=None):
    """Enqueue ncmds rounds over streams first..first+nstreams of ctr, wait,
    and check; what fails goes to errors."""
    stats = {} if stats is None else stats
    rng = random.Random(seed)
    lgen = managed(1)
    hbusy = managed(first + nstreams)
    snapshots = []                       # legacy_mark's `want` arrays, kept alive
    streams = [cudaStreamCreate() if i % 2 == 0 else
               cudaStreamCreateWithFlags(cudaStreamNonBlocking) for i in range(nstreams)]
    want = [0] * nstreams                # kernel steps enqueued on each stream
    host_want = [0] * nstreams
    host_seen = [0] * nstreams
    lmin = [0] * nstreams                # legacy generation each stream's next command must see
    gen = 0
    # timing events: (event, name); edges (a, b): a's record is ordered before b's
    timed, edges = [], []
    last_ev = [None] * nstreams          # index into timed of the stream's last timing event
    deps = [set() for _ in range(nstreams)]
    last_legacy = None

    def host_step(arg):
        s, expect_host, expect_kernels, least_gen, sleep = arg
        g = first + s
        hbusy[g] = 1
        if host_seen[s] != expect_host:
            errors.append(f"host function {expect_host} of stream {g} ran after {host_seen[s]}")
        if ctr[g] != expect_kernels or lgen[0] < least_gen:
            errors.append(f"host function of stream {g}: counter {ctr[g]}, wanted {expect_kernels}")
        time.sleep(sleep)
        if ctr[g] != expect_kernels:
            errors.append(f"a later kernel of stream {g} ran during its host function")
        host_seen[s] = expect_host + 1
        hbusy[g] = 0

    def record_timing(s):
        nonlocal last_legacy
        e = cudaEventCreate()
        stream = 0 if s is None else streams[s]
        cudaEventRecord(e, stream)
        i = len(timed)
        timed.append((e, "legacy" if s is None else f"stream {first + s}"))
        if s is None:
            for j in range(0, nstreams, 2):
                if last_ev[j] is not None:
                    edges.append((last_ev[j], i))
                deps[j].add(i)
            if last_legacy is not None:
                edges.append((last_legacy, i))
            last_legacy = i
        else:
            if last_ev[s] is not None:
                edges.append((last_ev[s], i))
            edges.extend((d, i) for d in deps[s])
            deps[s].clear()
            last_ev[s] = i

    t0 = time.perf_counter()
    try:
        for _ in range(ncmds):
            for s in rng.sample(range(nstreams), nstreams):
                g = first + s
                r = rng.random()
                if r < 0.5:
                    k.step[1, 1, 0, streams[s]](ctr, g, want[s], bad, rng.randrange(0, 200000),
                                                hbusy, lgen, lmin[s])
                    want[s] += 1
                elif r < 0.62:
                    cudaLaunchHostFunc(streams[s], host_step,
                                       (s, host_want[s], want[s], lmin[s], rng.random() * 0.002))
                    host_want[s] += 1
                elif r < 0.8:
                    src = rng.randrange(nstreams)
                    e = cudaEventCreateWithFlags(cudaEventDisableTiming)
                    cudaEventRecord(e, streams[src])
                    cudaStreamWaitEvent(streams[s], e, 0)
                    cudaEventDestroy(e)        # the wait still holds (CUDA: destroy is deferred)
                    k.check_at_least[1, 1, 0, streams[s]](ctr, first + src, want[src], bad)
                    if last_ev[src] is not None:
                        deps[s].add(last_ev[src])
                    lmin[s] = max(lmin[s], lmin[src])
                elif r < 0.9:
                    record_timing(s)
            if rng.random() < 0.25:
                gen += 1
                snap = managed(max(1, (nstreams + 1) // 2))
                snap[:] = [want[i] for i in range(0, nstreams, 2)]
                snapshots.append(snap)
                k.legacy_mark[1, 1, 0, 0](ctr, snap, first, nstreams, lgen, gen, bad,
                                          rng.randrange(0, 100000))
                for i in range(0, nstreams, 2):
                    lmin[i] = gen
                if rng.random() < 0.5:
                    record_timing(None)
        cudaDeviceSynchronize()
        wall_ms = (time.perf_counter() - t0) * 1e3
        got = [int(ctr[first + i]) for i in range(nstreams)]
        if got != want:
            errors.append(f"counters {got}, wanted {want}")
        if host_seen != host_want:
            errors.append(f"host functions ran {host_seen}, wanted {host_want}")
        if int(lgen[0]) != gen:
            errors.append(f"legacy generation {int(lgen[0])}, wanted {gen}")
        for a, b in edges:
            ms = cudaEventElapsedTime(timed[a][0], timed[b][0])
            if not 0.0 <= ms <= wall_ms:
                errors.append(f"elapsed {timed[a][1]} -> {timed[b][1]} = {ms} ms (wall {wall_ms:.1f})")
        stats.update(edges=len(edges), kernels=sum(want), host=sum(host_want), legacy=gen, wall_ms=wall_ms)
        if len(edges) < ncmds:
            errors.append(f"only {len(edges)} ordered event pairs: the run checks too little")
    finally:
        for s in streams:
            cudaStreamDestroy(s)
        for e, _ in timed:
            cudaEventDestroy(e)


def run_threads(k, nthreads, nstreams, ncmds, seed, limit_s=60):
    ctr = managed(nthreads * nstreams)
    bad = managed(len(RULES))
    errors = []

    def body(t):
        try:
            one_run(k, seed + t, t * nstreams, nstreams, ncmds, ctr, bad, errors)
        except Exception as exc:      # reported by the assertion below
            errors.append(f"thread {t}: {exc!r}")

    threads = [threading.Thread(target=body, args=(t,), daemon=True) for t in range(nthreads)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.1, limit_s - (time.perf_counter() - start)))
    assert not any(t.is_alive() for t in threads), "deadlock: a run did not finish in time"
    broken = {RULES[i]: int(bad[i]) for i in range(len(RULES)) if bad[i]}
    assert broken == {} and errors == [], (broken, errors[:10])


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_16_streams_x_100_commands_keep_cuda_order(k, seed):
    run_threads(k, nthreads=1, nstreams=16, ncmds=100, seed=seed)


def test_4_python_threads_each_with_4_streams_keep_cuda_order(k):
    run_threads(k, nthreads=4, nstreams=4, ncmds=50, seed=100)


def test_the_checks_catch_a_broken_order(k):
    """The step kernel's check fails when it is run out of order (so the
    stress tests above can fail)."""
    ctr, bad = managed(1), managed(len(RULES))
    hbusy, lgen = managed(1), managed(1)
    k.step[1, 1](ctr, 0, 1, bad, 0, hbusy, lgen, 0)     # expects one step before it
    cudaDeviceSynchronize()
    hbusy[0] = 1
    k.step[1, 1](ctr, 0, 2, bad, 0, hbusy, lgen, 1)     # overlaps a host function, legacy gen 0 < 1
    cudaDeviceSynchronize()
    assert [int(bad[i]) for i in range(3)] == [1, 1, 1]
