"""`python -m pyemu bench --compile`: what building a new kernel costs.

Each of the benchmark's kernel files (``bench_kernels/*.cu`` through
``SourceModule``, ``*.cl`` through ``clBuildProgram``) is built with a
unique trailing comment, so that the module cache misses while the process,
g++'s and libclang's files and the precompiled headers of pyemu's headers
(libclang's and g++'s, pyemu.compiler.unitpch) are warm: the time a user
waits for an edited kernel.  The cached
time (the same source again) is shown beside it.  PoCL's ``clBuildProgram``
of the same ``.cl`` (also with a unique comment, so its kernel cache misses)
is shown for reference; PoCL compiles the work-group functions of a kernel
at its first launch, so its build time is not the whole of its cost.
"""
from __future__ import annotations

import os
import statistics
import time
import uuid
import warnings
from typing import Callable, Optional

from .bench_kernels import KERNEL_DIR
from .bench_kernels.backends import find_pocl_device, one_line


def _files() -> list:
    return sorted(p for p in KERNEL_DIR.iterdir()
                  if p.suffix in (".cu", ".cl") and p.stem != "empty")


def _timed(build: Callable[[str], object], source: str, repeat: int) -> tuple:
    """(median uncached seconds, median cached seconds) of `build`."""
    fresh, cached = [], []
    for _ in range(repeat):
        text = f"{source}\n// pyemu bench --compile {uuid.uuid4().hex}\n"
        t0 = time.perf_counter()
        build(text)
        fresh.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        build(text)
        cached.append(time.perf_counter() - t0)
    return statistics.median(fresh), statistics.median(cached)


def _builders(pocl: bool) -> dict:
    from .. import cuda
    from .. import opencl as cl
    plat = cl.clGetPlatformIDs()[0]
    dev = cl.clGetDeviceIDs(plat, cl.CL_DEVICE_TYPE_GPU)[0]
    ctx = cl.clCreateContext(None, [dev])

    def build_cl(text):
        prog = cl.clCreateProgramWithSource(ctx, [text])
        cl.clBuildProgram(prog, [dev], "")
        return prog

    out = {".cu": cuda.SourceModule, ".cl": build_cl, "pocl": None}
    if pocl:
        device, why = find_pocl_device()
        if device is not None:
            import pyopencl
            pctx = pyopencl.Context([device])

            def build_pocl(text):
                # PoCL prints clang's "N errors generated." on fd 2 itself
                saved = os.dup(2)
                try:
                    with open(os.devnull, "w") as null:
                        os.dup2(null.fileno(), 2)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        return pyopencl.Program(pctx, text).build()
                finally:
                    os.dup2(saved, 2)
                    os.close(saved)
            out["pocl"] = build_pocl
    return out


def run(repeat: int = 3, pocl: bool = True, markdown: bool = False) -> int:
    """Print the table; 1 when a build failed, else 0."""
    b = _builders(pocl)
    files = _files()
    for p in files:                 # warm: imports, the precompiled header
        try:
            b[p.suffix](p.read_text())
        except Exception:           # reported on its row below
            pass
    rows, status = [], 0
    totals = {"fresh": 0.0, "cached": 0.0, "pocl": 0.0}
    for p in files:
        src = p.read_text()
        try:
            fresh, cached = _timed(b[p.suffix], src, repeat)
        except Exception as exc:
            rows.append([p.name, "error: " + one_line(exc), "-", "-"])
            status = 1
            continue
        totals["fresh"] += fresh
        totals["cached"] += cached
        pc: Optional[float] = None
        if p.suffix == ".cl" and b["pocl"] is not None:
            try:
                pc = _timed(b["pocl"], src, repeat)[0]
                totals["pocl"] += pc
            except Exception:   # PoCL 3.1 lacks sub-groups: reduce_shfl.cl
                pc = None
        rows.append([p.name, f"{fresh * 1e3:.0f} ms", f"{cached * 1e3:.2f} ms",
                     "-" if pc is None else f"{pc * 1e3:.0f} ms"])
    rows.append(["total", f"{totals['fresh'] * 1e3:.0f} ms", f"{totals['cached'] * 1e3:.1f} ms",
                 f"{totals['pocl'] * 1e3:.0f} ms" if totals["pocl"] else "-"])
    head = ["kernel file", "pyemu uncached", "pyemu cached", "PoCL clBuildProgram"]
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(4)]
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" for _ in head) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        for r in [head] + rows:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    return status
