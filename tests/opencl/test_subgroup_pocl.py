"""OpenCL sub-groups cross-checked against PoCL, and PoCL's own sub-group tests ported.

PoCL 3.1 (Debian's, pthread device) has no sub-groups: it does not report
cl_khr_subgroups and its compiler does not declare get_sub_group_size() or
sub_group_reduce_add() (the first test checks that, so that this file is
revisited when PoCL gains them).  What is comparable is therefore run so:
the same kernel source on both, where PoCL gets the sub-group built-ins
written with __local memory and barriers for sub-groups of 32 consecutive
work-items (EMULATION below), and pyemu its own warp collectives
(csrc/warp.c).  The results must agree exactly, and a work-group sum made of
sub-group sums (which does not depend on the sub-group size) must equal
NumPy's.

PoCL's tests/runtime/test_subgroup_queries.c and
tests/regression/test_replicated_wi_subgroup_alloca.c skip on a device
without cl_khr_subgroups; their checks run here on pyemu.
"""
import numpy as np
import pytest
import pyopencl as cl  # the test command installs it: never skipped

from pyemu.opencl import (CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                          CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, CL_MEM_READ_WRITE, CL_TRUE,
                          LocalMemory, clBuildProgram, clCreateBuffer, clCreateKernel,
                          clCreateProgramWithSource, clEnqueueNDRangeKernel, clEnqueueReadBuffer,
                          clEnqueueWriteBuffer, clFinish, clGetKernelSubGroupInfo, clSetKernelArg)

KERNEL = r"""
__kernel void sg(__global int *out, __global const int *in, __global int *wgsum,
                 __local int *scratch) {
  uint g = get_global_id(0), gs = get_global_size(0);
  int v = in[g];
  int k = 0;
#define PUT(x) out[(k++) * gs + g] = (x)
  PUT((int)get_sub_group_size());
  PUT((int)get_num_sub_groups());
  PUT((int)get_sub_group_id());
  PUT((int)get_sub_group_local_id());
  PUT(sub_group_reduce_add(v));
  PUT(sub_group_reduce_min(v));
  PUT(sub_group_reduce_max(v));
  PUT(sub_group_scan_inclusive_add(v));
  PUT(sub_group_scan_exclusive_add(v));
  PUT(sub_group_scan_inclusive_min(v));
  PUT(sub_group_scan_exclusive_min(v));
  PUT(sub_group_scan_inclusive_max(v));
  PUT(sub_group_scan_exclusive_max(v));
  PUT(sub_group_broadcast(v, 3));
  PUT(sub_group_all(v > 10));
  PUT(sub_group_any(v == 42));
  PUT(sub_group_shuffle(v, get_sub_group_size() - 1 - get_sub_group_local_id()));
  PUT(sub_group_shuffle_xor(v, 1));
  uint me = get_sub_group_local_id(), n = get_sub_group_size();
  int d = sub_group_shuffle_down(v, 2);
  PUT(me + 2 < n ? d : -1);              /* past the sub-group: undefined */
  int u = sub_group_shuffle_up(v, 3);
  PUT(me >= 3 ? u : -1);
  /* a work-group sum from sub-group sums: the same for any sub-group size */
  int s = sub_group_reduce_add(v);
  if (me == 0)
    atomic_add(&wgsum[get_group_id(0)], s);
}
"""
ROWS = 20

# PoCL's side: the sub-group built-ins through __local memory (sub-groups of
# 32 consecutive work-items of a 1-D work-group), one barrier-protected
# exchange per call.
EMULATION = r"""
uint emu_base(void) { return get_local_id(0) & ~31u; }
uint emu_size(void) { uint r = get_local_size(0) - emu_base(); return r < 32u ? r : 32u; }
int emu_op(int v, __local int *s, int op, int arg) {
  uint l = get_local_id(0), b = emu_base(), n = emu_size(), me = l - b, i;
  int r = 0;
  s[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  switch (op) {
  case 0: for (i = 0; i < n; i++) r += s[b + i]; break;
  case 1: r = INT_MAX; for (i = 0; i < n; i++) r = min(r, s[b + i]); break;
  case 2: r = INT_MIN; for (i = 0; i < n; i++) r = max(r, s[b + i]); break;
  case 3: for (i = 0; i <= me; i++) r += s[b + i]; break;
  case 4: for (i = 0; i < me; i++) r += s[b + i]; break;
  case 5: r = INT_MAX; for (i = 0; i <= me; i++) r = min(r, s[b + i]); break;
  case 6: r = INT_MAX; for (i = 0; i < me; i++) r = min(r, s[b + i]); break;
  case 7: r = INT_MIN; for (i = 0; i <= me; i++) r = max(r, s[b + i]); break;
  case 8: r = INT_MIN; for (i = 0; i < me; i++) r = max(r, s[b + i]); break;
  case 9: r = s[b + arg]; break;
  case 10: r = 1; for (i = 0; i < n; i++) r = r && s[b + i]; break;
  case 11: r = 0; for (i = 0; i < n; i++) r = r || s[b + i]; break;
  case 12: r = s[b + (me ^ arg)]; break;
  case 13: r = me + arg < n ? s[b + me + arg] : v; break;
  case 14: r = me >= (uint)arg ? s[b + me - arg] : v; break;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}
#define get_sub_group_size() emu_size()
#define get_num_sub_groups() ((get_local_size(0) + 31u) >> 5)
#define get_sub_group_id() (get_local_id(0) >> 5)
#define get_sub_group_local_id() (get_local_id(0) & 31u)
#define sub_group_reduce_add(v) emu_op((v), scratch, 0, 0)
#define sub_group_reduce_min(v) emu_op((v), scratch, 1, 0)
#define sub_group_reduce_max(v) emu_op((v), scratch, 2, 0)
#define sub_group_scan_inclusive_add(v) emu_op((v), scratch, 3, 0)
#define sub_group_scan_exclusive_add(v) emu_op((v), scratch, 4, 0)
#define sub_group_scan_inclusive_min(v) emu_op((v), scratch, 5, 0)
#define sub_group_scan_exclusive_min(v) emu_op((v), scratch, 6, 0)
#define sub_group_scan_inclusive_max(v) emu_op((v), scratch, 7, 0)
#define sub_group_scan_exclusive_max(v) emu_op((v), scratch, 8, 0)
#define sub_group_broadcast(v, i) emu_op((v), scratch, 9, (i))
#define sub_group_shuffle(v, i) emu_op((v), scratch, 9, (i))
#define sub_group_all(p) emu_op((p) != 0, scratch, 10, 0)
#define sub_group_any(p) emu_op((p) != 0, scratch, 11, 0)
#define sub_group_shuffle_xor(v, m) emu_op((v), scratch, 12, (m))
#define sub_group_shuffle_down(v, d) emu_op((v), scratch, 13, (d))
#define sub_group_shuffle_up(v, d) emu_op((v), scratch, 14, (d))
"""

# local sizes whose last sub-group has at least 4 work-items, an even count
# (sub_group_broadcast(v, 3) and shuffle_xor(v, 1) stay defined)
LOCALS = [32, 48, 64, 100, 256]
GROUPS = 3


def _input(n):
    rng = np.random.default_rng(n)
    v = rng.integers(-50, 60, n).astype(np.int32)
    v[5] = 42
    return v


def _run_pocl(local):
    n = local * GROUPS
    ctx = cl.Context(cl.get_platforms()[0].get_devices()[:1])
    q = cl.CommandQueue(ctx)
    prog = cl.Program(ctx, EMULATION + KERNEL).build()
    mf = cl.mem_flags
    v = _input(n)
    out = np.zeros(ROWS * n, np.int32)
    wg = np.zeros(GROUPS, np.int32)
    b_in = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=v)
    b_out = cl.Buffer(ctx, mf.READ_WRITE, out.nbytes)
    b_wg = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=wg)
    prog.sg(q, (n,), (local,), b_out, b_in, b_wg, cl.LocalMemory(4 * local))
    cl.enqueue_copy(q, out, b_out)
    cl.enqueue_copy(q, wg, b_wg)
    q.finish()
    return out.reshape(ROWS, n), wg


@pytest.fixture(scope="module")
def pyemu_kernel(context):
    p = clCreateProgramWithSource(context, [KERNEL])
    clBuildProgram(p)
    return clCreateKernel(p, "sg")


def _run_pyemu(context, queue, kernel, local):
    n = local * GROUPS
    v = _input(n)
    out = np.zeros(ROWS * n, np.int32)
    wg = np.zeros(GROUPS, np.int32)
    b_in = clCreateBuffer(context, CL_MEM_READ_WRITE, v.nbytes)
    b_out = clCreateBuffer(context, CL_MEM_READ_WRITE, out.nbytes)
    b_wg = clCreateBuffer(context, CL_MEM_READ_WRITE, wg.nbytes)
    clEnqueueWriteBuffer(queue, b_in, CL_TRUE, 0, v.nbytes, v)
    clEnqueueWriteBuffer(queue, b_wg, CL_TRUE, 0, wg.nbytes, wg)
    for i, a in enumerate((b_out, b_in, b_wg, LocalMemory(4 * local))):
        clSetKernelArg(kernel, i, a)
    clEnqueueNDRangeKernel(queue, kernel, 1, None, [n], [local])
    clFinish(queue)
    clEnqueueReadBuffer(queue, b_out, CL_TRUE, 0, out.nbytes, out)
    clEnqueueReadBuffer(queue, b_wg, CL_TRUE, 0, wg.nbytes, wg)
    return out.reshape(ROWS, n), wg


def test_pocl_3_1_has_no_sub_groups():
    dev = cl.get_platforms()[0].get_devices()[0]
    assert "cl_khr_subgroups" not in dev.extensions.split()
    ctx = cl.Context([dev])
    with pytest.raises(cl.RuntimeError):
        cl.Program(ctx, "__kernel void k(__global int *o) { o[0] = get_sub_group_size(); }").build()


@pytest.mark.parametrize("local", LOCALS)
def test_sub_group_functions_agree_with_pocl(context, queue, pyemu_kernel, local):
    got, got_wg = _run_pyemu(context, queue, pyemu_kernel, local)
    want, want_wg = _run_pocl(local)
    for row in range(ROWS):
        assert np.array_equal(got[row], want[row]), (row, got[row], want[row])
    assert np.array_equal(got_wg, want_wg)
    v = _input(local * GROUPS)
    assert np.array_equal(got_wg, v.reshape(GROUPS, local).sum(axis=1))


# PoCL tests/runtime/test_subgroup_queries.c: the host's clGetKernelSubGroupInfo
# and the kernel's get_num_sub_groups()/get_max_sub_group_size()/
# get_sub_group_size()/get_sub_group_id() agree for these local sizes.
PROBE = r"""
__kernel void probe(__global uint *num, __global uint *max_size, __global uint *size,
                    __global uint *id) {
  size_t i = get_local_linear_id();
  num[i] = get_num_sub_groups();
  max_size[i] = get_max_sub_group_size();
  size[i] = get_sub_group_size();
  id[i] = get_sub_group_id();
}
"""


@pytest.mark.parametrize("ls", [(1, 1, 1), (3, 1, 1), (1, 3, 1), (32, 1, 1), (33, 1, 1),
                                (64, 1, 1)])
def test_pocl_subgroup_queries_host_and_device_agree(context, queue, device, ls):
    p = clCreateProgramWithSource(context, [PROBE])
    clBuildProgram(p)
    k = clCreateKernel(p, "probe")
    wg = ls[0] * ls[1] * ls[2]
    host_max = clGetKernelSubGroupInfo(k, device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, list(ls))
    host_count = clGetKernelSubGroupInfo(k, device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, list(ls))
    assert host_max > 0
    assert host_count == (wg + host_max - 1) // host_max
    bufs = [clCreateBuffer(context, CL_MEM_READ_WRITE, 4 * 64) for _ in range(4)]
    for i, b in enumerate(bufs):
        clSetKernelArg(k, i, b)
    clEnqueueNDRangeKernel(queue, k, 3, None, list(ls), list(ls))
    res = []
    for b in bufs:
        h = np.zeros(64, np.uint32)
        clEnqueueReadBuffer(queue, b, CL_TRUE, 0, h.nbytes, h)
        res.append(h[:wg])
    num, mx, size, ident = res
    i = np.arange(wg)
    sg = i // host_max
    assert (num == host_count).all() and (mx == host_max).all()
    assert np.array_equal(ident, sg)
    assert np.array_equal(size, np.minimum(wg - sg * host_max, host_max))


# PoCL tests/regression/test_replicated_wi_subgroup_alloca.c: a static path
# that skips an inner return still reaches sub_group_shuffle; 8 work-items,
# out[i] = input[7 - i], trace[i] = input[i] + 100.
ALLOCA = r"""
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
__kernel void test_kernel(__global int *out, __global int *trace, __global const int *input,
                          uint enter_n, uint logical_len) {
  uint i = get_sub_group_local_id();
  if (i < enter_n) {
    if (i >= logical_len) return;
    trace[i] = input[i] + 100;
  }
  uint j = get_sub_group_size() - i - 1;
  out[i] = sub_group_shuffle(input[i], j);
}
"""


def test_pocl_replicated_wi_subgroup_shuffle(context, queue):
    p = clCreateProgramWithSource(context, [ALLOCA])
    clBuildProgram(p, None, "-cl-std=CL3.0")
    k = clCreateKernel(p, "test_kernel")
    inp = np.arange(8, dtype=np.int32)
    bufs = [clCreateBuffer(context, CL_MEM_READ_WRITE, 32) for _ in range(3)]
    clEnqueueWriteBuffer(queue, bufs[0], CL_TRUE, 0, 32, np.full(8, -1, np.int32))
    clEnqueueWriteBuffer(queue, bufs[1], CL_TRUE, 0, 32, np.full(8, -1, np.int32))
    clEnqueueWriteBuffer(queue, bufs[2], CL_TRUE, 0, 32, inp)
    for i, a in enumerate((bufs[0], bufs[1], bufs[2], np.uint32(8), np.uint32(8))):
        clSetKernelArg(k, i, a)
    clEnqueueNDRangeKernel(queue, k, 1, None, [8], [8])
    clFinish(queue)
    out, trace = np.zeros(8, np.int32), np.zeros(8, np.int32)
    clEnqueueReadBuffer(queue, bufs[0], CL_TRUE, 0, 32, out)
    clEnqueueReadBuffer(queue, bufs[1], CL_TRUE, 0, 32, trace)
    assert np.array_equal(out, inp[::-1])
    assert np.array_equal(trace, inp + 100)
