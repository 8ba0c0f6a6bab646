"""cooperative_groups::this_grid() and grid.sync() under cudaLaunchCooperativeKernel
(csrc/grid.c), against tests/data/ground_truth/grid_probe_h100.txt."""
import numpy as np
import pytest

from pyemu.cuda import (SourceModule, cudaDeviceSynchronize, cudaFree, cudaGetDeviceProperties,
                        cudaLaunchCooperativeKernel, cudaMalloc, cudaMemcpy,
                        cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice,
                        cudaOccupancyMaxActiveBlocksPerMultiprocessor)

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

SOURCE = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

/* phase 1 writes a, phase 2 reads what another block wrote, phase 3 again */
__global__ void twophase(int *a, int *b, int n) {
    cg::grid_group g = cg::this_grid();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = i * 3 + 1;
    g.sync();
    b[i] = a[(i + n / 2 + 7) % n];
    g.sync();
    a[i] = b[(i + 1) % n] + 1;
}

__global__ void info(unsigned long long *out) {
    cg::grid_group g = cg::this_grid();
    unsigned long long t = g.thread_rank();
    unsigned long long *o = out + 8 * t;
    o[0] = t; o[1] = g.size(); o[2] = g.num_blocks(); o[3] = g.block_rank();
    o[4] = g.is_valid(); o[5] = g.dim_blocks().x * 10000 + g.dim_blocks().y * 100 + g.dim_blocks().z;
    o[6] = g.num_threads(); o[7] = g.block_index().x * 100 + g.block_index().y;
}

/* shared memory, locals and a __device__ function across grid barriers:
 * an iterated neighbour sum, each step reading the other blocks' results */
__device__ void step_sync(cg::grid_group &g) { g.sync(); }
__global__ void iterate(int *x, int *y, int *ok, int n, int steps) {
    __shared__ int tile[256];
    cg::grid_group g = cg::this_grid();
    cg::thread_block b = cg::this_thread_block();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local[4] = {i, i + 1, i + 2, i + 3};
    tile[threadIdx.x] = blockIdx.x;
    for (int s = 0; s < steps; s++) {
        int *src = s & 1 ? y : x, *dst = s & 1 ? x : y;
        dst[i] = src[i] + src[(i + blockDim.x) % n] + local[s & 3] - local[(s + 1) & 3];
        step_sync(g);
        b.sync();
    }
    ok[i] = tile[(threadIdx.x + 1) % blockDim.x] == (int)blockIdx.x && local[0] == i && local[3] == i + 3;
}

__global__ void plain_sync(int *a) {
    cg::this_grid().sync();
    a[blockIdx.x] = 5;
}

__global__ void one_block_returns(int *a) {
    if (blockIdx.x == 1) return;
    cg::this_grid().sync();
    a[blockIdx.x] = 5;
}

__global__ void one_block_faults(int *a) {
    if (blockIdx.x == 2 && threadIdx.x == 3) a[1 << 28] = 1;
    cg::this_grid().sync();
    a[blockIdx.x] = 5;
}

__global__ void one_block_spins(volatile int *a) {
    if (blockIdx.x == 0) while (a[0] == 0) { }
    cg::this_grid().sync();
    a[blockIdx.x + 1] = 5;
}

__global__ void sync_or_barrier(int *a) {
    if (threadIdx.x == 3) __syncthreads();
    else cg::this_grid().sync();
    a[threadIdx.x] = 1;
}
"""


@pytest.fixture(scope="module")
def mod():
    return SourceModule(SOURCE)


def _get(ptr, n, dtype=np.int32):
    h = np.empty(n, dtype)
    cudaMemcpy(h, ptr, h.nbytes, cudaMemcpyDeviceToHost)
    return h


def _full_grid(fn, block):
    per_sm = cudaOccupancyMaxActiveBlocksPerMultiprocessor(fn, block, 0)
    return per_sm * cudaGetDeviceProperties(0).multiProcessorCount


@pytest.mark.parametrize("block", [1, 32, 96, 256, 1024])
def test_grid_sync_phase_two_reads_what_every_block_wrote_in_phase_one(mod, block):
    blocks = _full_grid(mod.twophase, block)      # the largest grid that fits co-resident
    n = blocks * block
    a, b = cudaMalloc(4 * n), cudaMalloc(4 * n)
    cudaLaunchCooperativeKernel(mod.twophase, blocks, block, (a, b, np.int32(n)))
    cudaDeviceSynchronize()
    i = np.arange(n)
    want_b = ((i + n // 2 + 7) % n) * 3 + 1
    got_b, got_a = _get(b, n), _get(a, n)
    cudaFree(a)
    cudaFree(b)
    assert np.array_equal(got_b, want_b)
    assert np.array_equal(got_a, np.roll(want_b, -1) + 1)


def test_grid_group_values_as_an_h100_reports_them(mod):
    # grid_probe_h100.txt: grid (3,2,1) of blocks (4,2,1), the same in a
    # cooperative and an ordinary launch
    o = cudaMalloc(48 * 8 * 8)
    for launch in (lambda: cudaLaunchCooperativeKernel(mod.info, (3, 2, 1), (4, 2, 1), (o,)),
                   lambda: mod.info[(3, 2, 1), (4, 2, 1)](o)):
        launch()
        cudaDeviceSynchronize()
        h = _get(o, 48 * 8, np.uint64).reshape(48, 8)
        t = np.arange(48)
        block_rank = t // 8
        assert np.array_equal(h[:, 0], t)
        assert (h[:, 1] == 48).all() and (h[:, 2] == 6).all() and (h[:, 6] == 48).all()
        assert np.array_equal(h[:, 3], block_rank)
        assert (h[:, 4] == 1).all()                       # is_valid(), as the H100 says
        assert (h[:, 5] == 30201).all()                   # dim_blocks() (3,2,1)
        assert np.array_equal(h[:, 7], block_rank % 3 * 100 + block_rank // 3)
        # the probe's own lines
        assert list(h[25]) == [25, 48, 6, 3, 1, 30201, 48, 1]
        assert list(h[40]) == [40, 48, 6, 5, 1, 30201, 48, 201]
    cudaFree(o)


def test_grid_sync_in_a_loop_in_a_device_function_keeps_shared_memory_and_locals(mod):
    block, steps = 256, 9
    blocks = _full_grid(mod.iterate, block)
    n = blocks * block
    x0 = np.arange(n, dtype=np.int32) % 97
    x, y, ok = cudaMalloc(4 * n), cudaMalloc(4 * n), cudaMalloc(4 * n)
    cudaMemcpy(x, x0, x0.nbytes, cudaMemcpyHostToDevice)
    cudaLaunchCooperativeKernel(mod.iterate, blocks, block, (x, y, ok, np.int32(n), np.int32(steps)))
    cudaDeviceSynchronize()
    i = np.arange(n, dtype=np.int64)
    local = [i, i + 1, i + 2, i + 3]
    src, dst = x0.astype(np.int64), np.zeros(n, np.int64)
    bufs = [src, dst]
    for s in range(steps):
        a, b = (bufs[1], bufs[0]) if s & 1 else (bufs[0], bufs[1])
        b[:] = a + np.roll(a, -block) + local[s & 3] - local[(s + 1) & 3]
    want = bufs[1] if steps % 2 else bufs[0]        # the last step's destination ...
    got = _get(y if steps % 2 else x, n)
    flags = _get(ok, n)
    for p in (x, y, ok):
        cudaFree(p)
    assert np.array_equal(got, want.astype(np.int32))
    # the tile and the locals written before the first grid.sync are the block's after the last
    assert (flags == 1).all()


def test_grid_sync_in_an_ordinary_launch_fails_the_launch(run_cuda):
    run = run_cuda("""
m = SourceModule(SOURCE)
a = cudaMalloc(64)
m.plain_sync[2, 32](a)
R["code"] = code_of(cudaDeviceSynchronize)
from pyemu.cuda import _errors
R["message"] = _errors.sticky()[1]
""", consts={"SOURCE": SOURCE}, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R["code"] == 719, run.R                  # cudaErrorLaunchFailure
    assert "cudaLaunchCooperativeKernel" in run.R["message"]
    assert "plain_sync" in run.R["message"]


@pytest.mark.parametrize("kernel,code,words", [
    ("one_block_returns", 719, ["returned without reaching it", "block (1,0,0)", "this_grid().sync()"]),
    ("one_block_faults", 700, ["one_block_faults", "block (2,0,0)", "thread (3,0,0)"]),
    ("sync_or_barrier", 719, ["sync_or_barrier"]),
], ids=["a_block_returns", "a_block_faults", "grid_sync_against_syncthreads"])
def test_a_failing_block_of_a_cooperative_launch_does_not_hang_the_others(run_cuda, kernel, code,
                                                                          words):
    run = run_cuda(f"""
m = SourceModule(SOURCE)
a = cudaMalloc(1 << 12)
t = time.time()
cudaLaunchCooperativeKernel(m.{kernel}, 8, 64, (a,))
R["code"] = code_of(cudaDeviceSynchronize)
R["seconds"] = time.time() - t
from pyemu.cuda import _errors
R["message"] = _errors.sticky()[1]
cudaDeviceReset()
b = cudaMalloc(4 * 64 * 8)
c = cudaMalloc(4 * 64 * 8)
cudaLaunchCooperativeKernel(m.twophase, 8, 64, (b, c, np.int32(64 * 8)))
R["after"] = code_of(cudaDeviceSynchronize)
""", consts={"SOURCE": SOURCE}, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R["code"] == code, run.R
    for w in words:
        assert w in run.R["message"], (w, run.R["message"])
    assert run.R["after"] == 0, run.R                    # the workers are free again


def test_the_watchdog_stops_a_cooperative_launch_whose_block_spins(run_cuda):
    run = run_cuda("""
m = SourceModule(SOURCE)
a = cudaMalloc(4 * 64)
t = time.time()
cudaLaunchCooperativeKernel(m.one_block_spins, 6, 32, (a,))
R["code"] = code_of(cudaDeviceSynchronize)
R["seconds"] = time.time() - t
cudaDeviceReset()
b = cudaMalloc(4 * 256)
c = cudaMalloc(4 * 256)
cudaLaunchCooperativeKernel(m.twophase, 8, 32, (b, c, np.int32(256)))
R["after"] = code_of(cudaDeviceSynchronize)
""", consts={"SOURCE": SOURCE}, env={"PYEMU_KERNEL_TIMEOUT": "0.5"}, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R["code"] == 702, run.R                  # cudaErrorLaunchTimeout
    assert run.R["seconds"] < 30, run.R
    assert run.R["after"] == 0, run.R


def test_grid_sync_on_a_stream_and_with_dim3_and_dynamic_shared_memory(mod):
    from pyemu.cuda import cudaStreamCreate, cudaStreamDestroy, cudaStreamSynchronize, dim3
    s = cudaStreamCreate()
    n = 8 * 64
    a, b = cudaMalloc(4 * n), cudaMalloc(4 * n)
    cudaLaunchCooperativeKernel(mod.twophase, dim3(8), dim3(64), [a, b, np.int32(n)], 128, s)
    cudaStreamSynchronize(s)
    cudaStreamDestroy(s)
    i = np.arange(n)
    got = _get(b, n)
    cudaFree(a)
    cudaFree(b)
    assert np.array_equal(got, ((i + n // 2 + 7) % n) * 3 + 1)
