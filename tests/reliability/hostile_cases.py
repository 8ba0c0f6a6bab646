"""The reliability corpus: hostile input for every API function of both
facades, the executor and the compiler.  Each case is a snippet that ends in
one hostile call; the expectation is the real CUDA or OpenCL code it must
fail with ("ok" when it must succeed, "CompileError" for a kernel that must
not build).

A case runs in a process of its own (test_corpus.py), so a crash or a hang is
a result, not the end of the run, and it runs `reps` times there so that
what it leaves behind can be measured (a leak).  The cases live in one file
per API area (hostile_*.py); names say what is attacked.  A case that shows a
bug outside the corpus's reach keeps `xfail` = why, and flips when fixed.

The snippets see (test_corpus.py's prelude): numpy as np, pyemu.opencl as
cl, every name of pyemu.cuda, CompileError, VADD (a CUDA vector add), and,
made afresh for each run, platform, dev, ctx (a context of the device) and
q (an in-order queue of ctx); helpers: build(src, options) -> built
program, kernel(src, name="k", options=None) -> cl_kernel, buf(n=64,
flags=None) -> cl_mem, cuda_kernel(src, name="k") -> Function, and CLK
(an OpenCL kernel k(__global int *a, int n)).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    name: str
    body: str           # Python; the last statement is the hostile call
    expect: object      # an int code, "ok" or "CompileError"
    env: tuple = ()     # (name, value) pairs for the process
    healthy_after: bool = True  # the device still works after it (a reset clears a fault)
    reps: int = 4       # runs in one process; growth from the 2nd on is a leak (1: not measured)
    xfail: str = ""     # a known bug outside tests/reliability: why (strict xfail)
    timeout: int = 90   # seconds the process may take (all its runs) before it is a hang


VADD = r'''__global__ void vadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }'''


def _gather():
    from hostile_compiler import CASES as compiler
    from hostile_cuda_device import CASES as cuda_device
    from hostile_cuda_launch import CASES as cuda_launch
    from hostile_cuda_memory import CASES as cuda_memory
    from hostile_cuda_streams import CASES as cuda_streams
    from hostile_faults import CASES as faults
    from hostile_opencl_kernel import CASES as opencl_kernel
    from hostile_opencl_memory import CASES as opencl_memory
    from hostile_opencl_setup import CASES as opencl_setup
    return (cuda_memory + cuda_device + cuda_launch + faults + opencl_setup + opencl_memory +
            opencl_kernel + compiler + cuda_streams)


CASES = _gather()
