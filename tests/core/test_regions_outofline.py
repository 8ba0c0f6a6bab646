"""Issue 10: a kernel of a namespace defined outside it (`__global__ void
ns::k(...) {...}`, a template too) gets a block function like any kernel.

The block function goes in the kernel's own namespace (reopened by name
after the user's source), so that the names in its body mean what they mean
in the kernel (ns's before the global ones); an explicit specialization of
a kernel template keeps the template off the block function (its generic
body would run for the specialized arguments).  Results against NumPy on
both paths (block function, and the fibers with -DPYEMU_NO_REGIONS)."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from regions_util import NO_REGIONS, blocks, managed, path_of  # noqa: F401  (managed: a fixture)
from pyemu.compiler.regions import blocks as _regions
from pyemu.cuda import SourceModule, cudaDeviceSynchronize


def both(src, name, qualified, **kw):
    """Kernel `name` (entry name) compiled with and without block functions,
    its kernel `qualified` asserted to have one."""
    m = SourceModule(src, **kw)
    f = SourceModule(src, options=[NO_REGIONS], **kw)
    assert path_of(src, qualified) == "block function"
    assert name in m.compiled.block_kernels and f.compiled.block_kernels == ()
    return m.get_function(name), f.get_function(name)

# ns::scale and the global scale differ: the block function must call ns's
OUT_OF_LINE = r"""
__device__ int scale() { return 100; }
namespace ns {
__device__ int scale() { return 3; }
__global__ void rev(int *a);
}
__global__ void ns::rev(int *a) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = a[blockIdx.x * 64 + t];
    __syncthreads();
    a[blockIdx.x * 64 + t] = s[63 - t] * scale();
}
"""


def test_out_of_line_kernel_with_barrier_gets_a_block_function_grid_4(managed):
    k, fib = both(OUT_OF_LINE, "rev", "ns::rev")
    data = np.arange(256, dtype=np.int32)
    want = data.reshape(4, 64)[:, ::-1].ravel() * 3
    for fn in (k, fib):
        a = managed(data)
        fn[4, 64](a)
        cudaDeviceSynchronize()
        assert np.array_equal(a, want)
    b = blocks(OUT_OF_LINE, implicit=True)
    assert b.paths["ns::rev"] == ("block function", "")
    assert b.kernels["ns::rev"] == "ns::pyemu_rg_rev"
    assert "namespace ns {" in b.text


NESTED = r"""
namespace a {
namespace b { __global__ void shift(int *o, int n); }
__global__ void b::shift(int *o, int n) {
    __shared__ int s[32];
    s[threadIdx.x] = threadIdx.x + n;
    __syncthreads();
    o[threadIdx.x] = s[(threadIdx.x + 1) % 32];
}
}
namespace { namespace in { __global__ void twice(int *o); } }
__global__ void in::twice(int *o) {
    __shared__ int s[32];
    s[threadIdx.x] = 2 * threadIdx.x;
    __syncthreads();
    o[threadIdx.x] = s[31 - threadIdx.x];
}
"""


def test_out_of_line_in_nested_and_unnamed_namespaces_block_32(managed):
    m = SourceModule(NESTED)
    assert set(m.compiled.block_kernels) == {"shift", "twice"}
    assert set(m.kernel_names) == {"shift", "twice"}
    b = blocks(NESTED, implicit=True)
    assert b.paths["a::b::shift"][0] == b.paths["in::twice"][0] == "block function"
    t = np.arange(32)
    for name, args, want in (("shift", (np.int32(5),), (t + 1) % 32 + 5),
                             ("twice", (), 2 * (31 - t))):
        for mod in (m, SourceModule(NESTED, options=[NO_REGIONS])):
            out = managed(np.zeros(32, np.int32))
            mod.get_function(name)[1, 32](out, *args)
            cudaDeviceSynchronize()
            assert np.array_equal(out, want), name


TEMPLATE = r"""
namespace ns { template <int N> __global__ void mirror(float *a); }
template <int N> __global__ void ns::mirror(float *a) {
    __shared__ float s[N];
    int t = threadIdx.x;
    s[t] = a[t];
    __syncthreads();
    a[t] = s[N - 1 - t] * 2.0f;
}
"""


@pytest.mark.parametrize("n", [32, 64])
def test_out_of_line_template_kernel_block_function(managed, n):
    name = f"ns::mirror<{n}>"
    k, fib = both(TEMPLATE, name, "ns::mirror", name_expressions=[name])
    data = np.arange(n, dtype=np.float32) * 0.5
    for fn in (k, fib):
        a = managed(data)
        fn[1, n](a)
        cudaDeviceSynchronize()
        np.testing.assert_array_equal(a, data[::-1] * 2)


SPECIALIZED = TEMPLATE + r"""
template <> __global__ void ns::mirror<8>(float *a) {
    __shared__ float s[8];
    s[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    a[threadIdx.x] = s[threadIdx.x] + 1.0f;
}
"""


def test_explicit_specialization_out_of_line_keeps_its_own_body(managed):
    # the generic block function would compute the mirror for <8> too
    m = SourceModule(SPECIALIZED, name_expressions=["ns::mirror<8>", "ns::mirror<32>"])
    assert "ns::mirror<8>" not in m.compiled.block_kernels
    assert path_of(SPECIALIZED, "ns::mirror") != "block function"
    for n, want in ((8, lambda d: d + 1), (32, lambda d: d[::-1] * 2)):
        data = np.arange(n, dtype=np.float32)
        a = managed(data)
        m.get_function(f"ns::mirror<{n}>")[1, n](a)
        cudaDeviceSynchronize()
        np.testing.assert_array_equal(a, want(data))


def test_debug_paths_and_info_name_the_out_of_line_kernel(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(_regions.DEBUG_ENV, "1")
    blocks(OUT_OF_LINE, implicit=True)
    assert "pyemu: kernel ns::rev: block function" in capsys.readouterr().err
    f = tmp_path / "ool.cu"
    f.write_text(OUT_OF_LINE)
    root = Path(_regions.__file__).resolve().parents[3]     # the checkout's pyemu
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root)] + sys.path))
    r = subprocess.run([sys.executable, "-m", "pyemu", "info", "--kernel", str(f)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "rev: block function" in r.stdout
