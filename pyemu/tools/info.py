"""`python -m pyemu info`: the installation, its tools and the emulated device.

What a bug report needs: pyemu's version and location, the headers kernels
are compiled against, the C++ compiler that compiles them (and its version),
the kernel cache, the Python, NumPy, PyOpenCL and PoCL versions, and the
device as cudaGetDeviceProperties describes it.

`python -m pyemu.tools.info --kernel FILE [OPTION...]` (also
print_kernel_paths) compiles a .cu or .cl file and prints, for each kernel,
the path its blocks take (block function, fiber variant, fibers, plain loop;
see README "How a thread block runs") and why.  PYEMU_DEBUG_PATHS=1 prints
the same whenever a kernel is compiled.
"""
from __future__ import annotations

import os
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
    """Entry point of `python -m pyemu info` (with --kernel FILE [-- OPTION...]:
    each kernel's path and why, see print_kernel_paths)."""
    if getattr(args, "kernel", None):
        return print_kernel_paths(args.kernel, getattr(args, "options", None) or (),
                                  getattr(args, "names", None) or ())
    if getattr(args, "options", None):
        args.parser.error("compiler options go with --kernel FILE")
    if getattr(args, "names", None):
        args.parser.error("--name-expression goes with --kernel FILE")
    print_installation()
    print()
    print_device()
    return 0


def kernel_paths(source: str, dialect: str, options=()) -> dict:
    """{kernel: (path, reason)} for `source`: the path each kernel's blocks
    take ("block function", "fiber variant", "fibers", "plain loop") and why,
    as the compiler recorded it with the module (cached ones too)."""
    from ..compiler import driver
    mod = driver.compile_source(source, dialect=dialect, options=list(options))
    return {name: tuple(mod.paths.get(name, ("unknown", ""))) for name in mod.kernel_names}


def print_kernel_paths(file: str, options=(), names=()) -> int:
    """Prints each kernel of `file` (.cl: OpenCL C, else CUDA) and its path;
    `names` are name expressions of kernel templates' instances (CUDA), as
    SourceModule's name_expressions.  `#include "x.h"` finds x.h beside
    `file` first, as nvcc and clBuildProgram of the file's text in its folder
    would (the folder goes first as -I)."""
    from ..compiler import driver
    dialect = "opencl" if file.endswith(".cl") else "cuda"
    here = str(Path(file).resolve().parent)
    try:
        mod = driver.compile_source(Path(file).read_text(), dialect=dialect,
                                    options=["-I" + here] + list(options),
                                    name_expressions=list(names), source_name=Path(file).name)
    except driver.CompileError as exc:      # the user's diagnostics, no traceback
        print(exc.diagnostics.rstrip() or str(exc), file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"pyemu info: cannot read {file}: {exc.strerror}", file=sys.stderr)
        return 1
    except ValueError as exc:                # a malformed name expression
        print(f"pyemu info: {exc}", file=sys.stderr)
        return 1
    for name in mod.kernel_names:
        path, why = mod.paths.get(name, ("unknown", ""))
        print(f"{name}: {path}" + (f" ({why})" if why else ""))
    if not mod.kernel_names:       # say why: e.g. kernel templates with no instances
        print(f"{file}: no kernels")
        for line in mod.log.splitlines():
            if "has no instances" in line or "declared but not defined" in line:
                print(line)
            if "has no instances" in line:
                print("(--name-expression 'NAME<...>' builds an instance)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] != "--kernel":
        print("usage: python -m pyemu.tools.info --kernel FILE [OPTION...]", file=sys.stderr)
        sys.exit(2)
    sys.exit(print_kernel_paths(sys.argv[2], sys.argv[3:]))
