"""A device reset (cudaDeviceReset; OpenCL has none, but the device is
shared) invalidates the OpenCL objects made before it: they answer with
their invalid-object code, a mapped view stays readable, and nothing lands
in the memory of allocations made after the reset."""
from __future__ import annotations

import subprocess
import sys
import textwrap

PROG = r"""
import numpy as np
import pyemu.opencl as cl
from pyemu.cuda import cudaDeviceReset, cudaMalloc, cudaMemcpy, cudaMemcpyDeviceToHost

def code(f, *a):
    try:
        f(*a)
        return 0
    except cl.CLError as e:
        return int(e.code)

platform = cl.clGetPlatformIDs()[0]
device = cl.clGetDeviceIDs(platform, cl.CL_DEVICE_TYPE_ALL)[0]
ctx = cl.clCreateContext(None, [device])
q = cl.clCreateCommandQueue(ctx, device, 0)
buf = cl.clCreateBuffer(ctx, cl.CL_MEM_READ_WRITE, 4096)
cl.clEnqueueFillBuffer(q, buf, np.int32(7), 4, 0, 4096)
view, ev = cl.clEnqueueMapBuffer(q, buf, cl.CL_TRUE, cl.CL_MAP_READ, 0, 4096)
old_addr = buf.addr
cudaDeviceReset()
print("view", int(view.view(np.int32)[0]), int(view.view(np.int32).sum()) >= 0)
news = [cudaMalloc(4096) for _ in range(64)]     # may take the old address
mark = np.arange(1024, dtype=np.int32)
ctx2 = cl.clCreateContext(None, [device])        # the device works on
q2 = cl.clCreateCommandQueue(ctx2, device, 0)
print("write", code(cl.clEnqueueWriteBuffer, q2, buf, cl.CL_TRUE, 0, 4096, mark))
print("read", code(cl.clEnqueueReadBuffer, q2, buf, cl.CL_TRUE, 0, 4096, mark))
print("oldqueue", code(cl.clEnqueueWriteBuffer, q, buf, cl.CL_TRUE, 0, 4096, mark))
print("queue", code(cl.clFinish, q))
print("context", code(cl.clCreateBuffer, ctx, cl.CL_MEM_READ_WRITE, 16))
print("release", code(cl.clReleaseMemObject, buf))
for d in news:                                     # untouched by all of the above
    h = np.ones(1024, np.int32)
    cudaMemcpy(h, d, 4096, cudaMemcpyDeviceToHost)
    assert not h.any(), "an allocation made after the reset was written"
b2 = cl.clCreateBuffer(ctx2, cl.CL_MEM_READ_WRITE | cl.CL_MEM_COPY_HOST_PTR, 16,
                       np.arange(4, dtype=np.int32))
out = np.zeros(4, np.int32)
cl.clEnqueueReadBuffer(q2, b2, cl.CL_TRUE, 0, 16, out)
print("after", out.tolist())
del view
import gc; gc.collect()
print("done yes")
"""


def test_reset_invalidates_opencl_objects_and_keeps_views_readable():
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(PROG)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr      # no segfault, no assertion
    out = dict(line.split(" ", 1) for line in r.stdout.splitlines())
    assert out["view"] == "0 True"       # readable (the freed pages read zeros), no crash
    assert out["write"] == "-38" and out["read"] == "-38"       # CL_INVALID_MEM_OBJECT
    assert out["queue"] == "-36" and out["oldqueue"] == "-36"    # CL_INVALID_COMMAND_QUEUE                                # CL_INVALID_COMMAND_QUEUE
    assert out["context"] == "-34"                              # CL_INVALID_CONTEXT
    assert out["release"] == "-38"
    assert out["after"] == "[0, 1, 2, 3]"
    assert "done" in out
