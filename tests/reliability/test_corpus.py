"""The reliability corpus (hostile_cases.py): each case in a process of its own with a
time limit, classified as ok, wrong code, raw Python exception, crash or
hang.  A case passes when its call gives the expected CUDA/OpenCL code (or
succeeds, as expected), the process exits normally, and the device still
runs a kernel afterwards (after a reset when the case faulted it)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from hostile_cases import CASES, VADD

PRELUDE = r'''
import numpy as np
import pyemu.opencl as cl
from pyemu.cuda import *
from pyemu.compiler import CompileError
VADD = %r
platform = cl.clGetPlatformIDs()[0]
dev = cl.clGetDeviceIDs(platform, cl.CL_DEVICE_TYPE_ALL)[0]
ctx = cl.clCreateContext(None, [dev])
q = cl.clCreateCommandQueue(ctx, dev, 0)

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

try:
%s
    result = "ok"
except CudaError as e:
    result = int(e.code)
except cl.CLError as e:
    result = int(e.code)
except CompileError:
    result = "CompileError"
except Exception as e:
    result = "raw " + type(e).__name__ + ": " + str(e)[:200]
print("RESULT", result, flush=True)
print("HEALTHY", _health(), flush=True)
'''


def run_case(case, timeout=60):
    code = PRELUDE % (VADD, textwrap.indent(case.body, "    "))
    env = dict(os.environ)
    env.update(dict(case.env))
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return "hang", ""
    if r.returncode < 0:
        return f"crash (signal {-r.returncode})", r.stderr[-2000:]
    lines = dict(line.split(" ", 1) for line in r.stdout.splitlines()
                 if line.startswith(("RESULT ", "HEALTHY ")))
    if "RESULT" not in lines:
        return f"died (exit {r.returncode})", r.stderr[-2000:]
    got = lines["RESULT"]
    got = int(got) if got.lstrip("-").isdigit() else got
    if got != case.expect:
        kind = "raw exception" if str(got).startswith("raw ") else "wrong code"
        return f"{kind}: {got!r}, want {case.expect!r}", r.stderr[-2000:]
    if case.healthy_after and lines.get("HEALTHY") != "True":
        return "corruption: the device no longer computes right", r.stderr[-2000:]
    return "ok", ""


def test_corpus_size():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)) and len(names) >= 38


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_case(case):
    verdict, tail = run_case(case)
    assert verdict == "ok", f"{case.name}: {verdict}\n{tail}"
