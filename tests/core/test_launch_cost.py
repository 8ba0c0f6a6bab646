"""What makes a launch cheap, checked for what it must still do (no timings):
the CUDA launch configuration kept per kernel, OpenCL's packed argument state
and cached launch descriptions, no holds entry and no Python callback per
kernel command (a storm completes while the main thread holds the GIL in a
C loop)."""
import numpy as np

from pyemu.cuda import SourceModule, cudaDeviceSynchronize, cudaErrorNotReady, cudaEventCreate, \
    cudaEventDestroy, cudaEventQuery, cudaEventRecord, cudaFree, cudaMalloc, cudaMemcpy, \
    cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice, cudaStreamCreate, cudaStreamDestroy, \
    cudaSuccess
from pyemu.opencl import (CL_COMPLETE, CL_DEVICE_TYPE_GPU, CL_MEM_COPY_HOST_PTR,
                          CL_MEM_READ_WRITE, CL_TRUE, clBuildProgram, clCreateBuffer,
                          clCreateCommandQueue, clCreateContext, clCreateKernel,
                          clCreateProgramWithSource, clEnqueueNDRangeKernel,
                          clEnqueueReadBuffer, clFinish, clGetDeviceIDs, clGetPlatformIDs,
                          clSetKernelArg)
from pyemu.runtime import holds
from pyemu.runtime.core import lib

CU = r"""
__global__ void addTo(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] += a[i] + b[i];
}"""

CL = r"""
__kernel void add_one(__global int *a) { a[get_global_id(0)] += 1; }
__kernel void put(__global int *a, int v, __global int *b) {
    a[get_global_id(0)] = v; b[get_global_id(0)] = -v;
}"""


def _cl():
    platform = clGetPlatformIDs()[0]
    device = clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU)[0]
    ctx = clCreateContext(None, [device])
    q = clCreateCommandQueue(ctx, device, 0)
    prog = clCreateProgramWithSource(ctx, [CL])
    clBuildProgram(prog)
    return ctx, q, prog


def test_cuda_storm_through_kept_configurations():
    k = SourceModule(CU).get_function("addTo")
    n = 300
    a = np.arange(n, dtype=np.float32) % 5
    b = np.ones(n, np.float32)
    d = [cudaMalloc(4 * n) for _ in range(3)]
    cudaMemcpy(d[0], a, 4 * n, cudaMemcpyHostToDevice)
    cudaMemcpy(d[1], b, 4 * n, cudaMemcpyHostToDevice)
    cudaMemcpy(d[2], np.zeros(n, np.float32), 4 * n, cudaMemcpyHostToDevice)
    for i in range(1500):        # three configurations, each checked once and kept
        [k[2, 256], k[(3, 1, 1), 128], k[10, (32, 1)]][i % 3](d[0], d[1], d[2], n)
    cudaDeviceSynchronize()
    assert len(k._launches) == 3
    out = np.empty(n, np.float32)
    cudaMemcpy(out, d[2], 4 * n, cudaMemcpyDeviceToHost)
    np.testing.assert_array_equal(out, 1500 * (a + b))
    for p in d:
        cudaFree(p)



def test_cuda_configuration_on_a_stream_is_kept_and_its_stream_checked_at_each_call():
    from pyemu.cuda import CudaError, cudaErrorInvalidResourceHandle, cudaStreamCreate, \
        cudaStreamDestroy, cudaStreamSynchronize
    k = SourceModule(CU).get_function("addTo")
    n = 64
    d = [cudaMalloc(4 * n) for _ in range(3)]
    for p, v in zip(d, (np.full(n, 2, np.float32), np.ones(n, np.float32),
                        np.zeros(n, np.float32))):
        cudaMemcpy(p, v, 4 * n, cudaMemcpyHostToDevice)
    s, t = cudaStreamCreate(), cudaStreamCreate()
    for _ in range(10):          # two configurations: the streams are part of the key
        k[1, 64, 0, s](d[0], d[1], d[2], n)
        k[1, 64, 0, t](d[0], d[1], d[2], n)
        cudaStreamSynchronize(s)
        cudaStreamSynchronize(t)
    assert len(k._launches) == 2 and k[1, 64, 0, s] is k[1, 64, 0, s]
    out = np.empty(n, np.float32)
    cudaMemcpy(out, d[2], 4 * n, cudaMemcpyDeviceToHost)
    np.testing.assert_array_equal(out, np.full(n, 60, np.float32))
    kept = k[1, 64, 0, s]
    cudaStreamDestroy(s)
    try:
        kept(d[0], d[1], d[2], n)
    except CudaError as exc:
        assert exc.code == cudaErrorInvalidResourceHandle
    else:
        raise AssertionError("a kept launch on a destroyed stream was enqueued")
    cudaStreamDestroy(t)
    for p in d:
        cudaFree(p)

def test_opencl_packed_state_follows_set_arg():
    ctx, q, prog = _cl()
    a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64)
    b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64)
    k = clCreateKernel(prog, "put")
    assert k.state.unset == {0, 1, 2}
    clSetKernelArg(k, 0, a)
    clSetKernelArg(k, 1, 7)
    clSetKernelArg(k, 2, a)
    st = k.state
    assert not st.unset and st.mems == (a,)          # one buffer named twice: used once
    assert st.data == k.entry.bytes_struct.pack(
        a.addr.to_bytes(8, "little"), (7).to_bytes(4, "little", signed=True),
        a.addr.to_bytes(8, "little"))
    clSetKernelArg(k, 2, b)
    assert st.mems == (a, b)
    clSetKernelArg(k, 0, None)
    assert st.mems == (b,) and st.data[:8] == bytes(8)


def test_cuda_storm_completes_while_this_thread_holds_the_gil():
    """The CUDA twin of the OpenCL storm below: 300 launches (on the legacy
    default stream and on a created stream) complete, with the right sums,
    while this thread holds the GIL in C between two event queries (a sort of
    ints calls no Python code)."""
    k = SourceModule(CU).get_function("addTo")
    n = 256
    a = np.arange(n, dtype=np.float32) % 7
    b = np.full(n, 2, np.float32)
    d = [cudaMalloc(4 * n) for _ in range(3)]
    s = cudaStreamCreate()
    e = cudaEventCreate()
    try:
        cudaMemcpy(d[0], a, 4 * n, cudaMemcpyHostToDevice)
        cudaMemcpy(d[1], b, 4 * n, cudaMemcpyHostToDevice)
        cudaMemcpy(d[2], np.zeros(n, np.float32), 4 * n, cudaMemcpyHostToDevice)
        cudaDeviceSynchronize()
        for i in range(300):
            if i % 2:
                k[2, 128, 0, s](d[0], d[1], d[2], n)
            else:
                k[4, 64](d[0], d[1], d[2], n)      # the legacy stream orders the two
        cudaEventRecord(e, 0)
        numbers = list(range(3_000_000, 0, -1))
        states = []
        for _ in range(20):             # each sort holds the GIL for a while
            numbers.sort()
            numbers.reverse()
            states.append(cudaEventQuery(e))
            if states[-1] == cudaSuccess:
                break
        assert states[-1] == cudaSuccess, states
        assert all(st in (cudaSuccess, cudaErrorNotReady) for st in states)
        out = np.empty(n, np.float32)
        cudaMemcpy(out, d[2], 4 * n, cudaMemcpyDeviceToHost)
        np.testing.assert_array_equal(out, 300 * (a + b))
    finally:
        cudaEventDestroy(e)
        cudaStreamDestroy(s)
        for p in d:
            cudaFree(p)


def test_opencl_storm_needs_no_python_on_the_workers():
    """2000 enqueues add no holds entry; 300 more complete while this thread holds
    the GIL in C (a sort of ints calls no Python code)."""
    ctx, q, prog = _cl()
    host = np.zeros(256, np.int32)
    buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.nbytes, host)
    k = clCreateKernel(prog, "add_one")
    clSetKernelArg(k, 0, buf)
    clFinish(q)
    before = holds.count()
    for _ in range(2000):
        clEnqueueNDRangeKernel(q, k, 1, None, [256], [64])
    assert holds.count() == before
    clFinish(q)
    for _ in range(299):
        clEnqueueNDRangeKernel(q, k, 1, None, [256], [64])
    last = clEnqueueNDRangeKernel(q, k, 1, None, [256], [64])
    numbers = list(range(3_000_000, 0, -1))
    statuses = []
    for _ in range(20):                 # each sort holds the GIL for a while
        numbers.sort()
        numbers.reverse()
        statuses.append(lib.pyemu_cmd_status(last._cmd))
        if statuses[-1] == CL_COMPLETE:
            break
    assert statuses[-1] == CL_COMPLETE, statuses
    clEnqueueReadBuffer(q, buf, CL_TRUE, 0, host.nbytes, host)
    assert (host == 2300).all()
