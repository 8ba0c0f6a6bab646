"""Issue 13: OpenCL's sub-group shuffles in a block function take the fast
form (pyemu/compiler/regions/warpcut.py): sub_group_shuffle, _up, _down,
_xor and sub_group_broadcast over work-groups of 64 and 48 (a short last
sub-group), checked against NumPy with the semantics cl_subgroup.h states
(a source past the end of a short sub-group gives 0, one below 0 the
caller's own value), and against the fibers (PYEMU_FORCE_FIBERS=1)."""
import numpy as np
import pytest

from pyemu.compiler.regions import blocks as _regions
from pyemu.opencl import (CL_MEM_READ_WRITE, CL_TRUE, clBuildProgram, clCreateBuffer,
                          clCreateKernel, clCreateProgramWithSource, clEnqueueNDRangeKernel,
                          clEnqueueReadBuffer, clEnqueueWriteBuffer, clFinish, clSetKernelArg)

KERNEL = r"""
__kernel void sg(__global int *out, __global const int *in) {
  uint l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);
  int v = in[g];
  __local int part[2];
  int d = v;
  for (uint o = 16; o > 0; o /= 2)          // reduce_shfl.cl's sum
    d += sub_group_shuffle_down(d, o);
  if (get_sub_group_local_id() == 0) part[get_sub_group_id()] = d;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[0 * n + l] = d;
  out[1 * n + l] = sub_group_shuffle_up(v, 3);
  out[2 * n + l] = sub_group_shuffle_xor(v, 5);
  out[3 * n + l] = sub_group_shuffle(v, 7);
  out[4 * n + l] = sub_group_broadcast(v, 2);
  out[5 * n + l] = part[0];
}
"""


def _ref(v):
    n = len(v)
    lanes = np.arange(n)

    def src(j, own):
        ok = (j >= 0) & (j < n) & ((j >> 5) == (lanes >> 5))
        return np.where(own, v, np.where(ok, v[np.clip(j, 0, n - 1)], 0))
    d = v.copy()
    for o in (16, 8, 4, 2, 1):
        j = lanes + o
        d = d + np.where((lanes & 31) + o > 31, d, np.where(j < n, d[np.minimum(j, n - 1)], 0))
    up = np.where((lanes & 31) >= 3, v[np.maximum(lanes - 3, 0)], v)
    xor = src(lanes ^ 5, np.zeros(n, bool))
    idx = src((lanes & ~31) | 7, np.zeros(n, bool))
    bc = src((lanes & ~31) | 2, np.zeros(n, bool))
    return np.stack([d, up, xor, idx, bc, np.full(n, d[0])])


@pytest.mark.parametrize("force", ["0", "1"], ids=["block", "fibers"])
@pytest.mark.parametrize("local", [64, 48])
def test_sub_group_shuffles_against_numpy(context, queue, monkeypatch, force, local):
    monkeypatch.setenv(_regions.FORCE_ENV, force)
    monkeypatch.setenv(_regions.STRICT_ENV, "1")
    p = clCreateProgramWithSource(context, [KERNEL])
    clBuildProgram(p)
    k = clCreateKernel(p, "sg")
    v = (np.arange(local, dtype=np.int32) * 29 + 5) % 200 - 70
    out = np.zeros(6 * local, np.int32)
    b_in = clCreateBuffer(context, CL_MEM_READ_WRITE, v.nbytes)
    b_out = clCreateBuffer(context, CL_MEM_READ_WRITE, out.nbytes)
    clEnqueueWriteBuffer(queue, b_in, CL_TRUE, 0, v.nbytes, v)
    clSetKernelArg(k, 0, b_out)
    clSetKernelArg(k, 1, b_in)
    clEnqueueNDRangeKernel(queue, k, 1, None, [local], [local])
    clFinish(queue)
    clEnqueueReadBuffer(queue, b_out, CL_TRUE, 0, out.nbytes, out)
    got = out.reshape(6, local)
    want = _ref(v)
    for row in range(6):
        assert np.array_equal(got[row], want[row]), (row, got[row], want[row])
