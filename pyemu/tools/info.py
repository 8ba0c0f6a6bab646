"""`python -m pyemu info`: the installation, its tools and the emulated device.

What a bug report needs: pyemu's version and location, the headers kernels
are compiled against, the C++ compiler that compiles them (and its version),
the kernel cache, the Python, NumPy, PyOpenCL and PoCL versions, and the
device as cudaGetDeviceProperties describes it.
"""
from __future__ import annotations

import platform
import shlex
import subprocess
import sys
from pathlib import Path


def _row(name: str, value) -> None:
    print(f"  {name:<22} {value}")


def compiler_version(cxx: str) -> str:
    """The first line of `cxx --version`, or why there is none."""
    try:
        proc = subprocess.run(shlex.split(cxx) + ["--version"], capture_output=True,
                              text=True, timeout=30)
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        return f"not usable ({type(exc).__name__}: {exc})"
    lines = (proc.stdout or proc.stderr).strip().splitlines()
    if proc.returncode != 0 or not lines:
        return f"not usable (`{cxx} --version` exited {proc.returncode})"
    return lines[0]


def include_root() -> str:
    """The include root the compiler uses (pyemu.compiler.driver), or why none."""
    from ..compiler import driver
    try:
        return str(driver._include_root())
    except Exception as exc:        # CompileError: the headers are missing
        return f"MISSING ({exc})"


def opencl_versions() -> tuple[str, str]:
    """(PyOpenCL version, PoCL platform version), each 'not installed' or
    'not found' where absent."""
    try:
        import pyopencl as cl
    except Exception as exc:
        return f"not installed ({type(exc).__name__})", "unknown (needs PyOpenCL)"
    pyopencl = getattr(cl, "VERSION_TEXT", "?")
    try:
        pocl = [p.version for p in cl.get_platforms() if "Portable" in p.name or "pocl" in
                p.version.lower()]
    except Exception as exc:
        return pyopencl, f"not found ({type(exc).__name__}: {exc})".strip()
    return pyopencl, (pocl[0] if pocl else "not found (no PoCL OpenCL platform)")


def print_installation() -> None:
    """pyemu, its headers, compiler and cache; Python and the libraries."""
    import numpy
    import pyemu
    from ..runtime import config
    print(f"pyemu {pyemu.__version__}")
    _row("installed at", Path(list(pyemu.__path__)[0]).resolve())
    _row("headers (include root)", include_root())
    cxx = config.cxx()
    _row("C++ compiler", cxx)
    _row("  version", compiler_version(cxx))
    _row("kernel cache", config.cache_dir())
    _row("Python", f"{platform.python_version()} ({sys.executable})")
    _row("NumPy", numpy.__version__)
    pyopencl, pocl = opencl_versions()
    _row("PyOpenCL", pyopencl)
    _row("PoCL", pocl)


def print_device() -> None:
    """The emulated device's properties, as cudaGetDeviceProperties reports them."""
    from ..cuda import cudaGetDeviceProperties, cudaRuntimeGetVersion
    p = cudaGetDeviceProperties(0)
    print(f"Device 0: {p.name}")
    _row("compute capability", f"{p.major}.{p.minor}")
    _row("multiprocessors", f"{p.multiProcessorCount} (worker threads)")
    _row("global memory", f"{p.totalGlobalMem / 2**30:.1f} GiB")
    _row("shared memory / block", f"{p.sharedMemPerBlock} bytes")
    _row("max threads / block", p.maxThreadsPerBlock)
    _row("max block dims", p.maxThreadsDim)
    _row("max grid dims", p.maxGridSize)
    _row("warp size", p.warpSize)
    v = cudaRuntimeGetVersion()
    _row("CUDA runtime version", f"{v // 1000}.{v % 1000 // 10}")


def run(args) -> int:
    """Entry point of `python -m pyemu info`."""
    print_installation()
    print()
    print_device()
    return 0
