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


def test_ctrl_c_reaches_python_while_cudaDeviceSynchronize_waits():
    """A kernel that never ends: SIGINT raises KeyboardInterrupt in the
    waiting call within a wait slice, instead of never."""
    prog = textwrap.dedent(f"""
        import os, signal, threading, time
        from pyemu.cuda import SourceModule, cudaMalloc, cudaMemset, cudaDeviceSynchronize
        m = SourceModule({SPIN!r})
        flag, out = cudaMalloc(4), cudaMalloc(4)
        cudaMemset(flag, 0, 4)
        m.spin[1, 1](flag, out)
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
        t0 = time.perf_counter()
        try:
            cudaDeviceSynchronize()
        except KeyboardInterrupt:
            print("interrupted after", round(time.perf_counter() - t0, 2), flush=True)
            os._exit(0)
        print("not interrupted", flush=True)
        os._exit(1)
        """)
    r = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stdout + r.stderr
    secs = float(r.stdout.split()[-1])
    assert secs < 2.0, r.stdout
