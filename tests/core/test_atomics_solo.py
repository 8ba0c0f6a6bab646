"""Atomic functions with one worker (PYEMU_NUM_THREADS=1) and with several.

With one worker no other thread runs kernel code, so the atomic functions
of both dialects are plain read-modify-writes there (pyemu_tctx.solo,
include/pyemu/detail/atomic_common.h), and the _system forms stay locked.
With any number of workers, those on the block's own shared memory
(__shared__, extern __shared__, kernel-scope __local and __local
arguments) are plain too: only the worker that runs the block reaches it
(pyemu_tctx.smem_lo/smem_span).  Each program below runs in a process of
its own with 1 and with 2 workers; both must give NumPy's results,
including the wrap-around of a signed sum, the counters of
atomicInc/atomicDec and a lock built from atomicCAS and atomicExch.
"""
from __future__ import annotations

import numpy as np
import pytest

CUDA = r"""
__global__ void every_op(int *i, unsigned *u, unsigned long long *ull, float *f, double *d,
                         int base)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&i[0], 3);
    atomicSub(&i[1], 2);
    atomicAdd(&i[2], base);                 // wraps past INT_MAX
    atomicMin(&i[3], t - 500);
    atomicMax(&i[4], t);
    atomicAnd(&u[0], ~(1u << (t % 32)));
    atomicOr(&u[1], 1u << (t % 32));
    atomicXor(&u[2], (unsigned)t);
    atomicInc(&u[3], 9u);                   // counts 0..9 and wraps
    atomicDec(&u[4], 6u);
    atomicAdd(&ull[0], 1ull << 33);
    atomicAdd(&f[0], 0.5f);
    atomicAdd(&d[0], 0.25);
    atomicAdd_system(&i[5], 1);
    atomicAdd_block(&i[6], 1);
    atomicExch(&u[5], 7u);
    atomicCAS(&u[6], 0u, (unsigned)t + 1);  // the first to come wins
}

__global__ void histo(const unsigned char *b, int n, unsigned *h)
{
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += blockDim.x * gridDim.x)
        atomicAdd(&h[b[k]], 1u);
}

// the same on the block's shared memory, static and dynamic; thread 0
// writes the block's results to out[16 * blockIdx.x ...]
__global__ void shared_ops(int *out, int base)
{
    __shared__ int si[5];
    __shared__ unsigned su[5];
    __shared__ float sf;
    __shared__ unsigned long long sl;
    extern __shared__ int dyn[];
    int t = threadIdx.x;
    if (t == 0) {
        si[0] = si[1] = 0; si[2] = base; si[3] = 1000000; si[4] = -1;
        su[0] = 0xffffffffu; su[1] = su[2] = su[3] = su[4] = 0;
        sf = 0; sl = 0; dyn[0] = 0;
    }
    __syncthreads();
    atomicAdd(&si[0], 3);
    atomicSub(&si[1], 2);
    atomicAdd(&si[2], 1);                   // wraps past INT_MAX
    atomicMin(&si[3], t - 500);
    atomicMax(&si[4], t);
    atomicAnd(&su[0], ~(1u << (t % 32)));
    atomicOr(&su[1], 1u << (t % 32));
    atomicXor(&su[2], (unsigned)t * 7u);
    atomicInc(&su[3], 9u);
    atomicCAS(&su[4], 0u, (unsigned)t + 1);
    atomicAdd(&sf, 0.5f);
    atomicAdd(&sl, 1ull << 33);
    atomicAdd_system(&dyn[0], 2);
    __syncthreads();
    if (t == 0) {
        int *o = out + 16 * blockIdx.x;
        for (int j = 0; j < 5; j++) { o[j] = si[j]; o[5 + j] = (int)su[j]; }
        o[10] = (int)sf; o[11] = (int)(sl >> 33); o[12] = dyn[0];
    }
}

// thread 0 of each block takes a lock around a plain update
__global__ void locked(int *lock, int *count)
{
    if (threadIdx.x == 0) {
        while (atomicCAS(lock, 0, 1) != 0)
            ;
        int c = *(volatile int *)count;
        *(volatile int *)count = c + 1;
        __threadfence();
        atomicExch(lock, 0);
    }
}
"""

CUDA_BODY = r"""
m = SourceModule(SOURCE)
R["workers"] = cudaGetDeviceProperties(0).multiProcessorCount
i = cudaMallocManaged(7 * 4, dtype=np.int32); i[:] = [0, 0, 2**31 - 1000, 10**6, -1, 0, 0]
u = cudaMallocManaged(7 * 4, dtype=np.uint32); u[:] = [0xffffffff, 0, 0, 0, 0, 0, 0]
ull = cudaMallocManaged(8, dtype=np.uint64); ull[:] = 0
f = cudaMallocManaged(4, dtype=np.float32); f[:] = 0
d = cudaMallocManaged(8, dtype=np.float64); d[:] = 0
m.every_op[37, 64](i, u, ull, f, d, 1)
data = np.random.default_rng(7).integers(0, 256, 100003).astype(np.uint8)
b = cudaMallocManaged(data.nbytes, dtype=np.uint8); b[:] = data
h = cudaMallocManaged(256 * 4, dtype=np.uint32); h[:] = 0
m.histo[5, 128](b, len(data), h)
lock = cudaMallocManaged(4, dtype=np.int32); lock[:] = 0
count = cudaMallocManaged(4, dtype=np.int32); count[:] = 0
m.locked[301, 32](lock, count)
so = cudaMallocManaged(37 * 16 * 4, dtype=np.int32); so[:] = 0
m.shared_ops[37, 256, 4](so, 2**31 - 100)
cudaDeviceSynchronize()
R["shared"] = so.reshape(37, 16)[:, :13].tolist()
R["i"] = i.tolist(); R["u"] = u.tolist(); R["ull"] = int(ull[0])
R["f"] = float(f[0]); R["d"] = float(d[0]); R["h"] = h.tolist(); R["count"] = int(count[0])
"""

OPENCL = r"""
__kernel void every_op(__global int *i, __global uint *u, __global long *l, __global float *f)
{
    int t = get_global_id(0);
    atomic_add(&i[0], 3);
    atomic_sub(&i[1], 2);
    atomic_add(&i[2], 1);                   // wraps past INT_MAX
    atomic_min(&i[3], t - 500);
    atomic_max(&i[4], t);
    atomic_inc(&i[5]);
    atomic_dec(&i[6]);
    atomic_and(&u[0], ~(1u << (t % 32)));
    atomic_or(&u[1], 1u << (t % 32));
    atomic_xor(&u[2], (uint)t);
    atomic_cmpxchg(&u[3], 0u, (uint)t + 1);
    atomic_xchg(&f[0], 2.5f);
    atom_add(&l[0], 1L << 33);
}
// the same on the work-group's local memory: kernel scope and an argument
__kernel void local_ops(__global int *out, __local int *arg)
{
    __local int li[4];
    __local uint lu[3];
    int t = get_local_id(0);
    if (t == 0) {
        li[0] = 0; li[1] = 1000000; li[2] = -1; li[3] = 0;
        lu[0] = lu[1] = lu[2] = 0; arg[0] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&li[0], 3);
    atomic_min(&li[1], t - 500);
    atomic_max(&li[2], t);
    atomic_inc(&li[3]);
    atomic_or(&lu[0], 1u << (t % 32));
    atomic_xor(&lu[1], (uint)t * 7u);
    atomic_cmpxchg(&lu[2], 0u, (uint)t + 1);
    atomic_sub(&arg[0], 2);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0) {
        __global int *o = out + 8 * get_group_id(0);
        for (int j = 0; j < 4; j++) o[j] = li[j];
        for (int j = 0; j < 3; j++) o[4 + j] = (int)lu[j];
        o[7] = arg[0];
    }
}
__kernel void histo(__global const uchar *b, int n, __global uint *h)
{
    for (int k = get_global_id(0); k < n; k += get_global_size(0))
        atomic_inc(&h[b[k]]);
}
"""

OPENCL_BODY = r"""
from pyemu.opencl import *
platform = clGetPlatformIDs()[0]
device = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL)[0]
R["workers"] = clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS)
ctx = clCreateContext(None, [device])
q = clCreateCommandQueue(ctx, device, 0)
prog = clCreateProgramWithSource(ctx, SOURCE)
clBuildProgram(prog, [device])

def buf(a):
    return clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, a.nbytes, a)

i = np.array([0, 0, 2**31 - 1000, 10**6, -1, 0, 0], np.int32)
u = np.array([0xffffffff, 0, 0, 0], np.uint32)
l = np.zeros(1, np.int64); f = np.zeros(1, np.float32)
bi, bu, bl, bf = buf(i), buf(u), buf(l), buf(f)
k = clCreateKernel(prog, "every_op")
for n, a in enumerate((bi, bu, bl, bf)):
    clSetKernelArg(k, n, a)
clEnqueueNDRangeKernel(q, k, 1, None, [37 * 64], [64])
data = np.random.default_rng(7).integers(0, 256, 100003).astype(np.uint8)
bb, bh = buf(data), buf(np.zeros(256, np.uint32))
kh = clCreateKernel(prog, "histo")
clSetKernelArg(kh, 0, bb); clSetKernelArg(kh, 1, np.int32(len(data))); clSetKernelArg(kh, 2, bh)
clEnqueueNDRangeKernel(q, kh, 1, None, [5 * 128], [128])
for a, b in ((i, bi), (u, bu), (l, bl), (f, bf)):
    clEnqueueReadBuffer(q, b, True, 0, a.nbytes, a)
h = np.zeros(256, np.uint32)
clEnqueueReadBuffer(q, bh, True, 0, h.nbytes, h)
lo = np.zeros(37 * 8, np.int32)
blo = buf(lo)
kl = clCreateKernel(prog, "local_ops")
clSetKernelArg(kl, 0, blo); clSetKernelArg(kl, 1, LocalMemory(4))
clEnqueueNDRangeKernel(q, kl, 1, None, [37 * 256], [256])
clEnqueueReadBuffer(q, blo, True, 0, lo.nbytes, lo)
R["local"] = lo.reshape(37, 8).tolist()
R["i"] = i.tolist(); R["u"] = u.tolist(); R["l"] = int(l[0]); R["f"] = float(f[0])
R["h"] = h.tolist()
"""


def _histogram():
    data = np.random.default_rng(7).integers(0, 256, 100003).astype(np.uint8)
    return np.bincount(data, minlength=256).tolist()


def _run(run_cuda, body, source, workers):
    run = run_cuda(body, env={"PYEMU_NUM_THREADS": str(workers)}, consts={"SOURCE": source},
                   timeout=180)
    assert run.returncode == 0, run.explain()
    assert run.R["workers"] == workers
    return run.R


@pytest.mark.parametrize("workers", [1, 2])
def test_cuda_atomics_give_numpys_results(run_cuda, workers):
    R = _run(run_cuda, CUDA_BODY, CUDA, workers)
    n = 37 * 64
    t = np.arange(n)
    wrapped = int(np.int32(np.int64(2**31 - 1000 + n) - 2**32))
    assert R["i"] == [3 * n, -2 * n, wrapped, -500, n - 1, n, n]
    assert R["u"][0] == 0 and R["u"][1] == 0xffffffff
    assert R["u"][2] == int(np.bitwise_xor.reduce(t))
    assert R["u"][3] == n % 10
    # atomicDec from 0 with limit 6: 0 -> 6 -> 5 ... -> 0 -> 6: a cycle of 7
    assert R["u"][4] == (-n) % 7
    assert R["u"][5] == 7 and 1 <= R["u"][6] <= n
    assert R["ull"] == n << 33
    assert R["f"] == n * 0.5 and R["d"] == n * 0.25
    assert R["h"] == _histogram()
    assert R["count"] == 301
    t = np.arange(256)
    wrapped = int(np.int32(np.int64(2**31 - 100 + 256) - 2**32))
    one_block = [768, -512, wrapped, -500, 255,
                 0, 0xffffffff - 2**32, int(np.bitwise_xor.reduce(t * 7)), 256 % 10]
    for got in R["shared"]:
        assert got[:9] == one_block and 1 <= got[9] <= 256
        assert got[10:] == [128, 256, 512]


@pytest.mark.parametrize("workers", [1, 2])
def test_opencl_atomics_give_numpys_results(run_cuda, workers):
    R = _run(run_cuda, OPENCL_BODY, OPENCL, workers)
    n = 37 * 64
    t = np.arange(n)
    wrapped = int(np.int32(np.int64(2**31 - 1000 + n) - 2**32))
    assert R["i"] == [3 * n, -2 * n, wrapped, -500, n - 1, n, -n]
    assert R["u"][0] == 0 and R["u"][1] == 0xffffffff
    assert R["u"][2] == int(np.bitwise_xor.reduce(t))
    assert 1 <= R["u"][3] <= n
    assert R["l"] == n << 33 and R["f"] == 2.5
    assert R["h"] == _histogram()
    t = np.arange(256)
    for got in R["local"]:
        assert got[:4] == [768, -500, 255, 256]
        assert got[4] == -1 and got[5] == int(np.bitwise_xor.reduce(t * 7))
        assert 1 <= got[6] <= 256 and got[7] == -512
