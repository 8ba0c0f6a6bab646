"""Kernel faults as records (csrc/fault.c, pyemu/runtime/faults.py), worded
by each facade in its own terms, and the one sticky-error rule
(pyemu/runtime/sticky.py) in both facades.  Each case runs in a fresh
process: a fault is sticky."""

OPENCL = r"""
from pyemu.opencl import *
from pyemu.runtime import faults
def cl_code_of(fn, *a, **k):
    try:
        fn(*a, **k)
    except CLError as e:
        R.setdefault("messages", {})[fn.__name__] = str(e)
        return int(e.code)
    return 0
platform = clGetPlatformIDs()[0]
device = clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU)[0]
ctx = clCreateContext(None, [device])
q = clCreateCommandQueue(ctx, device, 0)
prog = clCreateProgramWithSource(ctx, [CL_SOURCE])
clBuildProgram(prog)
buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 256)
"""

CL_SOURCE = r"""
__kernel void oob(__global int *a) { a[get_global_id(0) * 1000000 + 5000000] = 1; }
__kernel void diverge(__global int *a) {
    if (get_local_id(0) < 3) barrier(CLK_LOCAL_MEM_FENCE);
    a[0] = 1;
}
__kernel void ok(__global int *a) { a[get_global_id(0)] = 2; }
"""

CU_SOURCE = r"""
__global__ void oob(int *a) { a[threadIdx.x * 1000000 + 5000000] = 1; }
__global__ void diverge(int *a) { if (threadIdx.x < 3) __syncthreads(); a[0] = 1; }
"""


def test_opencl_fault_is_worded_in_work_groups_and_work_items(run_cuda):
    run = run_cuda(OPENCL + r"""
k = clCreateKernel(prog, "oob")
clSetKernelArg(k, 0, buf)
clEnqueueNDRangeKernel(q, k, 1, [100], [8], [4])
R["finish"] = cl_code_of(clFinish, q)
from pyemu.runtime import sticky
f = faults.lookup(sticky.current()[1])
R["kind"] = f.kind
R["address"] = f.address
R["where"] = f.where
R["cuda"] = f.words(faults.CUDA_TERMS)
R["ids"] = [f.block, f.thread, f.block_dim, f.offset, f.global_id]
""", consts={"CL_SOURCE": CL_SOURCE})
    assert run.returncode == 0, run.explain()
    R = run.R
    assert R["finish"] == -5, R                     # CL_OUT_OF_RESOURCES
    msg = R["messages"]["clFinish"]
    assert "kernel 'oob' failed in work-group (" in msg and "work-item (" in msg, msg
    block, thread, dim, offset, gid = R["ids"]
    assert dim == [4, 1, 1] and offset == [100, 0, 0], R
    assert gid[0] == 100 + 4 * block[0] + thread[0], R
    assert f"work-item ({thread[0]},0,0) (local id; global id ({gid[0]},0,0))" in msg, msg
    assert "block" not in msg and "thread" not in msg, msg
    assert "illegal memory access at address 0x" in msg, msg
    assert R["kind"] == 1 and R["address"] != 0, R  # PYEMU_FAULT_ACCESS
    assert R["where"] and R["where"] in msg, R
    assert "failed in block (" in R["cuda"] and ", thread (" in R["cuda"], R


def test_opencl_barrier_divergence_names_barrier_and_work_items(run_cuda):
    run = run_cuda(OPENCL + r"""
k = clCreateKernel(prog, "diverge")
clSetKernelArg(k, 0, buf)
clEnqueueNDRangeKernel(q, k, 1, None, [8], [8])
R["finish"] = cl_code_of(clFinish, q)
from pyemu.runtime import sticky
f = faults.lookup(sticky.current()[1])
R["kind"], R["site"] = f.kind, f.site
""", consts={"CL_SOURCE": CL_SOURCE})
    assert run.returncode == 0, run.explain()
    msg = run.R["messages"]["clFinish"]
    assert run.R["finish"] == -5, run.R
    assert "barrier()" in msg and "work-item" in msg and "work-group" in msg, msg
    assert "__syncthreads" not in msg and "thread" not in msg.replace("work-item", ""), msg
    assert run.R["kind"] == 9 and ":" in run.R["site"], run.R     # PYEMU_FAULT_BARRIER, file:line
    assert run.R["site"] in msg, run.R


def test_cuda_fault_words_unchanged_with_blocks_threads_and_syncthreads(run_cuda):
    run = run_cuda(r"""
m = SourceModule(CU_SOURCE)
a = cudaMalloc(64)
m.diverge[2, 8](a)
R["code"] = code_of(cudaDeviceSynchronize)
try:
    cudaDeviceSynchronize()
except CudaError as e:
    R["message"] = str(e)
""", consts={"CU_SOURCE": CU_SOURCE})
    assert run.returncode == 0, run.explain()
    msg = run.R["message"]
    assert run.R["code"] == 719, run.R             # cudaErrorLaunchFailure
    assert "kernel 'diverge' failed in block (" in msg and ", thread (" in msg, msg
    assert "__syncthreads() at " in msg and "threads" in msg and "of the block" in msg, msg
    assert "\x01" not in msg, msg


def test_sticky_rule_cuda_every_call_fails_until_reset(run_cuda):
    run = run_cuda(r"""
m = SourceModule(CU_SOURCE)
a = cudaMalloc(64)
m.oob[1, 4](a)
R["sync"] = code_of(cudaDeviceSynchronize)
R["malloc"] = code_of(cudaMalloc, 64)
R["memset"] = code_of(cudaMemset, a, 0, 64)
R["launch"] = code_of(lambda: m.oob[1, 1](a))
R["last"] = int(cudaGetLastError())
cudaDeviceReset()
R["after_reset"] = code_of(cudaMalloc, 64)
""", consts={"CU_SOURCE": CU_SOURCE})
    assert run.returncode == 0, run.explain()
    R = run.R
    assert R["sync"] == R["malloc"] == R["memset"] == R["launch"] == 700, R
    assert R["after_reset"] == 0, R


def test_sticky_rule_opencl_device_work_fails_host_objects_do_not(run_cuda):
    run = run_cuda(OPENCL + r"""
import numpy as np
from pyemu.runtime import sticky
k = clCreateKernel(prog, "oob")
clSetKernelArg(k, 0, buf)
clEnqueueNDRangeKernel(q, k, 1, None, [4], [4])
R["finish"] = cl_code_of(clFinish, q)
R["create_buffer"] = cl_code_of(clCreateBuffer, ctx, CL_MEM_READ_WRITE, 64)
ok = clCreateKernel(prog, "ok")
R["set_arg"] = cl_code_of(clSetKernelArg, ok, 0, buf)
R["info"] = cl_code_of(clGetMemObjectInfo, buf, CL_MEM_SIZE)
R["enqueue"] = cl_code_of(clEnqueueNDRangeKernel, q, ok, 1, None, [4], [4])
R["write"] = cl_code_of(clEnqueueWriteBuffer, q, buf, CL_TRUE, 0, 4, np.zeros(1, np.int32))
R["finish_again"] = cl_code_of(clFinish, q)
R["rule"] = [sticky.applies(sticky.OPENCL, sticky.HOST_OBJECT),
             sticky.applies(sticky.OPENCL, sticky.DEVICE_WORK),
             sticky.applies(sticky.CUDA, sticky.HOST_OBJECT)]
""", consts={"CL_SOURCE": CL_SOURCE})
    assert run.returncode == 0, run.explain()
    R = run.R
    assert R["finish"] == R["enqueue"] == R["write"] == R["finish_again"] == -5, R
    assert R["create_buffer"] == R["set_arg"] == R["info"] == 0, R
    assert R["rule"] == [False, True, True], R
