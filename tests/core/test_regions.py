"""Block functions (pyemu.compiler.regions): barrier kernels run region by region.

Golden outputs against NumPy for the classic shared-memory kernels, with the
launch geometry in the test name; that the block function is really what
runs (CompiledModule.block_kernels, the generated source); that a barrier
only part of a block reaches still fails the launch, naming kernel and
block.  Fallbacks and diagnostics: test_regions_fallback.py; helpers:
regions_util.py.

Each kernel that must fail runs in a fresh interpreter (fixture run_cuda).
"""
import re

import numpy as np
import pytest

from regions_util import NO_REGIONS, blocks, both, managed  # noqa: F401  (managed: a fixture)
from pyemu.cuda import SourceModule, cudaDeviceSynchronize

# ------------------------------------------------------------ classic kernels

PLUS_REDUCE = r"""
__global__ void plus_reduce(int *input, unsigned int N, int *total)
{
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x*blockDim.x + threadIdx.x;
    __shared__ int x[blocksize];
    x[tid] = (i<N) ? input[i] : 0;
    __syncthreads();
    for(int s=blockDim.x/2; s>0; s=s/2)
    {
        if(tid < s)  x[tid] += x[tid + s];
        __syncthreads();
    }
    if( tid==0 )  atomicAdd(total, x[tid]);
}
"""


@pytest.mark.parametrize("n", [1, 255, 256, 100_003, 1 << 20])
def test_plus_reduce_256_threads_ints_atomicAdd(managed, n):
    k, fib = both(PLUS_REDUCE, "plus_reduce", ["-Dblocksize=256"])
    data = np.random.default_rng(n).integers(-1000, 1000, n, dtype=np.int32)
    inp = managed(data)
    for fn in (k, fib) if n < 10_000 else (k,):
        total = managed([0], np.int32)
        fn[(n + 255) // 256, 256](inp, np.uint32(n), total)
        cudaDeviceSynchronize()
        assert int(total[0]) == int(data.sum(dtype=np.int64))


def test_plus_reduce_generated_source_is_work_item_loops():
    b = blocks(PLUS_REDUCE, ["-Dblocksize=256"])
    assert b.kernels == {"plus_reduce": "pyemu_rg_plus_reduce"} and not b.skipped
    text = b.text
    # s is uniform (one copy, the loop runs once per block), tid is recomputed
    assert re.search(r"int s = pyemu_rg_bdx / 2 ; for \(; s > 0 ; s = s / 2 \)", text)
    assert "pyemu_rg_t0 tid = (" in text and "__builtin_alloca" not in text
    assert text.count("for (unsigned pyemu_rg_tx = 0;") == 3          # three regions
    tid_line = PLUS_REDUCE[:PLUS_REDUCE.index("unsigned int tid")].count("\n") + 1
    assert f'#line {tid_line} "kernel.cu"' in text and "pyemu_barrier (" not in text


MATMUL = r"""
__global__ void MatrixMulKernel(float* Md, float* Nd, float* Pd, int Width) {
  __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
  int bx = blockIdx.x;  int by = blockIdx.y;
  int tx = threadIdx.x; int ty = threadIdx.y;
  int Row = by * TILE_WIDTH + ty;
  int Col = bx * TILE_WIDTH + tx;
  float Pvalue = 0;
  for (int m = 0; m < Width/TILE_WIDTH; ++m) {
    Mds[ty][tx] = Md[Row*Width + (m*TILE_WIDTH + tx)];
    Nds[ty][tx] = Nd[Col + (m*TILE_WIDTH + ty)*Width];
    __syncthreads();
    for (int k = 0; k < TILE_WIDTH; ++k)
      Pvalue += Mds[ty][k] * Nds[k][tx];
    __syncthreads();
  }
  Pd[Row*Width + Col] = Pvalue;
}
"""


@pytest.mark.parametrize("width", [16, 64, 112])
def test_matmul_tiled_16x16_blocks_two_barriers_per_phase(managed, width):
    k, fib = both(MATMUL, "MatrixMulKernel", ["-DTILE_WIDTH=16"])
    rng = np.random.default_rng(width)
    a = rng.standard_normal((width, width)).astype(np.float32)
    b = rng.standard_normal((width, width)).astype(np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    for fn in (k, fib):
        md, nd, pd = managed(a), managed(b), managed(np.zeros(width * width, np.float32))
        fn[(width // 16, width // 16), (16, 16)](md, nd, pd, np.int32(width))
        cudaDeviceSynchronize()
        np.testing.assert_allclose(np.asarray(pd).reshape(width, width), want,
                                   rtol=1e-4, atol=1e-4)


TRANSPOSE = r"""
#define TILE_DIM 32
#define BLOCK_ROWS 8
__global__ void transposeNoBankConflicts(float *odata, const float *idata,
                                         int width, int height, int nreps)
{
    __shared__ float tile[TILE_DIM][TILE_DIM+1];
    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    int index_in = xIndex + (yIndex)*width;
    xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
    yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
    int index_out = xIndex + (yIndex)*height;
    for (int r=0; r < nreps; r++) {
        for (int i=0; i<TILE_DIM; i+=BLOCK_ROWS)
            tile[threadIdx.y+i][threadIdx.x] = idata[index_in+i*width];
        __syncthreads();
        for (int i=0; i<TILE_DIM; i+=BLOCK_ROWS)
            odata[index_out+i*height] = tile[threadIdx.x][threadIdx.y+i];
        __syncthreads();
    }
}
"""


@pytest.mark.parametrize("width,height,nreps", [(32, 32, 1), (96, 64, 1), (64, 128, 3)])
def test_transpose_padded_tile_32x8_blocks(managed, width, height, nreps):
    k, fib = both(TRANSPOSE, "transposeNoBankConflicts")
    src = np.arange(width * height, dtype=np.float32).reshape(height, width)
    for fn in (k, fib):
        idata, odata = managed(src), managed(np.zeros(width * height, np.float32))
        fn[(width // 32, height // 32), (32, 8)](odata, idata, np.int32(width),
                                                 np.int32(height), np.int32(nreps))
        cudaDeviceSynchronize()
        assert np.array_equal(np.asarray(odata).reshape(width, height), src.T)


BLOCK3D = r"""
__global__ void mirror3d(int *out, int salt)
{
    __shared__ int s[8][4][2];
    int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
    int lin = x + blockDim.x * (y + blockDim.y * z);
    s[x][y][z] = lin * 7 + salt + blockIdx.x;
    __syncthreads();
    int v = s[blockDim.x - 1 - x][blockDim.y - 1 - y][blockDim.z - 1 - z];
    __syncthreads();
    s[x][y][z] = v + 1;
    __syncthreads();
    out[blockIdx.x * 64 + lin] = s[x][y][z] * 1000 + lin;
}
"""


def test_3d_block_8x4x2_grid_3_mirror_through_shared(managed):
    k, fib = both(BLOCK3D, "mirror3d")
    x, y, z = np.meshgrid(np.arange(8), np.arange(4), np.arange(2), indexing="ij")
    lin = x + 8 * (y + 4 * z)
    mirror = (7 - x) + 8 * ((3 - y) + 4 * (1 - z))
    for fn in (k, fib):
        out = managed(np.zeros(3 * 64, np.int32))
        fn[3, (8, 4, 2)](out, np.int32(5))
        cudaDeviceSynchronize()
        got = np.asarray(out).reshape(3, 64)
        for b in range(3):
            want = np.zeros(64, np.int64)
            want[lin.ravel()] = ((mirror * 7 + 5 + b + 1) * 1000 + lin).ravel()
            assert np.array_equal(got[b], want)


NESTED = r"""
__global__ void nested(int *out, int rounds, int inner)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int acc = t;                       // private: changes in every region
    s[t] = t;
    __syncthreads();
    for (int r = 0; r < rounds; r++) {
        int j = 0;
        while (j < inner) {            // uniform while, two barriers per turn
            int left = s[(t + 63) % 64];
            __syncthreads();
            s[t] = left + r + j;
            acc += s[t] & 15;
            __syncthreads();
            j++;
        }
        int k = 2;
        do {                           // do-while with a barrier
            acc ^= s[(t * k) % 64];
            __syncthreads();
            k--;
        } while (k > 0);
    }
    out[blockIdx.x * 64 + t] = acc * 100000 + s[t];
}
"""


def nested_reference(rounds, inner):
    s = np.arange(64, dtype=np.int64)
    acc = np.arange(64, dtype=np.int64)
    t = np.arange(64)
    for r in range(rounds):
        for j in range(inner):
            left = s[(t + 63) % 64].copy()
            s = left + r + j
            acc += s & 15
        for k in (2, 1):
            acc ^= s[(t * k) % 64]
    return acc * 100000 + s


@pytest.mark.parametrize("rounds,inner", [(0, 0), (1, 3), (4, 2), (3, 0)])
def test_barriers_in_nested_for_while_do_loops_block_64(managed, rounds, inner):
    # `j` and `k` are per-thread copies changed in the loops, but only by
    # uniform updates in uniform control (regions/uniform.py): the while's and
    # the do-while's conditions are read from thread 0, and the kernel keeps
    # its block function
    k, fib = both(NESTED, "nested")
    want = nested_reference(rounds, inner)
    for fn in (k, fib):
        out = managed(np.zeros(2 * 64, np.int32))
        fn[2, 64](out, np.int32(rounds), np.int32(inner))
        cudaDeviceSynchronize()
        assert np.array_equal(np.asarray(out).reshape(2, 64), np.tile(want, (2, 1)).astype(np.int32))


UNIFORM_IF = r"""
__global__ void branchy(int *out, int n)
{
    __shared__ int s[128];
    __shared__ int flag;
    int t = threadIdx.x;
    s[t] = t * n;
    if (t == 0) flag = (n % 3 == 0);
    __syncthreads();
    if (n > 10) {                      // uniform: a parameter
        int v = s[127 - t];
        __syncthreads();
        s[t] = v;
    } else {
        s[t] += 1;
    }
    __syncthreads();
    if (flag) {                        // uniform only at run time: read from shared memory
        int w = s[(t + 1) % 128];
        __syncthreads();
        s[t] = -w;
    }
    __syncthreads();
    out[t] = s[t];
}
"""


@pytest.mark.parametrize("n", [3, 11, 12, 20])
def test_if_with_uniform_condition_holding_barrier_block_128(managed, n):
    # `flag` is uniform only at run time: the fiber path decides from what runs
    k, fib = both(UNIFORM_IF, "branchy", expect_block=False)
    t = np.arange(128)
    s = t * n
    s = s[127 - t] if n > 10 else s + 1
    if n % 3 == 0:
        s = -s[(t + 1) % 128]
    for fn in (k, fib):
        out = managed(np.zeros(128, np.int32))
        fn[1, 128](out, np.int32(n))
        cudaDeviceSynchronize()
        assert np.array_equal(out, s)
    assert "not provably uniform" in blocks(UNIFORM_IF).skipped["branchy"]


EARLY_RETURN = r"""
__global__ void sums(const int *in, int *out, int nblocks_used, int n)
{
    if (blockIdx.x >= nblocks_used) return;         // whole blocks: fine
    __shared__ int s[64];
    int i = blockIdx.x * 64 + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (int d = 32; d > 0; d >>= 1) {
        if (threadIdx.x < d) s[threadIdx.x] += s[threadIdx.x + d];
        __syncthreads();
    }
    if (i >= n) return;                             // after the last barrier: fine
    out[i] = s[0] + threadIdx.x;
}
"""


def test_early_return_of_whole_blocks_and_after_last_barrier_grid_6_block_64(managed):
    k, fib = both(EARLY_RETURN, "sums")
    n, used = 300, 5
    data = np.arange(n, dtype=np.int32) % 17
    for fn in (k, fib):
        out = managed(np.full(6 * 64, -1, np.int32))
        fn[6, 64](managed(data), out, np.int32(used), np.int32(n))
        cudaDeviceSynchronize()
        got = np.asarray(out)
        for b in range(6):
            seg = got[b * 64:(b + 1) * 64]
            if b >= used:
                assert np.all(seg == -1)
                continue
            block_sum = int(data[b * 64:min(n, (b + 1) * 64)].sum())
            valid = min(64, max(0, n - b * 64))
            assert np.array_equal(seg[:valid], block_sum + np.arange(valid))
            assert np.all(seg[valid:] == -1)


DIVERGENT = r"""
__global__ void partial(int *out, int n)
{
    if (threadIdx.x >= n) return;                   // part of the block leaves...
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();                                // ...and the rest waits here
    out[threadIdx.x] = s[n - 1 - threadIdx.x];
}
__global__ void uneven(int *out)
{
    for (int i = 0; i < (int)threadIdx.x % 3; i++)  // not uniform
        __syncthreads();
    out[threadIdx.x] = 1;
}
"""

DIVERGENT_SCRIPT = r"""
opts = ["-DPYEMU_NO_REGIONS"] if FIBERS else []
m = SourceModule(SOURCE, options=opts)
R["blocked"] = list(m.compiled.block_kernels)
out = cudaMallocManaged(64 * 4, dtype=np.int32)
LAUNCH
try:
    cudaDeviceSynchronize()
    R["code"] = 0
except CudaError as e:
    R["code"] = int(e.code)
    R["message"] = str(e)
cudaDeviceReset()
"""


@pytest.mark.parametrize("fibers", [False, True], ids=["block_function", "fibers"])
@pytest.mark.parametrize("launch,kernel", [
    ("m.partial[(4, 2), 64](out, 40)", "partial"),
    ("m.uneven[(1, 3), 64](out)", "uneven")])
def test_divergent_barrier_fails_launch_grid_4x2_block_64(run_cuda, fibers, launch, kernel):
    run = run_cuda(DIVERGENT_SCRIPT.replace("LAUNCH", launch),
                   consts={"SOURCE": DIVERGENT, "FIBERS": fibers}, timeout=120)
    assert run.returncode == 0, run.explain()
    R = run.R
    assert (kernel in R["blocked"]) != fibers, R
    assert R["code"] == 719, R                      # cudaErrorLaunchFailure
    msg = R["message"]
    assert f"kernel '{kernel}'" in msg and "block (" in msg and "__syncthreads()" in msg, msg
    assert "kernel.cu:" in msg, msg                 # the barrier's site, at the user's line
    if kernel == "partial" and not fibers:
        assert "24 thread(s) of the block, the first (40,0,0), returned" in msg, msg
        assert "kernel.cu:7" in msg, msg


def test_divergent_return_after_success_then_reset(managed):
    """A good launch of a kernel that can diverge (all threads stay) runs fine."""
    k, _ = both(DIVERGENT, "partial")
    out = managed(np.zeros(64, np.int32))
    k[1, 64](out, np.int32(64))
    cudaDeviceSynchronize()
    assert np.array_equal(out, np.arange(64)[::-1])


FAULT_SCRIPT = r"""
m = SourceModule(SOURCE)
R["blocked"] = list(m.compiled.block_kernels)
a = cudaMalloc(1024)
m.oob[2, 32](a, 5)
try:
    cudaDeviceSynchronize()
    R["code"] = 0
except CudaError as e:
    R["code"] = int(e.code)
    R["message"] = str(e)
cudaDeviceReset()
"""


def test_fault_in_a_region_names_the_thread_block_2_of_32(run_cuda):
    src = r"""
__global__ void oob(int *a, int who) {
    __shared__ int s[32];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (blockIdx.x == 1 && threadIdx.x == who) a[1 << 26] = s[0];
    __syncthreads();
}"""
    run = run_cuda(FAULT_SCRIPT, consts={"SOURCE": src}, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R["blocked"] == ["oob"] and run.R["code"] == 700, run.R
    assert "block (1,0,0), thread (5,0,0)" in run.R["message"], run.R


# ------------------------------------------------------- variables, templates

VARIABLES = r"""
struct Acc { float v; int n; Acc() : v(0.5f), n(1) {} };
template <int STEPS>
__global__ void vars(float *out, int *ints, int bump, float4 *vecs)
{
    __shared__ float s[32];
    const int t = threadIdx.x;
    float hist[3] = {0.f, 0.f, 0.f};     // private array (not crossing: set below)
    float keep[3];                       // private array crossing barriers
    Acc acc;                             // class type, default-constructed copy
    float4 v = vecs[t];                  // struct type crossing barriers
    for (int i = 0; i < 3; i++) keep[i] = t * (i + 1);
    hist[0] = keep[2];
    __syncthreads();
    for (int step = 0; step < STEPS; step++) {
        s[t] = v.x + keep[step % 3] + hist[0];
        bump += t;                       // a parameter modified per thread
        __syncthreads();
        v.x += s[(t + 1) % 32];
        acc.v += 1.0f; acc.n *= 2;
        __syncthreads();
    }
    out[t] = v.x + v.w + acc.v + acc.n;
    ints[t] = bump;
}
"""


def test_private_arrays_structs_classes_and_modified_params_template_block_32(managed):
    k, fib = both(VARIABLES, "vars<3>", name_expressions=["vars<3>"])
    t = np.arange(32)
    vecs = np.zeros((32, 4), np.float32)
    vecs[:, 0] = t * 0.25
    vecs[:, 3] = 2.0
    keep = np.stack([t * (i + 1) for i in range(3)], axis=1).astype(np.float32)
    vx = vecs[:, 0].astype(np.float32).copy()
    hist0 = keep[:, 2]
    for step in range(3):
        s = (vx + keep[:, step % 3] + hist0).astype(np.float32)
        vx = (vx + s[(t + 1) % 32]).astype(np.float32)
    want = vx + 2.0 + (0.5 + 3) + 2 ** 3
    for fn in (k, fib):
        out, ints = managed(np.zeros(32, np.float32)), managed(np.zeros(32, np.int32))
        fn[1, 32](out, ints, np.int32(7), managed(vecs))
        cudaDeviceSynchronize()
        np.testing.assert_allclose(out, want, rtol=1e-6)
        assert np.array_equal(ints, 7 + 3 * t)


# ------------------------------------------------ more kernels of the course

REDUCE6 = r"""
template <unsigned int blockSize>
__device__ int pair(const int *g, unsigned int i, unsigned int n) {
    return g[i] + (i + blockSize < n ? g[i + blockSize] : 0);
}
template <unsigned int blockSize>
__global__ void reduce6(int *g_idata, int *g_odata, unsigned int n) {
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x*(blockSize*2) + tid;
    unsigned int gridSize = blockSize*2*gridDim.x;
    sdata[tid] = 0;
    while (i < n) { sdata[tid] += pair<blockSize>(g_idata, i, n); i += gridSize; }
    __syncthreads();
    if (blockSize >= 512) { if (tid < 256) { sdata[tid] += sdata[tid + 256]; } __syncthreads(); }
    if (blockSize >= 256) { if (tid < 128) { sdata[tid] += sdata[tid + 128]; } __syncthreads(); }
    if (blockSize >= 128) { if (tid < 64) { sdata[tid] += sdata[tid + 64]; } __syncthreads(); }
    for (unsigned int s = 32; s > 0; s >>= 1) {     // the last warp, with barriers
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
"""


@pytest.mark.parametrize("threads", [64, 128, 256, 512])
def test_harris_reduce6_template_extern_shared_grid_7_block_threads(managed, threads):
    name = f"reduce6<{threads}>"
    k, fib = both(REDUCE6, name, name_expressions=[name])
    n = 100_000
    data = np.random.default_rng(threads).integers(-50, 50, n, dtype=np.int32)
    for fn in (k, fib):
        out = managed(np.zeros(7, np.int32))
        fn[7, threads, threads * 4](managed(data), out, np.uint32(n))
        cudaDeviceSynchronize()
        assert int(np.asarray(out).sum()) == int(data.sum())
    text = blocks(REDUCE6).text
    assert re.search(r"if \(\s*blockSize >= 512 \)", text)      # uniform: a template parameter


HISTO_SHARED = r"""
__global__ void histo_kernel(unsigned char *buffer, long size, unsigned int *histo)
{
    __shared__ unsigned int temp[256];
    temp[threadIdx.x] = 0;
    __syncthreads();
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int offset = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&temp[buffer[i]], 1);
        i += offset;
    }
    __syncthreads();
    atomicAdd(&(histo[threadIdx.x]), temp[threadIdx.x]);
}
"""


def test_shared_memory_histogram_grid_8_block_256(managed):
    k, fib = both(HISTO_SHARED, "histo_kernel")
    data = np.random.default_rng(3).integers(0, 256, 50_000, dtype=np.uint8)
    for fn in (k, fib):
        histo = managed(np.zeros(256, np.uint32))
        fn[8, 256](managed(data), np.int64(data.size), histo)
        cudaDeviceSynchronize()
        assert np.array_equal(histo, np.bincount(data, minlength=256))


ALIASES = r"""
__device__ void bump(int &x) { x += (int)threadIdx.x; }
__global__ void aliases(int *out, int n)
{
    __shared__ int s[64];
    int a = n;                 // looks uniform, but bump() changes it per thread
    int b = n * 2;             // looks uniform, but a pointer changes it
    int c = n + 1;             // uniform indeed
    int *pb = &b;
    bump(a);
    *pb += threadIdx.x % 3;
    __syncthreads();
    for (int k = 0; k < c % 4 + 1; k++) {
        s[threadIdx.x] = a + b + c + k;
        __syncthreads();
        out[threadIdx.x] += s[(threadIdx.x + 1) % 64];
        __syncthreads();
    }
}
"""


def test_aliased_variables_stay_per_thread_block_64(managed):
    k, fib = both(ALIASES, "aliases")
    text = blocks(ALIASES).text
    assert "int c = n + 1 ;" in text               # c: one copy for the block
    t = np.arange(64)
    n = 5
    a, b, c = n + t, n * 2 + t % 3, n + 1
    v = np.zeros(64, np.int64)
    for kk in range(c % 4 + 1):
        s = a + b + c + kk
        v += s[(t + 1) % 64]
    for fn in (k, fib):
        out = managed(np.zeros(64, np.int32))
        fn[1, 64](out, np.int32(n))
        cudaDeviceSynchronize()
        assert np.array_equal(out, v)


def test_non_uniform_loop_condition_that_agrees_at_run_time_block_32(managed):
    """The bound is read from shared memory: every thread is checked, all agree."""
    src = r"""
__global__ void k(int *out) {
    __shared__ int bound;
    __shared__ int s[32];
    if (threadIdx.x == 0) bound = 4;
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    int i = 0;
    while (i < bound) {
        int v = s[(threadIdx.x + 1) % 32];
        __syncthreads();
        s[threadIdx.x] = v;
        __syncthreads();
        i++;
    }
    out[threadIdx.x] = s[threadIdx.x];
}"""
    # not provably uniform: the fiber path (its variant) decides from what runs
    k, _ = both(src, "k", expect_block=False)
    out = managed(np.zeros(32, np.int32))
    k[3, 32](out)
    cudaDeviceSynchronize()
    assert np.array_equal(out, (np.arange(32) + 4) % 32)


def test_kernels_in_namespaces_and_overloads_block_32(managed):
    src = r"""
namespace outer { namespace {
__global__ void k(int *out) {
    __shared__ int s[32];
    s[threadIdx.x] = threadIdx.x * 3;
    __syncthreads();
    out[threadIdx.x] = s[31 - threadIdx.x];
}
} }
namespace other {
__global__ void k(int *out) {
    __shared__ int s[32];
    s[threadIdx.x] = 7;
    __syncthreads();
    out[threadIdx.x] = s[31 - threadIdx.x] + 1;
}
}
"""
    m = SourceModule(src)
    assert set(m.compiled.block_kernels) == {"outer::k", "other::k"}
    for name, want in (("outer::k", (31 - np.arange(32)) * 3), ("other::k", np.full(32, 8))):
        out = managed(np.zeros(32, np.int32))
        m.get_function(name)[1, 32](out)
        cudaDeviceSynchronize()
        assert np.array_equal(out, want)


# --------------------------------------------- random kernels, both paths agree

def random_kernel(rng, name):
    """A random race-free kernel: barriers in straight code, for/while/do loops
    and ifs, uniform and per-thread variables, a parameter changed per thread.
    Shared memory is double-buffered (read s, write s2[t], copy at SYNC)."""
    names = ["a", "b", "c", "u", "w", "m"]

    def expr(d=0):
        ch = rng.integers(9 if d < 2 else 5)
        return [lambda: str(rng.integers(1, 9)), lambda: str(rng.choice(names)),
                lambda: "t", lambda: "n", lambda: f"s[(t + {rng.integers(64)}) % 64]",
                lambda: f"({expr(d + 1)} + {expr(d + 1)})",
                lambda: f"({expr(d + 1)} * {rng.integers(1, 4)})",
                lambda: f"({expr(d + 1)} ^ {expr(d + 1)})",
                lambda: f"(({expr(d + 1)}) & 255)"][ch]()

    def stmt():
        v = rng.choice(names)
        return [f"{v} = {expr()};", f"{v} += {expr()};", f"s2[t] = {expr()};",
                f"if (t % {rng.integers(1, 5)} == 0) {{ {v} ^= {expr()}; }}",
                f"for (int i = 0; i < {rng.integers(4)}; i++) {{ {v} += i * {expr()}; }}",
                f"m ^= (t + {rng.integers(9)}) & 3;",
                f"arr[{rng.integers(3)}] += {expr()} & 15;"][rng.integers(7)]

    def block(d):
        out = []
        for _ in range(rng.integers(1, 4)):
            ch = rng.integers(11 if d < 3 else 5)
            inner = (lambda: " ".join(block(d + 1)))
            out.append(stmt() if ch < 4 else [
                lambda: "SYNC;",
                lambda: f"for (int r{d} = 0; r{d} < n % 3 + {rng.integers(2)}; r{d}++) "
                        f"{{ {inner()} SYNC; }}",
                lambda: f"if (n > {rng.integers(6)}) {{ {inner()} SYNC; }} else {{ {inner()} }}",
                lambda: f"{{ int q{d} = 0; while (q{d} < {rng.integers(3)}) {{ {inner()} SYNC; "
                        f"q{d}++; }} }}",
                lambda: f"{{ int z{d} = {rng.integers(3)}; do {{ {inner()} SYNC; }} "
                        f"while (z{d}-- > 0); }}",
                lambda: f"{{ int e{d} = {expr()}; SYNC; a += e{d}; }}",
                lambda: f"for (int h{d} = n + {rng.integers(5)}; h{d} > 0; h{d} /= 2) "
                        f"{{ c += h{d}; {inner()} SYNC; }}"][ch - 4]())
        return out

    return f"""
__global__ void {name}(int *out, int n, int m) {{
    __shared__ int s[64], s2[64];
    int t = threadIdx.x + 16 * threadIdx.y;
    int a = t * 3 + n, b = n * 2, c = 7;
    int u = n + 1, w = t;
    int arr[3] = {{t, n, 1}};
    s[t] = a; s2[t] = a;
    __syncthreads();
    {" ".join(block(0))}
    SYNC;
    out[blockIdx.x * 64 + t] = m * 19 + a + 3 * b + 5 * c + 7 * u + 11 * w + s[t]
                               + arr[0] + arr[1] * 13 + arr[2] * 17;
}}"""


@pytest.mark.parametrize("seed", [1, 2])
def test_random_structured_kernels_agree_with_fibers_grid_3_block_16x4(managed, seed):
    rng = np.random.default_rng(seed)
    names = [f"r{i}" for i in range(6)]
    src = "#define SYNC __syncthreads(); s[t] = s2[t]; __syncthreads()\n" + "\n".join(
        random_kernel(rng, name) for name in names)
    mb, mf = SourceModule(src), SourceModule(src, options=[NO_REGIONS])
    assert set(mb.compiled.block_kernels) == set(names)
    for name in names:
        for n in (0, 1, 4, 9):
            outs = []
            for m in (mb, mf):
                out = managed(np.zeros(3 * 64, np.int32))
                m.get_function(name)[3, (16, 4)](out, np.int32(n), np.int32(n + 5))
                cudaDeviceSynchronize()
                outs.append(np.array(out))
            assert np.array_equal(*outs), (name, n)
