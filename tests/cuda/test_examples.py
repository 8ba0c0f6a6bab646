"""The programs of examples/cuda: each runs, verifies itself and says so.

Three kinds of tests:
  * every example runs as a program (a subprocess with this interpreter), at
    a small size, and must exit 0 and print its success line;
  * the examples are imported in-process and their kernels launched directly
    on edge cases, against NumPy.
  * every program also runs at its default (original) size, as the README's main
    command runs it.
"""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "cuda"

# program, small-size arguments, success line
PROGRAMS = [
    ("vector_add.py", ["10000"], "Test PASSED"),          # not a multiple of 1024
    ("unified_memory.py", ["5000"], "Test PASSED"),
    ("saxpy.py", ["100001"], "Test PASSED"),              # not a multiple of 256
    ("matmul.py", ["128"], "COMPLETED SUCCESSFULLY"),
    ("matmul_tiled.py", ["128"], "Test PASSED"),
    ("reduction.py", ["100003"], "Test PASSED"),          # last block padded with 0
    ("histogram.py", ["1000000"], "Test PASSED"),
    ("spmv.py", ["1000"], "Test PASSED"),                 # not a multiple of 128
    ("transpose.py", ["256"], "Test passed"),
    ("offset_stride_copy.py", ["1"], "Test PASSED"),
    ("streams_overlap.py", ["100000"], "Test PASSED"),
    ("async_api.py", ["100000"], "Test PASSED"),
    ("default_stream.py", ["50"], "Test PASSED"),
    ("pinned_vs_pageable.py", ["4"], "Test PASSED"),
    ("zero_copy.py", ["100001"], "Test PASSED"),
    ("constant_memory.py", ["10001"], "Test PASSED"),
    ("pitch_2d.py", ["300", "70"], "Test PASSED"),
    ("texture_rotate.py", ["64"], "Test PASSED"),
    ("texture_shift_copy.py", ["4096"], "Test PASSED"),
    ("multi_gpu.py", ["100001"], "Test PASSED"),          # PYEMU_DEVICE_COUNT=2 by itself
    ("warp_reduce.py", ["100003"], "Test PASSED"),        # last block padded with 0
    ("vote.py", ["100003"], "Test PASSED"),
    ("warp_scan.py", ["100003"], "Test PASSED"),
    ("grid_sync.py", ["100003"], "Test PASSED"),         # not a multiple of the grid
]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def _run(program, args, timeout):
    return subprocess.run([sys.executable, str(EXAMPLES / program), *args],
                          capture_output=True, text=True, timeout=timeout,
                          env=_env(), cwd=str(ROOT))


def test_every_example_is_listed():
    on_disk = {p.name for p in EXAMPLES.glob("*.py")}
    assert on_disk == {p for p, _, _ in PROGRAMS}
    readme = (EXAMPLES / "README.md").read_text()
    for program in on_disk:
        assert f"`{program}`" in readme, program


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


# ------------------------------------------------------------------ in-process

_loaded = {}


def example(name):
    """Import examples/cuda/<name>.py (compiling its kernels) once per session."""
    if name not in _loaded:
        spec = importlib.util.spec_from_file_location(f"pyemu_example_{name}",
                                                      EXAMPLES / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loaded[name] = module
    return _loaded[name]


def to_device(cuda, host):
    d = cuda.cudaMalloc(max(host.nbytes, 1))
    cuda.cudaMemcpy(d, host, host.nbytes, cuda.cudaMemcpyHostToDevice)
    return d


def from_device(cuda, d, like):
    out = np.empty_like(like)
    cuda.cudaMemcpy(out, d, out.nbytes, cuda.cudaMemcpyDeviceToHost)
    return out


@pytest.fixture(scope="module")
def cuda():
    return pytest.importorskip("pyemu.cuda")


@pytest.mark.parametrize("name,size", [
    ("vector_add", 1), ("vector_add", 1023), ("vector_add", 1025),
    ("unified_memory", 1), ("unified_memory", 2049),
    ("saxpy", 257), ("reduction", 1), ("reduction", 257),
    ("matmul", 32), ("matmul_tiled", 16), ("matmul_tiled", 48),
    ("spmv", 1), ("spmv", 129), ("transpose", 32), ("histogram", 1), ("histogram", 4099),
])
def test_main_in_process(cuda, name, size):
    assert example(name).main(size) == 0


def test_vector_add_guard_leaves_the_tail_alone(cuda):
    add = example("vector_add").add
    n, total = 1000, 1024                    # one block of 1024 threads, 24 idle
    a = np.arange(total, dtype=np.int32)
    b = 10 * np.arange(total, dtype=np.int32)
    c = np.full(total, -7, dtype=np.int32)
    d_a, d_b, d_c = to_device(cuda, a), to_device(cuda, b), to_device(cuda, c)
    add[(n + 1023) // 1024, 1024](d_a, d_b, d_c, n)
    out = from_device(cuda, d_c, c)
    assert np.array_equal(out[:n], (a + b)[:n])
    assert np.all(out[n:] == -7)
    for d in (d_a, d_b, d_c):
        cuda.cudaFree(d)


def test_saxpy_float_scalar_argument(cuda):
    saxpy_parallel = example("saxpy").saxpy_parallel
    n = 1000
    x = np.linspace(-1, 1, n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    d_x, d_y = to_device(cuda, x), to_device(cuda, y)
    saxpy_parallel[(n + 255) // 256, 256](n, np.float32(-0.5), d_x, d_y)
    assert np.allclose(from_device(cuda, d_y, y), -0.5 * x + 1, rtol=1e-6, atol=1e-6)
    cuda.cudaFree(d_x); cuda.cudaFree(d_y)


def test_reduction_accumulates_into_existing_total(cuda):
    ex = example("reduction")
    values = np.arange(-500, 1300, dtype=np.int32)
    d_in = to_device(cuda, values)
    total = np.array([1000], dtype=np.int32)
    d_total = to_device(cuda, total)           # not zeroed: the kernel adds to it
    ex.plus_reduce[(values.size + ex.blocksize - 1) // ex.blocksize, ex.blocksize](
        d_in, values.size, d_total)
    assert from_device(cuda, d_total, total)[0] == 1000 + int(values.sum())
    cuda.cudaFree(d_in); cuda.cudaFree(d_total)


def test_histogram_one_contended_bin(cuda):
    ex = example("histogram")
    size = 200_000
    buffer = np.full(size, 7, dtype=np.uint8)     # every thread hits bin 7
    d_buffer = to_device(cuda, buffer)
    histo = np.zeros(256, dtype=np.uint32)
    d_histo = cuda.cudaMalloc(histo.nbytes)
    for kernel, exact in ((ex.histo_kernel, True), (ex.histo_kernel_no_atomics, False)):
        cuda.cudaMemset(d_histo, 0, histo.nbytes)
        kernel[8, 256](d_buffer, size, d_histo)
        out = from_device(cuda, d_histo, histo)
        assert out[np.arange(256) != 7].sum() == 0
        if exact:
            assert out[7] == size
        else:
            assert 0 < out[7] <= size            # lost updates are allowed, extra ones are not
    cuda.cudaFree(d_buffer); cuda.cudaFree(d_histo)


def test_matmul_tiled_against_numpy(cuda):
    ex = example("matmul_tiled")
    Width = 64
    rng = np.random.default_rng(0)
    M = rng.integers(-4, 5, size=(Width, Width)).astype(np.float32)   # exact in float
    N = rng.integers(-4, 5, size=(Width, Width)).astype(np.float32)
    P = np.empty_like(M)
    ex.MatrixMulOnDevice(M, N, P, Width)
    assert np.array_equal(P, M @ N)


def test_spmv_kernels_agree_on_paper_example(cuda):
    ex = example("spmv")
    A = ex.paper_example()
    x = np.array([1, 2, 3, 4], dtype=np.float32)
    for kernel in (ex.csrmul_kernel, ex.csrmul_cached):
        y = ex.spmv_on_device(kernel, A, x)
        assert np.array_equal(y, np.array([6, 0, 20, 5], dtype=np.float32))


def test_spmv_far_columns_bypass_the_cache(cuda):
    ex = example("spmv")
    n = 3 * ex.blocksize + 5
    A = np.zeros((n, n), dtype=np.float32)
    A[np.arange(n), (np.arange(n) * 7919) % n] = 1    # a permutation: mostly off-block
    A[np.arange(n), np.arange(n)] += 2                  # and the diagonal: in-block
    x = np.arange(n, dtype=np.float32)
    for kernel in (ex.csrmul_kernel, ex.csrmul_cached):
        assert np.array_equal(ex.spmv_on_device(kernel, A, x), A @ x)


def test_transpose_non_square(cuda):
    ex = example("transpose")
    width, height = 96, 64                               # size_x, size_y
    idata = np.arange(width * height, dtype=np.float32)
    gold = idata.reshape(height, width).T.reshape(-1)
    d_idata = to_device(cuda, idata)
    d_odata = cuda.cudaMalloc(idata.nbytes)
    grid = cuda.dim3(width // ex.TILE_DIM, height // ex.TILE_DIM)
    threads = cuda.dim3(ex.TILE_DIM, ex.BLOCK_ROWS)
    for name, kernel in ex.kernels:
        cuda.cudaMemset(d_odata, 0, idata.nbytes)
        kernel[grid, threads](d_odata, d_idata, width, height, 1)
        assert np.array_equal(from_device(cuda, d_odata, idata), gold), name
    cuda.cudaFree(d_idata); cuda.cudaFree(d_odata)


def test_offset_and_stride_double(cuda, capsys):
    ex = example("offset_stride_copy")
    assert ex.runTest(np.float64, 1)
    assert "MISMATCH" not in capsys.readouterr().out


# A wrong kernel with the right signature must make the example fail: each
# program really compares its result, and reports a mismatch as a failure.
WRONG_KERNELS = [
    ("vector_add", "add", 3000, r"""
__global__ void add(int *a, int *b, int *c, int n) {
    int index = threadIdx.x + blockIdx.x * blockDim.x;
    if (index < n) c[index] = a[index] + b[index] + (index == n - 1);
}"""),
    ("unified_memory", "add", 3000, r"""
__global__ void add(int *a, int *b, int *c, int n) {
    int index = threadIdx.x + blockIdx.x * blockDim.x;
    if (index < n - 1) c[index] = a[index] + b[index];
}"""),
    ("saxpy", "saxpy_parallel", 1000, r"""
__global__ void saxpy_parallel(int n, float a, float *x, float *y) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i < n) y[i] = a*x[i];
}"""),
    ("reduction", "plus_reduce", 1000, r"""
__global__ void plus_reduce(int *input, unsigned int N, int *total) {
    if (threadIdx.x == 0) atomicAdd(total, input[blockIdx.x * blockDim.x]);
}"""),
    ("histogram", "histo_kernel", 1 << 21, r"""
__global__ void histo_kernel(unsigned char *buffer, long size, unsigned int *histo) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < size) atomicAdd(&histo[buffer[i]], 1);    // no grid-stride loop
}"""),
]


@pytest.mark.parametrize("name,attr,size,source", WRONG_KERNELS,
                         ids=[w[0] for w in WRONG_KERNELS])
def test_wrong_kernel_fails_the_example(cuda, capsys, monkeypatch, name, attr, size, source):
    ex = example(name)
    monkeypatch.setattr(ex, attr, cuda.SourceModule(source).get_function(attr))
    assert ex.main(size) == 1
    assert "FAILED" in capsys.readouterr().out
