"""sub_group_ballot in divergent code (cl_khr_subgroup_ballot, issue 13): the
ballot is over the work-items of the sub-group that reach it, as the
extension's "active work items" says; those that reach a barrier or return
instead are left out.  One that reaches another sub-group function first
still fails the launch (pyemu cannot tell that from a missing one)."""
import numpy as np
import pytest

from pyemu.opencl import (CL_MEM_READ_WRITE, CL_TRUE, clBuildProgram, clCreateBuffer,
                          clCreateKernel, clCreateProgramWithSource, clEnqueueNDRangeKernel,
                          clEnqueueReadBuffer, clFinish, clSetKernelArg)

SRC = r"""
__kernel void thirds(__global int *out) {
  uint l = get_sub_group_local_id(), t = get_local_id(0);
  out[t] = -1;
  if (l % 3 == 0) out[t] = (int)sub_group_ballot(l & 1).x;
}
__kernel void then_barrier(__global int *out, __local int *s) {
  uint l = get_sub_group_local_id(), t = get_local_id(0);
  int b = -1;
  if (l < 20) b = (int)sub_group_ballot(1).x;
  barrier(CLK_LOCAL_MEM_FENCE);
  s[t] = b;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[t] = s[t ^ 1];
}
__kernel void other_function(__global int *out) {
  uint l = get_sub_group_local_id(), t = get_local_id(0);
  if (l < 16) out[t] = (int)sub_group_ballot(1).x;
  else out[t] = sub_group_any(1);
}
__kernel void uniform(__global int *out) {
  uint t = get_local_id(0);
  out[t] = (int)sub_group_ballot(t % 2 == 0).x;
}
"""


@pytest.fixture(scope="module")
def prog(context):
    p = clCreateProgramWithSource(context, [SRC])
    clBuildProgram(p)
    return p


def _run(context, queue, prog, name, n, local_arg=False):
    k = clCreateKernel(prog, name)
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, n * 4)
    clSetKernelArg(k, 0, b)
    if local_arg:
        clSetKernelArg(k, 1, n * 4, None)
    clEnqueueNDRangeKernel(queue, k, 1, None, [n], [n])
    out = np.empty(n, np.int32)
    clEnqueueReadBuffer(queue, b, CL_TRUE, 0, out.nbytes, out)
    clFinish(queue)
    return out


@pytest.mark.parametrize("n", [32, 64, 48])
def test_sub_group_ballot_in_a_branch_counts_the_work_items_that_reach_it(context, queue,
                                                                          prog, n):
    out = _run(context, queue, prog, "thirds", n)
    for t in range(n):
        base, size = t - t % 32, min(32, n - (t - t % 32))
        want = sum(1 << l for l in range(size) if l % 3 == 0 and l & 1)
        assert out[t] == (np.int32(np.uint32(want)) if t % 32 % 3 == 0 else -1), t


@pytest.mark.parametrize("n", [32, 96])
def test_sub_group_ballot_while_the_others_wait_at_a_barrier(context, queue, prog, n):
    out = _run(context, queue, prog, "then_barrier", n, local_arg=True)
    t = np.arange(n) ^ 1
    want = np.where(t % 32 < 20, 0xFFFFF, -1)
    np.testing.assert_array_equal(out, want)


def test_sub_group_ballot_reached_by_all_is_unchanged(context, queue, prog):
    out = _run(context, queue, prog, "uniform", 64)
    assert (out.view(np.uint32) == 0x55555555).all()


def test_sub_group_ballot_while_others_reach_another_function_fails(run_cuda):
    # in a fresh interpreter: a failed launch is sticky for the process
    run = run_cuda("""
from pyemu.opencl import *
from pyemu.opencl._errors import CLError
dev = clGetDeviceIDs(clGetPlatformIDs()[0], CL_DEVICE_TYPE_ALL)[0]
ctx = clCreateContext(None, [dev])
q = clCreateCommandQueue(ctx, dev, 0)
p = clCreateProgramWithSource(ctx, [SRC])
clBuildProgram(p)
k = clCreateKernel(p, "other_function")
b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 32 * 4)
clSetKernelArg(k, 0, b)
try:
    clEnqueueNDRangeKernel(q, k, 1, None, [32], [32])
    clFinish(q)
    R["code"] = 0
except CLError as e:
    R["code"], R["message"] = int(e.code), str(e)
""", consts={"SRC": SRC}, timeout=120)
    assert run.returncode == 0, run.explain()
    assert run.R["code"] < 0, run.R           # an error, not a hang or a made-up ballot
    assert "program.cl:" in run.R["message"], run.R
