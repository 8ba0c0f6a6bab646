"""The reliability corpus (hostile_cases.py and the hostile_*.py it gathers): each
case in a process of its own with a time limit, classified as ok, wrong code,
raw Python exception, crash, hang, corruption or leak.

A case passes when its body gives the expected CUDA/OpenCL code (or succeeds,
as expected) every time it runs, the process exits normally, the device
still runs a kernel afterwards (after a reset when the case faulted it), and
running the body again does not leave the process holding more than before.

Leaks: the body runs `case.reps` times in the same process (fresh context and
queue each time, then its objects dropped, a collection and a
cudaDeviceReset).  The first run fills one-time caches (compiled modules,
the device's start-up); after it and after each later run the process is
measured: device memory in use (cudaMemGetInfo's total - free), open file
descriptors (/proc/self/fd), memory mappings (/proc/self/maps), threads
(/proc/self/status) and Python objects the collector tracks.  A quantity
that grows on every repetition after the first is a leak (Python objects:
by more than a few each time, as a dict that lives on may take one more
entry now and then)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from hostile_cases import CASES, VADD

PRELUDE = r'''
import gc, os, sys, threading
import numpy as np
import pyemu.opencl as cl
from pyemu.cuda import *
from pyemu.compiler import CompileError
VADD = %r
CLK = '__kernel void k(__global int *a, int n) { int i = get_global_id(0); if (i < n) a[i] = i; }'

def build(src, options=None):
    p = cl.clCreateProgramWithSource(ctx, [src])
    cl.clBuildProgram(p, None, options)
    return p

def kernel(src, name="k", options=None):
    return cl.clCreateKernel(build(src, options), name)

def buf(n=64, flags=None):
    return cl.clCreateBuffer(ctx, cl.CL_MEM_READ_WRITE if flags is None else flags, n)

def cuda_kernel(src, name="k"):
    return SourceModule(src).get_function(name)

def _setup():
    global platform, dev, ctx, q
    platform = cl.clGetPlatformIDs()[0]
    dev = cl.clGetDeviceIDs(platform, cl.CL_DEVICE_TYPE_ALL)[0]
    ctx = cl.clCreateContext(None, [dev])
    q = cl.clCreateCommandQueue(ctx, dev, 0)
    cudaGetLastError()

def _health():
    cudaDeviceReset()
    m = SourceModule(VADD)
    a = np.arange(64, dtype=np.float32)
    d = [cudaMalloc(a.nbytes) for _ in range(3)]
    cudaMemcpy(d[0], a, a.nbytes, cudaMemcpyHostToDevice)
    cudaMemcpy(d[1], a, a.nbytes, cudaMemcpyHostToDevice)
    m.vadd[2, 32](d[0], d[1], d[2], 64)
    out = np.empty_like(a)
    cudaMemcpy(out, d[2], a.nbytes, cudaMemcpyDeviceToHost)
    return bool((out == 2 * a).all())

def _snapshot():
    global platform, dev, ctx, q
    platform = dev = ctx = q = None
    gc.collect()
    cudaDeviceReset()
    gc.collect()
    free, total = cudaMemGetInfo()
    with open("/proc/self/maps") as f:
        maps = sum(1 for _ in f)
    with open("/proc/self/status") as f:
        threads = next(int(l.split()[1]) for l in f if l.startswith("Threads:"))
    return {"device bytes": total - free, "fds": len(os.listdir("/proc/self/fd")),
            "mappings": maps, "threads": threads, "python objects": len(gc.get_objects())}

def _body():
%s

def _run():
    _setup()
    try:
        _body()
        return "ok"
    except CudaError as e:
        return int(e.code)
    except cl.CLError as e:
        return int(e.code)
    except CompileError:
        return "CompileError"
    except Exception as e:
        return "raw " + type(e).__name__ + ": " + str(e)[:200]

results = [_run()]
print("RESULT", results[0], flush=True)
snaps = []
for _ in range(%d - 1):
    snaps.append(_snapshot())
    results.append(_run())
if snaps:
    snaps.append(_snapshot())
    print("RESULTS", "|".join(map(str, results)), flush=True)
    print("SNAPS", repr(snaps), flush=True)
try:
    healthy = _health()
except Exception as e:
    healthy = "raw " + type(e).__name__ + ": " + str(e)[:200]
print("HEALTHY", healthy, flush=True)
'''

# growth per repetition that is a leak when every repetition shows it
LEAK_MIN = {"device bytes": 1, "fds": 1, "mappings": 1, "threads": 1, "python objects": 8}


def leaks(snaps):
    """The quantities of `snaps` (one measurement after each run but the last)
    that grew on every repetition; {name: [values]}."""
    out = {}
    for name, least in LEAK_MIN.items():
        values = [s[name] for s in snaps]
        steps = [b - a for a, b in zip(values, values[1:])]
        if steps and all(d >= least for d in steps):
            out[name] = values
    return out


def run_case(case, timeout=None):
    code = PRELUDE % (VADD, textwrap.indent(case.body, "    "), case.reps)
    env = dict(os.environ)
    env.update(dict(case.env))
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=timeout or case.timeout, env=env)
    except subprocess.TimeoutExpired:
        return "hang", ""
    if r.returncode < 0:
        return f"crash (signal {-r.returncode})", r.stderr[-2000:]
    lines = dict(line.split(" ", 1) for line in r.stdout.splitlines()
                 if line.startswith(("RESULT ", "RESULTS ", "SNAPS ", "HEALTHY ")))
    if "RESULT" not in lines:
        return f"died (exit {r.returncode})", r.stderr[-2000:]
    got = lines["RESULT"]
    got = int(got) if got.lstrip("-").isdigit() else got
    if got != case.expect:
        kind = "raw exception" if str(got).startswith("raw ") else "wrong code"
        return f"{kind}: {got!r}, want {case.expect!r}", r.stderr[-2000:]
    if case.reps > 1:
        if "SNAPS" not in lines:
            return f"died while repeating (exit {r.returncode})", r.stderr[-2000:]
        results = lines["RESULTS"].split("|")
        if len(set(results)) != 1:
            return f"inconsistent: the repetitions gave {results}", r.stderr[-2000:]
        grown = leaks(eval(lines["SNAPS"]))  # noqa: S307 - our own child's repr of a list of dicts
        if grown:
            return f"leak: {grown}", ""
    if r.returncode != 0:
        return f"exit {r.returncode}", r.stderr[-2000:]
    if case.healthy_after and lines.get("HEALTHY") != "True":
        return "corruption: the device no longer computes right", r.stderr[-2000:]
    return "ok", ""


def test_corpus_size():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)), "two cases have one name"
    assert len(names) >= 150


def test_leak_classification():
    """The leak rule: growth on every repetition, not a one-time fill."""
    base = {"device bytes": 0, "fds": 5, "mappings": 100, "threads": 3, "python objects": 1000}
    same = [dict(base) for _ in range(3)]
    assert leaks(same) == {}
    fds = [dict(base, fds=5 + i) for i in range(3)]
    assert leaks(fds) == {"fds": [5, 6, 7]}
    once = [dict(base, mappings=m) for m in (100, 104, 104)]
    assert leaks(once) == {}
    noise = [dict(base, **{"python objects": n}) for n in (1000, 1003, 1005)]
    assert leaks(noise) == {}


def _param(case):
    marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
    return pytest.param(case, marks=marks, id=case.name)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_hostile_case(case):
    verdict, tail = run_case(case)
    assert verdict == "ok", f"{case.name}: {verdict}\n{tail}"
