"""The block function and the fiber variant of a kernel are written at the
end of the unit (regions/blocks.py), where declarations that follow the
kernel are visible too.  Where one of them gives a name of the kernel a
new meaning (an overload of a function it calls, a using-directive), the
generated code would call something else than the kernel as written: such
a kernel runs as written, on fibers, with the reason recorded
(blocks._declared_later; the names come from the front end,
frontend/parse.py later_names).  Both used to return the later overload's
value.  A function prototyped before the kernel and defined after it is
the same function: the kernel keeps its block function.

Each result against what C++ overload resolution gives at the kernel, on
every path."""
import numpy as np
import pytest

from regions_util import NO_REGIONS, path_of
from pyemu.compiler.regions import blocks as _regions
from pyemu.cuda import SourceModule, cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy, \
    cudaMemcpyDeviceToHost

LATER_OVERLOAD = r"""
__device__ float f(float x) { return 1.0f; }
__global__ void k(float *o) {
    __shared__ float s[64];
    s[threadIdx.x] = f(1);              // f(float): f(int) is not declared yet
    __syncthreads();
    o[threadIdx.x] = s[63 - threadIdx.x];
}
__device__ float f(int x) { return 2.0f; }
"""

LATER_OVERLOAD_NO_BARRIER = r"""
__device__ float f(float x) { return 1.0f; }
__global__ void k(float *o) {
    for (int i = 0; i < 4; i++)
        o[threadIdx.x * 4 + i] = f(i);
}
__device__ float f(int x) { return 2.0f; }
"""

LATER_USING_DIRECTIVE = r"""
namespace other { __device__ float f(int x) { return 2.0f; } }
__device__ float f(float x) { return 1.0f; }
__global__ void k(float *o) {
    __shared__ float s[64];
    s[threadIdx.x] = f(1);
    __syncthreads();
    o[threadIdx.x] = s[63 - threadIdx.x];
}
using namespace other;
"""

LATER_OVERLOAD_IN_INLINED = r"""
__device__ float g(float x) { return 1.0f; }
__device__ void put(float *s) {         // reaches a barrier: inlined into k
    s[threadIdx.x] = g(1);
    __syncthreads();
}
__global__ void k(float *o) {
    __shared__ float s[64];
    put(s);
    o[threadIdx.x] = s[63 - threadIdx.x];
}
__device__ float g(int x) { return 2.0f; }
"""

LATER_VARIABLE_IN_NAMESPACE = r"""
__device__ float x = 1.0f;
namespace a {
__global__ void k(float *o) {
    __shared__ float s[64];
    s[threadIdx.x] = x;                 // ::x; a::x is not declared yet
    __syncthreads();
    o[threadIdx.x] = s[63 - threadIdx.x];
}
}
namespace a { __device__ float x = 2.0f; }
"""

LATER_ENUMERATOR_IN_NAMESPACE = r"""
__device__ float x = 1.0f;
namespace a {
__global__ void k(float *o) {
    __shared__ float s[64];
    s[threadIdx.x] = x;                 // ::x; the enumerator a::x comes later
    __syncthreads();
    o[threadIdx.x] = s[63 - threadIdx.x];
}
}
namespace a { enum { x = 2 }; }
"""

PROTOTYPE_FIRST = r"""
__device__ float f(float x);
__global__ void k(float *o) {
    __shared__ float s[64];
    s[threadIdx.x] = f(1);
    __syncthreads();
    o[threadIdx.x] = s[63 - threadIdx.x];
}
__device__ float f(float x) { return 1.0f; }
"""


def _run(src, n, options=(), name="k"):
    # one block of 64 threads; o holds 256 floats, the first n are read back
    k = SourceModule(src, options=list(options)).get_function(name.split("::")[-1])
    d = cudaMalloc(4 * 256)
    k[1, 64](d)
    cudaDeviceSynchronize()
    h = np.zeros(n, np.float32)
    cudaMemcpy(h, d, 4 * n, cudaMemcpyDeviceToHost)
    cudaFree(d)
    return h


@pytest.mark.parametrize("force", ["0", "1"], ids=["default", "forced-fibers"])
@pytest.mark.parametrize("src,name", [
    (LATER_OVERLOAD, "k"), (LATER_OVERLOAD_NO_BARRIER, "k"), (LATER_USING_DIRECTIVE, "k"),
    (LATER_OVERLOAD_IN_INLINED, "k"), (LATER_VARIABLE_IN_NAMESPACE, "a::k"),
    (LATER_ENUMERATOR_IN_NAMESPACE, "a::k")],
    ids=["overload", "overload-no-barrier", "using-directive", "inlined", "namespace-variable",
         "namespace-enumerator"])
def test_a_later_declaration_does_not_change_what_the_kernel_calls(monkeypatch, src, name, force):
    monkeypatch.setenv(_regions.FORCE_ENV, force)
    monkeypatch.setenv(_regions.STRICT_ENV, "1")
    np.testing.assert_array_equal(_run(src, 64, name=name), np.ones(64, np.float32))
    np.testing.assert_array_equal(_run(src, 64, [NO_REGIONS], name=name), np.ones(64, np.float32))


@pytest.mark.parametrize("src,path,word", [
    (LATER_OVERLOAD, "fibers", "'f' is declared anew after the kernel"),
    (LATER_OVERLOAD_NO_BARRIER, "plain loop", "'f' is declared anew after the kernel"),
    (LATER_USING_DIRECTIVE, "fibers", "a using-directive after the kernel"),
    (LATER_OVERLOAD_IN_INLINED, "fibers", "'g' is declared anew after the kernel"),
    (LATER_VARIABLE_IN_NAMESPACE, "fibers", "'x' is declared anew after the kernel"),
    (LATER_ENUMERATOR_IN_NAMESPACE, "fibers", "'x' is declared anew after the kernel"),
], ids=["overload", "overload-no-barrier", "using-directive", "inlined", "namespace-variable",
        "namespace-enumerator"])
def test_the_kernel_runs_as_written_and_says_why(src, path, word):
    from regions_util import blocks
    b = blocks(src, implicit=True)
    q = "a::k" if "namespace a" in src else "k"
    assert b.paths[q][0] == path
    assert word in b.paths[q][1]
    assert q not in b.kernels


def test_a_function_prototyped_before_and_defined_after_keeps_the_block_function(monkeypatch):
    monkeypatch.setenv(_regions.STRICT_ENV, "1")
    assert path_of(PROTOTYPE_FIRST, "k") == "block function"
    np.testing.assert_array_equal(_run(PROTOTYPE_FIRST, 64), np.ones(64, np.float32))


def test_a_later_kernel_of_the_same_name_in_another_namespace_changes_nothing():
    src = ("namespace a { __global__ void k(float *o) { __shared__ float s[4]; "
           "s[threadIdx.x] = 1; __syncthreads(); o[threadIdx.x] = s[3 - threadIdx.x]; } }\n"
           "namespace b { __global__ void k(float *o) { o[threadIdx.x] = 2; } }\n")
    from regions_util import blocks
    assert blocks(src, implicit=True).paths["a::k"][0] == "block function"
