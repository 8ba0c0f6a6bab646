"""C++ default arguments of kernel parameters (cuda-samples shfl_scan:
`shfl_scan_test(int *data, int width, int *partial_sums = NULL)` launched with
two): nvcc's <<<>>> fills in the defaults, evaluated at each launch; so do
k[grid, block](...) and cudaLaunchKernel.  A launch that leaves out a parameter
without one is cudaErrorInvalidValue, as before."""
import numpy as np
import pytest

from pyemu.cuda import (CudaError, SourceModule, cudaDeviceSynchronize, cudaErrorInvalidValue,
                        cudaFree, cudaLaunchKernel, cudaMalloc, cudaMemcpy,
                        cudaMemcpyDeviceToHost)

SRC = r"""
#include <stddef.h>
#define SCALE (2 * 3)
constexpr int base() { return 40; }
enum Mode { ADD = 1, MUL = 7 };
__device__ int counter_default = 5;
__global__ void k(float *out, int a = base() + 2, float b = 0.25f, int *p = NULL,
                  Mode m = MUL, unsigned long long big = 1ull << 40, long s = SCALE,
                  const int *q = nullptr) {
    out[0] = (float)a;
    out[1] = b;
    out[2] = p == NULL ? -1.0f : (float)*p;
    out[3] = (float)m;
    out[4] = (float)(big >> 32);
    out[5] = (float)s;
    out[6] = q == nullptr ? -2.0f : 1.0f;
}
namespace ns {
constexpr int width = 9;
__global__ void inner(float *out, int w = width);
__global__ void inner(float *out, int w) { out[0] = (float)w; }
}
__global__ void none(float *out, int a) { out[0] = (float)a; }
"""
WANT = [42.0, 0.25, -1.0, 7.0, 256.0, 6.0, -2.0]


def _read(d, n=7):
    cudaDeviceSynchronize()
    out = np.zeros(n, np.float32)
    cudaMemcpy(out, d, out.nbytes, cudaMemcpyDeviceToHost)
    return out.tolist()


@pytest.fixture(scope="module")
def mod():
    return SourceModule(SRC)


@pytest.mark.parametrize("given", range(1, 9))
def test_trailing_defaults_are_filled_in(mod, given):
    d = cudaMalloc(32)
    explicit = [d, 3, 1.5, None, 1, 3 << 32, 11, None][:given]
    mod.get_function("k")[1, 1](*explicit)
    want = [3.0, 1.5, -1.0, 1.0, 3.0, 11.0, -2.0][:given - 1] + WANT[given - 1:]
    assert _read(d) == want
    cudaFree(d)


def test_cuda_launch_kernel_and_a_namespace_prototype(mod):
    d = cudaMalloc(32)
    cudaLaunchKernel(mod.get_function("k"), 1, 1, [d])
    assert _read(d) == WANT
    mod.get_function("inner")[1, 1](d)
    assert _read(d, 1) == [9.0]
    cudaFree(d)


def test_too_few_without_a_default_is_invalid_value(mod):
    d = cudaMalloc(4)
    with pytest.raises(CudaError) as e:
        mod.get_function("none")[1, 1](d)
    assert e.value.code == cudaErrorInvalidValue
    assert "takes 2 argument(s) (float*, int), 1 given" in str(e.value)
    with pytest.raises(CudaError) as e:
        mod.get_function("k")[1, 1]()
    assert e.value.code == cudaErrorInvalidValue and "0 given" in str(e.value)
    cudaFree(d)


def test_a_template_kernels_default_is_filled_in_per_instance():
    # the default may name the template's parameters: one helper per instance
    # (more cases: tests/compiler/test_template_defaults.py)
    src = "template <class T> __global__ void t(T *out, T v = T(4)) { out[0] = v; }"
    m = SourceModule(src, name_expressions=["t<float>"])
    d = cudaMalloc(4)
    m.get_function("t<float>")[1, 1](d, np.float32(2))
    assert _read(d, 1) == [2.0]
    m.get_function("t<float>")[1, 1](d)
    assert _read(d, 1) == [4.0]
    cudaFree(d)
