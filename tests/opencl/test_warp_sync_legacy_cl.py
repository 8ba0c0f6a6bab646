"""Warp-synchronous OpenCL C without a sub-group barrier (issue 13): the
unrolled last-warp reduction on a `volatile __local int *` gives the GPU's
result on pyemu's sub-groups of 32 (the front end's implicit
pyemu_warp_step() after each volatile store, csrc/block.c); Harris #5 for
work-groups of 64 to 1024 and the AMD SDK's in-kernel form, against NumPy."""
import numpy as np
import pytest

from pyemu.opencl import (CL_MEM_READ_WRITE, CL_TRUE, clBuildProgram, clCreateBuffer,
                          clCreateKernel, clCreateProgramWithSource, clEnqueueNDRangeKernel,
                          clEnqueueReadBuffer, clEnqueueWriteBuffer, clFinish, clSetKernelArg)

SIZES = [64, 128, 256, 512, 1024]


def _data(n, seed):
    return np.random.default_rng(seed).integers(-1000, 1000, n).astype(np.int32)


OPENCL = r"""
void warp_reduce(volatile __local int *sdata, uint tid) {
  sdata[tid] += sdata[tid + 32];
  sdata[tid] += sdata[tid + 16];
  sdata[tid] += sdata[tid + 8];
  sdata[tid] += sdata[tid + 4];
  sdata[tid] += sdata[tid + 2];
  sdata[tid] += sdata[tid + 1];
}

__kernel void harris5(__global const int *g_idata, __global int *g_odata,
                      __local int *sdata) {
  uint tid = get_local_id(0), bs = get_local_size(0);
  uint i = get_group_id(0) * (bs * 2) + tid;
  sdata[tid] = g_idata[i] + g_idata[i + bs];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = bs / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid < 32) warp_reduce(sdata, tid);
  if (tid == 0) g_odata[get_group_id(0)] = sdata[0];
}

/* the AMD SDK's form: the volatile pointer in the kernel, the last block
 * size a compile-time constant */
#define BS 256
__kernel void unrolled(__global const int *in, __global int *out) {
  __local int sdata[BS];
  uint tid = get_local_id(0);
  sdata[tid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (tid < 128) sdata[tid] += sdata[tid + 128];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (tid < 64) sdata[tid] += sdata[tid + 64];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (tid < 32) {
    volatile __local int *v = sdata;
    v[tid] += v[tid + 32]; v[tid] += v[tid + 16]; v[tid] += v[tid + 8];
    v[tid] += v[tid + 4]; v[tid] += v[tid + 2]; v[tid] += v[tid + 1];
  }
  if (tid == 0) out[get_group_id(0)] = sdata[0];
}
"""


@pytest.fixture(scope="module")
def cl(context, queue):
    prog = clCreateProgramWithSource(context, [OPENCL])
    clBuildProgram(prog)
    return context, queue, prog


def _run_cl(cl, name, groups, local, h_in, local_bytes=None):
    ctx, q, prog = cl
    k = clCreateKernel(prog, name)
    d_in = clCreateBuffer(ctx, CL_MEM_READ_WRITE, h_in.nbytes)
    d_out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, groups * 4)
    clEnqueueWriteBuffer(q, d_in, CL_TRUE, 0, h_in.nbytes, h_in)
    clSetKernelArg(k, 0, d_in)
    clSetKernelArg(k, 1, d_out)
    if local_bytes:
        clSetKernelArg(k, 2, local_bytes, None)
    clEnqueueNDRangeKernel(q, k, 1, None, [groups * local], [local])
    out = np.empty(groups, np.int32)
    clEnqueueReadBuffer(q, d_out, CL_TRUE, 0, out.nbytes, out)
    clFinish(q)
    return out


@pytest.mark.parametrize("local", SIZES)
def test_opencl_volatile_local_warp_reduce_matches_numpy(cl, local):
    groups = 3
    h = _data(groups * local * 2, local + 7)
    out = _run_cl(cl, "harris5", groups, local, h, local * 4)
    np.testing.assert_array_equal(out, h.reshape(groups, -1).sum(axis=1))


def test_opencl_volatile_pointer_in_the_kernel_matches_numpy(cl):
    groups = 4
    h = _data(groups * 256, 99)
    out = _run_cl(cl, "unrolled", groups, 256, h)
    np.testing.assert_array_equal(out, h.reshape(groups, -1).sum(axis=1))
