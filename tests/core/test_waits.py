"""Waits (csrc/engine.c, pyemu/runtime/sync.py): each completion wakes only
the waits it may end, a wait with a time limit comes back with
PYEMU_E_TIMEOUT, and Ctrl-C reaches Python while a kernel runs."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np

from pyemu.cuda import (SourceModule, cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy,
                        cudaMemcpyDeviceToHost, cudaMemset)
from pyemu.cuda.runtime import default_queue
from pyemu.runtime.core import ffi, lib

SPIN = r"""
__global__ void spin(volatile int *flag, int *out) {
    // runs until the host sets *flag (or for ever)
    while (*flag == 0) { }
    out[blockIdx.x] = 1;
}"""


def _set_flag(flag_addr):
    one = np.ones(1, np.int32)
    # a host write into device memory while the kernel runs: the core's
    # memory is ordinary memory, so a memmove through its address is the
    # host thread of a zero-copy program
    ffi.memmove(ffi.cast("void *", flag_addr), ffi.from_buffer(one), 4)


def test_timed_wait_returns_timeout_while_a_kernel_runs_then_success():
    m = SourceModule(SPIN)
    flag, out = cudaMalloc(4), cudaMalloc(4)
    cudaMemset(flag, 0, 4)
    m.spin[1, 1](flag, out)
    t0 = time.perf_counter()
    assert lib.pyemu_device_synchronize(50) == lib.PYEMU_E_TIMEOUT
    assert lib.pyemu_queue_finish(default_queue(), 50) == lib.PYEMU_E_TIMEOUT
    assert time.perf_counter() - t0 >= 0.09
    _set_flag(int(flag))
    assert lib.pyemu_device_synchronize(lib.PYEMU_WAIT_FOREVER) == 0
    assert lib.pyemu_device_synchronize(0) == 0           # nothing left: no wait at all
    h = np.zeros(1, np.int32)
    cudaMemcpy(h, out, 4, cudaMemcpyDeviceToHost)
    assert h[0] == 1
    cudaFree(flag)
    cudaFree(out)


def test_many_threads_waiting_on_different_events_all_wake():
    """Each waiter has its own condition: none is lost when completions
    come from the workers in any order."""
    import pyemu.opencl as cl
    ctx = cl.clCreateContextFromType(None, cl.CL_DEVICE_TYPE_DEFAULT)
    dev = cl.clGetContextInfo(ctx, cl.CL_CONTEXT_DEVICES)[0]
    q = cl.clCreateCommandQueue(ctx, dev, cl.CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    users = [cl.clCreateUserEvent(ctx) for _ in range(16)]
    markers = [cl.clEnqueueMarkerWithWaitList(q, [u]) for u in users]
    done = []

    def waiter(i):
        cl.clWaitForEvents([markers[i]])
        done.append(i)

    threads = [threading.Thread(target=waiter, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    time.sleep(0.05)
    assert not done
    for i in reversed(range(16)):
        cl.clSetUserEventStatus(users[i], cl.CL_COMPLETE)
    for t in threads:
        t.join(10)
    assert sorted(done) == list(range(16))
    cl.clFinish(q)


def test_a_completion_wakes_only_the_waits_it_ends():
    """Issue 8, item 4: 400 kernels complete while eight threads wait on
    markers behind user events that stay unset; the engine's wake count
    (each signal of a waiting thread) grows by the main thread's one
    clFinish, not by a wake of every waiter at every completion (which
    would be thousands here)."""
    import pyemu.opencl as cl
    ctx = cl.clCreateContextFromType(None, cl.CL_DEVICE_TYPE_DEFAULT)
    dev = cl.clGetContextInfo(ctx, cl.CL_CONTEXT_DEVICES)[0]
    blocked = cl.clCreateCommandQueue(ctx, dev, cl.CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    q = cl.clCreateCommandQueue(ctx, dev, 0)
    p = cl.clCreateProgramWithSource(ctx, [
        "__kernel void inc(__global int *a) { a[get_global_id(0)] += 1; }"])
    cl.clBuildProgram(p)
    k = cl.clCreateKernel(p, "inc")
    b = cl.clCreateBuffer(ctx, cl.CL_MEM_READ_WRITE | cl.CL_MEM_COPY_HOST_PTR, 4 * 64,
                          np.zeros(64, np.int32))
    cl.clSetKernelArg(k, 0, b)
    users = [cl.clCreateUserEvent(ctx) for _ in range(8)]
    markers = [cl.clEnqueueMarkerWithWaitList(blocked, [u]) for u in users]
    threads = [threading.Thread(target=cl.clWaitForEvents, args=([m],)) for m in markers]
    for t in threads:
        t.start()
    try:
        time.sleep(0.1)                   # all eight are blocked in the core now
        before = lib.pyemu_engine_wakes()
        for _ in range(400):
            cl.clEnqueueNDRangeKernel(q, k, 1, None, [64], [64])
        cl.clFinish(q)
        woken = lib.pyemu_engine_wakes() - before
        assert all(t.is_alive() for t in threads)
    finally:                              # a failure must not leave them blocked
        for u in users:
            cl.clSetUserEventStatus(u, cl.CL_COMPLETE)
        for t in threads:
            t.join(10)
    assert woken <= 4, woken
    out = np.zeros(64, np.int32)
    cl.clEnqueueReadBuffer(q, b, True, 0, 4 * 64, out)
    assert (out == 400).all()
    assert not any(t.is_alive() for t in threads)
    assert lib.pyemu_engine_wakes() - before - woken >= 8    # each of them was woken


def _run(prog, env=None, timeout=60):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(prog)], capture_output=True,
                          text=True, timeout=timeout, env=e)


QUICK = "__global__ void quick(int *out) { out[threadIdx.x] = threadIdx.x; }"


def test_ctrl_c_stops_the_kernel_and_the_launch_fails():
    """A kernel that never ends: SIGINT raises KeyboardInterrupt in the
    waiting call within a wait slice, the kernel is stopped, and the device
    then reports the launch as failed (sticky, until cudaDeviceReset)."""
    r = _run(f"""
        import os, signal, threading, time
        from pyemu.cuda import *
        m = SourceModule({SPIN!r})
        flag, out = cudaMalloc(4), cudaMalloc(4)
        cudaMemset(flag, 0, 4)
        m.spin[4, 32](flag, out)
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
        t0 = time.perf_counter()
        try:
            cudaDeviceSynchronize()
            print("not interrupted")
        except KeyboardInterrupt:
            print("interrupted after", round(time.perf_counter() - t0, 2))
        try:
            cudaDeviceSynchronize()
            print("sync ok")
        except CudaError as e:
            print("sync", int(e.code), "interrupted" in str(e))
        cudaDeviceReset()
        a = cudaMalloc(4 * 32)
        SourceModule({QUICK!r}).quick[1, 32](a)
        cudaDeviceSynchronize()
        print("after reset ok")
        """)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("interrupted after") and float(lines[0].split()[-1]) < 2.0, lines
    assert lines[1] == "sync 719 True", lines          # cudaErrorLaunchFailure
    assert lines[2] == "after reset ok", lines


def test_watchdog_stops_a_kernel_that_runs_too_long():
    """PYEMU_KERNEL_TIMEOUT: cudaErrorLaunchTimeout (702) naming the kernel,
    block and thread, sticky; shorter kernels are not touched."""
    r = _run(f"""
        import time
        from pyemu.cuda import *
        m = SourceModule({SPIN + QUICK!r})
        flag, out = cudaMalloc(4), cudaMalloc(4 * 32)
        cudaMemset(flag, 0, 4)
        for i in range(20):
            m.quick[1, 32](out)
        cudaDeviceSynchronize()
        print("quick ok")
        t0 = time.perf_counter()
        m.spin[2, 8](flag, out)
        try:
            cudaDeviceSynchronize()
            print("not stopped")
        except CudaError as e:
            print(int(e.code), round(time.perf_counter() - t0, 1), str(e))
        try:
            cudaMalloc(4)
        except CudaError as e:
            print("sticky", int(e.code))
        """, env={"PYEMU_KERNEL_TIMEOUT": "0.5"})
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "quick ok", lines
    code, secs, msg = lines[1].split(" ", 2)
    assert code == "702", lines
    assert 0.4 <= float(secs) < 5, lines
    assert "kernel 'spin' was stopped in block" in msg and "thread" in msg, msg
    assert "PYEMU_KERNEL_TIMEOUT" in msg, msg
    assert lines[2] == "sticky 702", lines


def test_watchdog_in_opencl_fails_the_command_with_out_of_resources():
    r = _run("""
        import numpy as np
        import pyemu.opencl as cl
        ctx = cl.clCreateContextFromType(None, cl.CL_DEVICE_TYPE_DEFAULT)
        dev = cl.clGetContextInfo(ctx, cl.CL_CONTEXT_DEVICES)[0]
        q = cl.clCreateCommandQueue(ctx, dev, 0)
        p = cl.clCreateProgramWithSource(ctx, [
            "__kernel void spin(__global volatile int *f) { while (*f == 0) { } }"])
        cl.clBuildProgram(p)
        k = cl.clCreateKernel(p, "spin")
        b = cl.clCreateBuffer(ctx, cl.CL_MEM_READ_WRITE | cl.CL_MEM_COPY_HOST_PTR, 4,
                              np.zeros(1, np.int32))
        cl.clSetKernelArg(k, 0, b)
        ev = cl.clEnqueueNDRangeKernel(q, k, 1, None, [64], [64])
        try:
            cl.clFinish(q)
            print("not stopped")
        except cl.CLError as e:
            print(int(e.code), "work-group" in str(e))
        """, env={"PYEMU_KERNEL_TIMEOUT": "0.3"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.split() == ["-5", "True"], r.stdout     # CL_OUT_OF_RESOURCES


def test_kernel_timeout_setting_is_checked():
    r = _run("""
        from pyemu.cuda import *
        try:
            cudaMalloc(4)
            print("accepted")
        except Exception as e:
            print(type(e).__name__, e)
        """, env={"PYEMU_KERNEL_TIMEOUT": "soon"})
    assert "PYEMU_KERNEL_TIMEOUT" in r.stdout + r.stderr and "accepted" not in r.stdout
