"""Hostile input for the API functions, the executor and the compiler: each
case is a snippet that ends in one call; the expectation is the real CUDA or
OpenCL code it must fail with ("ok" when it must succeed).

A case runs in a process of its own (test_corpus.py), so a crash or a hang is
a result, not the end of the run.  Names say what is attacked.  This is the
start of issue 9's corpus: the cases of the memory manager, faults, launches,
waits, reset and cache work; more come with each API.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    name: str
    body: str           # Python; the last statement is the hostile call
    expect: object      # an int code, or "ok"
    env: tuple = ()     # (name, value) pairs for the process
    healthy_after: bool = True  # the device still works after it (a reset clears a fault)


VADD = r'''__global__ void vadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }'''

CASES = [
    # ---- cudaMalloc / cudaFree
    Case("cudaMalloc_2_to_64", "cudaMalloc(2**64)", 2),
    Case("cudaMalloc_negative", "cudaMalloc(-1)", 1),
    Case("cudaMalloc_string", "cudaMalloc('x')", 1),
    Case("cudaMalloc_float", "cudaMalloc(1.5)", "ok"),
    Case("cudaFree_negative", "cudaFree(-1)", 1),
    Case("cudaFree_2_to_65", "cudaFree(2**65)", 1),
    Case("cudaFree_not_an_allocation", "cudaFree(12345)", 1),
    Case("cudaFree_twice", "p = cudaMalloc(64); cudaFree(p); cudaFree(p)", 1),
    Case("cudaFree_inside_allocation", "p = cudaMalloc(64); cudaFree(p + 16)", 1),
    Case("cudaFree_host_array", "cudaFree(np.zeros(4))", 1),
    Case("cudaMallocManaged_string_flags", "cudaMallocManaged(64, 'x')", 1),
    Case("cudaMallocManaged_none_flags", "cudaMallocManaged(64, None)", 1),
    Case("cudaMallocManaged_unknown_flags", "cudaMallocManaged(64, 7)", 1),
    # ---- launches
    Case("launch_host_array_as_pointer",
         "m = SourceModule(VADD); x = np.zeros(4, np.float32)\n"
         "m.vadd[1, 4](x, x, x, 4)", 1),
    Case("launch_device_pointer_outside_memory",
         "from pyemu.cuda.runtime import DevicePointer\nm = SourceModule(VADD); d = cudaMalloc(16)\n"
         "m.vadd[1, 4](DevicePointer(0x1000), d, d, 4)", 1),
    Case("launch_int_too_large", "m = SourceModule(VADD); d = cudaMalloc(16)\n"
         "m.vadd[1, 4](d, d, d, 2**31)", 1),
    Case("launch_float_for_int", "m = SourceModule(VADD); d = cudaMalloc(16)\n"
         "m.vadd[1, 4](d, d, d, 4.0)", 1),
    Case("launch_wrong_argument_count", "m = SourceModule(VADD); d = cudaMalloc(16)\n"
         "m.vadd[1, 4](d, d, d)", 1),
    Case("launch_grid_zero", "m = SourceModule(VADD); d = cudaMalloc(16)\n"
         "m.vadd[0, 4](d, d, d, 4)", 1),
    Case("launch_block_2048", "m = SourceModule(VADD); d = cudaMalloc(16)\n"
         "m.vadd[1, 2048](d, d, d, 4)", 1),
    Case("launch_negative_shared", "m = SourceModule(VADD); d = cudaMalloc(16)\n"
         "m.vadd[1, 4, -1](d, d, d, 4)", 1),
    Case("launch_list_configuration", "m = SourceModule(VADD); d = cudaMalloc(16)\n"
         "m.vadd[[1, 1], [4, 1]](d, d, d, 4); cudaDeviceSynchronize()", "ok"),
    # ---- kernel faults: sticky until a reset, the process lives
    Case("kernel_index_4GiB_past_small_allocation",
         "m = SourceModule('__global__ void k(char *p) { p[(1ull << 32) + 64] = 1; }')\n"
         "d = cudaMalloc(64); m.k[1, 1](d); cudaDeviceSynchronize()", 700),
    Case("kernel_use_after_free",
         "m = SourceModule('__global__ void k(int *p) { p[3] = 1; }')\n"
         "d = cudaMalloc(4000); cudaFree(d); m.k[1, 1](d); cudaDeviceSynchronize()", 700),
    Case("kernel_trap", "m = SourceModule('__global__ void k() { __trap(); }')\n"
         "m.k[1, 1](); cudaDeviceSynchronize()", 719),
    Case("kernel_assert", "m = SourceModule('#include <cassert>\\n__global__ void k(int n) "
         "{ assert(threadIdx.x < n); }')\nm.k[1, 32](4); cudaDeviceSynchronize()", 710),
    Case("kernel_divide_by_zero", "m = SourceModule('__global__ void k(int *p, int z) "
         "{ p[0] = p[1] / z; }')\nd = cudaMalloc(8); m.k[1, 1](d, 0); cudaDeviceSynchronize()", 719),
    Case("kernel_dynamic_shared_before_start",
         "m = SourceModule('__global__ void k() { extern __shared__ int s[]; "
         "s[(int)threadIdx.x - 100000] = 1; }')\nm.k[1, 32, 128](); cudaDeviceSynchronize()", 700),
    Case("kernel_dynamic_shared_past_end",
         "m = SourceModule('__global__ void k() { extern __shared__ int s[]; "
         "s[threadIdx.x + 4096] = 1; }')\nm.k[1, 32, 128](); cudaDeviceSynchronize()", 700),
    Case("kernel_never_ends_watchdog",
         "m = SourceModule('__global__ void k(volatile int *f) { while (!*f) {} }')\n"
         "d = cudaMalloc(4); m.k[1, 1](d); cudaDeviceSynchronize()", 702,
         env=(("PYEMU_KERNEL_TIMEOUT", "0.3"),)),
    Case("device_malloc_past_the_heap_returns_null",
         "m = SourceModule('__global__ void k(int *ok) { ok[0] = malloc(64u << 20) == 0; }')\n"
         "d = cudaMalloc(4); m.k[1, 1](d); h = np.zeros(1, np.int32)\n"
         "cudaMemcpy(h, d, 4, cudaMemcpyDeviceToHost); assert h[0] == 1", "ok"),
    # ---- OpenCL
    Case("clReleaseMemObject_twice",
         "b = cl.clCreateBuffer(ctx, cl.CL_MEM_READ_WRITE, 16); cl.clReleaseMemObject(b)\n"
         "cl.clReleaseMemObject(b)", -38),
    Case("clReleaseMemObject_with_commands_waiting_on_a_user_event",
         "u = cl.clCreateUserEvent(ctx); b = cl.clCreateBuffer(ctx, cl.CL_MEM_READ_WRITE, 16)\n"
         "cl.clEnqueueWriteBuffer(q, b, cl.CL_FALSE, 0, 16, np.ones(4, np.int32), [u])\n"
         "cl.clReleaseMemObject(b); cl.clSetUserEventStatus(u, cl.CL_COMPLETE); cl.clFinish(q)",
         "ok"),
    Case("clWaitForEvents_an_int", "cl.clWaitForEvents(5)", -30),
    Case("clWaitForEvents_empty", "cl.clWaitForEvents([])", -30),
    Case("clEnqueueNDRangeKernel_unset_argument",
         "p = cl.clCreateProgramWithSource(ctx, ['__kernel void k(__global int *a) { a[0] = 1; }'])\n"
         "cl.clBuildProgram(p); k = cl.clCreateKernel(p, 'k')\n"
         "cl.clEnqueueNDRangeKernel(q, k, 1, None, [1], [1])", -52),
    Case("clBuffer_after_cudaDeviceReset",
         "b = cl.clCreateBuffer(ctx, cl.CL_MEM_READ_WRITE, 16); cudaDeviceReset()\n"
         "q2 = cl.clCreateCommandQueue(cl.clCreateContext(None, [dev]), dev, 0)\n"
         "cl.clEnqueueReadBuffer(q2, b, cl.CL_TRUE, 0, 16, np.zeros(4, np.int32))", -38),
    Case("clProgram_latin1_source",
         "p = cl.clCreateProgramWithSource(ctx, [b'/* caf\\xe9 */ __kernel void k() {}'])\n"
         "cl.clBuildProgram(p)", "ok"),
    Case("clKernel_fault_is_out_of_resources",
         "p = cl.clCreateProgramWithSource(ctx, ['__kernel void k(__global int *a) "
         "{ a[1 << 28] = 1; }'])\ncl.clBuildProgram(p); k = cl.clCreateKernel(p, 'k')\n"
         "b = cl.clCreateBuffer(ctx, cl.CL_MEM_READ_WRITE, 16); cl.clSetKernelArg(k, 0, b)\n"
         "cl.clEnqueueNDRangeKernel(q, k, 1, None, [1], [1]); cl.clFinish(q)", -5),
    # ---- compiler and cache
    Case("SourceModule_latin1_bytes", "SourceModule(b'/* caf\\xe9 */ __global__ void k() {}')", "ok"),
    Case("SourceModule_unwritable_cache", "SourceModule('__global__ void k() {}')", "ok",
         env=(("PYEMU_CACHE_DIR", "/proc/pyemu-cache"),)),
    Case("SourceModule_syntax_error", "SourceModule('__global__ void k() { int x = ; }')",
         "CompileError"),
]
