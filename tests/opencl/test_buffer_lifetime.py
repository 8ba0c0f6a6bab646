"""What keeps a buffer's memory: the core's reference counts (csrc/buffer.c).
A kernel that uses a released buffer keeps it until it completes, and frees
it then, on a worker, with no Python involved."""
import ctypes
import gc

import numpy as np

from pyemu.opencl import *  # noqa: F403
from pyemu.runtime import holds
from pyemu.runtime.core import ffi, lib

KERNELS = r"""
__kernel void add(__global const int *a, __global const int *b, __global int *c) {
    int i = get_global_id(0); c[i] = a[i] + b[i];
}
__kernel void add_one(__global int *a) { a[get_global_id(0)] += 1; }
"""


def _program(context):
    prog = clCreateProgramWithSource(context, [KERNELS])
    clBuildProgram(prog)
    return prog


def _live(addr) -> bool:
    s, n = ffi.new("unsigned long long *"), ffi.new("unsigned long long *")
    return lib.pyemu_mem_find(addr, s, n) == 0


def test_clReleaseMemObject_of_a_kernel_argument_waiting_on_a_user_event(context, queue):
    """The release returns at once; the memory goes once the kernel ran (the
    allocation count the core reports), and the kernel read it intact."""
    prog = _program(context)
    k = clCreateKernel(prog, "add")
    n = 1024
    a = np.arange(n, dtype=np.int32)
    bufs = [clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4 * n, a)
            for _ in range(2)]
    c = clCreateBuffer(context, CL_MEM_READ_WRITE, 4 * n)
    for i, b in enumerate(bufs + [c]):
        clSetKernelArg(k, i, b)
    gc.collect()                             # what earlier tests dropped goes now
    clFinish(queue)
    u = clCreateUserEvent(context)
    ev = clEnqueueNDRangeKernel(queue, k, 1, None, [n], [64], [u])
    addrs = [b.addr for b in bufs]
    live = lib.pyemu_mem_live()
    for b in bufs:
        clReleaseMemObject(b)                # returns at once though the kernel waits
    del bufs
    gc.collect()
    assert lib.pyemu_mem_live() == live and all(_live(x) for x in addrs)
    assert clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS) != CL_COMPLETE
    filler = [clCreateBuffer(context, CL_MEM_READ_WRITE, 4 * n) for _ in range(4)]
    clSetUserEventStatus(u, CL_COMPLETE)
    clWaitForEvents([ev])
    assert lib.pyemu_mem_live() == live - 2 + len(filler)
    assert not any(_live(x) for x in addrs)
    out = np.zeros(n, np.int32)
    clEnqueueReadBuffer(queue, c, CL_TRUE, 0, 4 * n, out)
    np.testing.assert_array_equal(out, 2 * a)
    # the kernel's arguments were released: enqueueing it again says so
    try:
        clEnqueueNDRangeKernel(queue, k, 1, None, [n], [64])
        code = 0
    except CLError as exc:
        code = exc.code
    assert code == CL_INVALID_MEM_OBJECT


def test_sub_buffer_keeps_the_memory_after_the_parent_is_released(context, queue):
    prog = _program(context)
    k = clCreateKernel(prog, "add_one")
    parent = clCreateBuffer(context, CL_MEM_READ_WRITE, 4096)
    addr = parent.addr
    sub = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, (1024, 1024))
    clReleaseMemObject(parent)
    assert _live(addr)
    clSetKernelArg(k, 0, sub)
    for _ in range(3):
        clEnqueueNDRangeKernel(queue, k, 1, None, [256], [64])
    out = np.zeros(256, np.int32)
    clEnqueueReadBuffer(queue, sub, CL_TRUE, 0, 1024, out)
    assert (out == 3).all()
    clReleaseMemObject(sub)
    clFinish(queue)
    assert not _live(addr)


def test_storm_with_released_buffers_needs_no_python_on_the_workers(context, queue):
    """300 launches of a 3-buffer kernel whose buffers are released while the
    launches wait: they complete (and free the buffers, on a worker) while
    this thread holds the GIL in a C call; no holds entry is added."""
    prog = _program(context)
    k = clCreateKernel(prog, "add")
    n = 256
    a = np.ones(n, np.int32)
    bufs = [clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4 * n, a)
            for _ in range(3)]
    for i, b in enumerate(bufs):
        clSetKernelArg(k, i, b)
    gc.collect()
    clFinish(queue)
    u = clCreateUserEvent(context)
    before = holds.count()
    first = clEnqueueNDRangeKernel(queue, k, 1, None, [n], [64], [u])
    for _ in range(299):
        last = clEnqueueNDRangeKernel(queue, k, 1, None, [n], [64])
    assert holds.count() == before
    addrs = [b.addr for b in bufs]
    live = lib.pyemu_mem_live()
    for b in bufs:
        clReleaseMemObject(b)
    clSetUserEventStatus(u, CL_COMPLETE)
    ctypes.PyDLL(None).usleep(1_000_000)    # keeps the GIL for a second
    assert lib.pyemu_cmd_status(last._cmd) == CL_COMPLETE, \
        "the queue stalled while the main thread held the GIL"
    assert lib.pyemu_mem_live() == live - 3 and not any(_live(x) for x in addrs)
    del first
