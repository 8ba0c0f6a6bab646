"""Warp-synchronous code without __syncwarp (issue 13): the unrolled last-warp
reduction on a volatile pointer gives the GPU's result, because the front end
puts an implicit pyemu_warp_step() after each statement that stores through
a volatile lvalue, and a warp's lanes then run each such statement before
any runs the next (csrc/warp.c).  The kernels are the cuda-samples
reduce4/reduce5 (template blockSize, volatile warpReduce) and Harris's
"Optimizing Parallel Reduction" #5/#6 (tests/opencl/test_warp_sync_legacy_cl.py
has them in OpenCL C), checked against NumPy for blocks of 64 to 1024 threads."""
import numpy as np
import pytest

from pyemu.cuda import (SourceModule, cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy,
                        cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice)

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

CUDA = r"""
// Harris #5: the last warp unrolled, no barrier, a volatile pointer
__device__ void warpReduce(volatile int *sdata, unsigned int tid) {
  sdata[tid] += sdata[tid + 32];
  sdata[tid] += sdata[tid + 16];
  sdata[tid] += sdata[tid + 8];
  sdata[tid] += sdata[tid + 4];
  sdata[tid] += sdata[tid + 2];
  sdata[tid] += sdata[tid + 1];
}

extern "C" __global__ void harris5(const int *g_idata, int *g_odata) {
  extern __shared__ int sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  sdata[tid] = g_idata[i] + g_idata[i + blockDim.x];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) warpReduce(sdata, tid);
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// Harris #6: completely unrolled on a template block size
template <unsigned int blockSize>
__device__ void warpReduceT(volatile int *sdata, unsigned int tid) {
  if (blockSize >= 64) sdata[tid] += sdata[tid + 32];
  if (blockSize >= 32) sdata[tid] += sdata[tid + 16];
  if (blockSize >= 16) sdata[tid] += sdata[tid + 8];
  if (blockSize >= 8) sdata[tid] += sdata[tid + 4];
  if (blockSize >= 4) sdata[tid] += sdata[tid + 2];
  if (blockSize >= 2) sdata[tid] += sdata[tid + 1];
}

template <unsigned int blockSize>
__global__ void harris6(const int *g_idata, int *g_odata, unsigned int n) {
  extern __shared__ int sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockSize * 2) + tid;
  unsigned int gridSize = blockSize * 2 * gridDim.x;
  sdata[tid] = 0;
  while (i < n) { sdata[tid] += g_idata[i] + g_idata[i + blockSize]; i += gridSize; }
  __syncthreads();
  if (blockSize >= 1024) { if (tid < 512) { sdata[tid] += sdata[tid + 512]; } __syncthreads(); }
  if (blockSize >= 512) { if (tid < 256) { sdata[tid] += sdata[tid + 256]; } __syncthreads(); }
  if (blockSize >= 256) { if (tid < 128) { sdata[tid] += sdata[tid + 128]; } __syncthreads(); }
  if (blockSize >= 128) { if (tid < 64) { sdata[tid] += sdata[tid + 64]; } __syncthreads(); }
  if (tid < 32) warpReduceT<blockSize>(sdata, tid);
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// cuda-samples reduce4: the volatile stores chained through a register
template <class T, unsigned int blockSize>
__global__ void reduce4(const T *g_idata, T *g_odata, unsigned int n) {
  extern __shared__ int smem_[];
  T *sdata = (T *)smem_;
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
  T mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockSize < n) mySum += g_idata[i + blockSize];
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    volatile T *smem = sdata;
    if (blockSize >= 64) smem[tid] = mySum = mySum + smem[tid + 32];
    if (blockSize >= 32) smem[tid] = mySum = mySum + smem[tid + 16];
    if (blockSize >= 16) smem[tid] = mySum = mySum + smem[tid + 8];
    if (blockSize >= 8) smem[tid] = mySum = mySum + smem[tid + 4];
    if (blockSize >= 4) smem[tid] = mySum = mySum + smem[tid + 2];
    if (blockSize >= 2) smem[tid] = mySum = mySum + smem[tid + 1];
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
"""

SIZES = [64, 128, 256, 512, 1024]


def _data(n, seed):
    return np.random.default_rng(seed).integers(-1000, 1000, n).astype(np.int32)


def _run_cuda(fn, blocks, threads, h_in, *extra):
    d_in, d_out = cudaMalloc(h_in.nbytes), cudaMalloc(blocks * 4)
    cudaMemcpy(d_in, h_in, h_in.nbytes, cudaMemcpyHostToDevice)
    fn[blocks, threads, threads * 4](d_in, d_out, *extra)
    cudaDeviceSynchronize()
    out = np.empty(blocks, np.int32)
    cudaMemcpy(out, d_out, out.nbytes, cudaMemcpyDeviceToHost)
    cudaFree(d_in)
    cudaFree(d_out)
    return out


@pytest.fixture(scope="module")
def mod():
    names = [f"harris6<{t}>" for t in SIZES] + [f"reduce4<int, {t}>" for t in (64, 256, 1024)]
    return SourceModule(CUDA, name_expressions=names)


@pytest.mark.parametrize("threads", SIZES)
def test_harris5_volatile_warp_reduce_matches_numpy(mod, threads):
    blocks = 3
    h = _data(blocks * threads * 2, threads)
    out = _run_cuda(mod.harris5, blocks, threads, h)
    np.testing.assert_array_equal(out, h.reshape(blocks, -1).sum(axis=1))


@pytest.mark.parametrize("threads", SIZES)
def test_harris6_template_block_size_matches_numpy(mod, threads):
    blocks, n = 2, threads * 2 * 2 * 3
    h = _data(n, threads + 1)
    out = _run_cuda(mod.get_function(f"harris6<{threads}>"), blocks, threads, h, np.uint32(n))
    want = h.reshape(3, blocks, threads * 2).sum(axis=(0, 2))
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("threads", [64, 256, 1024])
def test_reduce4_chained_volatile_stores_match_numpy(mod, threads):
    blocks = 4
    n = blocks * threads * 2 - 5      # a partial last block
    h = _data(n, threads + 2)
    out = _run_cuda(mod.get_function(f"reduce4<int, {threads}>"), blocks, threads, h,
                    np.uint32(n))
    padded = np.concatenate([h, np.zeros(5, np.int32)])
    np.testing.assert_array_equal(out, padded.reshape(blocks, -1).sum(axis=1))



EDGES = r"""
// half of each warp steps, then the whole warp meets at __syncwarp and a shuffle
extern "C" __global__ void half_then_shfl(int *out) {
  __shared__ int s[256];
  unsigned int t = threadIdx.x, lane = t & 31;
  volatile int *v = s;
  v[t] = (int)t;
  __syncthreads();
  if (lane < 16) {
    v[t] += v[t + 8];
    v[t] += v[t + 4];
  }
  __syncwarp();
  int x = __shfl_down_sync(0xffffffffu, v[t], 1);
  out[t] = x;
}

// every warp reduces its own 32 values, warp-synchronously, then a barrier
// and thread 0 adds the warps' sums; if/else without braces around volatile stores
extern "C" __global__ void per_warp(const int *in, int *out) {
  __shared__ int s[1024 + 32];
  unsigned int t = threadIdx.x, lane = t & 31;
  volatile int *v = s;
  v[t] = in[blockIdx.x * blockDim.x + t];
  if (lane < 16) v[t] += v[t + 16]; else v[t + 1024 - 1024] += 0;
  if (lane < 8) v[t] += v[t + 8];
  if (lane < 4) v[t] += v[t + 4];
  if (lane < 2) v[t] += v[t + 2];
  if (lane < 1) v[t] += v[t + 1];
  __syncthreads();
  if (t == 0) {
    int sum = 0;
    for (unsigned int w = 0; w < blockDim.x; w += 32) sum += s[w];
    out[blockIdx.x] = sum;
  }
}

// the threads past the first warp return before the warp-synchronous part
extern "C" __global__ void early_exit(const int *in, int *out) {
  __shared__ int s[64];
  unsigned int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  if (t >= 32) return;
  volatile int *v = s;
  v[t] += v[t + 32]; v[t] += v[t + 16]; v[t] += v[t + 8];
  v[t] += v[t + 4]; v[t] += v[t + 2]; v[t] += v[t + 1];
  if (t == 0) out[0] = v[0];
}
"""


@pytest.fixture(scope="module")
def edges():
    return SourceModule(EDGES)


def test_half_warp_steps_then_syncwarp_and_shuffle(edges):
    d = cudaMalloc(256 * 4)
    edges.half_then_shfl[1, 256](d)
    cudaDeviceSynchronize()
    out = np.empty(256, np.int32)
    cudaMemcpy(out, d, out.nbytes, cudaMemcpyDeviceToHost)
    v = np.arange(256)
    lane = v % 32
    for k in (8, 4):     # lockstep: each statement reads the values before it
        v = np.where(lane < 16, v + v[np.minimum(np.arange(256) + k, 255)], v)
    want = np.where(lane < 31, v[np.minimum(np.arange(256) + 1, 255)], v)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("threads", [32, 96, 256, 1024])
def test_every_warp_steps_then_a_block_barrier(edges, threads):
    blocks = 2
    h = _data(blocks * threads, threads + 3)
    out = _run_cuda(edges.per_warp, blocks, threads, h)
    np.testing.assert_array_equal(out, h.reshape(blocks, -1).sum(axis=1))


def test_threads_that_returned_are_not_waited_for(edges):
    h = _data(64, 5)
    d_in, d_out = cudaMalloc(h.nbytes), cudaMalloc(4)
    cudaMemcpy(d_in, h, h.nbytes, cudaMemcpyHostToDevice)
    edges.early_exit[1, 64](d_in, d_out)
    cudaDeviceSynchronize()
    out = np.empty(1, np.int32)
    cudaMemcpy(out, d_out, 4, cudaMemcpyDeviceToHost)
    assert out[0] == h.sum()


DIVERGENT = r"""
extern "C" __global__ void k(int *out) {
  __shared__ int s[64];
  volatile int *v = s;
  unsigned int t = threadIdx.x;
  v[t] = 1;
  v[t] += 1;
  if (t < 16) __syncthreads();     // only part of the block: still an error
  out[t] = v[t];
}
"""


def test_a_divergent_barrier_after_steps_still_fails_the_launch(run_cuda):
    run = run_cuda("""
m = SourceModule(SOURCE)
a = cudaMalloc(4 * 64)
m.k[1, 64](a)
R["code"] = code_of(cudaDeviceSynchronize)
from pyemu.cuda import _errors
R["message"] = _errors.sticky()[1]
""", consts={"SOURCE": DIVERGENT}, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R["code"] != 0, run.R
    assert "__syncthreads" in run.R["message"], run.R
