"""A regular installation is complete: build the sdist, a wheel from the
sdist alone, install the wheel into a fresh virtual environment outside the
source tree, and run pyemu from a directory that is not the repository.

Before the headers were package data, every kernel build of an installed
pyemu failed ("pyemu's headers are missing"): test_cuda_program and
test_opencl_program catch that.  The build is done once for the module
(a C build of the core, about a minute on a small machine).
"""
from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _run(cmd, cwd, env=None, timeout=600):
    proc = subprocess.run([str(c) for c in cmd], cwd=str(cwd), env=env, capture_output=True,
                          text=True, timeout=timeout)
    return proc


def _check(proc, what):
    assert proc.returncode == 0, (f"{what} failed (exit {proc.returncode})\n--- stdout\n"
                                  f"{proc.stdout}\n--- stderr\n{proc.stderr}")
    return proc


def _clean_env(**extra):
    """No PYTHONPATH or editable hints: the venv's own pyemu must be what runs."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSAFEPATH", "VIRTUAL_ENV")}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(sdist path, wheel path): the sdist of the source tree, and the wheel
    built from that sdist alone."""
    import build  # noqa: F401  (the test extra installs it: missing is a failure, not a skip)
    dist = tmp_path_factory.mktemp("dist")
    _check(_run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "-o", dist, REPO],
                cwd=dist), "python -m build --sdist")
    sdists = list(dist.glob("pyemu-*.tar.gz"))
    assert len(sdists) == 1, list(dist.iterdir())
    _check(_run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                 "-w", dist, sdists[0]], cwd=dist), "pip wheel <sdist>")
    wheels = list(dist.glob("pyemu-*.whl"))
    assert len(wheels) == 1, list(dist.iterdir())
    return sdists[0], wheels[0]


@pytest.fixture(scope="module")
def venv(built, tmp_path_factory):
    """A fresh venv (system site packages for numpy/pyopencl, no network)
    with the wheel installed; returns (python, a working dir, env)."""
    root = tmp_path_factory.mktemp("venv")
    env_dir = root / "env"
    _check(_run([sys.executable, "-m", "venv", "--system-site-packages", env_dir], cwd=root),
           "python -m venv")
    python = env_dir / "bin" / "python"
    _check(_run([python, "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed",
                 built[1]], cwd=root, env=_clean_env()), "pip install <wheel>")
    work = root / "work"
    work.mkdir()
    env = _clean_env(PYEMU_CACHE_DIR=str(root / "cache"))
    return python, work, env, env_dir


def test_sdist_holds_what_a_wheel_is_built_from(built):
    with tarfile.open(built[0]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in ("csrc/build_core.py", "csrc/engine.c", "csrc/pyemu_core.h",
                   "include/pyemu/abi.h", "pyemu/compiler/gen_cl.py",
                   "include/pyemu/detail/kernel_entry.hpp", "examples/cuda/vector_add.py",
                   "examples/opencl/vector_add.py", "README.md", "setup.py", "pyproject.toml",
                   "MANIFEST.in", "pyemu/tools/conformance/corpus/kernels/vector_add.cl"):
        assert needed in names, needed
    assert not any(n.endswith(".so") for n in names)


def test_wheel_carries_headers_examples_and_core(built):
    import zipfile
    with zipfile.ZipFile(built[1]) as whl:
        names = set(whl.namelist())
    headers = {p.relative_to(REPO).as_posix() for p in (REPO / "include").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    missing = [h for h in headers if f"pyemu/{h}" not in names]
    assert not missing, missing
    assert "pyemu/examples/cuda/vector_add.py" in names
    assert "pyemu/examples/opencl/vector_add.py" in names
    assert any(n.startswith("pyemu/_native") and n.endswith(".so") for n in names)
    assert not any(n.startswith(("tests/", "include/", "examples/")) for n in names)


def test_installed_package_comes_from_the_venv(venv):
    python, work, env, env_dir = venv
    proc = _check(_run([python, "-c", "import pyemu, importlib.metadata as m; "
                        "print(pyemu.__file__); print(pyemu.__version__); "
                        "print(m.version('pyemu'))"], cwd=work, env=env), "import pyemu")
    file, version, meta = proc.stdout.split()
    assert Path(file).resolve().is_relative_to(env_dir.resolve()), file
    assert version == meta


CUDA_PROGRAM = textwrap.dedent("""
    import numpy as np
    from pyemu.cuda import *
    mod = SourceModule(r'''
    __global__ void axpy(float a, const float* x, float* y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = a * x[i] + y[i];
    }''')
    n = 1000
    x = np.arange(n, dtype=np.float32); y = np.ones(n, dtype=np.float32)
    dx = cudaMalloc(x.nbytes); dy = cudaMalloc(y.nbytes)
    cudaMemcpy(dx, x, x.nbytes, cudaMemcpyHostToDevice)
    cudaMemcpy(dy, y, y.nbytes, cudaMemcpyHostToDevice)
    mod.get_function("axpy")[(n + 255) // 256, 256](np.float32(2), dx, dy, n)
    out = np.empty_like(y)
    cudaMemcpy(out, dy, out.nbytes, cudaMemcpyDeviceToHost)
    assert np.array_equal(out, 2 * x + 1), out[:8]
    import pyemu.compiler.driver as d
    print("CUDA OK", d._include_root())
""")

OPENCL_PROGRAM = textwrap.dedent("""
    import numpy as np
    from pyemu.opencl import *
    src = '''__kernel void sq(__global const int *a, __global int *b) {
        int i = get_global_id(0); b[i] = a[i] * a[i]; }'''
    n = 256
    a = np.arange(n, dtype=np.int32)
    platform = clGetPlatformIDs()[0]
    device = clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT)[0]
    ctx = clCreateContext(None, [device])
    q = clCreateCommandQueue(ctx, device, 0)
    prog = clCreateProgramWithSource(ctx, [src])
    clBuildProgram(prog)
    k = clCreateKernel(prog, "sq")
    da = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a.nbytes, a)
    db = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, a.nbytes)
    clSetKernelArg(k, 0, da); clSetKernelArg(k, 1, db)
    clEnqueueNDRangeKernel(q, k, 1, None, [n], [64])
    b = np.empty_like(a)
    clEnqueueReadBuffer(q, db, CL_TRUE, 0, b.nbytes, b)
    assert np.array_equal(b, a * a), b[:8]
    print("OPENCL OK")
""")


def test_cuda_program(venv):
    python, work, env, env_dir = venv
    (work / "cuda_prog.py").write_text(CUDA_PROGRAM)
    proc = _check(_run([python, "cuda_prog.py"], cwd=work, env=env), "a CUDA program")
    ok, root = proc.stdout.split()[-2:] if "CUDA OK" in proc.stdout else ("", "")
    assert "CUDA OK" in proc.stdout
    assert Path(root).resolve().is_relative_to(env_dir.resolve()), root


def test_opencl_program(venv):
    python, work, env, _ = venv
    (work / "opencl_prog.py").write_text(OPENCL_PROGRAM)
    proc = _check(_run([python, "opencl_prog.py"], cwd=work, env=env), "an OpenCL program")
    assert "OPENCL OK" in proc.stdout


def test_examples_command(venv):
    python, work, env, _ = venv
    proc = _check(_run([python, "-m", "pyemu", "examples", "vector_add"], cwd=work, env=env),
                  "python -m pyemu examples vector_add")
    assert "2 passed, 0 failed" in proc.stdout, proc.stdout


def test_conformance_command(venv):
    python, work, env, _ = venv
    proc = _check(_run([python, "-m", "pyemu", "conformance", "--case", "vector_add"],
                       cwd=work, env=env), "python -m pyemu conformance --case vector_add")
    assert "1 passed, 0 failed" in proc.stdout, proc.stdout


def test_console_script_and_info(venv):
    python, work, env, env_dir = venv
    script = env_dir / "bin" / "pyemu"
    proc = _check(_run([script, "--version"], cwd=work, env=env), "pyemu --version")
    assert proc.stdout.startswith("pyemu 0."), proc.stdout
    proc = _check(_run([script, "info"], cwd=work, env=env), "pyemu info")
    line = next(l for l in proc.stdout.splitlines() if "include root" in l)
    root = Path(line.split()[-1])
    assert (root / "pyemu" / "abi.h").is_file(), line
    assert root.resolve().is_relative_to(env_dir.resolve()), line
