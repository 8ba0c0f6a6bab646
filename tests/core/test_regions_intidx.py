"""Block functions with int indices (regions/intidx.py), recomputed
variables whose inputs were reassigned, and one-region block functions of
kernels without barriers: every one gives what the fiber / plain-loop path
gives, on launches where the int guard holds and where it does not."""
import numpy as np
import pytest

from regions_util import blocks, both, managed  # noqa: F401  (managed: a fixture)
from pyemu.cuda import cudaDeviceSynchronize

TRANSPOSE32 = r"""
__global__ void transpose32(float *odata, const float *idata, int width, int height)
{
    __shared__ float tile[32][33];
    int xIndex = blockIdx.x * 32 + threadIdx.x;
    int yIndex = blockIdx.y * 32 + threadIdx.y;
    int index_in = xIndex + yIndex * width;
    xIndex = blockIdx.y * 32 + threadIdx.x;
    yIndex = blockIdx.x * 32 + threadIdx.y;
    int index_out = xIndex + yIndex * height;
    tile[threadIdx.y][threadIdx.x] = idata[index_in];
    __syncthreads();
    odata[index_out] = tile[threadIdx.x][threadIdx.y];
}"""


@pytest.mark.parametrize("w,h", [(64, 96), (32, 32), (160, 64)])
def test_transpose32_int_indices_and_recomputed_index_out(managed, w, h):
    text = blocks(TRANSPOSE32).text
    assert "(int)pyemu_rg_tx" in text                # the index computed in int
    assert "static_cast<int>(" in text               # index_out recomputed, not stored
    # the counters' bound in unsigned int, which g++'s value ranges read: without
    # it `(int)tx` may wrap, the store to odata is a scatter that may alias the
    # tile in the shared arena, and both region loops stay scalar (1.2x PoCL)
    # in a test of their own, before the doubles (at the end of that chain
    # g++ loses them, and the OpenCL form's second region stayed scalar)
    assert " if (!(pyemu_rg_bdx <= 2147483647u && pyemu_rg_bdy <= 2147483647u)) return false;" \
        in text
    k, fib = both(TRANSPOSE32, "transpose32")
    a = np.arange(w * h, dtype=np.float32).reshape(h, w)
    outs = []
    for fn in (k, fib):
        src, dst = managed(a), managed(np.zeros(w * h, np.float32))
        fn[(w // 32, h // 32), (32, 32)](dst, src, np.int32(w), np.int32(h))
        cudaDeviceSynchronize()
        outs.append(np.array(dst[:w * h]).reshape(w, h))
    assert np.array_equal(outs[0], a.T)
    assert np.array_equal(outs[1], a.T)


# i's int value wraps past INT_MAX in the later blocks: the guard declines
# them and the plain loop computes what CUDA does (unsigned, then converted)
WRAP = r"""
__global__ void wrap(long long *out, int mul) {
    __shared__ int s[64];
    int i = blockIdx.x * 700000000 + threadIdx.x * 3;
    s[threadIdx.x] = i;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = (long long)s[threadIdx.x] + i / mul;
}"""


def test_int_guard_declines_when_an_index_may_exceed_int_max(managed):
    assert "<= 2147483647.0" in blocks(WRAP).text
    k, fib = both(WRAP, "wrap")
    res = []
    for grid in (3, 8):            # 3: the guard holds; 8: 7 * 7e8 > INT_MAX
        for fn in (k, fib):
            out = managed(np.zeros(grid * 64, np.int64))
            fn[grid, 64](out, np.int32(7))
            cudaDeviceSynchronize()
            res.append(np.array(out[:grid * 64]))
        assert np.array_equal(res[-2], res[-1])
    b = np.repeat(np.arange(8, dtype=np.int64), 64)
    t = np.tile(np.arange(64, dtype=np.int64), 8)
    i = ((b * 700000000 + t * 3) % (1 << 32)).astype(np.uint32).view(np.int32).astype(np.int64)
    assert np.array_equal(res[-1], i + np.trunc(i / 7).astype(np.int64))


# a recomputed variable whose input is reassigned after it was declared:
# the value at the declaration is the one recomputed
LATE = r"""
__global__ void late(int *out) {
    __shared__ int s[32];
    unsigned x = threadIdx.x + 5u;
    x = threadIdx.x * 2u;
    int keep = x + 1;
    s[threadIdx.x] = keep;
    __syncthreads();
    out[blockIdx.x * 32 + threadIdx.x] = keep * 100 + s[31 - threadIdx.x];
}"""


def test_recomputed_from_a_reassigned_unsigned_keeps_its_type(managed):
    k, fib = both(LATE, "late")
    got = []
    for fn in (k, fib):
        out = managed(np.zeros(64, np.int32))
        fn[2, 32](out)
        cudaDeviceSynchronize()
        got.append(np.array(out[:64]))
    t = np.tile(np.arange(32), 2)
    assert np.array_equal(got[0], (2 * t + 1) * 100 + 2 * (31 - t) + 1)
    assert np.array_equal(got[0], got[1])


VADD = r"""
__global__ void add(const float *a, const float *b, float *c, int n) {
    int index = threadIdx.x + blockIdx.x * blockDim.x;
    if (index < n)
        c[index] = a[index] + b[index];
}"""


@pytest.mark.parametrize("n,block", [(1000, 256), (4096, 1024), (33, 32)])
def test_vector_add_one_region_block_function(managed, n, block):
    assert "(int)pyemu_rg_bdx" in blocks(VADD, implicit=True).text
    k, fib = both(VADD, "add")
    rng = np.random.default_rng(n)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    for fn in (k, fib):
        da, db, dc = managed(a), managed(b), managed(np.zeros(n + 64, np.float32))
        fn[(n + block - 1) // block, block](da, db, dc, np.int32(n))
        cudaDeviceSynchronize()
        assert np.array_equal(np.array(dc[:n]), a + b)
        assert not np.array(dc[n:]).any()


# a cast to a narrower type truncates: not an index polynomial (computed in
# int without the cast, it gave 40000 where the thread computes -25536)
NARROW = r"""
__global__ void narrow(int *out) {
    __shared__ int s[32];
    int i = (short)(blockIdx.x * 40000 + threadIdx.x);
    int j = (unsigned short)(blockIdx.x * 40000 + threadIdx.x);
    s[threadIdx.x] = j;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = i + 3 * s[threadIdx.x];
}"""


def test_narrowing_casts_are_not_index_polynomials(managed):
    k, fib = both(NARROW, "narrow")
    res = []
    for fn in (k, fib):
        out = managed(np.zeros(96, np.int32))
        fn[3, 32](out)
        cudaDeviceSynchronize()
        res.append(np.array(out[:96]))
    v = np.repeat(np.arange(3), 32) * 40000 + np.tile(np.arange(32), 3)
    want = v.astype(np.int16).astype(np.int64) + 3 * v.astype(np.uint16).astype(np.int64)
    assert np.array_equal(res[0], want)
    assert np.array_equal(res[1], want)
