"""OpenCL sub-groups (cl_khr_subgroups, issue 13): sub-groups of 32 work-items
in linear local id order, the same warp collectives as CUDA's (csrc/warp.c);
clGetKernelSubGroupInfo and the device info."""
import numpy as np
import pytest

from pyemu.opencl import (CL_DEVICE_EXTENSIONS, CL_DEVICE_MAX_NUM_SUB_GROUPS,
                          CL_INVALID_VALUE, CL_KERNEL_COMPILE_NUM_SUB_GROUPS,
                          CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, CL_KERNEL_MAX_NUM_SUB_GROUPS,
                          CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                          CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, CL_MEM_READ_WRITE, CL_TRUE,
                          clBuildProgram, clCreateBuffer, clCreateKernel,
                          clCreateProgramWithSource, clEnqueueNDRangeKernel,
                          clEnqueueReadBuffer, clEnqueueWriteBuffer, clFinish, clGetDeviceInfo,
                          clGetKernelSubGroupInfo, clSetKernelArg)

SRC = r"""
__kernel void sg(__global int *out, __global const int *in, __global float *fout) {
  uint t = get_local_linear_id(), n = get_local_size(0) * get_local_size(1);
  int v = in[get_global_id(0) + get_global_id(1) * get_global_size(0)];
  int k = 0;
  out[k++ * n + t] = get_sub_group_size();
  out[k++ * n + t] = get_max_sub_group_size();
  out[k++ * n + t] = get_num_sub_groups();
  out[k++ * n + t] = get_sub_group_id();
  out[k++ * n + t] = get_sub_group_local_id();
  out[k++ * n + t] = sub_group_all(v >= 0);
  out[k++ * n + t] = sub_group_any(v == 7);
  out[k++ * n + t] = sub_group_broadcast(v, 2);
  out[k++ * n + t] = sub_group_reduce_add(v);
  out[k++ * n + t] = sub_group_reduce_min(v);
  out[k++ * n + t] = sub_group_reduce_max(v);
  out[k++ * n + t] = sub_group_scan_inclusive_add(v);
  out[k++ * n + t] = sub_group_scan_exclusive_add(v);
  out[k++ * n + t] = sub_group_scan_exclusive_min(v);
  out[k++ * n + t] = sub_group_scan_inclusive_max(v);
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
  fout[t] = sub_group_reduce_add((float)v * 0.5f);
  fout[n + t] = sub_group_scan_exclusive_max((float)v);
}
"""
ROWS = 15


@pytest.fixture(scope="module")
def kernel(context):
    p = clCreateProgramWithSource(context, [SRC])
    clBuildProgram(p)
    return clCreateKernel(p, "sg")


def _run(context, queue, kernel, local):
    n = local[0] * local[1]
    rng = np.random.default_rng(n)
    v = rng.integers(0, 100, n).astype(np.int32)
    v[1] = 7
    out = np.zeros(ROWS * n, np.int32)
    fout = np.zeros(2 * n, np.float32)
    b_in = clCreateBuffer(context, CL_MEM_READ_WRITE, v.nbytes)
    b_out = clCreateBuffer(context, CL_MEM_READ_WRITE, out.nbytes)
    b_f = clCreateBuffer(context, CL_MEM_READ_WRITE, fout.nbytes)
    clEnqueueWriteBuffer(queue, b_in, CL_TRUE, 0, v.nbytes, v)
    for i, b in enumerate((b_out, b_in, b_f)):
        clSetKernelArg(kernel, i, b)
    clEnqueueNDRangeKernel(queue, kernel, 2, None, list(local), list(local))
    clFinish(queue)
    clEnqueueReadBuffer(queue, b_out, CL_TRUE, 0, out.nbytes, out)
    clEnqueueReadBuffer(queue, b_f, CL_TRUE, 0, fout.nbytes, fout)
    return v, out.reshape(ROWS, n), fout.reshape(2, n)


@pytest.mark.parametrize("local", [(64, 1), (16, 3), (8, 2)], ids=["64", "48_as_16x3", "16_as_8x2"])
def test_sub_group_functions_against_numpy(context, queue, kernel, local):
    v, got, f = _run(context, queue, kernel, local)
    n = len(v)
    for t in range(n):
        s0 = t // 32 * 32
        sg = v[s0:s0 + 32]
        r = t - s0
        assert list(got[:5, t]) == [len(sg), min(32, n), (n + 31) // 32, t // 32, r]
        assert got[5, t] == 1 and got[6, t] == int((sg == 7).any())
        assert got[7, t] == sg[2]
        assert (got[8, t], got[9, t], got[10, t]) == (sg.sum(), sg.min(), sg.max())
        assert got[11, t] == sg[:r + 1].sum() and got[12, t] == sg[:r].sum()
        assert got[13, t] == (sg[:r].min() if r else np.iinfo(np.int32).max)
        assert got[14, t] == sg[:r + 1].max()
        assert f[0, t] == np.float32(sum(np.float32(x) * np.float32(0.5) for x in sg))
        assert f[1, t] == (np.float32(sg[:r].max()) if r else -np.inf)


def test_device_reports_cl_khr_subgroups(device):
    assert "cl_khr_subgroups" in clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS).split()
    assert clGetDeviceInfo(device, CL_DEVICE_MAX_NUM_SUB_GROUPS) == 32


def test_clGetKernelSubGroupInfo(kernel, device, code_of):
    g = clGetKernelSubGroupInfo
    assert g(kernel, device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, [48]) == 32
    assert g(kernel, device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, [4, 2]) == 8
    assert g(kernel, device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, [16, 3]) == 2
    assert g(kernel, device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, 3) == [96, 1, 1]
    assert g(kernel, device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, 33) == [0, 0, 0]
    assert g(kernel, device, CL_KERNEL_MAX_NUM_SUB_GROUPS) == 32
    assert g(kernel, device, CL_KERNEL_COMPILE_NUM_SUB_GROUPS) == 0
    assert code_of(g, kernel, device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE) == CL_INVALID_VALUE
    assert code_of(g, kernel, device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, [0]) == CL_INVALID_VALUE
    assert code_of(g, kernel, device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, "x") == CL_INVALID_VALUE
    assert code_of(g, kernel, device, 0x1234) == CL_INVALID_VALUE


BALLOT_SRC = r"""
#if !defined(cl_khr_subgroup_ballot) || !defined(cl_khr_subgroup_shuffle_relative)
#error the extension macros are missing
#endif
__kernel void bal(__global uint *out, __global const int *in) {
  uint t = get_local_id(0), n = get_local_size(0);
  int v = in[get_global_id(0)];
  uint4 b = sub_group_ballot(v & 1);
  int k = 0;
  out[k++ * n + t] = b.x;
  out[k++ * n + t] = b.y | b.z | b.w;
  out[k++ * n + t] = sub_group_inverse_ballot(b);
  out[k++ * n + t] = sub_group_ballot_bit_extract(b, (t * 7) % 32);
  out[k++ * n + t] = sub_group_ballot_bit_count(b);
  out[k++ * n + t] = sub_group_ballot_inclusive_scan(b);
  out[k++ * n + t] = sub_group_ballot_exclusive_scan(b);
  out[k++ * n + t] = sub_group_ballot_find_lsb(b);
  out[k++ * n + t] = sub_group_ballot_find_msb(b);
  out[k++ * n + t] = get_sub_group_lt_mask().x;
  out[k++ * n + t] = get_sub_group_ge_mask().x;
  out[k++ * n + t] = sub_group_broadcast_first(v);
  out[k++ * n + t] = sub_group_non_uniform_broadcast(v, 3);
}
"""


@pytest.mark.parametrize("n", [64, 48])
def test_cl_khr_subgroup_ballot_against_numpy(context, queue, n):
    p = clCreateProgramWithSource(context, [BALLOT_SRC])
    clBuildProgram(p)
    k = clCreateKernel(p, "bal")
    v = np.random.default_rng(n).integers(0, 1000, n).astype(np.int32)
    v[32:] |= 1                                 # the second sub-group: every vote set
    rows = 13
    out = np.zeros(rows * n, np.uint32)
    b_in = clCreateBuffer(context, CL_MEM_READ_WRITE, v.nbytes)
    b_out = clCreateBuffer(context, CL_MEM_READ_WRITE, out.nbytes)
    clEnqueueWriteBuffer(queue, b_in, CL_TRUE, 0, v.nbytes, v)
    clSetKernelArg(k, 0, b_out)
    clSetKernelArg(k, 1, b_in)
    clEnqueueNDRangeKernel(queue, k, 1, None, [n], [n])
    clEnqueueReadBuffer(queue, b_out, CL_TRUE, 0, out.nbytes, out)
    got = out.reshape(rows, n)
    for t in range(n):
        s0, r = t // 32 * 32, t % 32
        sg = v[s0:s0 + 32]
        bits = [int(x & 1) for x in sg]
        ballot = sum(b << i for i, b in enumerate(bits))
        size = len(sg)
        set_bits = [i for i, b in enumerate(bits) if b]
        assert got[0, t] == ballot and got[1, t] == 0
        assert got[2, t] == bits[r]
        assert got[3, t] == (ballot >> ((t * 7) % 32)) & 1
        assert got[4, t] == sum(bits)
        assert got[5, t] == sum(bits[:r + 1]) and got[6, t] == sum(bits[:r])
        assert got[7, t] == min(set_bits) and got[8, t] == max(set_bits)
        assert got[9, t] == (1 << r) - 1
        assert got[10, t] == ((1 << size) - 1) & ~((1 << r) - 1) & 0xffffffff
        assert got[11, t] == np.uint32(sg[0]) and got[12, t] == np.uint32(sg[3])


def test_device_reports_the_subgroup_extensions(device):
    ext = clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS).split()
    for name in ("cl_khr_subgroup_ballot", "cl_khr_subgroup_shuffle",
                 "cl_khr_subgroup_shuffle_relative"):
        assert name in ext


QUERIES = r"""
__kernel void q(__global uint *out) {
  uint t = get_local_linear_id(), n = get_local_size(0) * get_local_size(1);
  __global uint *o = out + 4 * n * (get_group_id(0) + get_num_groups(0) * get_group_id(1));
  o[t] = get_sub_group_size();
  o[n + t] = get_num_sub_groups();
  o[2 * n + t] = get_max_sub_group_size();
  o[3 * n + t] = get_enqueued_num_sub_groups();
}
"""


@pytest.mark.parametrize("force", ["0", "1"], ids=["block", "fibers"])
def test_sub_group_queries_are_no_collectives(context, queue, monkeypatch, force):
    """The queries are functions of the work-group size and the local id
    (detail/cl_subgroup.h): a kernel that asks only them keeps its block
    function (it used to run on fibers, 100x slower); the values are the
    same on both paths, the last sub-group of 48 work-items has 16."""
    from pyemu.compiler.regions import blocks as _regions
    from pyemu.tools.info import kernel_paths
    assert kernel_paths(QUERIES, "opencl")["q"][0] == "block function"
    monkeypatch.setenv(_regions.FORCE_ENV, force)
    p = clCreateProgramWithSource(context, [QUERIES])
    clBuildProgram(p)
    k = clCreateKernel(p, "q")
    n, groups = 48, 6
    out = np.zeros(4 * n * groups, np.uint32)
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, out.nbytes)
    clSetKernelArg(k, 0, b)
    clEnqueueNDRangeKernel(queue, k, 2, None, [16 * 3, 3 * 2], [16, 3])
    clEnqueueReadBuffer(queue, b, CL_TRUE, 0, out.nbytes, out)
    t = np.arange(n)
    one = np.concatenate([np.where(t < 32, 32, 16), np.full(n, 2), np.full(n, 32), np.full(n, 2)])
    np.testing.assert_array_equal(out.reshape(groups, 4 * n), np.tile(one, (groups, 1)))


DIVERGED = r"""
__kernel void gone(__global int *out) {
  int t = get_local_id(0);
  if (t >= 5) return;
  out[t] = sub_group_reduce_add(t);
}
"""


SCRIPT = r"""
from pyemu.opencl import *
platform = clGetPlatformIDs()[0]
device = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL)[0]
ctx = clCreateContext(None, [device])
q = clCreateCommandQueue(ctx, device, 0)
p = clCreateProgramWithSource(ctx, [SOURCE])
clBuildProgram(p)
k = clCreateKernel(p, "gone")
b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4 * 32)
clSetKernelArg(k, 0, b)
try:
    clEnqueueNDRangeKernel(q, k, 1, None, [32], [32])
    clFinish(q)
except CLError as e:
    R["code"], R["message"] = e.code, str(e)
"""


@pytest.mark.parametrize("force", ["0", "1"], ids=["block", "fibers"])
def test_a_sub_group_left_in_part_fails_in_opencls_words(run_cuda, tmp_path, force):
    """Work-items that return before a sub-group function the others wait
    at: the launch fails (CL_OUT_OF_RESOURCES) with a message in OpenCL's
    words (sub-group, sub-group local id), not CUDA's (warp, lane, the
    intrinsic the header built it from), on both paths (in a process of
    its own: the failure is sticky)."""
    from pyemu.compiler.regions import blocks as _regions
    run = run_cuda(SCRIPT, consts={"SOURCE": DIVERGED},
                   env={_regions.FORCE_ENV: force, "PYEMU_CACHE_DIR": str(tmp_path)})
    assert run.returncode == 0, run.explain()
    assert run.R["code"] == -5              # CL_OUT_OF_RESOURCES
    msg = run.R["message"]
    assert "kernel 'gone' failed in work-group (0,0,0), work-item (" in msg
    assert "sub-group 0: " in msg and "sub-group local id(s) 0,1,2,3,4" in msg
    assert "a sub-group function at program.cl:5" in msg
    assert "every work-item of a sub-group must reach the same sub-group function" in msg
    for cuda_word in ("warp", "lane", "__shfl", "mask"):
        assert cuda_word not in msg, msg
