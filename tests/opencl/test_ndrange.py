"""Kernel execution: clEnqueueNDRangeKernel and clEnqueueTask: a reduction with a
__local scratch argument, 1-D/2-D/3-D ranges with offsets (against NumPy and
PoCL), reqd_work_group_size, the local size chosen when none is given, every
error code, events and wait lists, arguments snapshotted at enqueue, buffers
kept alive, and a faulting kernel that fails its event without killing the
process."""
import gc
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from pyemu.opencl import *  # noqa: F403

REPO = Path(__file__).resolve().parents[2]

SOURCE = r"""
__kernel void reduce(__global const float *x, __local float *s, __global float *out) {
    size_t l = get_local_id(0);
    s[l] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t k = get_local_size(0) / 2; k > 0; k >>= 1) {
        if (l < k) s[l] += s[l + k];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) out[get_group_id(0)] = s[0];
}

/* 16 values per work-item, at its place in the range (offset taken off) */
__kernel void ids(__global uint *o) {
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    size_t z = get_global_id(2) - get_global_offset(2);
    __global uint *r = o + 16 * ((z * get_global_size(1) + y) * get_global_size(0) + x);
    for (uint d = 0; d < 3; d++) {
        r[d] = get_global_id(d);
        r[3 + d] = get_local_id(d);
        r[6 + d] = get_group_id(d);
        r[9 + d] = get_local_size(d);
        r[12 + d] = get_num_groups(d);
    }
    r[15] = get_work_dim();
}

__kernel __attribute__((reqd_work_group_size(4, 2, 1)))
void fixed(__global uint *o) {
    o[get_global_id(1) * get_global_size(0) + get_global_id(0)] =
        get_local_size(0) * 10 + get_local_size(1);
}

__kernel void lsize(__global uint *o) {
    if (get_global_id(0) == 0) { o[0] = get_local_size(0); o[1] = get_num_groups(0); }
}

__kernel void store(__global int *o, int v) { o[get_global_id(0)] = v; }

__kernel void copy(__global const int *a, __global int *b) {
    b[get_global_id(0)] = a[get_global_id(0)];
}

__kernel void add_one(__global int *a) { a[get_global_id(0)] += 1; }

__kernel void two_locals(__global int *o, __local int *a, __local int *b) {
    a[get_local_id(0)] = 1; b[get_local_id(0)] = 2;
    barrier(CLK_LOCAL_MEM_FENCE);
    o[get_global_id(0)] = a[get_local_id(0)] + b[get_local_id(0)];
}

__kernel void task(__global uint *o) {
    o[0] = get_global_size(0); o[1] = get_local_size(0); o[2] = get_work_dim();
    o[3] = get_global_id(0);
}
"""


@pytest.fixture(scope="module")
def program(context):
    p = clCreateProgramWithSource(context, [SOURCE])
    clBuildProgram(p)
    return p


@pytest.fixture(scope="module")
def pocl():
    """(pyopencl, a context on PoCL's device); PoCL is installed by the test command."""
    import pyopencl as cl
    for plat in cl.get_platforms():
        if "Portable Computing Language" in plat.name:
            return cl, cl.Context(plat.get_devices())
    pytest.fail("PoCL is not installed (apt-get install pocl-opencl-icd)")


def _buffer(context, host=None, nbytes=None):
    if host is not None:
        return clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.nbytes, host)
    return clCreateBuffer(context, CL_MEM_READ_WRITE, nbytes)


def _read(queue, buf, dtype, n, wait=None):
    out = np.empty(n, dtype)
    clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, out.nbytes, out, wait)
    return out


def _kernel(program, name, *args):
    k = clCreateKernel(program, name)
    for i, a in enumerate(args):
        clSetKernelArg(k, i, a)
    return k


# ---- a reduction with a __local scratch argument ----

@pytest.mark.parametrize("form", ["LocalMemory", "C"])
def test_reduction_with_local_scratch(context, queue, program, form):
    n, group = 1 << 14, 256
    x = np.random.default_rng(3).random(n, dtype=np.float32)
    X = _buffer(context, x)
    out = _buffer(context, nbytes=4 * (n // group))
    k = clCreateKernel(program, "reduce")
    clSetKernelArg(k, 0, X)
    if form == "LocalMemory":
        clSetKernelArg(k, 1, LocalMemory(4 * group))
    else:
        clSetKernelArg(k, 1, 4 * group, None)
    clSetKernelArg(k, 2, out)
    clEnqueueNDRangeKernel(queue, k, 1, None, [n], [group])
    sums = _read(queue, out, np.float32, n // group)
    np.testing.assert_allclose(sums, x.reshape(-1, group).sum(axis=1, dtype=np.float64),
                               rtol=1e-5)


def test_two_local_arguments(context, queue, program):
    out = _buffer(context, nbytes=4 * 128)
    k = _kernel(program, "two_locals", out, LocalMemory(4 * 64), LocalMemory(4 * 64))
    clEnqueueNDRangeKernel(queue, k, 1, None, [128], [64])
    assert (_read(queue, out, np.int32, 128) == 3).all()


# ---- ranges, offsets, work-item functions ----

def _expected_ids(gws, lws, offs):
    wd = len(gws)
    g3, l3, o3 = [list(v) + [d] * (3 - wd) for v, d in ((gws, 1), (lws, 1), (offs, 0))]
    rows = []
    for z in range(g3[2]):
        for y in range(g3[1]):
            for x in range(g3[0]):
                p = (x, y, z)
                rows.append([p[d] + o3[d] for d in range(3)] + [p[d] % l3[d] for d in range(3)]
                            + [p[d] // l3[d] for d in range(3)] + l3
                            + [g3[d] // l3[d] for d in range(3)] + [wd])
    return np.array(rows, np.uint32)


RANGES = [
    ((64,), (16,), (3,)),
    ((16, 12), (4, 3), (5, 7)),
    ((4, 6, 8), (2, 3, 4), (1, 2, 3)),
    ((8, 4, 2), (8, 1, 2), None),
]


@pytest.mark.parametrize("gws, lws, offs", RANGES)
def test_ids_with_offsets(context, queue, program, gws, lws, offs):
    n = int(np.prod(gws))
    out = _buffer(context, nbytes=16 * 4 * n)
    k = _kernel(program, "ids", out)
    clEnqueueNDRangeKernel(queue, k, len(gws), offs, gws, lws)
    got = _read(queue, out, np.uint32, 16 * n).reshape(n, 16)
    np.testing.assert_array_equal(got, _expected_ids(gws, lws, offs or (0,) * len(gws)))


@pytest.mark.parametrize("gws, lws, offs", RANGES[1:3])
def test_ids_match_pocl(context, queue, program, pocl, gws, lws, offs):
    cl, ctx = pocl
    n = int(np.prod(gws))
    theirs = np.zeros(16 * n, np.uint32)
    q = cl.CommandQueue(ctx)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, theirs.nbytes)
    cl.Program(ctx, SOURCE).build().ids(q, gws, lws, buf, global_offset=offs)
    cl.enqueue_copy(q, theirs, buf)
    out = _buffer(context, nbytes=theirs.nbytes)
    clEnqueueNDRangeKernel(queue, _kernel(program, "ids", out), len(gws), offs, gws, lws)
    np.testing.assert_array_equal(_read(queue, out, np.uint32, 16 * n), theirs)


def test_clEnqueueTask_is_one_work_item(context, queue, program):
    out = _buffer(context, nbytes=16)
    ev = clEnqueueTask(queue, _kernel(program, "task", out))
    assert clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE) == CL_COMMAND_TASK
    assert _read(queue, out, np.uint32, 4).tolist() == [1, 1, 1, 0]


# ---- local sizes ----

def test_reqd_work_group_size(context, queue, program, code_of):
    out = _buffer(context, nbytes=4 * 64)
    k = _kernel(program, "fixed", out)
    clEnqueueNDRangeKernel(queue, k, 2, None, [8, 8], [4, 2])
    assert (_read(queue, out, np.uint32, 64) == 42).all()
    clEnqueueNDRangeKernel(queue, k, 2, None, [16, 4], None)       # the reqd size is taken
    assert (_read(queue, out, np.uint32, 64) == 42).all()
    assert code_of(clEnqueueNDRangeKernel, queue, k, 2, None, [8, 8], [2, 4]) == \
        CL_INVALID_WORK_GROUP_SIZE
    assert code_of(clEnqueueNDRangeKernel, queue, k, 2, None, [8, 8], [8, 1]) == \
        CL_INVALID_WORK_GROUP_SIZE
    assert code_of(clEnqueueNDRangeKernel, queue, k, 2, None, [6, 8], None) == \
        CL_INVALID_WORK_GROUP_SIZE
    assert code_of(clEnqueueNDRangeKernel, queue, k, 1, None, [8], None) == \
        CL_INVALID_WORK_GROUP_SIZE


def _largest_divisor(n, limit):
    return max(d for d in range(1, min(n, limit) + 1) if n % d == 0)


@pytest.mark.parametrize("n", [1, 96, 1000, 4096, 2053, 1 << 20])
def test_local_size_chosen_divides_global(context, queue, program, n):
    out = _buffer(context, nbytes=8)
    clEnqueueNDRangeKernel(queue, _kernel(program, "lsize", out), 1, None, [n], None)
    local, groups = _read(queue, out, np.uint32, 2).tolist()
    assert local == _largest_divisor(n, 1024) and local * groups == n


# ---- error codes ----

def test_work_dim_and_global_size_errors(program, queue, context, code_of):
    k = _kernel(program, "lsize", _buffer(context, nbytes=8))
    E = clEnqueueNDRangeKernel
    assert code_of(E, queue, k, 0, None, [8], None) == CL_INVALID_WORK_DIMENSION == -53
    assert code_of(E, queue, k, 4, None, [8, 1, 1, 1], None) == CL_INVALID_WORK_DIMENSION
    assert code_of(E, queue, k, 1, None, [0], None) == CL_INVALID_GLOBAL_WORK_SIZE == -63
    assert code_of(E, queue, k, 2, None, [8, 0], None) == CL_INVALID_GLOBAL_WORK_SIZE
    assert code_of(E, queue, k, 1, None, None, None) == CL_INVALID_GLOBAL_WORK_SIZE
    assert code_of(E, queue, k, 2, None, [8], None) == CL_INVALID_GLOBAL_WORK_SIZE
    assert code_of(E, queue, k, 1, [1 << 32], [8], None) == CL_INVALID_GLOBAL_OFFSET == -56
    assert code_of(E, queue, k, 1, [(1 << 64) - 4], [8], None) == CL_INVALID_GLOBAL_OFFSET
    # more work-groups than the device runs in dimension 1 (65535): the core refuses it
    assert code_of(E, queue, k, 2, None, [1, 70000], [1, 1]) == CL_INVALID_GLOBAL_WORK_SIZE


def test_local_size_errors(program, queue, context, code_of):
    k = _kernel(program, "lsize", _buffer(context, nbytes=8))
    E = clEnqueueNDRangeKernel
    assert code_of(E, queue, k, 1, None, [10], [4]) == CL_INVALID_WORK_GROUP_SIZE == -54
    assert code_of(E, queue, k, 1, None, [8], [0]) == CL_INVALID_WORK_GROUP_SIZE
    assert code_of(E, queue, k, 2, None, [64, 64], [32, 64]) == CL_INVALID_WORK_GROUP_SIZE
    assert code_of(E, queue, k, 1, None, [4096], [2048]) == CL_INVALID_WORK_ITEM_SIZE == -55
    assert code_of(E, queue, k, 3, None, [1, 1, 128], [1, 1, 128]) == CL_INVALID_WORK_ITEM_SIZE


def test_unset_arguments(program, queue, code_of):
    k = clCreateKernel(program, "copy")
    assert code_of(clEnqueueNDRangeKernel, queue, k, 1, None, [8], None) == \
        CL_INVALID_KERNEL_ARGS == -52


def test_too_much_local_memory(program, queue, context, device, code_of):
    limit = clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE)
    out = _buffer(context, nbytes=4 * 64)
    k = _kernel(program, "two_locals", out, LocalMemory(limit // 2 + 64), LocalMemory(limit // 2))
    assert code_of(clEnqueueNDRangeKernel, queue, k, 1, None, [64], [64]) == \
        CL_OUT_OF_RESOURCES == -5
    clSetKernelArg(k, 1, LocalMemory(limit // 2))
    clEnqueueNDRangeKernel(queue, k, 1, None, [64], [64])
    assert (_read(queue, out, np.int32, 64) == 3).all()


def test_handles_and_contexts(program, queue, context, device, code_of):
    k = _kernel(program, "lsize", _buffer(context, nbytes=8))
    assert code_of(clEnqueueNDRangeKernel, None, k, 1, None, [8], None) == \
        CL_INVALID_COMMAND_QUEUE
    assert code_of(clEnqueueNDRangeKernel, queue, program, 1, None, [8], None) == \
        CL_INVALID_KERNEL
    assert code_of(clEnqueueTask, queue, "kernel") == CL_INVALID_KERNEL
    other = clCreateContext(None, [device])
    p2 = clCreateProgramWithSource(other, [SOURCE])
    clBuildProgram(p2)
    k2 = _kernel(p2, "lsize", _buffer(other, nbytes=8))
    assert code_of(clEnqueueNDRangeKernel, queue, k2, 1, None, [8], None) == CL_INVALID_CONTEXT
    assert code_of(clEnqueueTask, queue, k2) == CL_INVALID_CONTEXT
    assert code_of(clEnqueueNDRangeKernel, queue, k, 1, None, [8], None, ["event"]) == \
        CL_INVALID_EVENT_WAIT_LIST
    assert code_of(clEnqueueNDRangeKernel, queue, k, 1, None, [8], None,
                   [clCreateUserEvent(other)]) == CL_INVALID_CONTEXT


# ---- events and wait lists ----

def test_user_event_gates_a_kernel(context, queue, program):
    a = _buffer(context, np.zeros(64, np.int32))
    u = clCreateUserEvent(context)
    ev = clEnqueueNDRangeKernel(queue, _kernel(program, "add_one", a), 1, None, [64], None, [u])
    assert clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE) == CL_COMMAND_NDRANGE_KERNEL
    assert clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS) == CL_QUEUED
    clSetUserEventStatus(u, CL_COMPLETE)
    clWaitForEvents([ev])
    assert clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS) == CL_COMPLETE
    t = [clGetEventProfilingInfo(ev, p) for p in (CL_PROFILING_COMMAND_QUEUED,
                                                  CL_PROFILING_COMMAND_START,
                                                  CL_PROFILING_COMMAND_END)]
    assert t == sorted(t)
    assert (_read(queue, a, np.int32, 64) == 1).all()


def test_out_of_order_chain_by_wait_lists(context, device, program):
    q = clCreateCommandQueue(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    host = np.arange(4096, dtype=np.int32)
    a = _buffer(context, nbytes=host.nbytes)
    k = _kernel(program, "add_one", a)
    u = clCreateUserEvent(context)
    w = clEnqueueWriteBuffer(q, a, CL_FALSE, 0, host.nbytes, host, [u])
    e1 = clEnqueueNDRangeKernel(q, k, 1, None, [4096], [256], [w])
    e2 = clEnqueueNDRangeKernel(q, k, 1, None, [4096], [256], [e1])
    out = np.empty_like(host)
    r = clEnqueueReadBuffer(q, a, CL_FALSE, 0, out.nbytes, out, [e2])
    assert clGetEventInfo(e2, CL_EVENT_COMMAND_EXECUTION_STATUS) == CL_QUEUED
    clSetUserEventStatus(u, CL_COMPLETE)
    clWaitForEvents([r])
    np.testing.assert_array_equal(out, host + 2)
    clFinish(q)


def test_failed_wait_list_fails_the_kernel(context, queue, program, code_of):
    a = _buffer(context, np.zeros(16, np.int32))
    u = clCreateUserEvent(context)
    ev = clEnqueueNDRangeKernel(queue, _kernel(program, "add_one", a), 1, None, [16], None, [u])
    clSetUserEventStatus(u, -1234)
    assert code_of(clWaitForEvents, [ev]) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    assert clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS) == \
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    assert (_read(queue, a, np.int32, 16) == 0).all()       # the kernel did not run


def test_arguments_are_snapshotted_at_enqueue(context, queue, program):
    a, b = _buffer(context, nbytes=4 * 32), _buffer(context, nbytes=4 * 32)
    k = _kernel(program, "store", a, 1)
    u = clCreateUserEvent(context)
    clEnqueueNDRangeKernel(queue, k, 1, None, [32], None, [u])
    clSetKernelArg(k, 0, b)
    clSetKernelArg(k, 1, 2)
    e2 = clEnqueueNDRangeKernel(queue, k, 1, None, [32], None, [u])
    clSetKernelArg(k, 1, 3)
    clSetUserEventStatus(u, CL_COMPLETE)
    clWaitForEvents([e2])
    assert (_read(queue, a, np.int32, 32) == 1).all()
    assert (_read(queue, b, np.int32, 32) == 2).all()


def test_enqueue_keeps_buffers_alive(context, queue, program):
    """A buffer the program drops while a kernel that reads it waits stays until it ran."""
    src = _buffer(context, np.arange(1024, dtype=np.int32))
    dst = _buffer(context, nbytes=4 * 1024)
    k = _kernel(program, "copy", src, dst)
    u = clCreateUserEvent(context)
    ev = clEnqueueNDRangeKernel(queue, k, 1, None, [1024], None, [u])
    clSetKernelArg(k, 0, None)
    del src
    gc.collect()
    filler = [_buffer(context, np.full(1024, -1, np.int32)) for _ in range(4)]
    clSetUserEventStatus(u, CL_COMPLETE)
    clWaitForEvents([ev])
    np.testing.assert_array_equal(_read(queue, dst, np.int32, 1024), np.arange(1024))
    del filler


# ---- the launch descriptions an enqueue keeps (ArgState.launches) ----

def test_set_arg_between_cached_enqueues_is_seen(context, queue, program):
    """The second enqueue of the same range takes the cached description and the
    arguments as clSetKernelArg left them: a new value and a new buffer."""
    a, b = _buffer(context, nbytes=4 * 64), _buffer(context, nbytes=4 * 64)
    k = _kernel(program, "store", a, 7)
    clEnqueueNDRangeKernel(queue, k, 1, None, [64], [16])
    assert len(k.state.launches) == 1
    clSetKernelArg(k, 0, b)
    clSetKernelArg(k, 1, -3)
    clEnqueueNDRangeKernel(queue, k, 1, None, [64], [16])
    assert len(k.state.launches) == 1            # the same description, reused
    assert (_read(queue, a, np.int32, 64) == 7).all()
    assert (_read(queue, b, np.int32, 64) == -3).all()
    clSetKernelArg(k, 1, 5)
    clEnqueueNDRangeKernel(queue, k, 1, None, (64,), (16,))   # a tuple: another key
    assert (_read(queue, b, np.int32, 64) == 5).all()


def test_local_size_change_replaces_cached_descriptions(context, queue, program):
    out = _buffer(context, nbytes=4 * 32)
    k = _kernel(program, "two_locals", out, LocalMemory(4 * 32), LocalMemory(4 * 32))
    clEnqueueNDRangeKernel(queue, k, 1, None, [32], [32])
    first = k.state.launches
    clSetKernelArg(k, 2, LocalMemory(4 * 64))
    assert k.state.launches is not first and not k.state.launches
    clEnqueueNDRangeKernel(queue, k, 1, None, [32], [32])
    assert (_read(queue, out, np.int32, 32) == 3).all()


def test_cached_range_still_checks_sizes_of_other_types(context, queue, program, code_of):
    """A float or bool equal to a cached int size is not a size: the checks run."""
    k = _kernel(program, "store", _buffer(context, nbytes=4 * 64), 1)
    E = clEnqueueNDRangeKernel
    E(queue, k, 1, None, [64], [16])
    assert code_of(E, queue, k, 1, None, [64.0], [16]) == CL_INVALID_GLOBAL_WORK_SIZE
    assert code_of(E, queue, k, 1, None, [64], [16.0]) == CL_INVALID_WORK_GROUP_SIZE
    assert code_of(E, queue, k, 1.0, None, [64], [16]) == CL_INVALID_WORK_DIMENSION
    assert code_of(E, queue, k, 1, None, [64], [24]) == CL_INVALID_WORK_GROUP_SIZE
    assert code_of(E, queue, k, 1, None, [np.int64(64)], [np.uint32(16)]) == 0
    assert code_of(E, queue, k, 1, None, [64], [16], ["event"]) == CL_INVALID_EVENT_WAIT_LIST
    clSetKernelArg(k, 1, 2)
    fixed = _kernel(program, "fixed", _buffer(context, nbytes=4 * 64))
    assert code_of(E, queue, fixed, 2, None, [8, 8], [4, 2]) == 0
    assert code_of(E, queue, fixed, 2, None, [8, 8], [2, 4]) == CL_INVALID_WORK_GROUP_SIZE
    assert code_of(E, queue, fixed, 2, None, [8, 8], [4, 2]) == 0
    clFinish(queue)


def test_cached_kernel_and_queue_of_another_context(context, device, queue, program, code_of):
    k = _kernel(program, "store", _buffer(context, nbytes=4 * 8), 1)
    clEnqueueNDRangeKernel(queue, k, 1, None, [8], None)
    other = clCreateContext(None, [device])
    q2 = clCreateCommandQueue(other, device, 0)
    assert code_of(clEnqueueNDRangeKernel, q2, k, 1, None, [8], None) == CL_INVALID_CONTEXT
    clReleaseKernel(k)
    assert code_of(clEnqueueNDRangeKernel, queue, k, 1, None, [8], None) == CL_INVALID_KERNEL


def test_released_buffer_of_a_cached_launch(context, queue, program, code_of):
    """A released buffer the cached launch names is CL_INVALID_MEM_OBJECT at the next
    enqueue, even when a new buffer got its address; it is freed, not kept."""
    import weakref
    from pyemu.runtime.core import ffi, lib
    a = _buffer(context, nbytes=4 * 64)
    k = _kernel(program, "store", a, 9)
    clEnqueueNDRangeKernel(queue, k, 1, None, [64], None)
    clFinish(queue)
    addr = a.addr
    clReleaseMemObject(a)                      # no command uses it now: freed at once
    lo, hi = ffi.new("unsigned long long *"), ffi.new("unsigned long long *")
    assert lib.pyemu_mem_find(addr, lo, hi) != 0 or lo[0] != addr   # not allocated there
    fresh = [_buffer(context, np.zeros(64, np.int32)) for _ in range(8)]
    assert code_of(clEnqueueNDRangeKernel, queue, k, 1, None, [64], None) == \
        CL_INVALID_MEM_OBJECT
    clFinish(queue)
    for f in fresh:
        assert (_read(queue, f, np.int32, 64) == 0).all()
    gone = weakref.ref(a)
    del a
    clSetKernelArg(k, 0, fresh[0])             # the kernel lets go of the old buffer
    gc.collect()
    assert gone() is None
    clEnqueueNDRangeKernel(queue, k, 1, None, [64], None)
    assert (_read(queue, fresh[0], np.int32, 64) == 9).all()


def test_storm_of_cached_enqueues(context, queue, program):
    """2000 enqueues of one kernel object add 1 each: every one ran, in order."""
    a = _buffer(context, np.zeros(256, np.int32))
    k = _kernel(program, "add_one", a)
    for _ in range(2000):
        clEnqueueNDRangeKernel(queue, k, 1, None, [256], [64])
    clFinish(queue)
    assert (_read(queue, a, np.int32, 256) == 2000).all()


# ---- a faulting kernel ----

FAULT = r"""
import json
import numpy as np
from pyemu.opencl import *
R = {}
def code_of(fn, *a):
    try:
        fn(*a)
    except CLError as e:
        return int(e.code)
    return 0
platform = clGetPlatformIDs()[0]
device = clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU)[0]
context = clCreateContext(None, [device])
queue = clCreateCommandQueue(context, device, 0)
program = clCreateProgramWithSource(context, [
    "__kernel void oob(__global int *a) { a[get_global_id(0) * 4096 + (1 << 24)] = 1; }\n"
    "__kernel void ok(__global int *a) { a[get_global_id(0)] = 1; }\n"])
clBuildProgram(program)
buf = clCreateBuffer(context, CL_MEM_READ_WRITE, 256)
oob = clCreateKernel(program, "oob")
clSetKernelArg(oob, 0, buf)
ev = clEnqueueNDRangeKernel(queue, oob, 1, None, [64], None)
R["wait"] = code_of(clWaitForEvents, [ev])
R["status"] = int(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS))
ok = clCreateKernel(program, "ok")
clSetKernelArg(ok, 0, buf)
R["later"] = code_of(clEnqueueNDRangeKernel, queue, ok, 1, None, [64], None)
R["read"] = code_of(clEnqueueReadBuffer, queue, buf, CL_TRUE, 0, 4, np.zeros(1, np.int32))
print("RESULT " + json.dumps(R))
"""


def test_faulting_kernel_fails_its_event_not_the_process():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]]
                                                       if env.get("PYTHONPATH") else []))
    try:
        proc = subprocess.run([sys.executable, "-c", textwrap.dedent(FAULT)], capture_output=True,
                              text=True, timeout=120, env=env, cwd=str(REPO))
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the process hung\n{exc.stdout}\n{exc.stderr}")
    assert proc.returncode == 0, proc.stderr
    line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")][-1]
    R = json.loads(line[len("RESULT "):])
    assert R["wait"] == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    assert R["status"] == CL_OUT_OF_RESOURCES          # negative: failed, as GPU drivers say
    assert R["later"] == CL_OUT_OF_RESOURCES
    assert R["read"] == CL_OUT_OF_RESOURCES
