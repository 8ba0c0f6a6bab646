"""pyemu.tools.terms: the CUDA/OpenCL tables, their host functions, and `python -m pyemu terms`."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import pyemu.cuda
import pyemu.opencl
from pyemu.tools import terms
from pyemu.tools.cli import main as cli_main

FACADES = [("cuda", pyemu.cuda, terms.NOT_IN_PYEMU_CUDA),
           ("opencl", pyemu.opencl, terms.NOT_IN_PYEMU_OPENCL)]


def _resolve(module, dotted):
    obj = module
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def _named(side):
    return sorted({n for t in terms.TABLES for r in t.rows
                   for n in getattr(r, f"{side}_calls", ())})


@pytest.mark.parametrize("side,module,missing", FACADES, ids=[f[0] for f in FACADES])
def test_every_host_function_exists_in_its_facade(side, module, missing):
    absent = []
    for name in _named(side):
        if name in missing:
            continue
        try:
            obj = _resolve(module, name)
        except AttributeError:
            absent.append(name)
            continue
        assert callable(obj), f"pyemu.{side}.{name} is not callable"
        if name in module.__all__ or "." in name:
            continue
        absent.append(f"{name} (not in __all__, so `from pyemu.{side} import *` misses it)")
    assert not absent, f"named in pyemu.terms but missing from pyemu.{side}: {absent}"


@pytest.mark.parametrize("side,module,missing", FACADES, ids=[f[0] for f in FACADES])
def test_not_yet_lists_are_current(side, module, missing):
    # a name listed as missing must really be missing, and named in a row:
    # when the facade gains it, the list (and the "(*)" marks) must shrink.
    named = set(_named(side))
    for name in missing:
        assert name in named, f"{name} is listed as missing but named in no row"
        with pytest.raises(AttributeError):
            _resolve(module, name)


def test_opencl_host_rows_name_cl_calls_and_cuda_rows_cuda_names():
    for row in terms.table("host").rows + terms.table("textures").rows:
        assert all(n.startswith("cl") or n == "CLError" for n in row.opencl_calls), row
        assert all(n.startswith(("cuda", "SourceModule", "CudaError", "make_cuda"))
                   for n in row.cuda_calls), row


# The pairs the issue asks for, table by table (CUDA term, OpenCL term).
REQUIRED = {
    "execution": [("thread", "work-item"), ("thread block", "work-group"), ("grid", "NDRange"),
                  ("warp", "sub-group")],
    "memory": [("global (device) memory", "global memory"), ("constant memory", "constant memory"),
               ("shared memory", "local memory"), ("local memory", "private memory")],
    "qualifiers": [("__global__", "__kernel"), ("__device__", "(none)"),
                   ("__shared__", "__local"), ("__constant__", "__constant")],
    "indexing": [("gridDim", "get_num_groups"), ("blockDim", "get_local_size"),
                 ("blockIdx", "get_group_id"), ("threadIdx", "get_local_id"),
                 ("blockIdx.x * blockDim.x + threadIdx.x", "get_global_id"),
                 ("gridDim.x * blockDim.x", "get_global_size")],
    "sync": [("__syncthreads", "barrier"), ("atomicAdd", "atomic_add"),
             ("atomicCAS", "atomic_cmpxchg")],
    "host": [("cudaMalloc", "clCreateBuffer"), ("cudaMemcpy", "clEnqueueWriteBuffer"),
             ("cudaMemcpy", "clEnqueueReadBuffer"), ("cudaLaunchKernel", "clEnqueueNDRangeKernel"),
             ("cudaDeviceSynchronize", "clFinish"), ("stream", "command queue"),
             ("event", "event")],
    "textures": [("texture object", "image"), ("texture reference", "(none"),
                 ("cudaTextureDesc", "sampler_t"), ("CUDA array", "image"),
                 ("surface object", "write_image"), ("__constant__ variable + cudaMemcpyToSymbol",
                                                     "__constant argument or program-scope"),
                 ("pitch (cudaMallocPitch)", "row pitch"),
                 ("cudaMemcpy2D / cudaMemcpy3D", "BufferRect"),
                 ("tex2D", "read_imagef")],
}


@pytest.mark.parametrize("name", list(REQUIRED))
def test_required_pairs_are_in_the_table(name):
    rows = terms.table(name).rows
    for cuda, opencl in REQUIRED[name]:
        assert any(cuda in r.cuda and opencl in r.opencl for r in rows), (cuda, opencl)


def test_rows_are_complete_one_line_and_unique():
    assert [t.name for t in terms.TABLES] == list(REQUIRED)
    for t in terms.TABLES:
        assert t.rows
        pairs = [(r.cuda, r.opencl) for r in t.rows]
        assert len(pairs) == len(set(pairs)), t.name
        for r in t.rows:
            for text in (r.cuda, r.opencl, r.note):
                assert text.strip() and "\n" not in text, r
            assert isinstance(r, terms.HostCall) == (t.name in ("host", "textures")), r


def test_table_rejects_unknown_name():
    with pytest.raises(KeyError, match="execution, memory"):
        terms.table("nope")


def test_cli_terms_prints_every_row(capsys):
    assert cli_main(["terms"]) == 0
    out = capsys.readouterr().out
    for t in terms.TABLES:
        assert t.title in out.splitlines()
        for r in t.rows:
            line = next((l for l in out.splitlines() if l.startswith(r.cuda + " ")), None)
            assert line is not None and r.opencl in line and r.note in line, r


def test_cli_terms_one_table_markdown(capsys):
    assert cli_main(["terms", "--markdown", "host"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "### Host API"
    assert lines[2] == "| CUDA | OpenCL | pyemu.cuda | pyemu.opencl | note |"
    rows = [l for l in lines[4:] if l.startswith("| ")]
    assert len(rows) == len(terms.table("host").rows)
    assert any(l.startswith("| cudaMalloc | clCreateBuffer | cudaMalloc | clCreateBuffer, "
                            "clCreateSubBuffer |") for l in rows)
    assert not any("Indexing" in l for l in lines)


def test_cli_terms_textures_markdown_names_the_calls(capsys):
    assert cli_main(["terms", "--markdown", "textures"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "### Textures, images, constant and pitched memory"
    assert lines[2] == "| CUDA | OpenCL | pyemu.cuda | pyemu.opencl | note |"
    rows = [l for l in lines[4:] if l.startswith("| ")]
    assert len(rows) == len(terms.table("textures").rows)
    row = next(l for l in rows if l.startswith("| cudaTextureDesc"))
    assert "clCreateSampler, clCreateSamplerWithProperties" in row
    row = next(l for l in rows if l.startswith("| pitch (cudaMallocPitch)"))
    assert "cudaMallocPitch, cudaMalloc3D" in row


def test_pitch_row_means_the_same_bytes():
    """The pitch row, run: a cudaMallocPitch rectangle copied with cudaMemcpy2D
    and a buffer rectangle copied with clEnqueueReadBufferRect at that row
    pitch pick the same bytes of the same host layout."""
    import pyemu.cuda as cu
    import pyemu.opencl as cl
    w, h = 5, 3
    src = np.arange(64 * h, dtype=np.float32).reshape(h, 64)
    d, pitch = cu.cudaMallocPitch(w * 4, h)
    cu.cudaMemcpy2D(d, pitch, src, 256, w * 4, h, cu.cudaMemcpyHostToDevice)
    got_cuda = np.zeros((h, w), np.float32)
    cu.cudaMemcpy2D(got_cuda, w * 4, d, pitch, w * 4, h, cu.cudaMemcpyDeviceToHost)
    cu.cudaFree(d)
    device = cl.clGetDeviceIDs(cl.clGetPlatformIDs()[0], cl.CL_DEVICE_TYPE_GPU)[0]
    ctx = cl.clCreateContext(None, [device])
    q = cl.clCreateCommandQueue(ctx, device, 0)
    buf = cl.clCreateBuffer(ctx, cl.CL_MEM_COPY_HOST_PTR, src.nbytes, src)
    got_cl = np.zeros((h, w), np.float32)
    cl.clEnqueueReadBufferRect(q, buf, cl.CL_TRUE, (0, 0, 0), (0, 0, 0), (w * 4, h, 1), 256, 0,
                               w * 4, 0, got_cl)
    np.testing.assert_array_equal(got_cuda, src[:, :w])
    np.testing.assert_array_equal(got_cl, src[:, :w])


def test_cli_terms_unknown_table(capsys):
    assert cli_main(["terms", "nope"]) == 2
    assert "no table 'nope'" in capsys.readouterr().err


def test_python_m_pyemu_terms():
    proc = subprocess.run([sys.executable, "-m", "pyemu", "terms", "sync"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "__syncthreads()" in proc.stdout and "barrier(CLK_LOCAL_MEM_FENCE)" in proc.stdout


# --- the indexing table, run: each row's CUDA expression and OpenCL call give
# the same value in every thread, for each dimension, on a 3-D launch --------

GRID, BLOCK = (3, 2, 2), (4, 2, 3)


def _index_rows():
    rows = [r for r in terms.table("indexing").rows if r.opencl.endswith("(0)")
            and not r.cuda.startswith("(")]
    assert len(rows) == 6
    return rows


def _expected(rows):
    """What each expression is for each thread, the threads in launch order."""
    out = []
    for bz, by, bx in np.ndindex(*GRID[::-1]):
        for tz, ty, tx in np.ndindex(*BLOCK[::-1]):
            values = {"blockIdx": (bx, by, bz), "threadIdx": (tx, ty, tz),
                      "blockDim": BLOCK, "gridDim": GRID}
            for r in rows:
                for d, axis in enumerate("xyz"):
                    expr = r.cuda.replace(".x", f"[{d}]")
                    out.append(eval(expr, {}, values))
    return np.array(out, dtype=np.uint32)


def _body(rows, dialect):
    lines = []
    for r in rows:
        for d, axis in enumerate("xyz"):
            expr = r.cuda.replace(".x", f".{axis}") if dialect == "cuda" else \
                r.opencl.replace("(0)", f"({d})")
            lines.append(f"out[t * K + {len(lines)}] = (unsigned int)({expr});")
    return "\n    ".join(lines)


def test_indexing_rows_agree_when_run():
    import pyemu.opencl as cl
    rows = _index_rows()
    k = 3 * len(rows)
    expected = _expected(rows)
    n = expected.size

    cu_src = f"""#define K {k}
__global__ void idx(unsigned int *out) {{
    unsigned int t = ((blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x)
                     * (blockDim.x * blockDim.y * blockDim.z)
                     + (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    {_body(rows, "cuda")}
}}"""
    kern = pyemu.cuda.SourceModule(cu_src).get_function("idx")
    d_out = pyemu.cuda.cudaMalloc(4 * n)
    kern[GRID, BLOCK](d_out)
    got_cuda = np.empty(n, np.uint32)
    pyemu.cuda.cudaMemcpy(got_cuda, d_out, 4 * n, pyemu.cuda.cudaMemcpyDeviceToHost)
    pyemu.cuda.cudaFree(d_out)

    cl_src = f"""#define K {k}
__kernel void idx(__global unsigned int *out) {{
    size_t t = ((get_group_id(2) * get_num_groups(1) + get_group_id(1)) * get_num_groups(0)
                + get_group_id(0)) * (get_local_size(0) * get_local_size(1) * get_local_size(2))
               + (get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0)
               + get_local_id(0);
    {_body(rows, "opencl")}
}}"""
    device = cl.clGetDeviceIDs(cl.clGetPlatformIDs()[0], cl.CL_DEVICE_TYPE_GPU)[0]
    ctx = cl.clCreateContext(None, [device])
    queue = cl.clCreateCommandQueue(ctx, device, 0)
    program = cl.clCreateProgramWithSource(ctx, [cl_src])
    cl.clBuildProgram(program)
    kernel = cl.clCreateKernel(program, "idx")
    buf = cl.clCreateBuffer(ctx, cl.CL_MEM_WRITE_ONLY, 4 * n)
    cl.clSetKernelArg(kernel, 0, buf)
    cl.clEnqueueNDRangeKernel(queue, kernel, 3, None, [g * b for g, b in zip(GRID, BLOCK)],
                              list(BLOCK))
    got_opencl = np.empty(n, np.uint32)
    cl.clEnqueueReadBuffer(queue, buf, cl.CL_TRUE, 0, 4 * n, got_opencl)

    assert np.array_equal(got_cuda, expected)
    assert np.array_equal(got_opencl, expected)
