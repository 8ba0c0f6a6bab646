"""Pure math built-ins of uniform arguments are uniform (uniform.py, blocks._MATH).

Rodinia backprop's layerforward bounds a barrier loop by __log2f(HEIGHT): a
call of the CUDA math library of a literal, the same for every thread.  Such
a condition is proven uniform (the kernel gets a block function) when every
argument is uniform (literals, kernel parameters, blockDim, uniform locals)
and the unit defines no function of that name; a user's function, or a
math call of threadIdx, stays not provably uniform (the fiber variant, with
its reason).  Results are checked against NumPy on both paths."""
import math

import numpy as np
import pytest

from regions_util import both, managed, path_of, paths_module  # noqa: F401
from pyemu.compiler.regions import blocks as _regions
from pyemu.cuda import cudaDeviceSynchronize

LOG2F = r"""
#define HEIGHT 16
__global__ void layer(float *m) {
    __shared__ float w[HEIGHT][HEIGHT];
    int tx = threadIdx.x, ty = threadIdx.y;
    w[ty][tx] = m[blockIdx.x * HEIGHT * HEIGHT + ty * HEIGHT + tx];
    __syncthreads();
    for (int i = 1; i <= __log2f(HEIGHT); i++) {
        int power_two = __powf(2, i);
        if (ty % power_two == 0)
            w[ty][tx] = w[ty][tx] + w[ty + power_two / 2][tx];
        __syncthreads();
    }
    m[blockIdx.x * HEIGHT * HEIGHT + ty * HEIGHT + tx] = w[ty][tx];
}

// bounds from several math functions of parameters and blockDim
__global__ void bounds(int *out, int n, float x) {
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    int lim = min((int)sqrtf((float)n), (int)blockDim.x);
    for (int i = 0; i < lim; i++) {
        int v = s[(t + 1) % blockDim.x];
        __syncthreads();
        s[t] = v + i;
        __syncthreads();
    }
    int m = (int)floorf(log2f((float)blockDim.x)) + abs(-2) + max(n, 0) % 3 + (int)fabsf(x);
    while (m > 0) {
        s[t] += 1;
        __syncthreads();
        m--;
    }
    out[blockIdx.x * blockDim.x + t] = s[t];
}

__device__ int steps(int n) { return n; }

// a user's function: not known to be pure
__global__ void user(int *out, int n) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    for (int i = 0; i < steps(n); i++) {
        int v = s[(t + 1) % 64];
        __syncthreads();
        s[t] = v;
        __syncthreads();
    }
    out[t] = s[t];
}

// a math call of threadIdx is not uniform (each thread its own trip count
// to a barrier none reaches: valid, on the fiber path)
__global__ void per_thread(int *out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = 0;
    __syncthreads();
    for (int i = 0; i < (int)sqrtf((float)t); i++) {
        s[t] += i;
        if (t > 1000) __syncthreads();
    }
    __syncthreads();
    out[t] = s[t];
}
"""

CL = r"""
__kernel void k(__global int *out, int n) {
    __local int s[64];
    int t = get_local_id(0);
    s[t] = t;
    barrier(CLK_LOCAL_MEM_FENCE);
    int lim = clamp(mad24(n, 2, 1), 0, 8) + (int)native_sqrt((float)get_local_size(0));
    for (int i = 0; i < lim; i++) {
        int v = s[(t + 1) % 64];
        barrier(CLK_LOCAL_MEM_FENCE);
        s[t] = v + 1;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = s[t];
}
"""

mod = paths_module(LOG2F)


def test_paths(monkeypatch):
    monkeypatch.delenv(_regions.FORCE_ENV, raising=False)   # the paths the pass gives
    assert path_of(LOG2F, "layer") == "block function"
    assert path_of(LOG2F, "bounds") == "block function"
    b = _regions_blocks(LOG2F)
    for name in ("user", "per_thread"):
        path, why = b.paths[name]
        assert path == "fiber variant", (name, path, why)
        assert "not provably uniform" in why, why


def _regions_blocks(src):
    from regions_util import blocks
    return blocks(src, implicit=True)


def test_layer(mod, managed):
    nb = 8
    h = np.random.RandomState(0).rand(nb, 16, 16).astype(np.float32)
    d = managed(h)
    mod.get_function("layer")(d, grid=(nb, 1, 1), block=(16, 16, 1))
    cudaDeviceSynchronize()
    w = h.copy()
    for i in range(1, 5):
        p = 2 ** i
        for ty in range(0, 16, p):
            w[:, ty, :] = w[:, ty, :] + w[:, ty + p // 2, :]
    np.testing.assert_allclose(d[:h.size].reshape(h.shape), w, rtol=1e-6)


def _bounds_ref(nb, bd, n, x):
    out = np.zeros((nb, bd), np.int64)
    s = np.arange(bd, dtype=np.int64)
    lim = min(int(math.sqrt(n)), bd)
    for i in range(lim):
        s = np.roll(s, -1) + i
    m = int(math.floor(math.log2(bd))) + 2 + max(n, 0) % 3 + int(abs(x))
    s = s + max(m, 0)
    out[:] = s
    return out.ravel()


@pytest.mark.parametrize("n,x", [(10, -2.5), (50, 0.0), (0, 1.0)])
def test_bounds(mod, managed, n, x):
    nb, bd = 3, 64
    out = managed(np.zeros(nb * bd, np.int32))
    mod.get_function("bounds")(out, np.int32(n), np.float32(x), grid=(nb, 1, 1),
                               block=(bd, 1, 1))
    cudaDeviceSynchronize()
    np.testing.assert_array_equal(out[:nb * bd], _bounds_ref(nb, bd, n, x))


def test_user_function(mod, managed):
    out = managed(np.zeros(64, np.int32))
    mod.get_function("user")(out, np.int32(5), grid=(1, 1, 1), block=(64, 1, 1))
    cudaDeviceSynchronize()
    np.testing.assert_array_equal(out[:64], np.roll(np.arange(64), -5))


def test_per_thread(mod, managed):
    out = managed(np.zeros(64, np.int32))
    mod.get_function("per_thread")(out, grid=(1, 1, 1), block=(64, 1, 1))
    cudaDeviceSynchronize()
    want = [sum(range(int(math.sqrt(t)))) for t in range(64)]
    np.testing.assert_array_equal(out[:64], want)


def test_opencl_builtins(monkeypatch):
    """OpenCL C's common and integer built-ins (clamp, mad24, native_sqrt) of
    uniform arguments bound a barrier loop: a block function, which computes
    what the fiber variant does."""
    monkeypatch.delenv(_regions.FORCE_ENV, raising=False)   # the paths the pass gives
    from pyemu.compiler import driver as compiler
    text, functions, root = compiler.unit_of(CL, "opencl")
    from pyemu.compiler.opencl import KERNEL_MARKER
    b = _regions.generate(text, KERNEL_MARKER, root, implicit=True, functions=functions)
    assert b.paths["k"][0] == "block function", b.paths["k"]


@pytest.mark.parametrize("force", ["0", "1"], ids=["block", "fibers"])
@pytest.mark.parametrize("n", [0, 1, 3, 9])
def test_opencl_builtins_results(monkeypatch, force, n):
    """The same kernel run through pyemu.opencl on both paths, against NumPy:
    lim = clamp(2n + 1, 0, 8) + sqrt(64) rounds, each one s[t] = s[t + 1] + 1."""
    monkeypatch.setenv(_regions.FORCE_ENV, force)
    monkeypatch.setenv(_regions.STRICT_ENV, "1")
    from pyemu.opencl import (CL_DEVICE_TYPE_DEFAULT, CL_MEM_READ_WRITE, CL_TRUE,
                              clBuildProgram, clCreateBuffer, clCreateCommandQueue,
                              clCreateContext, clCreateKernel, clCreateProgramWithSource,
                              clEnqueueNDRangeKernel, clEnqueueReadBuffer, clGetDeviceIDs,
                              clGetPlatformIDs, clSetKernelArg)
    dev = clGetDeviceIDs(clGetPlatformIDs()[0], CL_DEVICE_TYPE_DEFAULT)[0]
    ctx = clCreateContext(None, [dev])
    q = clCreateCommandQueue(ctx, dev, 0)
    prog = clCreateProgramWithSource(ctx, [CL])
    clBuildProgram(prog)
    k = clCreateKernel(prog, "k")
    out = np.zeros(128, np.int32)
    b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, out.nbytes)
    clSetKernelArg(k, 0, b)
    clSetKernelArg(k, 1, np.int32(n))
    clEnqueueNDRangeKernel(q, k, 1, None, [128], [64])
    clEnqueueReadBuffer(q, b, CL_TRUE, 0, out.nbytes, out)
    lim = min(max(2 * n + 1, 0), 8) + 8
    s = np.arange(64)
    for _ in range(lim):
        s = np.roll(s, -1) + 1
    np.testing.assert_array_equal(out, np.concatenate([s, s]))
