"""Kernel source that is not UTF-8 (a Latin-1 é, byte 0xE9) builds, as with
nvcc and OpenCL drivers: the compiler hands g++ the exact bytes."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_compiler import VECADD, host, module_info, tree, tree_dir  # noqa: E402,F401

from pyemu.compiler import CompileError, compile_source  # noqa: E402
from pyemu.compiler import driver as compiler  # noqa: E402

CUDA = (b"// caf\xe9: a Latin-1 comment\n"
        b"__global__ void k(int *o) { o[threadIdx.x] = 7; if (threadIdx.x == 0) "
        b"printf(\"caf\xe9\\n\"); }\n")
OPENCL = (b"/* caf\xe9: a Latin-1 comment */\n"
          b"__kernel void k(__global int *o) { o[get_global_id(0)] = 9; "
          b"if (get_global_id(0) == 0) printf(\"caf\xe9\\n\"); }\n")


def test_cuda_latin1_source_builds_and_runs(run_cuda):
    r = run_cuda("""
m = SourceModule(SOURCE)
d = cudaMalloc(8 * 4)
m.k[1, 8](d)
out = np.zeros(8, np.int32)
cudaMemcpy(out, d, 8 * 4, cudaMemcpyDeviceToHost)
R["out"] = out.tolist()
""", consts={"SOURCE": CUDA})
    assert r.returncode == 0, r.explain()
    assert r.R["out"] == [7] * 8
    # the string literal keeps its byte 0xE9; device printf writes text to
    # sys.stdout, where a byte that is not UTF-8 shows as U+FFFD
    assert r.out_before_result.splitlines()[0] == "caf\ufffd"


def test_opencl_latin1_source_builds_and_runs(run_cuda):
    r = run_cuda("""
from pyemu.opencl import *
dev = clGetDeviceIDs(clGetPlatformIDs()[0], CL_DEVICE_TYPE_ALL)[0]
ctx = clCreateContext(None, [dev])
q = clCreateCommandQueue(ctx, dev, 0)
p = clCreateProgramWithSource(ctx, [SOURCE[:20], SOURCE[20:]])   # split inside nothing special
clBuildProgram(p)
k = clCreateKernel(p, "k")
buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 8 * 4)
clSetKernelArg(k, 0, buf)
clEnqueueNDRangeKernel(q, k, 1, None, [8], [8])
out = np.zeros(8, np.int32)
clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 8 * 4, out)
clFinish(q)
R["out"] = out.tolist()
R["source_is_the_bytes"] = clGetProgramInfo(p, CL_PROGRAM_SOURCE) == SOURCE
""", consts={"SOURCE": OPENCL})
    assert r.returncode == 0, r.explain()
    assert r.R == {"out": [9] * 8, "source_is_the_bytes": True}
    assert r.out_before_result.splitlines()[0] == "caf\ufffd"


def test_g_plus_plus_gets_the_exact_bytes(tree, monkeypatch):
    seen = []
    real = compiler._run

    def spy(cmd, *a, **kw):
        r = real(cmd, *a, **kw)
        if "-MMD" in cmd:
            with open(os.path.join(kw["cwd"], compiler._TU_NAME), "rb") as f:
                seen.append(f.read())
        return r
    monkeypatch.setattr(compiler, "_run", spy)
    src = b"// \xe9\xff\xfe\x80 bytes that are not UTF-8\n" + VECADD.encode()
    m = compile_source(src)
    assert m.kernel_names == ("vecAdd",) and module_info(m.path)[2].keys() == {"vecAdd"}
    assert len(seen) == 1 and src in seen[0]


def test_str_and_its_utf8_bytes_share_a_key_latin1_does_not(tree):
    text = "// café\n" + VECADD
    a = compile_source(text)
    assert compile_source(text.encode("utf-8")).key == a.key
    assert compile_source(text.encode("latin-1")).key != a.key


def test_diagnostics_point_at_the_users_line(tree):
    src = b"// caf\xe9\n\n__global__ void k(int *p) { nope; }\n"
    with pytest.raises(CompileError) as e:
        compile_source(src, source_name="latin.cu")
    assert "latin.cu:3:" in str(e.value) and "nope" in str(e.value)
    assert "caf\ufffd" in e.value.dump()


def test_source_of_another_type_is_a_type_error(tree):
    with pytest.raises(TypeError, match="str or bytes"):
        compile_source(12)
