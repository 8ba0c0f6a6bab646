"""Kernel faults of every kind, in CUDA and OpenCL: each fails the launch with
the real code (sticky until cudaDeviceReset) and the process lives.
pyemu's differences from a GPU (README "Differences from a GPU"): integer
division by zero and a barrier only part of the block reaches fail the
launch (cudaErrorLaunchFailure, 719); OpenCL reports every fault as
CL_OUT_OF_RESOURCES (-5), as GPU drivers do."""
from hostile_cases import Case

C = Case


def cu(name, src, launch, expect, setup="", **kw):
    return C(name, f"m = SourceModule({src!r})\n{setup}{launch}; cudaDeviceSynchronize()",
             expect, **kw)


def ocl(name, src, expect, args="a", gws="[64]", lws="[32]", **kw):
    body = (f"k = kernel({src!r}); a = buf(256)\n"
            f"for i, v in enumerate([{args}]):\n    cl.clSetKernelArg(k, i, v)\n"
            f"cl.clEnqueueNDRangeKernel(q, k, 1, None, {gws}, {lws}); cl.clFinish(q)")
    return C(name, body, expect, **kw)


D = "d = cudaMalloc(256)\n"
# each kernel the watchdog stops keeps its worker (the case below): give the
# repetitions enough workers
WATCHDOG = (("PYEMU_KERNEL_TIMEOUT", "0.3"), ("PYEMU_NUM_THREADS", "8"))

CASES = [
    cu("kernel_index_4GiB_past_small_allocation",
       "__global__ void k(char *p) { p[(1ull << 32) + 64] = 1; }", "m.k[1, 1](d)", 700,
       "d = cudaMalloc(64)\n"),
    cu("kernel_use_after_free", "__global__ void k(int *p) { p[3] = 1; }",
       "m.k[1, 1](d)", 700, "d = cudaMalloc(4000); cudaFree(d)\n"),
    cu("kernel_trap", "__global__ void k() { __trap(); }", "m.k[1, 1]()", 719),
    cu("kernel_assert", "#include <cassert>\n__global__ void k(int n) { assert(threadIdx.x < n); }",
       "m.k[1, 32](4)", 710),
    cu("kernel_divide_by_zero", "__global__ void k(int *p, int z) { p[0] = p[1] / z; }",
       "m.k[1, 1](d, 0)", 719, D),
    cu("kernel_int_min_divided_by_minus_1",
       "__global__ void k(int *p, int a, int b) { p[0] = a / b; }",
       "m.k[1, 1](d, -2**31, -1)", 719, D),
    cu("kernel_float_divide_by_zero_is_inf",
       "__global__ void k(float *p, float z) { p[0] = 1.0f / z; }",
       "m.k[1, 1](d, 0.0); cudaDeviceSynchronize(); o = np.zeros(1, np.float32)\n"
       "cudaMemcpy(o, d, 4, cudaMemcpyDeviceToHost); assert np.isinf(o[0])", "ok", D),
    cu("kernel_read_past_end", "__global__ void k(int *p, int *q) { q[0] = p[(1 << 20)]; }",
       "m.k[1, 1](d, d)", 700, D),
    cu("kernel_write_before_start", "__global__ void k(int *p) { p[-(1 << 12)] = 1; }",
       "m.k[1, 1](d)", 700, D),
    cu("kernel_null_read", "__global__ void k(int *p, int *q) { q[0] = *p; }",
       "m.k[1, 1](None, d)", 700, D),
    cu("kernel_null_write", "__global__ void k(int *p) { p[threadIdx.x] = 1; }",
       "m.k[1, 32](0)", 700),
    cu("kernel_atomic_on_null", "__global__ void k(int *p) { atomicAdd(p, 1); }",
       "m.k[4, 64](None)", 700),
    cu("kernel_wild_pointer_write", "__global__ void k() { *(volatile int *)0x10 = 1; }",
       "m.k[1, 1]()", 700),
    cu("kernel_fault_in_one_block_of_many",
       "__global__ void k(int *p) { if (blockIdx.x == 777) p[1 << 28] = 1; else p[0] = 1; }",
       "m.k[1000, 32](d)", 700, D),
    cu("kernel_fault_after_syncthreads",
       "__global__ void k(int *p) { __shared__ int s[64]; s[threadIdx.x] = 1; __syncthreads(); "
       "p[s[threadIdx.x] << 28] = 2; }", "m.k[2, 64](d)", 700, D),
    cu("kernel_barrier_divergence",
       "__global__ void k(int *p) { if (threadIdx.x < 16) __syncthreads(); p[0] = 1; }",
       "m.k[1, 64](d)", 719, D),
    cu("kernel_barrier_divergence_between_two_barriers",
       "__global__ void k(int *p) { if (threadIdx.x & 1) __syncthreads(); else __syncthreads(); }",
       "m.k[1, 64](d)", 719, D),
    cu("kernel_stack_overflow",
       "__device__ int f(volatile int *p, int n) { volatile char big[4096]; big[n & 4095] = n; "
       "return n ? f(p, n - 1) + big[0] : *p; }\n"
       "__global__ void k(int *p) { p[0] = f(p, 1 << 20); }", "m.k[1, 1](d)", 700, D),
    cu("kernel_dynamic_shared_before_start",
       "__global__ void k() { extern __shared__ int s[]; s[(int)threadIdx.x - 100000] = 1; }",
       "m.k[1, 32, 128]()", 700),
    cu("kernel_dynamic_shared_past_end",
       "__global__ void k() { extern __shared__ int s[]; s[threadIdx.x + 4096] = 1; }",
       "m.k[1, 32, 128]()", 700),
    cu("kernel_never_ends_watchdog", "__global__ void k(volatile int *f) { while (!*f) {} }",
       "m.k[1, 1](d)", 702, "d = cudaMalloc(4)\n", env=WATCHDOG),
    cu("kernel_never_ends_with_barrier_watchdog",
       "__global__ void k(volatile int *f) { while (!*f) { __syncthreads(); } }",
       "m.k[1, 64](d)", 702, "d = cudaMalloc(4)\n", env=WATCHDOG),
    C("kernel_watchdog_stops_more_kernels_than_workers",
      "m = SourceModule('__global__ void k(volatile int *f) { while (!*f) {} }')\n"
      "for _ in range(3):\n    d = cudaMalloc(4); m.k[1, 1](d)\n"
      "    try:\n        cudaDeviceSynchronize()\n    except CudaError as e:\n"
      "        assert e.code == 702\n    cudaDeviceReset()", "ok", reps=1, timeout=30,
      env=(("PYEMU_KERNEL_TIMEOUT", "0.3"), ("PYEMU_NUM_THREADS", "2"))),
    cu("kernel_printf_then_fault",
       "#include <cstdio>\n__global__ void k(int *p) { printf(\"t%d\\n\", threadIdx.x); "
       "if (threadIdx.x == 100) p[1 << 28] = 1; }", "m.k[4, 256](d)", 700, D),
    cu("kernel_printf_after_fault_then_many_launches",
       "#include <cstdio>\n__global__ void k(int *p, int f) { printf(\"%d\\n\", threadIdx.x); "
       "if (f) p[1 << 28] = 1; }",
       "m.k[1, 64](d, 1)\ntry:\n    cudaDeviceSynchronize()\nexcept CudaError:\n    pass\n"
       "cudaDeviceReset(); d = cudaMalloc(256)\nfor _ in range(200):\n    m.k[1, 32](d, 0)", "ok",
       D),
    cu("device_malloc_past_the_heap_returns_null",
       "__global__ void k(int *ok) { ok[0] = malloc(64u << 20) == 0; }",
       "m.k[1, 1](d); h = np.zeros(1, np.int32)\n"
       "cudaMemcpy(h, d, 4, cudaMemcpyDeviceToHost); assert h[0] == 1", "ok", "d = cudaMalloc(4)\n"),
    cu("device_malloc_free_many_threads",
       "__global__ void k(int *ok) { int *p = (int *)malloc(64); if (p) { p[0] = 1; free(p); } "
       "else atomicAdd(ok, 1); }", "m.k[64, 256](d)", "ok", D),
    # ---- OpenCL
    ocl("clKernel_fault_is_out_of_resources",
        "__kernel void k(__global int *a) { a[1 << 28] = 1; }", -5),
    ocl("clKernel_null_write", "__kernel void k(__global int *a) { a[get_global_id(0)] = 1; }",
        -5, args="None"),
    ocl("clKernel_divide_by_zero",
        "__kernel void k(__global int *a, int z) { a[0] = a[1] / z; }", -5, args="a, 0"),
    ocl("clKernel_barrier_divergence",
        "__kernel void k(__global int *a) { if (get_local_id(0) < 8) "
        "barrier(CLK_LOCAL_MEM_FENCE); a[0] = 1; }", -5),
    ocl("clKernel_local_argument_past_end",
        "__kernel void k(__global int *a, __local int *l) { l[get_local_id(0) + 8192] = 1; }",
        -5, args="a, cl.LocalMemory(128)"),
    ocl("clKernel_never_ends_watchdog",
        "__kernel void k(__global volatile int *a) { while (!a[0]) {} }", -5, gws="[1]",
        lws="[1]", env=WATCHDOG),
    C("clKernel_fault_fails_a_later_blocking_read",
      "k = kernel('__kernel void k(__global int *a) { a[1 << 28] = 1; }'); a = buf(16)\n"
      "cl.clSetKernelArg(k, 0, a); cl.clEnqueueNDRangeKernel(q, k, 1, None, [1], [1])\n"
      "cl.clEnqueueReadBuffer(q, a, cl.CL_TRUE, 0, 16, np.zeros(4, np.int32))", -5),
    C("clKernel_fault_fails_clWaitForEvents",
      "k = kernel('__kernel void k(__global int *a) { a[1 << 28] = 1; }'); a = buf(16)\n"
      "cl.clSetKernelArg(k, 0, a); e = cl.clEnqueueNDRangeKernel(q, k, 1, None, [1], [1])\n"
      "cl.clWaitForEvents([e])", -14),
]
