"""Hostile input for the calls of issues 11-13: streams, events, async copies,
page-locked memory, pitched memory, symbols, textures, images, warps
(expectations: CUDA 13 on an H100 where tests/data/ground_truth/ has them,
else the CUDA Runtime API and OpenCL 3.0 specifications)."""
from hostile_cases import Case

C = Case
SYM = ("m = SourceModule('__constant__ float coef[4];\\n"
       "__global__ void k(float *o) { o[0] = coef[0]; }')\n")
TEX = "d = cudaMalloc(64)\n"

CASES = [
    # ---- streams and events
    C("cudaStreamCreateWithFlags_unknown_flags", "cudaStreamCreateWithFlags(7)", 1),
    C("cudaStreamCreateWithFlags_string", "cudaStreamCreateWithFlags('x')", 1),
    C("cudaStreamSynchronize_not_a_stream", "cudaStreamSynchronize('x')", 400),
    C("cudaStreamDestroy_twice", "s = cudaStreamCreate(); cudaStreamDestroy(s); "
      "cudaStreamDestroy(s)", 400),
    C("cudaStreamQuery_destroyed", "s = cudaStreamCreate(); cudaStreamDestroy(s); "
      "cudaStreamQuery(s)", 400),
    C("cudaStreamWaitEvent_not_an_event", "s = cudaStreamCreate(); cudaStreamWaitEvent(s, 5)",
      400),
    C("cudaEventRecord_not_an_event", "cudaEventRecord(5, 0)", 400),
    C("cudaEventElapsedTime_timing_disabled",
      "a = cudaEventCreateWithFlags(cudaEventDisableTiming); b = cudaEventCreate()\n"
      "cudaEventRecord(a, 0); cudaEventRecord(b, 0); cudaEventSynchronize(b)\n"
      "cudaEventElapsedTime(a, b)", 400),
    C("cudaEventQuery_ok_after_sync", "e = cudaEventCreate(); cudaEventRecord(e, 0)\n"
      "cudaEventSynchronize(e); assert cudaEventQuery(e) == cudaSuccess", "ok"),
    C("cudaLaunchHostFunc_not_callable", "cudaLaunchHostFunc(0, 5, None)", 1),
    # ---- async copies and page-locked memory
    C("cudaMemcpyAsync_bad_kind", "d = cudaMalloc(16); h = np.zeros(4, np.int32)\n"
      "cudaMemcpyAsync(d, h, 16, 9, 0)", 21),
    C("cudaMemcpyAsync_count_negative", "d = cudaMalloc(16); h = np.zeros(4, np.int32)\n"
      "cudaMemcpyAsync(d, h, -4, cudaMemcpyHostToDevice, 0)", 1),
    C("cudaMemcpyAsync_destroyed_stream", "d = cudaMalloc(16); h = np.zeros(4, np.int32)\n"
      "s = cudaStreamCreate(); cudaStreamDestroy(s)\n"
      "cudaMemcpyAsync(d, h, 16, cudaMemcpyHostToDevice, s)", 400),
    C("cudaMallocHost_negative", "cudaMallocHost(-1)", 1),
    C("cudaFreeHost_device_pointer", "cudaFreeHost(cudaMalloc(16))", 1),
    C("cudaHostRegister_not_an_array", "cudaHostRegister(5, 16, 0)", 1),
    # ---- more stream, event, page-locked, peer and stream-ordered calls (codes as
    # tests/data/ground_truth/probe_streams_h100.txt where it has them)
    C("cudaEventCreateWithFlags_interprocess_alone",
      "cudaEventCreateWithFlags(cudaEventInterprocess)", 1),
    C("cudaEventCreateWithFlags_interprocess_not_supported",
      "cudaEventCreateWithFlags(cudaEventInterprocess | cudaEventDisableTiming)", 801),
    C("cudaEventSynchronize_destroyed", "e = cudaEventCreate(); cudaEventDestroy(e); "
      "cudaEventSynchronize(e)", 400),
    C("cudaStreamWaitEvent_destroyed_event", "e = cudaEventCreate(); cudaEventDestroy(e); "
      "cudaStreamWaitEvent(0, e, 0)", 400),
    C("cudaEventRecordWithFlags_unknown_flags", "cudaEventRecordWithFlags(cudaEventCreate(), 0, 7)",
      1),
    C("cudaStreamAddCallback_destroyed_stream", "s = cudaStreamCreate(); cudaStreamDestroy(s); "
      "cudaStreamAddCallback(s, print, None, 0)", 400),
    C("cudaMemsetAsync_count_negative", "d = cudaMalloc(16); cudaMemsetAsync(d, 0, -1, 0)", 1),
    C("cudaMemsetAsync_past_the_allocation", "d = cudaMalloc(16); cudaMemsetAsync(d, 0, 17, 0)", 1),
    C("cudaHostRegister_twice", "h = np.zeros(64, np.uint8); cudaHostRegister(h, 64, 0)\n"
      "cudaHostRegister(h, 64, 0)", 712),
    C("cudaHostUnregister_not_registered", "cudaHostUnregister(np.zeros(64, np.uint8))", 713),
    C("cudaHostGetDevicePointer_pageable", "cudaHostGetDevicePointer(np.zeros(4), 0)", 1),
    C("cudaFreeHost_twice", "h = cudaMallocHost(16); cudaFreeHost(h); cudaFreeHost(h)", 1),
    C("cudaMallocAsync_negative", "cudaMallocAsync(-1, 0)", 1),
    C("cudaFreeAsync_twice", "d = cudaMallocAsync(16, 0); cudaFreeAsync(d, 0); cudaFreeAsync(d, 0)",
      1),
    C("cudaDeviceEnablePeerAccess_self", "cudaDeviceEnablePeerAccess(0, 0)", 101),
    C("cudaDeviceDisablePeerAccess_not_enabled", "cudaDeviceDisablePeerAccess(0)", 705),
    C("cudaMemcpyPeer_bad_device", "d = cudaMalloc(16); cudaMemcpyPeer(d, 5, d, 0, 16)", 101),
    C("cudaSetDeviceFlags_unknown_flags", "cudaSetDeviceFlags(0x1000)", 1),
    # ---- pitched memory
    C("cudaMallocPitch_negative_width", "cudaMallocPitch(-1, 4)", 1),
    C("cudaMemcpy2D_width_past_pitch",
      "d, p = cudaMallocPitch(64, 4); h = np.zeros(1024, np.uint8)\n"
      "cudaMemcpy2D(d, p, h, 64, p + 1, 4, cudaMemcpyHostToDevice)", 12),   # InvalidPitchValue
    C("cudaMemset2D_rows_past_allocation", "d, p = cudaMallocPitch(64, 4)\n"
      "cudaMemset2D(d, p, 0, 64, 5)", 1),
    # ---- symbols
    C("cudaMemcpyToSymbol_a_string", SYM + "cudaMemcpyToSymbol('coef', np.zeros(4, np.float32), 16)",
      13),
    C("cudaMemcpyToSymbol_past_the_symbol",
      SYM + "cudaMemcpyToSymbol(m.get_global('coef'), np.zeros(8, np.float32), 20)", 1),
    C("get_global_unknown_name", SYM + "m.get_global('nope')", 500),
    # ---- textures, surfaces, images
    C("cudaCreateTextureObject_null_resource",                     # ground truth tex_null_res
      "cudaCreateTextureObject(None, cudaTextureDesc(), None)", 1),
    C("cudaMallocArray_zero_width",
      "cudaMallocArray(cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat), 0, 4)", 1),
    C("clCreateImage_invalid_format_descriptor",
      "f = cl.cl_image_format(0x1234, cl.CL_FLOAT)\n"
      "d = cl.cl_image_desc(cl.CL_MEM_OBJECT_IMAGE2D, 4, 4)\n"
      "cl.clCreateImage(ctx, cl.CL_MEM_READ_WRITE, f, d)", -39),   # not a channel order at all
    C("clCreateSampler_bad_addressing", "cl.clCreateSampler(ctx, True, 0x9999, cl.CL_FILTER_NEAREST)",
      -30),
    # ---- warps and cooperative launches
    C("kernel_pre_cuda9_shfl", "cuda_kernel('__global__ void k(int *p) "
      "{ p[threadIdx.x] = __shfl(p[0], 0); }')", "CompileError"),
    C("cudaLaunchCooperativeKernel_grid_too_large",
      "k = cuda_kernel('__global__ void k(int *p) {}')\n"
      "cudaLaunchCooperativeKernel(k, 1 << 20, 1024, (cudaMalloc(4),))", 720),
    # ---- layered/cubemap arrays, 3-D copies to arrays (codes as tests/data/ground_truth/array3d_h100.json), cooperative launch of a non-function
    C('cudaMalloc3DArray_cubemap_not_square',
      'cudaMalloc3DArray(cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat), make_cudaExtent(4, 8, 6), cudaArrayCubemap)', 1),
    C('cudaMalloc3DArray_cubemap_depth_5',
      'cudaMalloc3DArray(cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat), make_cudaExtent(4, 4, 5), cudaArrayCubemap)', 1),
    C('cudaMallocArray_layered_flag',
      'cudaMallocArray(cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat), 4, 4, cudaArrayLayered)', 1),
    C('cudaMemcpy3D_array_extent_past_end',
      'a = cudaMalloc3DArray(cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat), make_cudaExtent(4, 4, 4))\np = cudaMemcpy3DParms(); p.srcPtr = make_cudaPitchedPtr(np.zeros(1000, np.float32), 16 * 4, 16, 16); p.dstArray = a; p.extent = make_cudaExtent(8, 4, 4); p.kind = cudaMemcpyHostToDevice; cudaMemcpy3D(p)', 1),
    C('cudaLaunchCooperativeKernel_not_a_function',
      'cudaLaunchCooperativeKernel(5, 1, 32, ())', 400),
]
