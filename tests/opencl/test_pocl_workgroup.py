"""PoCL's tests/workgroup corpus (tests/data/pocl_workgroup), run both ways:
on the paths pyemu picks (block functions where the pass proves them right)
and with PYEMU_FORCE_FIBERS=1 (every barrier kernel on its fiber variant,
with soft barriers where the block function starts regions).  Each run is a
subprocess (one worker thread, so work-groups print in order) that
PYEMU_REGIONS_STRICT=1 makes fail on any bug of the pass.

Both paths place PoCL's implicit barriers (regions/uniform.py: at the start
and end of the body of each innermost barrier-free loop with a uniform
condition, in kernels with barriers), so outerlooppar and implicit_barriers
print in PoCL's order, exactly, on both paths.  implicit_barriers' loop
counter is a `volatile int` of the work-item's own: a store to such a
variable takes no warp step (frontend/parse.py _own_variable: no other lane
can see it), so the kernel is not sent to the fibers' warp form."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "pocl_workgroup"
ROOT = Path(__file__).resolve().parents[2]

CASES = [
    ("cond_barrier_in_var_for", (2, 4, 1, 1), "cond_barrier_in_var_for_2_4_1_1.stdout"),
    ("cond_barriers_in_for", (2, 4, 1, 1), "cond_barriers_in_for_2_4_1_1.stdout"),
    ("tricky_for", (1, 2, 1, 1), "tricky_for_1_2_1_1.stdout"),
    ("for_with_divergent_return", (1, 6, 1, 1), "for_with_divergent_return_1_6_1_1.stdout"),
    ("loopbarriers", (1, 4, 1, 1), "loopbarriers_1_4_1_1.stdout"),
    ("switch_case", (1, 4, 1, 1), "switch_case_1_4_1_1.stdout"),
    ("forloops", (2, 2, 1, 1), "forloops_2_2_1_1.stdout"),
    ("basic_barriers", (2, 2, 2, 2), "basic_barriers_2_2_2_2.stdout"),
    ("conditional_barriers", (1, 2, 1, 1), "cond_barriers_1_2_1_1_loopvec.stdout"),
    ("conditional_barrier_dynamic", (1, 16, 1, 1), "cond_barriers_dynamic_1_16_1_1_loopvec.stdout"),
    ("for_bug", (1, 2, 1, 1), "for_bug_1_2_1_1.stdout"),
    ("multilatch_bloop", (1, 3, 1, 1), "multilatch_bloop_1_3_1_1.stdout"),
    ("print_all_ids", (1, 1, 1, 4), "print_all_ids_114114.txt"),
    ("issue_548", (1, 2, 1, 1), "issue_548_1_2_1_1.stdout"),
    ("issue_1747", (2, 2, 1, 1), "issue_1747.stdout"),
    ("range_md", (1, 13, 1, 1), "range_md_small_grid.stdout"),
    ("implicit_barriers", (1, 2, 1, 1), "implicit_barriers_1_2_1_1.stdout"),
    ("outerlooppar", (2, 2, 1, 1), "outerlooppar_2_2_1_1.stdout"),
    ("ballot", (1, 32, 1, 1), "ballot_1_32_1_1.stdout"),     # cl_khr_subgroup_ballot
]
SORTED = {"print_all_ids"}                     # PoCL's own test sorts it

RUN = r"""
import sys
import numpy as np
from pyemu.opencl import *
src, ng, lx, ly, lz = open(sys.argv[1]).read(), *map(int, sys.argv[2:6])
plat = clGetPlatformIDs()[0]
dev = clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU)[0]
ctx = clCreateContext(None, [dev])
q = clCreateCommandQueue(ctx, dev, 0)
prog = clCreateProgramWithSource(ctx, [src])
clBuildProgram(prog, [dev], "")
k = clCreateKernel(prog, "test_kernel")
nargs = clGetKernelInfo(k, CL_KERNEL_NUM_ARGS)
grid = lx * ng * ly * lz
bufs = []
if nargs:
    init = np.arange(4 * grid, dtype=np.int32)
    bufs.append(clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.nbytes, init))
    clSetKernelArg(k, 0, bufs[0])
    if nargs == 2:
        bufs.append(clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4 * grid,
                                   init[:grid].copy()))
        clSetKernelArg(k, 1, bufs[1])
clEnqueueNDRangeKernel(q, k, 3, None, (lx * ng, ly, lz), (lx, ly, lz))
lines = []
if nargs:
    res = np.zeros(grid, np.int32)
    clEnqueueReadBuffer(q, bufs[-1], CL_TRUE, 0, res.nbytes, res)
    lines = [f"{i}: {v}" for i, v in enumerate(res)]
clFinish(q)
sys.stdout.flush()
print("\n".join(lines + ["OK"]))
"""


def _run(name, launch, force, cache):
    env = dict(os.environ, PYEMU_FORCE_FIBERS=force, PYEMU_REGIONS_STRICT="1",
               PYEMU_CACHE_DIR=str(cache),     # a fresh cache: the pass runs, paths print
               PYEMU_DEBUG_PATHS="1", PYEMU_NUM_THREADS="1",
               PYEMU_STACK_SIZE="262144",   # for_bug: 60 KB of private array per work-item
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", RUN, str(DATA / (name + ".cl"))]
                       + [str(x) for x in launch], capture_output=True, text=True, env=env,
                       timeout=600, cwd=str(ROOT))
    assert r.returncode == 0, r.stderr[-3000:]
    paths = [ln for ln in r.stderr.splitlines() if ln.startswith("pyemu: kernel")]
    return [ln for ln in r.stdout.splitlines() if ln.strip()], paths


@pytest.mark.parametrize("force", ["0", "1"], ids=["picked", "fibers"])
@pytest.mark.parametrize("name,launch,expected", CASES, ids=[c[0] for c in CASES])
def test_pocl_workgroup_kernel_gives_expected_output(name, launch, expected, force, tmp_path):
    got, paths = _run(name, launch, force, tmp_path)
    want = [ln for ln in (DATA / expected).read_text().splitlines() if ln.strip()]
    if name in SORTED:
        got, want = sorted(got), sorted(want)
    assert got == want, paths
    if force == "1" and name not in ("switch_case", "forloops", "for_with_divergent_return",
                                     "print_all_ids", "range_md", "ballot"):
        # a kernel with volatile stores runs on fibers for its warp steps
        # (warp-synchronous code), not in the fiber variant
        assert paths and all("fiber variant" in p or "'pyemu_warp_step'" in p
                             for p in paths), paths
