"""The block functions' code goes into the unit without a preprocessor run of
its own (pyemu/compiler/driver.py's _direct_generated): where it names no
header macro but pyemu_tctx, the driver writes pyemu_tctx out itself and
turns each #line into a line marker with flag 3.  Checked against what the
preprocessor makes of the same code (_preprocess_generated): the same tokens
and the same line markers, for CUDA and OpenCL kernels with barriers, warp
shuffles and shared memory; code that names another header macro, or holds
a raw string, takes the preprocessor."""
from __future__ import annotations

import re
import uuid
import numpy as np
import pytest

import pyemu.compiler.driver as d

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

CUDA = r"""
#define TILE 16
__device__ int wsum(int v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  return v;
}
__global__ void k(int *out, const int *in, unsigned n) {
  __shared__ int s[TILE * 16];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0;
  __syncthreads();
  int v = s[(t + 1) % blockDim.x];
  if (t / 32 == 0) v = wsum(v);
  const char *msg = "pyemu_tctx stays in a string";
  if (t == 0 && msg[0] != 'p') out[0] = -1;
  out[i] = v;
}
"""

OPENCL = r"""
__kernel void k(__global int *out, __global const int *in) {
  __local int s[64];
  int t = get_local_id(0);
  s[t] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = s[63 - t] + sub_group_shuffle_down(s[t], 1);
}
"""

_TOK = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|\w+|[^\s\w]')
_MARKERS = {k for m in d._COMPILE_MARKERS.values() for k in m if "(" not in k}


def _tokens(text: str, drop=()) -> list:
    lines = [x for x in text.split("\n")
             if not re.match(r"\s*#\s*(\d|line|pragma (push|pop)_macro)", x)]
    return [t for t in _TOK.findall("\n".join(lines)) if t not in drop]


def _markers(text: str) -> list:
    return [m for m in re.findall(r'^# (\d+ "[^"]*"(?: \d)*)$', text, re.M)]


def _both(monkeypatch, build):
    """(direct, preprocessed) forms of the generated code of one build."""
    got = {}
    direct, pre = d._direct_generated, d._preprocess_generated

    def no_direct(plain, root, markers):
        got["direct"] = direct(plain, root, markers)
        return None          # the build takes the preprocessor, for the comparison

    def preprocess(base, code, tmp, fail):
        got["pre"] = pre(base, code, tmp, fail)
        return got["pre"]
    monkeypatch.setattr(d, "_direct_generated", no_direct)
    monkeypatch.setattr(d, "_preprocess_generated", preprocess)
    build()
    return got["direct"], got["pre"]


def _cuda_build():
    from pyemu.cuda import SourceModule
    SourceModule(CUDA + f"// {uuid.uuid4()}\n")


def _opencl_build():
    import pyemu.opencl as cl
    ctx = cl.clCreateContextFromType(None, cl.CL_DEVICE_TYPE_DEFAULT)
    p = cl.clCreateProgramWithSource(ctx, [OPENCL + f"// {uuid.uuid4()}\n"])
    cl.clBuildProgram(p)


@pytest.mark.parametrize("build", [_cuda_build, _opencl_build], ids=["cuda", "opencl"])
def test_direct_form_has_the_preprocessors_tokens_and_line_markers(monkeypatch, build):
    direct, pre = _both(monkeypatch, build)
    assert direct is not None
    assert "pyemu_tctx" not in _tokens(direct)
    assert _tokens(direct, _MARKERS) == _tokens(pre)
    assert _markers(direct) == _markers(pre)
    assert any(m.endswith(" 3") and "<pyemu-regions>" not in m for m in _markers(direct))
    assert '"pyemu_tctx stays in a string"' in direct or build is _opencl_build


def test_the_direct_form_builds_and_runs():
    from pyemu.cuda import (SourceModule, cudaMalloc, cudaMemcpy, cudaMemcpyDeviceToHost,
                            cudaMemcpyHostToDevice)
    m = SourceModule(CUDA + f"// {uuid.uuid4()}\n")
    n = 256
    x = np.arange(n, dtype=np.int32)
    din, dout = cudaMalloc(4 * n), cudaMalloc(4 * n)
    cudaMemcpy(din, x, 4 * n, cudaMemcpyHostToDevice)
    m.k[2, 128](dout, din, np.uint32(n))
    out = np.empty(n, np.int32)
    cudaMemcpy(out, dout, 4 * n, cudaMemcpyDeviceToHost)
    v = np.concatenate([np.roll(x[b:b + 128], -1) for b in (0, 128)])
    w = v.copy()
    for b in (0, 128):                  # warp 0 of each block: __shfl_down_sync sums
        seg = v[b:b + 32].copy()
        for o in (16, 8, 4, 2, 1):
            seg = seg + np.where(np.arange(32) + o <= 31, np.roll(seg, -o), seg)
        w[b:b + 32] = seg
    assert (out == w).all()


def test_another_header_macro_or_a_raw_string_takes_the_preprocessor():
    root = d._include_root()
    names, tctx = d._header_macros(root)
    assert tctx and "__builtin_thread_pointer" in tctx and "pyemu_tctx" in names
    other = sorted(n for n in names if n.startswith(("pyemu_", "PYEMU_")) and n != "pyemu_tctx")[0]
    ok = "#line 3 \"k.cu\"\nint f() { return pyemu_tctx.threadIdx.x; }\n"
    assert d._direct_generated(ok, root, d._COMPILE_MARKERS["cuda"]) is not None
    assert '# 3 "k.cu" 3' in d._direct_generated(ok, root, d._COMPILE_MARKERS["cuda"])
    assert d._direct_generated(ok + f"int g = {other};\n", root,
                               d._COMPILE_MARKERS["cuda"]) is None
    assert d._direct_generated(ok + 'const char *r = R"(")";\n', root,
                               d._COMPILE_MARKERS["cuda"]) is None
    assert d._direct_generated(ok + "int __pyemu_unknown__;\n", root,
                               d._COMPILE_MARKERS["cuda"]) is None
