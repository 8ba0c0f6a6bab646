"""The block-parallel executor (csrc/), driven through pyemu.cuda.

Barriers (in loops, in functions, with predicates), divergent barriers, memory
faults, arithmetic faults, device assert, __trap, stack overflow, block-order
independence, blocks running concurrently on every worker, atomics under
contention, 3-D indices, several Python threads at once, and the worker count.

Every kernel that faults runs in a fresh interpreter (fixture `run_cuda`, with a
time limit): a fault that escaped the capture would kill that interpreter and
fail the test, never pytest.  Every spin loop in a kernel here is bounded in
time, so a broken executor fails these tests instead of hanging them.
"""
import platform
import threading

import numpy as np
import pytest

from pyemu.runtime.core import lib
from pyemu.cuda import (SourceModule, cudaDeviceSynchronize, cudaFree,
                        cudaGetDeviceProperties, cudaGetLastError, cudaMalloc, cudaMallocManaged,
                        cudaMemcpy, cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice, cudaSuccess)


pytestmark = pytest.mark.usefixtures("cuda_clean_state")


@pytest.fixture
def managed():
    made = []

    def make(n, dtype=np.int32, fill=0):
        m = cudaMallocManaged(max(n, 1) * np.dtype(dtype).itemsize, dtype=dtype)
        m[:] = fill
        made.append(m)
        return m

    yield make
    cudaDeviceSynchronize()
    for m in made:
        cudaFree(m)


TIMING = r"""
#include <unistd.h>
#include <sys/syscall.h>
static inline long long now_ms() {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}
"""

SOURCE = TIMING + r"""
// ---- barriers
// inclusive prefix sum of each block (Hillis-Steele): two barriers per loop
// iteration and a local value carried across them; any block size
__global__ void block_scan(const int *in, int *out) {
    extern __shared__ int s[];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = in[i];
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        int v = t >= stride ? s[t - stride] : 0;
        __syncthreads();
        s[t] += v;
        __syncthreads();
    }
    out[i] = s[t];
}

__device__ int reverse_through_shared(int *s, int v) {
    s[threadIdx.x] = v;
    __syncthreads();                       // a barrier inside a __device__ function
    int r = s[blockDim.x - 1 - threadIdx.x];
    __syncthreads();
    return r;
}

__global__ void rounds(int *out, int k) {
    __shared__ int s[1024];
    int v = threadIdx.x;
    for (int r = 0; r < k; r++)
        v = reverse_through_shared(s, 3 * v + r) % 1000003;
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// thread t of block b: 3 votes per step, for `steps` steps with predicate (t % m == 0)
// on even steps and (t < step) on odd ones; p is any int, not just 0/1
__global__ void votes(int *out, int steps, int m) {
    unsigned t = threadIdx.x, n = blockDim.x;
    int *o = out + 3 * steps * (blockIdx.x * n + t);
    for (int step = 0; step < steps; step++) {
        int p = step % 2 == 0 ? (t % m == 0) * (int)(t + 1) : (int)(t < (unsigned)step);
        o[3 * step + 0] = __syncthreads_count(p);
        o[3 * step + 1] = __syncthreads_and(p);
        o[3 * step + 2] = __syncthreads_or(p);
    }
}

// ---- indices
__global__ void indices(unsigned *o, int with_barrier) {
    if (with_barrier) __syncthreads();
    unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned *r = o + 12 * (b * blockDim.x * blockDim.y * blockDim.z + t);
    r[0] = threadIdx.x; r[1] = threadIdx.y; r[2] = threadIdx.z;
    r[3] = blockIdx.x; r[4] = blockIdx.y; r[5] = blockIdx.z;
    r[6] = blockDim.x; r[7] = blockDim.y; r[8] = blockDim.z;
    r[9] = gridDim.x; r[10] = gridDim.y; r[11] = gridDim.z;
}

// ---- order and concurrency
__global__ void ticket_work(const int *in, int *out, unsigned *counter, unsigned *order) {
    __shared__ unsigned my;
    if (threadIdx.x == 0) { my = atomicAdd(counter, 1u); order[my] = blockIdx.x; }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] * 2 + (int)blockIdx.x;
}

// every block checks in, then waits (bounded) until all n blocks have: only
// blocks that run at the same time can all see n
__global__ void meet(unsigned *arrived, unsigned *seen, long long *tids, int n, int timeout_ms) {
    tids[blockIdx.x] = syscall(SYS_gettid);
    atomicAdd(arrived, 1u);
    long long t0 = now_ms();
    while (atomicAdd(arrived, 0u) < (unsigned)n && now_ms() - t0 < timeout_ms) {}
    seen[blockIdx.x] = atomicAdd(arrived, 0u);
}

// ---- atomics
__global__ void add_all(int *i32, unsigned *u32, unsigned long long *u64, float *f32,
                        double *f64, int reps) {
    for (int r = 0; r < reps; r++) {
        atomicAdd(i32, -1);
        atomicAdd(u32, 3u);
        atomicAdd(u64, 1ull << 33);
        atomicAdd(f32, 1.0f);
        atomicAdd(f64, 0.5);
    }
}

__global__ void inc_dec(unsigned *inc, unsigned *dec, unsigned limit, unsigned *inc_old,
                        unsigned *dec_old) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    inc_old[i] = atomicInc(inc, limit);
    dec_old[i] = atomicDec(dec, limit);
}

__global__ void inc_dec_table(unsigned *inc, unsigned *dec, const unsigned *vals,
                              unsigned *inc_ret, unsigned *dec_ret, int n) {
    for (int i = 0; i < n; i++) {
        inc_ret[i] = atomicInc(&inc[i], vals[i]);
        dec_ret[i] = atomicDec(&dec[i], vals[i]);
    }
}

__global__ void cas_counter(unsigned long long *counter, int reps, int *gave_up) {
    for (int r = 0; r < reps; r++) {
        unsigned long long old = *(volatile unsigned long long *)counter, seen;
        long long spins = 0;
        while ((seen = atomicCAS(counter, old, old + 1)) != old) {
            old = seen;
            if (++spins > 100000000LL) { atomicAdd(gave_up, 1); return; }
        }
    }
}

// a spin lock (atomicCAS/atomicExch) around plain, non-atomic updates
__global__ void locked_update(int *lock, long long *sum, double *dsum, int reps, int *gave_up) {
    for (int r = 0; r < reps; r++) {
        long long spins = 0;
        while (atomicCAS(lock, 0, 1) != 0)
            if (++spins > 100000000LL) { atomicAdd(gave_up, 1); return; }
        __threadfence();
        *(volatile long long *)sum += blockIdx.x + 1;
        *(volatile double *)dsum += 0.25;
        __threadfence();
        atomicExch(lock, 0);
    }
}

__global__ void min_max(const int *vi, const long long *vll, int *imin, int *imax,
                        unsigned *umin, unsigned *umax, long long *llmin, long long *llmax,
                        unsigned long long *ullmin, unsigned long long *ullmax) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicMin(imin, vi[i]);
    atomicMax(imax, vi[i]);
    atomicMin(umin, (unsigned)vi[i]);
    atomicMax(umax, (unsigned)vi[i]);
    atomicMin(llmin, vll[i]);
    atomicMax(llmax, vll[i]);
    atomicMin(ullmin, (unsigned long long)vll[i]);
    atomicMax(ullmax, (unsigned long long)vll[i]);
}

__global__ void exchange(int *slot, int *old) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    old[i] = atomicExch(slot, i);
}

__global__ void bits(unsigned *orv, unsigned *andv, unsigned *xorv, int *sub) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicOr(orv, 1u << (i % 32));
    atomicAnd(andv, ~(1u << (i % 31)));
    atomicXor(xorv, i);
    atomicSub(sub, 2);
}
"""


@pytest.fixture(scope="module")
def mod():
    return SourceModule(SOURCE)


def workers():
    return lib.pyemu_num_workers()


# ------------------------------------------------------------------ barriers

@pytest.mark.parametrize("threads", [1, 2, 7, 32, 100, 256, 1024])
def test_syncthreads_in_a_loop_block_scan(mod, managed, threads):
    blocks = 5
    rng = np.random.default_rng(threads)
    data = rng.integers(-1000, 1000, blocks * threads).astype(np.int32)
    src, out = managed(data.size), managed(data.size)
    src[:] = data
    mod.block_scan[blocks, threads, 4 * threads](src, out)
    cudaDeviceSynchronize()
    want = np.cumsum(data.reshape(blocks, threads), axis=1).ravel()
    assert np.array_equal(out, want)


@pytest.mark.parametrize("threads,k", [(1, 5), (64, 1), (64, 9), (1024, 4)])
def test_syncthreads_in_a_device_function_called_in_a_loop(mod, managed, threads, k):
    blocks = 3
    out = managed(blocks * threads)
    mod.rounds[blocks, threads](out, k)
    cudaDeviceSynchronize()
    v = np.arange(threads, dtype=np.int64)
    for r in range(k):
        v = ((3 * v + r)[::-1]) % 1000003
    assert np.array_equal(out, np.tile(v, blocks))


@pytest.mark.parametrize("threads,m", [(256, 3), (1, 1), (1, 2), (33, 4), (1024, 7)])
def test_syncthreads_count_and_or(mod, managed, threads, m):
    steps, blocks = 6, 2
    out = managed(blocks * threads * steps * 3)
    mod.votes[blocks, threads](out, steps, m)
    cudaDeviceSynchronize()
    got = np.asarray(out).reshape(blocks, threads, steps, 3)
    t = np.arange(threads)
    for step in range(steps):
        p = (t % m == 0) * (t + 1) if step % 2 == 0 else (t < step).astype(int)
        want = [np.count_nonzero(p), int(np.all(p != 0)), int(np.any(p != 0))]
        assert np.all(got[:, :, step, :] == want), (step, want)   # the same in every thread


def test_syncthreads_count_and_or_as_on_the_H100(gt, mod, managed):
    """The probe's three predicates on a 256-thread block."""
    results = gt("semantics", "syncthreads_count_and_or", "results", default=[
        {"predicate": "tid%3==0", "block": 256, "count": 86, "and": 0, "or": 1}])
    first = next(r for r in results if r["predicate"] == "tid%3==0")
    out = managed(256 * 3)
    mod.votes[1, 256](out, 1, 3)
    cudaDeviceSynchronize()
    got = np.asarray(out).reshape(256, 3)
    assert np.all(got == [first["count"], first["and"], first["or"]])


# ------------------------------------------------------------------ 3-D indices

@pytest.mark.parametrize("with_barrier", [0, 1], ids=["plain_loop", "fibers"])
@pytest.mark.parametrize("grid,block", [((3, 2, 2), (4, 3, 2)), ((1, 1, 5), (1, 1, 64)),
                                        ((2, 3, 1), (5, 1, 3)), ((1, 1, 1), (8, 8, 16))])
def test_3d_grid_and_block_indices(mod, managed, grid, block, with_barrier):
    nb, nt = int(np.prod(grid)), int(np.prod(block))
    o = managed(12 * nb * nt, np.uint32, fill=0xFFFFFFFF)
    mod.indices[grid, block](o, with_barrier)
    cudaDeviceSynchronize()
    got = np.asarray(o).reshape(nb, nt, 12)
    bz, by, bx = np.meshgrid(*[np.arange(g) for g in grid[::-1]], indexing="ij")
    tz, ty, tx = np.meshgrid(*[np.arange(b) for b in block[::-1]], indexing="ij")
    for j, (want_b, want_t) in enumerate([(bx, tx), (by, ty), (bz, tz)]):
        assert np.array_equal(got[:, :, 3 + j], np.repeat(want_b.ravel()[:, None], nt, axis=1))
        assert np.array_equal(got[:, :, j], np.repeat(want_t.ravel()[None, :], nb, axis=0))
    assert np.all(got[:, :, 6:9] == block) and np.all(got[:, :, 9:12] == grid)


# ------------------------------------------------------------------ block order, concurrency

def test_block_order_does_not_change_results(mod, managed):
    blocks, threads = 200, 32
    data = np.arange(blocks * threads, dtype=np.int32) * 7 - 1000
    src = managed(data.size)
    src[:] = data
    want = data * 2 + np.repeat(np.arange(blocks), threads)
    orders = []
    for _ in range(3):
        out, counter, order = managed(data.size), managed(1, np.uint32), managed(blocks, np.uint32)
        mod.ticket_work[blocks, threads](src, out, counter, order)
        cudaDeviceSynchronize()
        assert np.array_equal(out, want)
        assert counter[0] == blocks
        assert sorted(order.tolist()) == list(range(blocks))     # every block ran exactly once
        orders.append(order.tolist())


def test_blocks_run_concurrently_on_every_worker(mod, managed):
    n = cudaGetDeviceProperties(0).multiProcessorCount
    assert n == workers()
    if n < 2:
        pytest.skip("one worker: nothing to run concurrently (see the 3-worker test)")
    arrived, seen, tids = managed(1, np.uint32), managed(n, np.uint32), managed(n, np.int64)
    mod.meet[n, 1](arrived, seen, tids, n, 10000)
    cudaDeviceSynchronize()
    assert seen.tolist() == [n] * n, "some blocks did not run at the same time"
    assert len(set(tids.tolist())) == n                 # n different OS threads


def test_blocks_meet_on_three_workers(run_cuda):
    run = run_cuda(r"""
        m = SourceModule(SOURCE)
        n = cudaGetDeviceProperties(0).multiProcessorCount
        arrived = cudaMallocManaged(4, dtype=np.uint32); arrived[0] = 0
        seen = cudaMallocManaged(4 * n, dtype=np.uint32)
        tids = cudaMallocManaged(8 * n, dtype=np.int64)
        m.meet[n, 1](arrived, seen, tids, n, 10000)
        cudaDeviceSynchronize()
        R["n"] = n
        R["seen"] = seen.tolist()
        R["distinct_tids"] = len(set(tids.tolist()))
    """, env={"PYEMU_NUM_THREADS": "3"}, consts={"SOURCE": SOURCE})
    assert run.returncode == 0, run.explain()
    assert run.R == {"n": 3, "seen": [3, 3, 3], "distinct_tids": 3}


# ------------------------------------------------------------------ atomics

def test_atomicAdd_every_type_under_contention(mod, managed):
    blocks, threads, reps = 64, 128, 4
    n = blocks * threads * reps
    i32, u32 = managed(1, np.int32), managed(1, np.uint32)
    u64, f32, f64 = managed(1, np.uint64), managed(1, np.float32), managed(1, np.float64)
    u64[0] = 5
    mod.add_all[blocks, threads](i32, u32, u64, f32, f64, reps)
    cudaDeviceSynchronize()
    assert i32[0] == -n
    assert u32[0] == 3 * n
    assert int(u64[0]) == 5 + n * (1 << 33)
    assert f32[0] == float(n)              # integers below 2**24: exact in float
    assert f64[0] == n / 2


@pytest.mark.parametrize("limit", [0, 1, 6, 255])
def test_atomicInc_atomicDec_wrap_around_under_contention(mod, managed, limit):
    blocks, threads = 32, 64
    n = blocks * threads                               # 2048 = a multiple of limit + 1 for 0, 1
    inc, dec = managed(1, np.uint32), managed(1, np.uint32)
    inc_old, dec_old = managed(n, np.uint32), managed(n, np.uint32)
    mod.inc_dec[blocks, threads](inc, dec, limit, inc_old, dec_old)
    cudaDeviceSynchronize()
    period = limit + 1
    assert inc[0] == n % period
    assert dec[0] == (-n) % period
    # every value of the cycle was returned as often as the sequence visits it
    visits = np.bincount(np.arange(n) % period, minlength=period)
    assert np.array_equal(np.bincount(inc_old, minlength=period), visits)
    dec_seq = (-np.arange(n)) % period
    assert np.array_equal(np.bincount(dec_old, minlength=period),
                          np.bincount(dec_seq, minlength=period))


def test_atomicInc_atomicDec_semantics_as_on_the_H100(gt, mod, managed):
    rows = gt("semantics", "atomicInc_atomicDec", "rows", default=[
        {"old": 0, "val": 5, "atomicInc_returned": 0, "atomicInc_new": 1,
         "atomicDec_returned": 0, "atomicDec_new": 5},
        {"old": 6, "val": 5, "atomicInc_returned": 6, "atomicInc_new": 0,
         "atomicDec_returned": 6, "atomicDec_new": 5}])
    n = len(rows)
    inc, dec = managed(n, np.uint32), managed(n, np.uint32)
    vals = managed(n, np.uint32)
    inc_ret, dec_ret = managed(n, np.uint32), managed(n, np.uint32)
    inc[:] = [r["old"] for r in rows]
    dec[:] = [r["old"] for r in rows]
    vals[:] = [r["val"] for r in rows]
    mod.inc_dec_table[1, 1](inc, dec, vals, inc_ret, dec_ret, n)
    cudaDeviceSynchronize()
    assert inc_ret.tolist() == [r["atomicInc_returned"] for r in rows]
    assert inc.tolist() == [r["atomicInc_new"] for r in rows]
    assert dec_ret.tolist() == [r["atomicDec_returned"] for r in rows]
    assert dec.tolist() == [r["atomicDec_new"] for r in rows]


def test_atomicCAS_lock_free_counter(mod, managed):
    blocks, threads, reps = 48, 64, 8
    counter, gave_up = managed(1, np.uint64), managed(1)
    mod.cas_counter[blocks, threads](counter, reps, gave_up)
    cudaDeviceSynchronize()
    assert gave_up[0] == 0
    assert int(counter[0]) == blocks * threads * reps


def test_atomicCAS_spin_lock_protects_plain_updates(mod, managed):
    blocks, threads, reps = 16, 32, 20
    lock, total, dtotal, gave_up = managed(1), managed(1, np.int64), managed(1, np.float64), \
        managed(1)
    mod.locked_update[blocks, threads](lock, total, dtotal, reps, gave_up)
    cudaDeviceSynchronize()
    assert gave_up[0] == 0
    assert int(total[0]) == threads * reps * sum(range(1, blocks + 1))
    assert dtotal[0] == blocks * threads * reps * 0.25
    assert lock[0] == 0


def test_atomicMin_atomicMax_every_type(mod, managed):
    blocks, threads = 40, 100
    n = blocks * threads
    rng = np.random.default_rng(5)
    vi = rng.permutation(np.arange(-n // 2, n - n // 2)).astype(np.int32)
    vll = rng.permutation(np.arange(n, dtype=np.int64) * (1 << 35) - (1 << 45))
    d_vi, d_vll = managed(n), managed(n, np.int64)
    d_vi[:], d_vll[:] = vi, vll
    imin, imax = managed(1, fill=2 ** 31 - 1), managed(1, fill=-2 ** 31)
    umin, umax = managed(1, np.uint32, fill=2 ** 32 - 1), managed(1, np.uint32, fill=0)
    llmin, llmax = managed(1, np.int64, fill=2 ** 63 - 1), managed(1, np.int64, fill=-2 ** 63)
    ullmin, ullmax = managed(1, np.uint64, fill=2 ** 64 - 1), managed(1, np.uint64, fill=0)
    mod.min_max[blocks, threads](d_vi, d_vll, imin, imax, umin, umax, llmin, llmax, ullmin, ullmax)
    cudaDeviceSynchronize()
    assert (imin[0], imax[0]) == (vi.min(), vi.max())
    vu = vi.astype(np.uint32)
    assert (umin[0], umax[0]) == (vu.min(), vu.max())
    assert (llmin[0], llmax[0]) == (vll.min(), vll.max())
    vull = vll.astype(np.uint64)
    assert (ullmin[0], ullmax[0]) == (vull.min(), vull.max())


def test_atomicExch_passes_every_value_on_exactly_once(mod, managed):
    blocks, threads = 50, 64
    n = blocks * threads
    slot, old = managed(1, fill=-1), managed(n)
    mod.exchange[blocks, threads](slot, old)
    cudaDeviceSynchronize()
    # the chain of exchanges: the old values and the final one are -1, 0, ..., n-1, once each
    assert sorted(old.tolist() + [int(slot[0])]) == [-1] + list(range(n))


def test_atomicOr_And_Xor_Sub(mod, managed):
    blocks, threads = 20, 96
    n = blocks * threads
    orv, andv = managed(1, np.uint32), managed(1, np.uint32, fill=0xFFFFFFFF)
    xorv, sub = managed(1, np.uint32), managed(1, fill=n)
    mod.bits[blocks, threads](orv, andv, xorv, sub)
    cudaDeviceSynchronize()
    assert orv[0] == 0xFFFFFFFF
    assert andv[0] == 0x80000000
    assert xorv[0] == np.bitwise_xor.reduce(np.arange(n, dtype=np.uint32))
    assert sub[0] == -n


# ------------------------------------------------------------------ host threads

def test_runtime_used_from_several_python_threads():
    """Each thread compiles its own kernel, has its own buffers, launches,
    copies and synchronises, all at once."""
    errors, results = [], {}
    start = threading.Barrier(4)

    def work(k):
        try:
            m = SourceModule("__global__ void f(int *a, int n) {"
                             " int i = blockIdx.x * blockDim.x + threadIdx.x;"
                             f" if (i < n) a[i] = a[i] * {k + 2} + i; }}")
            n = 5000 + 17 * k
            host = np.arange(n, dtype=np.int32) % 97
            d = cudaMalloc(4 * n)
            start.wait()
            want = host.astype(np.int64)
            cudaMemcpy(d, host, 4 * n, cudaMemcpyHostToDevice)
            for _ in range(10):
                m.f[(n + 127) // 128, 128](d, n)
                want = want * (k + 2) + np.arange(n)
            cudaDeviceSynchronize()
            out = np.zeros(n, np.int32)
            cudaMemcpy(out, d, 4 * n, cudaMemcpyDeviceToHost)
            cudaFree(d)
            results[k] = np.array_equal(out, want.astype(np.int32))
            assert cudaGetLastError() == cudaSuccess
        except BaseException as exc:       # noqa: B902 - reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert not errors
    assert results == {0: True, 1: True, 2: True, 3: True}


def test_runtime_shared_buffer_from_several_python_threads(mod, managed):
    """Launches from several threads on the same counters: every one counts."""
    i32, u32 = managed(1, np.int32), managed(1, np.uint32)
    u64, f32, f64 = managed(1, np.uint64), managed(1, np.float32), managed(1, np.float64)

    def work():
        for _ in range(25):
            mod.add_all[2, 8](i32, u32, u64, f32, f64, 1)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    cudaDeviceSynchronize()
    assert i32[0] == -4 * 25 * 16
    assert f64[0] == 4 * 25 * 16 / 2


# ------------------------------------------------------------------ worker count

SAME_RESULTS = r"""
m = SourceModule(SOURCE)
R["workers"] = cudaGetDeviceProperties(0).multiProcessorCount
rng = np.random.default_rng(1)
data = rng.integers(-50, 50, 40 * 96).astype(np.int32)
src = cudaMallocManaged(data.nbytes, dtype=np.int32); src[:] = data
out = cudaMallocManaged(data.nbytes, dtype=np.int32)
m.block_scan[40, 96, 96 * 4](src, out)
o3 = cudaMallocManaged(12 * 12 * 24 * 4, dtype=np.uint32)
m.indices[(3, 2, 2), (4, 3, 2)](o3, 1)
r = cudaMallocManaged(7 * 200 * 4, dtype=np.int32)
m.rounds[7, 200](r, 5)
counters = [cudaMallocManaged(8, dtype=t) for t in (np.int32, np.uint32, np.uint64, np.float32,
                                                    np.float64)]
for c in counters: c[:] = 0
m.add_all[33, 65](*counters, 3)
cudaDeviceSynchronize()
R["scan"] = out.tolist()
R["indices"] = o3.tolist()
R["rounds"] = r.tolist()
R["atomics"] = [float(c[0]) for c in counters]
"""


def test_PYEMU_NUM_THREADS_1_and_3_give_the_same_results(run_cuda):
    runs = {n: run_cuda(SAME_RESULTS, env={"PYEMU_NUM_THREADS": str(n)}, consts={"SOURCE": SOURCE})
            for n in (1, 3)}
    for n, run in runs.items():
        assert run.returncode == 0, run.explain()
        assert run.R["workers"] == n
    one, three = runs[1].R, runs[3].R
    for key in ("scan", "indices", "rounds", "atomics"):
        assert one[key] == three[key], key
    data = np.random.default_rng(1).integers(-50, 50, 40 * 96).astype(np.int32)
    assert one["scan"] == np.cumsum(data.reshape(40, 96), axis=1).ravel().tolist()
    n = 33 * 65 * 3
    assert one["atomics"][0] == -n and one["atomics"][3] == n


# ------------------------------------------------------------------ faults (subprocess)

FAULTS = TIMING + r"""
__global__ void oob_write(int *a, long long index, int bx, int tx) {
    if (blockIdx.x == bx && threadIdx.x == tx) ((volatile int *)a)[index] = 1;
}
__global__ void oob_read(const int *a, long long index, int *out, int bx, int tx) {
    if (blockIdx.x == bx && threadIdx.x == tx) out[0] = ((volatile const int *)a)[index];
}
__global__ void early_return(int *o, int bx, int tx) {
    if (blockIdx.x == bx && threadIdx.x == tx) return;
    __syncthreads();
    o[threadIdx.x] = 1;
}
__global__ void two_barriers(int *o, int bx) {
    if (blockIdx.x == bx && threadIdx.x >= 3) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    o[threadIdx.x] = 1;
}
__global__ void divide(const int *num, const int *den, int *out) {
    out[0] = num[0] / den[0];
}
__global__ void assert_in(int *o, int bx, int tx) {
    assert(!(blockIdx.x == bx && threadIdx.x == tx));
    o[0] = 1;
}
__global__ void trap_in(int bx) { if (blockIdx.x == bx) __trap(); }
__device__ int recurse(int n) {
    volatile char pad[512];
    pad[0] = (char)n;
    if (n == 0) return pad[0];
    return recurse(n - 1) + pad[0];
}
__global__ void deep(int *o, int depth, int who, int barrier) {
    if (barrier) __syncthreads();
    if (threadIdx.x == who) o[threadIdx.x] = recurse(depth);
}
__global__ void fill(int *a, int v) { a[threadIdx.x] = v; }
"""

# run one faulting launch, then show the process and the device survive
FAULT_SCRIPT = r"""
m = SourceModule(SOURCE)
SETUP
LAUNCH
try:
    cudaDeviceSynchronize()
    R["code"] = 0
except CudaError as e:
    R["code"] = int(e.code)
    R["message"] = str(e)
R["last"] = int(cudaGetLastError())
cudaDeviceReset()
d = cudaMalloc(64)
m.fill[1, 16](d, 42)
out = np.zeros(16, np.int32)
cudaMemcpy(out, d, 64, cudaMemcpyDeviceToHost)
R["alive_after_reset"] = out.tolist() == [42] * 16
"""


def fault(run_cuda, setup, launch, env=None):
    run = run_cuda(FAULT_SCRIPT.replace("SETUP", setup).replace("LAUNCH", launch),
                   consts={"SOURCE": FAULTS}, env=env, timeout=90)
    assert run.returncode == 0, run.explain()
    assert run.R["alive_after_reset"] is True, run.R
    return run.R


OOB_CASES = {
    # name: (allocation bytes, int index, what the message says of the address)
    "just_past_the_end": (1024, 256, "0 bytes past the end of the 1024-byte allocation"),
    "1GiB_past_the_end": (1024, (1 << 30) // 4 + 256,
                          "1073741824 bytes past the end of the 1024-byte allocation"),
    "just_before_the_start": (4096, -1, "4 bytes before the 4096-byte allocation"),
    "64KiB_before_the_start": (1024, -(1 << 14), "65536 bytes before the 1024-byte allocation"),
}


@pytest.mark.parametrize("access", ["write", "read"])
@pytest.mark.parametrize("case", sorted(OOB_CASES))
def test_out_of_bounds_access_illegal_address(run_cuda, case, access):
    size, index, where = OOB_CASES[case]
    setup = f"a = cudaMalloc({size}); res = cudaMalloc(4); R['a'] = int(a)"
    launch = (f"m.oob_write[4, 64](a, {index}, 2, 5)" if access == "write"
              else f"m.oob_read[4, 64](a, {index}, res, 2, 5)")
    R = fault(run_cuda, setup, launch)
    assert R["code"] == 700 and R["last"] == 700, R
    msg = R["message"]
    address = R["a"] + 4 * index
    assert f"kernel 'oob_{access}'" in msg, msg
    assert "block (2,0,0), thread (5,0,0)" in msg, msg
    assert f"address 0x{address:x}" in msg, msg
    assert f"{where} at 0x{R['a']:x}" in msg, msg


@pytest.mark.parametrize("access", ["write", "read"])
def test_null_pointer_access_illegal_address(run_cuda, access):
    launch = ("m.oob_write[1, 8](None, 0, 0, 3)" if access == "write"
              else "m.oob_read[1, 8](None, 0, res, 0, 3)")
    R = fault(run_cuda, "res = cudaMalloc(4)", launch)
    assert R["code"] == 700, R
    assert "block (0,0,0), thread (3,0,0)" in R["message"]
    assert "address 0x0 " in R["message"]


# Divergent barriers are undefined behaviour in CUDA; an H200 (sm_90, CUDA 13.0)
# runs both kernels below without an error (exited threads count as arrived, and
# the two __syncthreads() of an if/else meet as one barrier).  pyemu reports them
# as a launch failure on purpose, naming the kernel and the block.

def test_early_return_before_a_barrier_launch_failure(run_cuda):
    R = fault(run_cuda, "o = cudaMalloc(4 * 64)", "m.early_return[3, 64](o, 1, 10)")
    assert R["code"] == 719 and R["last"] == 719, R
    msg = R["message"]
    assert "kernel 'early_return'" in msg and "block (1,0,0)" in msg, msg
    assert "__syncthreads" in msg or "barrier" in msg, msg


def test_threads_at_two_different_barriers_launch_failure(run_cuda):
    R = fault(run_cuda, "o = cudaMalloc(4 * 8)", "m.two_barriers[3, 8](o, 2)")
    assert R["code"] == 719, R
    msg = R["message"]
    assert "kernel 'two_barriers'" in msg and "block (2,0,0)" in msg, msg
    assert "__syncthreads" in msg or "barrier" in msg, msg


def test_two_barriers_in_other_blocks_are_fine(run_cuda):
    """Only the block whose threads split fails; the same kernel with no split runs."""
    R = fault(run_cuda, "o = cudaMalloc(4 * 8)", "m.two_barriers[3, 8](o, 99)")
    assert R["code"] == 0, R


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64", "i686"),
                    reason="only x86 raises SIGFPE for integer division by zero")
@pytest.mark.parametrize("num,den", [(7, 0), (-2 ** 31, -1)], ids=["by_zero", "INT_MIN_by_-1"])
def test_integer_division_fault_launch_failure(run_cuda, num, den):
    """pyemu turns the CPU's SIGFPE into a launch failure; the process survives.
    (An H100 raises nothing: 7/0 gives -1 and INT_MIN/-1 gives INT_MIN.)"""
    setup = (f"n = cudaMallocManaged(4, dtype=np.int32); n[0] = {num}\n"
             f"q = cudaMallocManaged(4, dtype=np.int32); q[0] = {den}\n"
             "out = cudaMalloc(4)")
    R = fault(run_cuda, setup, "m.divide[1, 1](n, q, out)")
    assert R["code"] == 719, R
    assert "SIGFPE" in R["message"] and "kernel 'divide'" in R["message"]


def test_device_assert_cudaErrorAssert(run_cuda):
    R = fault(run_cuda, "o = cudaMalloc(4)", "m.assert_in[3, 16](o, 1, 3)")
    assert R["code"] == 710 and R["last"] == 710, R
    assert "kernel 'assert_in'" in R["message"] and "block (1,0,0), thread (3,0,0)" in R["message"]


def test_device_assert_prints_the_assertion_line_as_written(run_cuda):
    run = run_cuda(FAULT_SCRIPT.replace("SETUP", "o = cudaMalloc(4)")
                   .replace("LAUNCH", "m.assert_in[3, 16](o, 1, 3)"),
                   consts={"SOURCE": FAULTS})
    assert run.returncode == 0, run.explain()
    assert run.R["code"] == 710 and run.R["last"] == 710
    assert "kernel 'assert_in'" in run.R["message"]
    lines = [ln for ln in run.out_before_result.splitlines() if "Assertion" in ln]
    assert len(lines) == 1, run.stdout
    assert lines[0].endswith(
        "block: [1,0,0], thread: [3,0,0] Assertion `!(blockIdx.x == bx && threadIdx.x == tx)` "
        "failed."), lines[0]


def test_trap_launch_failure(run_cuda):
    R = fault(run_cuda, "", "m.trap_in[4, 2](2)")
    assert R["code"] == 719 and R["last"] == 719, R
    assert "__trap()" in R["message"] and "block (2,0,0)" in R["message"]


# An H200 (CUDA 13.0) reports a kernel's stack overflow (100000 frames of 512
# bytes) as cudaErrorIllegalAddress (700); so does pyemu, and names the overflow.

def test_fiber_stack_overflow_fails_the_launch(run_cuda):
    """Thread 1 runs on a fiber stack (the block has a barrier): 2000 frames of
    512 bytes do not fit in the default 64 KiB."""
    R = fault(run_cuda, "o = cudaMalloc(4 * 4)", "m.deep[1, 4](o, 2000, 1, 1)")
    assert R["code"] == 700, R
    assert "stack overflow" in R["message"] and "thread (1,0,0)" in R["message"]


def test_thread0_stack_overflow_fails_the_launch(run_cuda):
    """Thread 0 runs on the worker's own stack (16 MiB)."""
    R = fault(run_cuda, "o = cudaMalloc(4 * 4)", "m.deep[1, 4](o, 100000, 0, 1)")
    assert R["code"] == 700, R
    assert "stack overflow" in R["message"] and "thread (0,0,0)" in R["message"]


def test_stack_overflow_code_as_on_the_H200(run_cuda):
    R = fault(run_cuda, "o = cudaMalloc(4 * 4)", "m.deep[1, 4](o, 100000, 0, 0)")
    assert R["code"] == 700, R


def test_small_overrun_inside_the_allocation_granule_does_not_fault():
    """As on an H200: a[100] and a[-1] of a 400-byte allocation run without an
    error (allocations are 256-byte granules; pyemu maps the whole granule)."""
    m = SourceModule("__global__ void poke(int *a, long long i) { ((volatile int *)a)[i] = 1; }")
    a = cudaMalloc(400)
    try:
        m.poke[1, 1](a, 100)
        m.poke[1, 1](a, -1)
        assert cudaDeviceSynchronize() == cudaSuccess
    finally:
        cudaFree(a)


def test_PYEMU_STACK_SIZE_makes_room_for_deep_recursion(run_cuda):
    R = fault(run_cuda, "o = cudaMalloc(4 * 4)", "m.deep[1, 4](o, 2000, 1, 1)",
              env={"PYEMU_STACK_SIZE": str(4 << 20)})
    assert R["code"] == 0, R


def test_fault_in_one_of_many_blocks_process_survives(run_cuda):
    """Other blocks keep running on other workers while one faults; nothing
    else breaks and the fault is the one reported."""
    R = fault(run_cuda, "a = cudaMalloc(1024); res = cudaMalloc(4)",
              "m.oob_write[500, 64](a, 1 << 20, 377, 63)")
    assert R["code"] == 700, R
    assert "block (377,0,0), thread (63,0,0)" in R["message"]


@pytest.mark.xfail(strict=True, reason="x86 stores a misaligned int without a fault, so pyemu "
                   "runs the kernel on; an H100 reports cudaErrorMisalignedAddress (716)")
def test_misaligned_int_store_misaligned_address(run_cuda):
    R = fault(run_cuda, "a = cudaMalloc(64)", "m.oob_write.launch(1, 1, 0, None, (a + 1, 0, 0, 0))")
    assert R["code"] == 716, R
