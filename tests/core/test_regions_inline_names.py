"""Inlining a device function that reaches a barrier (regions/inline.py)
copies its body into the kernel, its own names renamed; the names it takes
from outside must mean there what they mean in the function, else the
kernel keeps the fiber path (these computed something else before):

* a global the function reads that a local of the kernel shadows;
* a function of another namespace (called through `using a::f;`), whose
  body's names are looked up in that namespace;
* a function that declares a type (not renamed: the kernel's from the call on).

Each result against NumPy, on the path the kernel takes and on fibers."""
import numpy as np
import pytest

from regions_util import NO_REGIONS, managed, path_of  # noqa: F401  (managed: a fixture)
from pyemu.cuda import SourceModule, cudaDeviceSynchronize

SHADOWED = r"""
__device__ int scale = 3;
__device__ void f(int *s) {
    s[threadIdx.x] *= scale;            // the global: 3
    __syncthreads();
}
__global__ void k(int *o) {
    __shared__ int s[32];
    int scale = 100;                    // the kernel's own
    s[threadIdx.x] = threadIdx.x;
    f(s);
    o[threadIdx.x] = s[31 - threadIdx.x] + scale;
}
"""

OTHER_NAMESPACE = r"""
namespace a {
__device__ int g() { return 3; }
__device__ void h(int *s) { s[threadIdx.x] *= g(); __syncthreads(); }   // a::g
}
__device__ int g() { return 100; }
using a::h;
__global__ void k(int *o) {
    __shared__ int s[32];
    s[threadIdx.x] = threadIdx.x;
    h(s);
    o[threadIdx.x] = s[31 - threadIdx.x];
}
"""

SAME_NAMESPACE = r"""
namespace a {
__device__ int g() { return 3; }
__device__ void h(int *s) { s[threadIdx.x] *= g(); __syncthreads(); }
__global__ void k(int *o) {
    __shared__ int s[32];
    s[threadIdx.x] = threadIdx.x;
    h(s);
    o[threadIdx.x] = s[31 - threadIdx.x];
}
}
"""

DECLARES_A_TYPE = r"""
__device__ void f(int *s) {
    typedef int T;
    T v = 2;
    s[threadIdx.x] *= v;
    __syncthreads();
}
__global__ void k(int *o) {
    __shared__ int s[32];
    s[threadIdx.x] = threadIdx.x;
    if (true) {
        f(s);
    }
    o[threadIdx.x] = s[31 - threadIdx.x];
}
"""

T = np.arange(32)


@pytest.mark.parametrize("src,kernel,want,path", [
    (SHADOWED, "k", (31 - T) * 3 + 100, "fiber variant"),
    (OTHER_NAMESPACE, "k", (31 - T) * 3, "fiber variant"),
    (SAME_NAMESPACE, "a::k", (31 - T) * 3, "block function"),     # inlined: same lookups
    (DECLARES_A_TYPE, "k", (31 - T) * 2, "fiber variant"),
], ids=["shadowed-global", "other-namespace", "same-namespace", "declares-a-type"])
def test_inlined_names_mean_what_they_mean_in_the_function(managed, monkeypatch, src, kernel,
                                                          want, path):
    monkeypatch.setenv("PYEMU_REGIONS_STRICT", "1")
    assert path_of(src, kernel) == path
    for opts in ([], [NO_REGIONS]):
        out = managed(np.zeros(32, np.int32))
        SourceModule(src, options=opts).get_function("k")[1, 32](out)
        cudaDeviceSynchronize()
        assert np.array_equal(out, want), opts
