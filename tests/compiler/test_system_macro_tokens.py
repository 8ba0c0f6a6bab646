"""A system header's macro expanded in the user's code (NULL of <stddef.h> is
g++'s `__null`, offsetof is `__builtin_offsetof (...)`): g++ -E writes its
tokens between line markers with flag 3 (`# 9 "kernel.cu" 3 4` ... `# 9
"kernel.cu"`).  They are the user's code, so the regions pass
(regions/syntax.py tokenize) keeps them: a block function that lost `NULL`
from `if (p != NULL && ...)` did not compile (RegionsBug under
PYEMU_REGIONS_STRICT=1).  Checked on both paths against NumPy."""
import numpy as np
import pytest

from pyemu.compiler.regions import blocks as _regions
from pyemu.compiler.regions import syntax as S
from pyemu.cuda import (SourceModule, cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy,
                        cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice)
from pyemu.tools.info import kernel_paths

# cuda-samples shfl_scan's guard of partial_sums
SRC = r"""
#include <stdio.h>
#include <stddef.h>
struct pair { int a; int b; };
__global__ void k(int *data, int *partial_sums)
{
    __shared__ int s[256];
    s[threadIdx.x] = data[threadIdx.x];
    __syncthreads();
    int value = s[255 - threadIdx.x] + (int)offsetof(struct pair, b);
    data[threadIdx.x] = value;
    if (partial_sums != NULL && threadIdx.x == blockDim.x - 1) {
        partial_sums[blockIdx.x] = value;
    }
}
"""


def test_marked_macro_tokens_are_kept_and_headers_are_not():
    pre = ('# 1 "kernel.cu"\nint f(int *p) {\n'
           '# 1 "/usr/include/x.h" 1 3 4\nint in_header;\n# 3 "kernel.cu" 2\n'
           'return p != \n# 3 "kernel.cu" 3 4\n__null \n# 3 "kernel.cu"\n&& p[0]; }\n')
    toks = S.tokenize(pre, [])
    text = [t.text for t in toks]
    assert "in_header" not in text
    assert text[text.index("!="):text.index(";") + 1] == ["!=", "__null", "&&", "p", "[", "0",
                                                          "]", ";"]
    assert {t.line for t in toks if t.text == "__null"} == {3}


def _run(mod, with_partial):
    h = np.arange(256, dtype=np.int32)
    d, p = cudaMalloc(h.nbytes), cudaMalloc(4)
    cudaMemcpy(d, h, h.nbytes, cudaMemcpyHostToDevice)
    ps = np.full(1, -1, np.int32)
    cudaMemcpy(p, ps, 4, cudaMemcpyHostToDevice)
    mod.get_function("k")[1, 256](d, p if with_partial else None)
    cudaDeviceSynchronize()
    out = np.empty_like(h)
    cudaMemcpy(out, d, h.nbytes, cudaMemcpyDeviceToHost)
    cudaMemcpy(ps, p, 4, cudaMemcpyDeviceToHost)
    cudaFree(d)
    cudaFree(p)
    return out, ps[0]


@pytest.mark.parametrize("fibers", [False, True], ids=["block-function", "fibers"])
def test_null_guard_on_both_paths(monkeypatch, fibers):
    monkeypatch.setenv(_regions.STRICT_ENV, "1")
    if fibers:
        monkeypatch.setenv(_regions.FORCE_ENV, "1")
    path = kernel_paths(SRC, "cuda")["k"][0]
    assert (path != "block function") if fibers else (path == "block function"), path
    mod = SourceModule(SRC)
    want = np.arange(256, dtype=np.int32)[::-1] + 4
    out, ps = _run(mod, True)
    np.testing.assert_array_equal(out, want)
    assert ps == want[-1]
    out, ps = _run(mod, False)
    np.testing.assert_array_equal(out, want)
    assert ps == -1
