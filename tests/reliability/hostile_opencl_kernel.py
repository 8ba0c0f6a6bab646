"""Hostile input for OpenCL programs, kernels and their enqueue:
clCreateProgramWithSource, clBuildProgram, the Info calls, clCreateKernel,
clSetKernelArg, clEnqueueNDRangeKernel, clEnqueueTask (expectations: the
OpenCL 3.0 specification's "Errors" of each call)."""
from hostile_cases import Case

C = Case
K = "k = kernel(CLK); a = buf(256)\n"
KA = K + "cl.clSetKernelArg(k, 0, a); cl.clSetKernelArg(k, 1, 64)\n"
T = ("k = kernel('__kernel void k(__global int *a, char c, uint u, float f, double d, long l, "
     "int4 v) { a[0] = c + u + (int)f + (int)d + (int)l + v.x; }'); a = buf(16)\n")
CTX2 = "ctx2 = cl.clCreateContext(None, [dev])\n"


def nd(args, expect, name, pre=""):
    return C(name, KA + pre + f"cl.clEnqueueNDRangeKernel(q, k, {args}); cl.clFinish(q)", expect)


def arg(index, value, expect, name):
    return C(name, T + f"cl.clSetKernelArg(k, {index}, {value})", expect)


CASES = [
    # ---- programs
    C("clCreateProgramWithSource_empty_list", "cl.clCreateProgramWithSource(ctx, [])", -30),
    C("clCreateProgramWithSource_none", "cl.clCreateProgramWithSource(ctx, None)", -30),
    C("clCreateProgramWithSource_int_string", "cl.clCreateProgramWithSource(ctx, [1])", -30),
    C("clCreateProgramWithSource_not_a_context", "cl.clCreateProgramWithSource(q, [CLK])", -34),
    C("clCreateProgramWithSource_surrogate",
      "p = cl.clCreateProgramWithSource(ctx, ['/* \\udc80 */' + CLK]); cl.clBuildProgram(p)",
      "ok"),
    C("clProgram_latin1_source",
      "p = cl.clCreateProgramWithSource(ctx, [b'/* caf\\xe9 */ __kernel void k() {}'])\n"
      "cl.clBuildProgram(p)", "ok"),
    C("clProgram_source_in_pieces",
      "p = cl.clCreateProgramWithSource(ctx, ['__kernel void ', 'k(__global int *a) ', "
      "'{ a[0] = 1; }']); cl.clBuildProgram(p); cl.clCreateKernel(p, 'k')", "ok"),
    C("clUnloadPlatformCompiler_not_a_platform", "cl.clUnloadPlatformCompiler(ctx)", -32),
    C("clUnloadPlatformCompiler_string", "cl.clUnloadPlatformCompiler('pyemu')", -32),
    C("clUnloadPlatformCompiler_then_build",
      "assert cl.clUnloadPlatformCompiler(platform) == 0\n"
      "assert cl.clUnloadPlatformCompiler(None) == 0 and cl.clUnloadCompiler() == 0\n"
      "p = cl.clCreateProgramWithSource(ctx, [CLK]); cl.clBuildProgram(p)", "ok"),
    C("clBuildProgram_syntax_error", "build('__kernel void k() { int x = ; }')", -11),
    C("clBuildProgram_error_directive", "build('#error no\\n__kernel void k() {}')", -11),
    C("clBuildProgram_missing_include", "build('#include \"missing.h\"\\n__kernel void k() {}')",
      -11),
    C("clBuildProgram_log_after_failure",
      "p = cl.clCreateProgramWithSource(ctx, ['__kernel void k() { undefined_thing(); }'])\n"
      "try:\n    cl.clBuildProgram(p)\nexcept cl.CLError as e:\n    assert e.code == -11\n"
      "log = cl.clGetProgramBuildInfo(p, dev, cl.CL_PROGRAM_BUILD_LOG)\n"
      "assert 'undefined_thing' in log, log\n"
      "assert cl.clGetProgramBuildInfo(p, dev, cl.CL_PROGRAM_BUILD_STATUS) == "
      "cl.CL_BUILD_ERROR", "ok"),
    C("clBuildProgram_unknown_option", "build(CLK, '-cl-no-such-option')", -43),
    C("clBuildProgram_unbalanced_quote", "build(CLK, '-DX=\"1')", -43),
    C("clBuildProgram_options_an_int", "build(CLK, 5)", -43),
    C("clBuildProgram_options_not_utf8", "build(CLK, b'-DX=\\xff')", -43),
    C("clBuildProgram_define_option_ok",
      "k = kernel('__kernel void k(__global int *a) { a[0] = N; }', options='-DN=7')\n"
      "a = buf(4); cl.clSetKernelArg(k, 0, a); cl.clEnqueueTask(q, k); h = np.zeros(1, np.int32)\n"
      "cl.clEnqueueReadBuffer(q, a, cl.CL_TRUE, 0, 4, h); assert h[0] == 7", "ok"),
    C("clBuildProgram_not_a_program", "cl.clBuildProgram(ctx)", -44),
    C("clBuildProgram_device_list_of_contexts",
      "p = cl.clCreateProgramWithSource(ctx, [CLK]); cl.clBuildProgram(p, [ctx])", -33),
    C("clBuildProgram_notify_not_callable",
      "p = cl.clCreateProgramWithSource(ctx, [CLK]); cl.clBuildProgram(p, None, None, 5)", -30),
    C("clBuildProgram_with_kernels_attached",
      "p = build(CLK); k = cl.clCreateKernel(p, 'k'); cl.clBuildProgram(p)", -59),
    C("clBuildProgram_twice_ok", "p = build(CLK); cl.clBuildProgram(p); cl.clCreateKernel(p, 'k')",
      "ok"),
    C("clBuildProgram_huge_source",
      "build('/*' + 'x' * (4 << 20) + '*/\\n' + CLK)", "ok"),
    C("clBuildProgram_kernel_named_like_libc",
      "k = kernel('__kernel void exit(__global int *a) { a[0] = 3; }', 'exit'); a = buf(4)\n"
      "cl.clSetKernelArg(k, 0, a); cl.clEnqueueTask(q, k); h = np.zeros(1, np.int32)\n"
      "cl.clEnqueueReadBuffer(q, a, cl.CL_TRUE, 0, 4, h); assert h[0] == 3", "ok"),
    C("clBuildProgram_kernel_named_memcpy",
      "kernel('__kernel void memcpy(__global int *a) { a[0] = 3; }', 'memcpy')", "ok"),
    C("clBuildProgram_kernel_named_like_a_builtin",
      "kernel('__kernel void sqrt(__global float *a) { a[0] = 3; }', 'sqrt')", -11),
    C("clBuildProgram_no_kernels",
      "p = build('int f(int x) { return x; }')\n"
      "assert cl.clGetProgramInfo(p, cl.CL_PROGRAM_NUM_KERNELS) == 0; cl.clCreateKernel(p, 'f')",
      -46),
    C("clGetProgramInfo_unbuilt_kernel_count",
      "p = cl.clCreateProgramWithSource(ctx, [CLK])\n"
      "cl.clGetProgramInfo(p, cl.CL_PROGRAM_NUM_KERNELS)", -45),
    C("clGetProgramInfo_unknown_param", "cl.clGetProgramInfo(build(CLK), 0xdead)", -30),
    C("clGetProgramInfo_binaries_after_the_cache_is_cleared",
      "import os, shutil, tempfile\nd = tempfile.mkdtemp(); os.environ['PYEMU_CACHE_DIR'] = d\n"
      "import pyemu.runtime.config\n"
      "p = build('__kernel void k(__global int *a) { a[0] = %d; }' % len(os.listdir(d)))\n"
      "shutil.rmtree(d, ignore_errors=True)\n"
      "n = cl.clGetProgramInfo(p, cl.CL_PROGRAM_BINARY_SIZES)[0]\n"
      "b = cl.clGetProgramInfo(p, cl.CL_PROGRAM_BINARIES)[0]\n"
      "assert n == len(b) > 0 and b[:4] == b'\\x7fELF'", "ok"),
    C("clBuildProgram_from_two_threads_at_once",
      "import threading\np = cl.clCreateProgramWithSource(ctx, [CLK]); got = []\n"
      "def go():\n    try:\n        cl.clBuildProgram(p); got.append(0)\n"
      "    except cl.CLError as e:\n        got.append(e.code)\n"
      "ts = [threading.Thread(target=go) for _ in range(4)]\n"
      "[t.start() for t in ts]; [t.join() for t in ts]\n"
      "assert set(got) <= {0, -59} and 0 in got, got\ncl.clCreateKernel(p, 'k')", "ok"),
    C("clGetProgramBuildInfo_not_a_device",
      "cl.clGetProgramBuildInfo(build(CLK), ctx, cl.CL_PROGRAM_BUILD_LOG)", -33),
    C("clReleaseProgram_twice", "p = build(CLK); cl.clReleaseProgram(p); cl.clReleaseProgram(p)",
      -44),
    C("clProgram_after_cudaDeviceReset", "p = build(CLK); cudaDeviceReset(); "
      "cl.clCreateKernel(p, 'k')", -44),
    C("clProgram_released_while_kernel_lives",
      "p = build(CLK); k = cl.clCreateKernel(p, 'k'); cl.clReleaseProgram(p); a = buf(256)\n"
      "cl.clSetKernelArg(k, 0, a); cl.clSetKernelArg(k, 1, 64)\n"
      "cl.clEnqueueNDRangeKernel(q, k, 1, None, [64], [32]); cl.clFinish(q)", "ok"),
    # ---- kernels
    C("clCreateKernel_missing_name", "cl.clCreateKernel(build(CLK), 'nope')", -46),
    C("clCreateKernel_null_name", "cl.clCreateKernel(build(CLK), None)", -30),
    C("clCreateKernel_int_name", "cl.clCreateKernel(build(CLK), 5)", -30),
    C("clCreateKernel_unbuilt_program",
      "cl.clCreateKernel(cl.clCreateProgramWithSource(ctx, [CLK]), 'k')", -45),
    C("clCreateKernel_failed_build",
      "p = cl.clCreateProgramWithSource(ctx, ['__kernel void k() { x; }'])\n"
      "try:\n    cl.clBuildProgram(p)\nexcept cl.CLError:\n    pass\ncl.clCreateKernel(p, 'k')",
      -45),
    C("clCreateKernel_not_a_program", "cl.clCreateKernel(None, 'k')", -44),
    C("clCreateKernelsInProgram_unbuilt",
      "cl.clCreateKernelsInProgram(cl.clCreateProgramWithSource(ctx, [CLK]))", -45),
    arg(7, "1", -49, "clSetKernelArg_index_past_end"),
    arg(-1, "1", -49, "clSetKernelArg_index_negative"),
    arg("'1'", "1", -49, "clSetKernelArg_index_string"),
    arg(1, "1.5", -50, "clSetKernelArg_float_for_char"),
    arg(1, "200", -50, "clSetKernelArg_char_out_of_range"),
    arg(2, "-1", -50, "clSetKernelArg_uint_negative"),
    arg(2, "2**32", -50, "clSetKernelArg_uint_2_to_32"),
    arg(3, "1e39", -50, "clSetKernelArg_float_1e39"),
    arg(3, "'1.0'", -50, "clSetKernelArg_string_for_float"),
    arg(5, "2**63", -50, "clSetKernelArg_long_2_to_63"),
    arg(5, "np.int64(-5)", "ok", "clSetKernelArg_long_numpy"),
    arg(1, "a", -50, "clSetKernelArg_buffer_for_char"),
    arg(0, "5", -38, "clSetKernelArg_int_for_buffer"),
    arg(0, "np.zeros(4, np.int32)", -38, "clSetKernelArg_host_array_for_buffer"),
    arg(0, "None", "ok", "clSetKernelArg_null_buffer"),
    arg(6, "(1, 2, 3)", -51, "clSetKernelArg_vector_wrong_length"),
    arg(6, "5", -50, "clSetKernelArg_scalar_for_vector"),
    arg(6, "np.array([1, 2, 3, 4], np.int32)", "ok", "clSetKernelArg_vector_numpy"),
    arg(1, "4, 1", -51, "clSetKernelArg_c_form_wrong_size"),
    arg(2, "4, 1", "ok", "clSetKernelArg_c_form_right_size"),
    arg(0, "8, a", "ok", "clSetKernelArg_c_form_buffer"),
    arg(0, "4, a", -51, "clSetKernelArg_c_form_buffer_wrong_size"),
    C("clSetKernelArg_missing_value", T + "cl.clSetKernelArg(k, 1)", -30),
    C("clSetKernelArg_released_buffer",
      T + "cl.clReleaseMemObject(a); cl.clSetKernelArg(k, 0, a)", -38),
    C("clSetKernelArg_buffer_of_another_context",
      CTX2 + T + "cl.clSetKernelArg(k, 0, cl.clCreateBuffer(ctx2, cl.CL_MEM_READ_WRITE, 16))",
      -38),
    C("clSetKernelArg_released_kernel", T + "cl.clReleaseKernel(k); cl.clSetKernelArg(k, 0, a)",
      -48),
    C("clSetKernelArg_struct_wrong_size",
      "k = kernel('typedef struct { int a; float b; } P;\\n__kernel void k(P p) {}')\n"
      "cl.clSetKernelArg(k, 0, b'123')", -51),
    C("clSetKernelArg_local_size_zero",
      "k = kernel('__kernel void k(__local int *l) { l[0] = 1; }'); "
      "cl.clSetKernelArg(k, 0, cl.LocalMemory(0))", -51),
    C("clSetKernelArg_local_c_form_size_zero",
      "k = kernel('__kernel void k(__local int *l) { l[0] = 1; }'); "
      "cl.clSetKernelArg(k, 0, 0, None)", -51),
    C("clSetKernelArg_buffer_for_local",
      "k = kernel('__kernel void k(__local int *l) { l[0] = 1; }'); "
      "cl.clSetKernelArg(k, 0, buf(16))", -50),
    C("clEnqueueNDRangeKernel_local_memory_over_48KiB",
      "k = kernel('__kernel void k(__local int *l) { l[get_local_id(0)] = 1; }')\n"
      "cl.clSetKernelArg(k, 0, cl.LocalMemory(65536))\n"
      "cl.clEnqueueNDRangeKernel(q, k, 1, None, [32], [32]); cl.clFinish(q)", -5),
    C("clGetKernelInfo_unknown_param", "cl.clGetKernelInfo(kernel(CLK), 0xdead)", -30),
    C("clGetKernelWorkGroupInfo_not_a_device",
      "cl.clGetKernelWorkGroupInfo(kernel(CLK), ctx, cl.CL_KERNEL_WORK_GROUP_SIZE)", -33),
    C("clGetKernelWorkGroupInfo_global_work_size",
      "cl.clGetKernelWorkGroupInfo(kernel(CLK), dev, cl.CL_KERNEL_GLOBAL_WORK_SIZE)", -30),
    C("clGetKernelArgInfo_without_arg_info_option",
      "cl.clGetKernelArgInfo(kernel(CLK), 0, cl.CL_KERNEL_ARG_NAME)", -19),
    C("clGetKernelArgInfo_index_past_end",
      "cl.clGetKernelArgInfo(kernel(CLK, options='-cl-kernel-arg-info'), 2, "
      "cl.CL_KERNEL_ARG_NAME)", -49),
    C("clReleaseKernel_twice", "k = kernel(CLK); cl.clReleaseKernel(k); cl.clReleaseKernel(k)",
      -48),
    C("clKernel_after_cudaDeviceReset", KA + "cudaDeviceReset(); "
      "q2 = cl.clCreateCommandQueue(cl.clCreateContext(None, [dev]), dev, 0)\n"
      "cl.clEnqueueTask(q2, k)", -48),
    # ---- clEnqueueNDRangeKernel
    nd("1, None, [64], [32]", "ok", "clEnqueueNDRangeKernel_ok"),
    nd("0, None, [64], [32]", -53, "clEnqueueNDRangeKernel_work_dim_0"),
    nd("4, None, [64] * 4, [1] * 4", -53, "clEnqueueNDRangeKernel_work_dim_4"),
    nd("'1', None, [64], [32]", -53, "clEnqueueNDRangeKernel_work_dim_string"),
    nd("1, None, None, [32]", -63, "clEnqueueNDRangeKernel_global_null"),
    nd("1, None, [0], None", -63, "clEnqueueNDRangeKernel_global_zero"),
    nd("1, None, [2**64], None", -63, "clEnqueueNDRangeKernel_global_2_to_64"),
    nd("1, None, [-64], None", -63, "clEnqueueNDRangeKernel_global_negative"),
    nd("2, None, [64], None", -63, "clEnqueueNDRangeKernel_global_too_few_sizes"),
    nd("1, None, [64.0], None", -63, "clEnqueueNDRangeKernel_global_float"),
    C("clEnqueueNDRangeKernel_more_groups_than_the_device",
      KA + "cl.clEnqueueNDRangeKernel(q, k, 1, None, [2**33], [1])", -63),
    nd("1, None, [2**31], [1]", -63, "clEnqueueNDRangeKernel_2_to_31_groups"),
    nd("1, None, [64], [48]", -54, "clEnqueueNDRangeKernel_local_does_not_divide"),
    nd("1, None, [2048], [2048]", -55, "clEnqueueNDRangeKernel_local_past_item_size"),
    nd("3, None, [32, 32, 2], [32, 32, 2]", -54, "clEnqueueNDRangeKernel_local_past_group_size"),
    nd("3, None, [1, 1, 65], [1, 1, 65]", -55, "clEnqueueNDRangeKernel_local_z_65"),
    nd("1, None, [64], [0]", -54, "clEnqueueNDRangeKernel_local_zero"),
    nd("1, None, [64], ['x']", -54, "clEnqueueNDRangeKernel_local_string"),
    nd("1, [-1], [64], [32]", -56, "clEnqueueNDRangeKernel_offset_negative"),
    nd("1, [2**64 - 1], [64], [32]", -56, "clEnqueueNDRangeKernel_offset_overflows"),
    nd("1, [2**40], [64], [32]", -56, "clEnqueueNDRangeKernel_offset_past_32_bits"),
    nd("np.uint32(1), [np.int64(0)], [np.int64(64)], [np.int16(32)]", "ok",
       "clEnqueueNDRangeKernel_numpy_sizes"),
    nd("1, None, 64, 32", "ok", "clEnqueueNDRangeKernel_int_sizes"),
    C("clEnqueueNDRangeKernel_unset_argument",
      "p = cl.clCreateProgramWithSource(ctx, ['__kernel void k(__global int *a) { a[0] = 1; }'])\n"
      "cl.clBuildProgram(p); k = cl.clCreateKernel(p, 'k')\n"
      "cl.clEnqueueNDRangeKernel(q, k, 1, None, [1], [1])", -52),
    C("clEnqueueNDRangeKernel_argument_buffer_released",
      KA + "cl.clReleaseMemObject(a); cl.clEnqueueNDRangeKernel(q, k, 1, None, [64], [32])", -38),
    C("clEnqueueNDRangeKernel_kernel_of_another_context",
      CTX2 + KA + "q2 = cl.clCreateCommandQueue(ctx2, dev, 0)\n"
      "cl.clEnqueueNDRangeKernel(q2, k, 1, None, [64], [32])", -34),
    C("clEnqueueNDRangeKernel_null_kernel",
      "cl.clEnqueueNDRangeKernel(q, None, 1, None, [64], [32])", -48),
    C("clEnqueueNDRangeKernel_null_queue",
      KA + "cl.clEnqueueNDRangeKernel(None, k, 1, None, [64], [32])", -36),
    C("clEnqueueNDRangeKernel_reqd_work_group_size_mismatch",
      "k = kernel('__kernel __attribute__((reqd_work_group_size(16, 1, 1))) void "
      "k(__global int *a) { a[get_global_id(0)] = 1; }'); a = buf(256)\n"
      "cl.clSetKernelArg(k, 0, a); cl.clEnqueueNDRangeKernel(q, k, 1, None, [64], [32])", -54),
    C("clEnqueueNDRangeKernel_wait_list_failed_event",
      KA + "u = cl.clCreateUserEvent(ctx); cl.clSetUserEventStatus(u, -1)\n"
      "e = cl.clEnqueueNDRangeKernel(q, k, 1, None, [64], [32], [u]); cl.clWaitForEvents([e])",
      -14),
    C("clEnqueueNDRangeKernel_storm_then_release",
      KA + "for _ in range(2000):\n    cl.clEnqueueNDRangeKernel(q, k, 1, None, [64], [32])\n"
      "cl.clReleaseMemObject(a); cl.clReleaseKernel(k); cl.clFinish(q)", "ok"),
    C("clEnqueueTask_unset_argument", "cl.clEnqueueTask(q, kernel(CLK))", -52),
    C("clEnqueueTask_not_a_queue", KA + "cl.clEnqueueTask(ctx, k)", -36),
    # ---- sampler_t arguments take a valid cl_sampler (CL_INVALID_SAMPLER), nothing else does
    C("clSetKernelArg_buffer_to_a_sampler",
      "k = kernel('__kernel void k(__read_only image2d_t im, sampler_t s, __global float *o) "
      "{ o[0] = read_imagef(im, s, (int2)(0, 0)).x; }')\n"
      "cl.clSetKernelArg(k, 1, buf(16))", -41),
    C("clSetKernelArg_released_sampler",
      "k = kernel('__kernel void k(__read_only image2d_t im, sampler_t s, __global float *o) "
      "{ o[0] = read_imagef(im, s, (int2)(0, 0)).x; }')\n"
      "s = cl.clCreateSampler(ctx, False, cl.CL_ADDRESS_NONE, cl.CL_FILTER_NEAREST)\n"
      "cl.clReleaseSampler(s); cl.clSetKernelArg(k, 1, s)", -41),
    C("clSetKernelArg_sampler_to_a_char",
      T + "s = cl.clCreateSampler(ctx, False, cl.CL_ADDRESS_NONE, cl.CL_FILTER_NEAREST)\n"
      "cl.clSetKernelArg(k, 1, s)", -50),
    # ---- constant memory: CL_DEVICE_MAX_CONSTANT_ARGS (8) and _BUFFER_SIZE (64 KiB) at
    # the enqueue (CL_OUT_OF_RESOURCES), program-scope __constant data at the build
    C("clEnqueueNDRangeKernel_nine_constant_args",
      "k = kernel('__kernel void k(__global int *o, ' + ', '.join("
      "f'__constant int *c{i}' for i in range(9)) + ') { o[0] = c8[0]; }')\n"
      "o = buf(4); c = buf(4); cl.clSetKernelArg(k, 0, o)\n"
      "for i in range(1, 10):\n    cl.clSetKernelArg(k, i, c)\n"
      "cl.clEnqueueNDRangeKernel(q, k, 1, None, [1], [1])", -5),
    C("clEnqueueTask_constant_buffers_past_64KiB",
      "k = kernel('__kernel void k(__global int *o, __constant int *a, __constant int *b) "
      "{ o[0] = a[0] + b[0]; }')\n"
      "cl.clSetKernelArg(k, 0, buf(4)); cl.clSetKernelArg(k, 1, buf(32768))\n"
      "cl.clSetKernelArg(k, 2, buf(32772)); cl.clEnqueueTask(q, k)", -5),
    C("clEnqueueNDRangeKernel_constant_past_64KiB_runs_nothing",
      "k = kernel('__constant int t[1024] = {5};\\n__kernel void k(__global int *o, "
      "__constant int *a) { o[get_global_id(0)] = a[0] + t[0]; }')\n"
      "o = buf(64)\n"
      "cl.clEnqueueFillBuffer(q, o, np.int32(-7), 4, 0, 64); cl.clFinish(q)\n"
      "cl.clSetKernelArg(k, 0, o); cl.clSetKernelArg(k, 1, buf(65536 - 4096 + 4))\n"
      "try:\n    cl.clEnqueueNDRangeKernel(q, k, 1, None, [16], [16])\n"
      "except cl.CLError as e:\n    assert e.code == -5 and 'CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE' "
      "in str(e), e\nelse:\n    raise AssertionError('enqueued')\n"
      "h = np.zeros(16, np.int32); cl.clEnqueueReadBuffer(q, o, cl.CL_TRUE, 0, 64, h)\n"
      "assert (h == -7).all(), h\n"
      "cl.clSetKernelArg(k, 1, buf(65536 - 4096)); cl.clEnqueueNDRangeKernel(q, k, 1, None, "
      "[16], [16]); cl.clFinish(q)", "ok"),
    C("clBuildProgram_program_scope_constant_past_64KiB",
      "p = cl.clCreateProgramWithSource(ctx, ['__constant float big[16385] = {1};\\n"
      "__kernel void k(__global float *o) { o[0] = big[0]; }'])\n"
      "try:\n    cl.clBuildProgram(p)\nexcept cl.CLError as e:\n    assert e.code == -11\n"
      "log = cl.clGetProgramBuildInfo(p, dev, cl.CL_PROGRAM_BUILD_LOG)\n"
      "assert 'big (65540 bytes)' in log, log\n"
      "cl.clCreateKernel(p, 'k')", -45),
]
