"""The programs of examples/opencl: each runs and verifies itself, and each
CUDA/OpenCL pair gives identical results on the same inputs.

  * every example runs as a program (a subprocess with this interpreter), at
    a small size and at its default size, and must exit 0 and print its
    success line;
  * examples/cuda/X.py and examples/opencl/X.py are imported in-process and
    their kernels run on the same inputs through pyemu.cuda and pyemu.opencl:
    the outputs must be equal element for element (and match NumPy);
  * a wrong kernel with the right signature makes a program fail.
"""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pyemu.cuda as cuda
from pyemu import opencl as cl

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

# program, small-size arguments, success line
PROGRAMS = [
    ("vector_add.py", ["4096"], "Test PASSED"),
    ("matmul_tiled.py", ["128"], "Test PASSED"),
    ("reduction.py", ["100003"], "Test PASSED"),          # last work-group padded with 0
    ("histogram.py", ["1000000"], "Test PASSED"),
    ("transpose.py", ["256"], "Test passed"),
    ("image_rotate.py", ["64"], "Test PASSED"),
    ("subgroup_reduce.py", ["100003"], "Test PASSED"),   # last work-group padded with 0
]
PAIRED = ["matmul_tiled", "reduction", "histogram", "transpose"]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def _run(program, args, timeout):
    return subprocess.run([sys.executable, str(EXAMPLES / "opencl" / program), *args],
                          capture_output=True, text=True, timeout=timeout,
                          env=_env(), cwd=str(ROOT))


def test_every_example_is_listed():
    on_disk = {p.name for p in (EXAMPLES / "opencl").glob("*.py")}
    assert on_disk == {p for p, _, _ in PROGRAMS}
    readme = (EXAMPLES / "opencl" / "README.md").read_text()
    for program in on_disk:
        assert f"`{program}`" in readme, program
    for name in PAIRED:                      # every OpenCL form has its CUDA original
        assert (EXAMPLES / "cuda" / f"{name}.py").is_file(), name


@pytest.mark.parametrize("program,args,success", PROGRAMS, ids=[p for p, _, _ in PROGRAMS])
def test_example_runs(program, args, success):
    proc = _run(program, args, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert success in proc.stdout.splitlines(), proc.stdout


@pytest.mark.parametrize("program,args,success", PROGRAMS, ids=[p for p, _, _ in PROGRAMS])
def test_example_runs_full_size(program, args, success):
    proc = _run(program, [], timeout=1800)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert success in proc.stdout.splitlines(), proc.stdout


def test_vector_add_refuses_a_size_that_is_not_whole_work_groups():
    proc = _run("vector_add.py", ["1000"], timeout=120)
    assert proc.returncode == 2
    assert "multiple of workGroupSize" in proc.stdout


# ------------------------------------------------------------------ in-process

_loaded = {}


def example(dialect, name):
    """Import examples/<dialect>/<name>.py (building its kernels) once per session."""
    key = (dialect, name)
    if key not in _loaded:
        spec = importlib.util.spec_from_file_location(f"pyemu_{dialect}_example_{name}",
                                                      EXAMPLES / dialect / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loaded[key] = module
    return _loaded[key]


def cu_to_device(host):
    d = cuda.cudaMalloc(max(host.nbytes, 1))
    cuda.cudaMemcpy(d, host, host.nbytes, cuda.cudaMemcpyHostToDevice)
    return d


def cu_from_device(d, like):
    out = np.empty_like(like)
    cuda.cudaMemcpy(out, d, out.nbytes, cuda.cudaMemcpyDeviceToHost)
    return out


def cl_to_device(ex, host):
    return cl.clCreateBuffer(ex.context, cl.CL_MEM_READ_WRITE | cl.CL_MEM_COPY_HOST_PTR,
                             max(host.nbytes, 1), host)


def cl_from_device(ex, buf, like):
    out = np.empty_like(like)
    cl.clEnqueueReadBuffer(ex.commandQueue, buf, cl.CL_TRUE, 0, out.nbytes, out)
    return out


def cl_launch(ex, kernel, args, global_size, local_size):
    for i, a in enumerate(args):
        cl.clSetKernelArg(kernel, i, a)
    cl.clEnqueueNDRangeKernel(ex.commandQueue, kernel, len(global_size), None,
                              global_size, local_size)


@pytest.mark.parametrize("Width", [16, 48, 64])
def test_pair_matmul_tiled(Width):
    cu, ocl = example("cuda", "matmul_tiled"), example("opencl", "matmul_tiled")
    rng = np.random.default_rng(Width)
    M = rng.random((Width, Width), dtype=np.float32)
    N = rng.random((Width, Width), dtype=np.float32)
    P_cuda, P_opencl = np.empty_like(M), np.full_like(M, np.nan)
    cu.MatrixMulOnDevice(M, N, P_cuda, Width)
    ocl.MatrixMulOnDevice(M, N, P_opencl, Width)
    assert np.allclose(P_opencl, M.astype(np.float64) @ N, rtol=1e-5)
    assert np.array_equal(P_cuda, P_opencl)          # same sums in the same order


@pytest.mark.parametrize("N", [1, 255, 256, 100003])
def test_pair_reduction(N):
    cu, ocl = example("cuda", "reduction"), example("opencl", "reduction")
    values = np.random.default_rng(N).integers(-1000, 1000, N, dtype=np.int32)
    start = np.array([1000], dtype=np.int32)           # not zeroed: the kernel adds to it
    nblocks = (N + cu.blocksize - 1) // cu.blocksize

    d_in, d_total = cu_to_device(values), cu_to_device(start)
    cu.plus_reduce[nblocks, cu.blocksize](d_in, N, d_total)
    total_cuda = cu_from_device(d_total, start)
    cuda.cudaFree(d_in); cuda.cudaFree(d_total)

    b_in, b_total = cl_to_device(ocl, values), cl_to_device(ocl, start)
    cl_launch(ocl, ocl.plus_reduce, [b_in, np.uint32(N), b_total],
              [nblocks * ocl.blocksize], [ocl.blocksize])
    total_opencl = cl_from_device(ocl, b_total, start)
    cl.clReleaseMemObject(b_in); cl.clReleaseMemObject(b_total)

    assert total_opencl[0] == 1000 + int(values.sum())
    assert total_cuda[0] == total_opencl[0]


@pytest.mark.parametrize("size,groups", [(1, 1), (4099, 6), (200_000, 8)])
def test_pair_histogram(size, groups):
    cu, ocl = example("cuda", "histogram"), example("opencl", "histogram")
    data = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8)
    data[::7] = 42                                       # one contended bin
    zero = np.zeros(256, dtype=np.uint32)
    results = {}
    for label, cu_kernel, cl_kernel in (("atomic", cu.histo_kernel, ocl.histo_kernel),
                                        ("racy", cu.histo_kernel_no_atomics,
                                         ocl.histo_kernel_no_atomics)):
        d_buf, d_histo = cu_to_device(data), cu_to_device(zero)
        cu_kernel[groups, 256](d_buf, size, d_histo)
        h_cuda = cu_from_device(d_histo, zero)
        cuda.cudaFree(d_buf); cuda.cudaFree(d_histo)

        b_buf, b_histo = cl_to_device(ocl, data), cl_to_device(ocl, zero)
        cl_launch(ocl, cl_kernel, [b_buf, np.int64(size), b_histo], [groups * 256], [256])
        h_opencl = cl_from_device(ocl, b_histo, zero)
        cl.clReleaseMemObject(b_buf); cl.clReleaseMemObject(b_histo)
        results[label] = (h_cuda, h_opencl)

    reference = np.bincount(data, minlength=256)
    h_cuda, h_opencl = results["atomic"]
    assert np.array_equal(h_opencl, reference)
    assert np.array_equal(h_cuda, h_opencl)
    for h in results["racy"]:                 # lost updates are allowed, extra ones are not
        assert 0 < h.sum() <= size and np.all(h <= reference)


@pytest.mark.parametrize("width,height", [(32, 32), (96, 64), (64, 128)])
def test_pair_transpose(width, height):
    cu, ocl = example("cuda", "transpose"), example("opencl", "transpose")
    assert [n for n, _ in cu.kernels] == [n for n, _ in ocl.kernels]
    idata = np.random.default_rng(width * height).random(width * height, dtype=np.float32)
    gold = idata.reshape(height, width).T.reshape(-1)
    nbytes = idata.nbytes
    d_idata, d_odata = cu_to_device(idata), cuda.cudaMalloc(nbytes)
    b_idata = cl_to_device(ocl, idata)
    b_odata = cl.clCreateBuffer(ocl.context, cl.CL_MEM_WRITE_ONLY, nbytes)
    grid = cuda.dim3(width // cu.TILE_DIM, height // cu.TILE_DIM)
    threads = cuda.dim3(cu.TILE_DIM, cu.BLOCK_ROWS)
    try:
        for (name, cu_kernel), (_, cl_kernel) in zip(cu.kernels, ocl.kernels):
            cuda.cudaMemset(d_odata, 0, nbytes)
            cu_kernel[grid, threads](d_odata, d_idata, width, height, 1)
            out_cuda = cu_from_device(d_odata, idata)
            ocl.run_transpose(cl_kernel, b_odata, b_idata, width, height, nbytes)
            out_opencl = cl_from_device(ocl, b_odata, idata)
            assert np.array_equal(out_opencl, gold), name
            assert np.array_equal(out_cuda, out_opencl), name
    finally:
        cuda.cudaFree(d_idata); cuda.cudaFree(d_odata)
        cl.clReleaseMemObject(b_idata); cl.clReleaseMemObject(b_odata)


@pytest.mark.parametrize("name,size", [("vector_add", 256), ("vector_add", 256 * 5),
                                       ("matmul_tiled", 32), ("reduction", 1),
                                       ("histogram", 1), ("transpose", 64)])
def test_main_in_process(name, size):
    assert example("opencl", name).main(size) == 0


# A wrong kernel with the right signature must make the example fail: each
# program really compares its result, and reports a mismatch as a failure.
WRONG_KERNELS = [
    ("matmul_tiled", "MatrixMulKernel", 32, ["-DTILE_WIDTH=16"], r"""
__kernel void MatrixMulKernel(__global float* Md, __global float* Nd,
                              __global float* Pd, int Width) {
  Pd[get_global_id(1) * Width + get_global_id(0)] = Md[get_global_id(0)];
}"""),
    ("reduction", "plus_reduce", 1000, [], r"""
__kernel void plus_reduce(__global int *input, unsigned int N, __global int *total) {
    if (get_local_id(0) == 0) atomic_add(total, input[get_global_id(0)]);
}"""),
    ("histogram", "histo_kernel", 1 << 20, [], r"""
__kernel void histo_kernel(__global unsigned char *buffer, long size,
                           __global unsigned int *histo) {
    int i = get_global_id(0);
    if (i < size) atomic_add(&histo[buffer[i]], 1u);    /* no grid-stride loop */
}"""),
]


@pytest.mark.parametrize("name,attr,size,options,source", WRONG_KERNELS,
                         ids=[w[0] for w in WRONG_KERNELS])
def test_wrong_kernel_fails_the_example(capsys, monkeypatch, name, attr, size, options, source):
    ex = example("opencl", name)
    program = cl.clCreateProgramWithSource(ex.context, [source])
    cl.clBuildProgram(program, [ex.device], " ".join(options))
    monkeypatch.setattr(ex, attr, cl.clCreateKernel(program, attr))
    assert ex.main(size) == 1
    assert "FAILED" in capsys.readouterr().out


def test_wrong_vector_add_fails_the_example(capsys, monkeypatch):
    ex = example("opencl", "vector_add")
    monkeypatch.setattr(ex, "programSource", ex.programSource.replace("A[idx] + B[idx]",
                                                                      "A[idx] - B[idx]"))
    assert ex.main(1024) == 1
    assert "Test FAILED" in capsys.readouterr().out


def test_wrong_transpose_fails_the_example(capsys, monkeypatch):
    ex = example("opencl", "transpose")
    right = "odata[index_out+i*height] =\n        tile[get_local_id(0)][get_local_id(1)+i];"
    wrong = "odata[index_out+i*height] =\n        tile[get_local_id(1)+i][get_local_id(0)];"
    assert ex.programSource.count(right) == 2
    program = cl.clCreateProgramWithSource(ex.context, [ex.programSource.replace(right, wrong)])
    cl.clBuildProgram(program)
    monkeypatch.setattr(ex, "kernels", [("untransposed tile",
                                         cl.clCreateKernel(program, "transposeCoalesced"))])
    assert ex.main(64) == 1
    assert "*** untransposed tile kernel FAILED ***" in capsys.readouterr().out
