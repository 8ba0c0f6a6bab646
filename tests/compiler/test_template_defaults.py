"""C++ default arguments of kernel templates' parameters, filled in at launch
per instance (name expression), as nvcc's <<<>>> does: the default's text may
use the template's parameters and names of the kernel's namespace
(compiler/driver.py's _template_default_helpers).  A default that is
ill-formed for an instance (C++ instantiates it only where a call uses it)
builds, and a launch that leaves that parameter out fails with
cudaErrorInvalidValue while one that passes it runs."""
import numpy as np
import pytest

from pyemu.cuda import (KernelArgumentError, SourceModule, cudaDeviceSynchronize, cudaFree,
                        cudaMalloc, cudaMemcpy, cudaMemcpyDeviceToHost, cudaMemset)
from pyemu.cuda import cudaErrorInvalidValue

SRC = r"""
namespace ns {
const int base = 100;
template <class T, int N = 3>
__global__ void fill(T *p, T v = T(7) + N + base, int n = 4, const T *src = nullptr) {
    if (threadIdx.x < n) p[threadIdx.x] = src ? src[threadIdx.x] : v;
}
}
template <class T> __global__ void needs_zero(T *p, T v = T::zero()) { p[threadIdx.x] = v; }
__global__ void plain(int *p, int v = 5) { p[threadIdx.x] = v; }
"""
NAMES = ["ns::fill<int>", "ns::fill<float, 5>", "ns::fill<short, -1>", "needs_zero<int>"]


@pytest.fixture(scope="module")
def mod():
    return SourceModule(SRC, name_expressions=NAMES)


def _launch(mod, name, dtype, *args):
    d = cudaMalloc(8 * np.dtype(dtype).itemsize)
    cudaMemset(d, 0, 8 * np.dtype(dtype).itemsize)
    mod.get_function(name)[1, 8](d, *args)
    cudaDeviceSynchronize()
    out = np.zeros(8, dtype)
    cudaMemcpy(out, d, out.nbytes, cudaMemcpyDeviceToHost)
    cudaFree(d)
    return out


@pytest.mark.parametrize("name,dtype,value", [("ns::fill<int>", np.int32, 110),
                                              ("ns::fill<float, 5>", np.float32, 112),
                                              ("ns::fill<short, -1>", np.int16, 106)])
def test_defaults_of_each_instance(mod, name, dtype, value):
    want = np.array([value] * 4 + [0] * 4, dtype)
    np.testing.assert_array_equal(_launch(mod, name, dtype), want)


def test_some_passed_the_rest_defaulted(mod):
    np.testing.assert_array_equal(_launch(mod, "ns::fill<int>", np.int32, np.int32(9)),
                                  [9] * 4 + [0] * 4)
    np.testing.assert_array_equal(
        _launch(mod, "ns::fill<int>", np.int32, np.int32(9), np.int32(6)), [9] * 6 + [0] * 2)


def test_plain_kernel_defaults_still_work(mod):
    np.testing.assert_array_equal(_launch(mod, "plain", np.int32), [5] * 8)


def test_a_default_ill_formed_for_the_instance_must_be_passed(mod):
    with pytest.raises(KernelArgumentError) as e:
        _launch(mod, "needs_zero<int>", np.int32)
    assert int(e.value.code) == int(cudaErrorInvalidValue)
    assert "needs_zero<int> takes 2 argument(s)" in str(e.value)
    assert "default argument of parameter 2 (int) is ill-formed for this instance" in str(e.value)
    np.testing.assert_array_equal(_launch(mod, "needs_zero<int>", np.int32, np.int32(3)), [3] * 8)
