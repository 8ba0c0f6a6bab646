"""Buffers and sub-buffers created, used by kernels and released from two
host threads at once: no reference is lost and nothing is freed early (a
kernel that ran on freed memory would fault, and the sticky error would fail
every later call), and nothing leaks (the core's allocation count)."""
from __future__ import annotations

import gc
import threading

import numpy as np

import pyemu.opencl as cl
from pyemu.runtime.core import lib

KERNEL = r"""
__kernel void bump(__global int *a, int v) { a[get_global_id(0)] += v; }
"""


def test_two_threads_create_use_and_release_buffers_and_sub_buffers():
    platform = cl.clGetPlatformIDs()[0]
    device = cl.clGetDeviceIDs(platform, cl.CL_DEVICE_TYPE_ALL)[0]
    ctx = cl.clCreateContext(None, [device])
    prog = cl.clCreateProgramWithSource(ctx, [KERNEL])
    cl.clBuildProgram(prog)
    errors, results = [], []
    gc.collect()                 # what earlier tests dropped goes now, not during the count
    live = lib.pyemu_mem_live()

    def worker(seed):
        try:
            q = cl.clCreateCommandQueue(ctx, device, 0)
            k = cl.clCreateKernel(prog, "bump")
            for i in range(150):
                n = 256
                parent = cl.clCreateBuffer(ctx, cl.CL_MEM_READ_WRITE, 4 * 2 * n)
                sub = cl.clCreateSubBuffer(parent, cl.CL_MEM_READ_WRITE,
                                           cl.CL_BUFFER_CREATE_TYPE_REGION, (4 * n, 4 * n))
                cl.clSetKernelArg(k, 0, sub)
                cl.clSetKernelArg(k, 1, np.int32(seed + i))
                cl.clEnqueueNDRangeKernel(q, k, 1, None, [n], [64])
                cl.clEnqueueNDRangeKernel(q, k, 1, None, [n], [64])
                # the parent goes first, while both kernels may still be queued:
                # the sub-buffer keeps the memory, the commands keep the sub-buffer
                cl.clReleaseMemObject(parent)
                out = np.zeros(n, np.int32)
                cl.clEnqueueReadBuffer(q, sub, cl.CL_FALSE, 0, 4 * n, out)
                cl.clReleaseMemObject(sub)          # never blocks; freed after the read
                cl.clFinish(q)
                results.append(bool((out == 2 * (seed + i)).all()))
            cl.clReleaseKernel(k)
            cl.clReleaseCommandQueue(q)
        except Exception as e:       # reported below, with the thread's seed
            errors.append((seed, repr(e)))

    threads = [threading.Thread(target=worker, args=(s,)) for s in (1000, 2000)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    assert len(results) == 300 and all(results)
    gc.collect()
    # every buffer was freed once its last user was done: no reference lost or leaked
    assert lib.pyemu_mem_live() == live
