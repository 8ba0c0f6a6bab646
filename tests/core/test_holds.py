"""Objects kept alive by in-flight commands (pyemu/runtime/holds.py): no
Python code runs on a worker thread, so the device makes progress while the
main thread holds the GIL."""
from __future__ import annotations

import ctypes
import gc
import time
import weakref

import numpy as np

import pyemu.opencl as cl
from pyemu.runtime import holds

KERNEL = r"""
__kernel void add_one(__global int *a) { a[get_global_id(0)] += 1; }
"""


def _setup(props=0):
    ctx = cl.clCreateContextFromType(None, cl.CL_DEVICE_TYPE_DEFAULT)
    dev = cl.clGetContextInfo(ctx, cl.CL_CONTEXT_DEVICES)[0]
    q = cl.clCreateCommandQueue(ctx, dev, props)
    prog = cl.clCreateProgramWithSource(ctx, [KERNEL])
    cl.clBuildProgram(prog)
    return ctx, q, cl.clCreateKernel(prog, "add_one")


def test_launch_storm_progresses_while_the_main_thread_holds_the_gil():
    ctx, q, k = _setup(cl.CL_QUEUE_PROFILING_ENABLE)
    n = 1024
    buf = cl.clCreateBuffer(ctx, cl.CL_MEM_READ_WRITE, 4 * n)
    host = np.zeros(n, np.int32)
    cl.clEnqueueWriteBuffer(q, buf, cl.CL_TRUE, 0, 4 * n, host)
    cl.clSetKernelArg(k, 0, buf)
    u = cl.clCreateUserEvent(ctx)
    events = []
    for i in range(200):    # each holds the buffer and its host array until it completes
        events.append(cl.clEnqueueNDRangeKernel(q, k, 1, None, [n], [64], [u] if i == 0 else None))
        events.append(cl.clEnqueueWriteBuffer(q, buf, cl.CL_FALSE, 0, 4, np.ones(1, np.int32)))
    cl.clSetUserEventStatus(u, cl.CL_COMPLETE)
    # a C call that keeps the GIL: ctypes.PyDLL does not let it go
    ctypes.PyDLL(None).usleep(1_000_000)
    t1 = time.monotonic_ns()
    status = cl.clGetEventInfo(events[-1], cl.CL_EVENT_COMMAND_EXECUTION_STATUS)
    assert status == cl.CL_COMPLETE, "the queue stalled while the main thread held the GIL"
    end = cl.clGetEventProfilingInfo(events[-1], cl.CL_PROFILING_COMMAND_END)
    assert end < t1, (f"the queue finished {(end - t1) / 1e6:.0f} ms after the GIL was let go: "
                      "a worker waited for Python")
    cl.clFinish(q)
    out = np.zeros(n, np.int32)
    cl.clEnqueueReadBuffer(q, buf, cl.CL_TRUE, 0, 4 * n, out)
    assert out[0] == 1 and (out[1:] == 200).all()


def test_an_async_copy_keeps_its_host_array_alive_until_it_completes():
    ctx, q, k = _setup()
    buf = cl.clCreateBuffer(ctx, cl.CL_MEM_READ_WRITE, 4096)
    u = cl.clCreateUserEvent(ctx)
    src = np.arange(1024, dtype=np.int32)
    ev = cl.clEnqueueWriteBuffer(q, buf, cl.CL_FALSE, 0, 4096, src, [u])
    del src                       # the caller's reference goes; the copy's stays
    gc.collect()
    before = holds.count()
    assert before >= 1
    cl.clSetUserEventStatus(u, cl.CL_COMPLETE)
    cl.clFinish(q)
    assert holds.count() < before  # the wait let go of what the copy held
    out = np.zeros(1024, np.int32)
    cl.clEnqueueReadBuffer(q, buf, cl.CL_TRUE, 0, 4096, out)
    assert (out == np.arange(1024)).all()
    del ev
