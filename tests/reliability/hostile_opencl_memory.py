"""Hostile input for OpenCL's buffers: clCreateBuffer, clCreateSubBuffer, the
read/write/copy/fill/map/unmap commands, retain and release (expectations:
the OpenCL 3.0 specification's "Errors" of each call)."""
from hostile_cases import Case

C = Case
B = "b = buf(64); h = np.zeros(16, np.int32)\n"
RW = "cl.CL_MEM_READ_WRITE"
CTX2 = "ctx2 = cl.clCreateContext(None, [dev])\n"


def rd(args, expect, name, pre=""):
    return C(name, B + pre + f"cl.clEnqueueReadBuffer(q, {args})", expect)


CASES = [
    # ---- clCreateBuffer
    C("clCreateBuffer_size_zero", "buf(0)", -61),
    C("clCreateBuffer_size_negative", "buf(-1)", -61),
    C("clCreateBuffer_size_2_to_64", "buf(2**64)", -61),
    C("clCreateBuffer_size_float", "buf(16.0)", -61),
    C("clCreateBuffer_size_string", "buf('16')", -61),
    C("clCreateBuffer_size_numpy", "cl.clReleaseMemObject(buf(np.int64(16)))", "ok"),
    C("clCreateBuffer_past_max_alloc", "buf(128 << 20)", -61,
      env=(("PYEMU_DEVICE_MEMORY", "67108864"),)),
    C("clCreateBuffer_until_out_of_memory", "bs = []\nwhile True:\n    bs.append(buf(1 << 20))",
      -4, env=(("PYEMU_DEVICE_MEMORY", "16777216"),)),
    C("clCreateBuffer_unknown_flags", "buf(16, 1 << 40)", -30),
    C("clCreateBuffer_read_only_and_write_only",
      "buf(16, cl.CL_MEM_READ_ONLY | cl.CL_MEM_WRITE_ONLY)", -30),
    C("clCreateBuffer_two_host_access_flags",
      "buf(16, cl.CL_MEM_HOST_READ_ONLY | cl.CL_MEM_HOST_NO_ACCESS)", -30),
    C("clCreateBuffer_use_and_copy_host_ptr",
      "cl.clCreateBuffer(ctx, cl.CL_MEM_USE_HOST_PTR | cl.CL_MEM_COPY_HOST_PTR, 16, "
      "np.zeros(4, np.int32))", -30),
    C("clCreateBuffer_flags_string", "buf(16, 'rw')", -30),
    C("clCreateBuffer_use_host_ptr_without_pointer",
      "cl.clCreateBuffer(ctx, cl.CL_MEM_USE_HOST_PTR, 16)", -37),
    C("clCreateBuffer_pointer_without_flag",
      f"cl.clCreateBuffer(ctx, {RW}, 16, np.zeros(4, np.int32))", -37),
    C("clCreateBuffer_copy_host_ptr_too_small",
      "cl.clCreateBuffer(ctx, cl.CL_MEM_COPY_HOST_PTR, 64, np.zeros(4, np.int32))", -37),
    C("clCreateBuffer_copy_host_ptr_a_list",
      "cl.clCreateBuffer(ctx, cl.CL_MEM_COPY_HOST_PTR, 12, [1, 2, 3])", -37),
    C("clCreateBuffer_use_host_ptr_read_only_array",
      "a = np.zeros(4, np.int32); a.flags.writeable = False\n"
      "cl.clCreateBuffer(ctx, cl.CL_MEM_USE_HOST_PTR, 16, a)", -37),
    C("clCreateBuffer_copy_host_ptr_non_contiguous",
      "cl.clCreateBuffer(ctx, cl.CL_MEM_COPY_HOST_PTR, 16, np.zeros(8, np.int32)[::2])", -37),
    C("clCreateBuffer_copy_host_ptr_bytes",
      "b = cl.clCreateBuffer(ctx, cl.CL_MEM_COPY_HOST_PTR, 4, b'\\x01\\x02\\x03\\x04')\n"
      "r = np.zeros(4, np.uint8); cl.clEnqueueReadBuffer(q, b, cl.CL_TRUE, 0, 4, r)\n"
      "assert list(r) == [1, 2, 3, 4]", "ok"),
    C("clCreateBuffer_not_a_context", f"cl.clCreateBuffer(q, {RW}, 16)", -34),
    C("clCreateBuffer_use_host_ptr_bytearray_resize_refused",
      "ba = bytearray(64); b = cl.clCreateBuffer(ctx, cl.CL_MEM_USE_HOST_PTR, 64, ba)\n"
      "try:\n    ba.extend(bytes(1 << 20))\nexcept BufferError:\n    pass\n"
      "else:\n    raise AssertionError('resized under the buffer')\ncl.clReleaseMemObject(b)\n"
      "ba.extend(b'x')", "ok"),
    # ---- clCreateSubBuffer
    C("clCreateSubBuffer_misaligned_origin",
      f"cl.clCreateSubBuffer(buf(1024), {RW}, cl.CL_BUFFER_CREATE_TYPE_REGION, (4, 16))", -13),
    C("clCreateSubBuffer_past_end",
      f"cl.clCreateSubBuffer(buf(256), {RW}, cl.CL_BUFFER_CREATE_TYPE_REGION, (128, 256))", -30),
    C("clCreateSubBuffer_size_zero",
      f"cl.clCreateSubBuffer(buf(256), {RW}, cl.CL_BUFFER_CREATE_TYPE_REGION, (0, 0))", -61),
    C("clCreateSubBuffer_of_a_sub_buffer",
      f"s = cl.clCreateSubBuffer(buf(256), {RW}, cl.CL_BUFFER_CREATE_TYPE_REGION, (0, 128))\n"
      f"cl.clCreateSubBuffer(s, {RW}, cl.CL_BUFFER_CREATE_TYPE_REGION, (0, 64))", -38),
    C("clCreateSubBuffer_unknown_create_type",
      f"cl.clCreateSubBuffer(buf(256), {RW}, 0x9999, (0, 16))", -30),
    C("clCreateSubBuffer_info_not_a_pair",
      f"cl.clCreateSubBuffer(buf(256), {RW}, cl.CL_BUFFER_CREATE_TYPE_REGION, 16)", -30),
    C("clCreateSubBuffer_negative_origin",
      f"cl.clCreateSubBuffer(buf(256), {RW}, cl.CL_BUFFER_CREATE_TYPE_REGION, (-128, 16))", -30),
    C("clCreateSubBuffer_host_pointer_flag",
      "cl.clCreateSubBuffer(buf(256), cl.CL_MEM_COPY_HOST_PTR, cl.CL_BUFFER_CREATE_TYPE_REGION, "
      "(0, 16))", -30),
    C("clCreateSubBuffer_more_access_than_parent",
      f"cl.clCreateSubBuffer(buf(256, cl.CL_MEM_WRITE_ONLY), {RW}, "
      "cl.CL_BUFFER_CREATE_TYPE_REGION, (0, 16))", -30),
    C("clCreateSubBuffer_released_parent",
      f"p = buf(256); cl.clReleaseMemObject(p)\n"
      f"cl.clCreateSubBuffer(p, {RW}, cl.CL_BUFFER_CREATE_TYPE_REGION, (0, 16))", -38),
    C("clCreateSubBuffer_outlives_released_parent",
      f"p = buf(256); s = cl.clCreateSubBuffer(p, {RW}, cl.CL_BUFFER_CREATE_TYPE_REGION, "
      "(128, 16))\ncl.clReleaseMemObject(p); w = np.arange(4, dtype=np.int32)\n"
      "cl.clEnqueueWriteBuffer(q, s, cl.CL_TRUE, 0, 16, w); r = np.zeros(4, np.int32)\n"
      "cl.clEnqueueReadBuffer(q, s, cl.CL_TRUE, 0, 16, r); assert (r == w).all()", "ok"),
    # ---- info, retain, release
    C("clGetMemObjectInfo_unknown_param", "cl.clGetMemObjectInfo(buf(16), 0xdead)", -30),
    C("clGetMemObjectInfo_released",
      "b = buf(16); cl.clReleaseMemObject(b); cl.clGetMemObjectInfo(b, cl.CL_MEM_SIZE)", -38),
    C("clReleaseMemObject_twice",
      f"b = cl.clCreateBuffer(ctx, {RW}, 16); cl.clReleaseMemObject(b)\n"
      "cl.clReleaseMemObject(b)", -38),
    C("clReleaseMemObject_none", "cl.clReleaseMemObject(None)", -38),
    C("clRetainMemObject_released", "b = buf(16); cl.clReleaseMemObject(b); "
      "cl.clRetainMemObject(b)", -38),
    C("clReleaseMemObject_with_commands_waiting_on_a_user_event",
      f"u = cl.clCreateUserEvent(ctx); b = cl.clCreateBuffer(ctx, {RW}, 16)\n"
      "cl.clEnqueueWriteBuffer(q, b, cl.CL_FALSE, 0, 16, np.ones(4, np.int32), [u])\n"
      "cl.clReleaseMemObject(b); cl.clSetUserEventStatus(u, cl.CL_COMPLETE); cl.clFinish(q)",
      "ok"),
    C("clBuffer_after_cudaDeviceReset",
      f"b = cl.clCreateBuffer(ctx, {RW}, 16); cudaDeviceReset()\n"
      "q2 = cl.clCreateCommandQueue(cl.clCreateContext(None, [dev]), dev, 0)\n"
      "cl.clEnqueueReadBuffer(q2, b, cl.CL_TRUE, 0, 16, np.zeros(4, np.int32))", -38),
    C("clBuffer_after_reset_does_not_touch_new_cuda_memory",
      f"b = cl.clCreateBuffer(ctx, {RW}, 64); cudaDeviceReset(); _setup()\n"
      "d = cudaMalloc(64); cudaMemset(d, 7, 64)\n"
      "try:\n    cl.clReleaseMemObject(b)\nexcept cl.CLError:\n    pass\n"
      "o = np.zeros(64, np.uint8); cudaMemcpy(o, d, 64, cudaMemcpyDeviceToHost)\n"
      "assert (o == 7).all()", "ok"),
    # ---- clEnqueueReadBuffer / clEnqueueWriteBuffer
    rd("b, cl.CL_TRUE, 60, 8, h", -30, "clEnqueueReadBuffer_past_end"),
    rd("b, cl.CL_TRUE, 0, 0, h", -30, "clEnqueueReadBuffer_size_zero"),
    rd("b, cl.CL_TRUE, -4, 4, h", -30, "clEnqueueReadBuffer_offset_negative"),
    rd("b, cl.CL_TRUE, 2**64, 4, h", -30, "clEnqueueReadBuffer_offset_2_to_64"),
    rd("b, cl.CL_TRUE, 0, 2**64 - 1, h", -30, "clEnqueueReadBuffer_size_2_to_64_minus_1"),
    rd("b, cl.CL_TRUE, 0, 64, h[:4]", -30, "clEnqueueReadBuffer_host_too_small"),
    rd("b, cl.CL_TRUE, 0, 64, None", -30, "clEnqueueReadBuffer_null_pointer"),
    rd("b, cl.CL_TRUE, 0, 64, r", -30, "clEnqueueReadBuffer_read_only_host",
       "r = np.zeros(16, np.int32); r.flags.writeable = False\n"),
    rd("b, cl.CL_TRUE, 0, 64, bytes(64)", -30, "clEnqueueReadBuffer_into_bytes"),
    rd("b, cl.CL_TRUE, 0, 64, np.zeros(32, np.int32)[::2]", -30,
       "clEnqueueReadBuffer_non_contiguous_host"),
    rd("b, 'yes', 0, 64, h", -30, "clEnqueueReadBuffer_blocking_string"),
    rd("b, cl.CL_TRUE, 0.0, 64, h", -30, "clEnqueueReadBuffer_offset_float"),
    rd("None, cl.CL_TRUE, 0, 64, h", -38, "clEnqueueReadBuffer_null_buffer"),
    rd("b2, cl.CL_TRUE, 0, 64, h", -34, "clEnqueueReadBuffer_buffer_of_another_context",
       CTX2 + "b2 = cl.clCreateBuffer(ctx2, cl.CL_MEM_READ_WRITE, 64)\n"),
    rd("b2, cl.CL_TRUE, 0, 64, h", -59, "clEnqueueReadBuffer_host_write_only",
       "b2 = buf(64, cl.CL_MEM_HOST_WRITE_ONLY)\n"),
    rd("b, cl.CL_TRUE, np.uint32(16), np.int64(16), h", "ok", "clEnqueueReadBuffer_numpy_sizes"),
    C("clEnqueueReadBuffer_null_queue",
      B + "cl.clEnqueueReadBuffer(None, b, cl.CL_TRUE, 0, 64, h)", -36),
    C("clEnqueueWriteBuffer_host_read_only",
      "b = buf(64, cl.CL_MEM_HOST_READ_ONLY)\n"
      "cl.clEnqueueWriteBuffer(q, b, cl.CL_TRUE, 0, 64, np.zeros(16, np.int32))", -59),
    C("clEnqueueWriteBuffer_from_read_only_array",
      B + "w = np.arange(16, dtype=np.int32); w.flags.writeable = False\n"
      "cl.clEnqueueWriteBuffer(q, b, cl.CL_TRUE, 0, 64, w)\n"
      "cl.clEnqueueReadBuffer(q, b, cl.CL_TRUE, 0, 64, h); assert (h == w).all()", "ok"),
    C("clEnqueueWriteBuffer_non_blocking_host_array_dropped",
      B + "cl.clEnqueueWriteBuffer(q, b, cl.CL_FALSE, 0, 64, np.full(16, 3, np.int32))\n"
      "import gc; gc.collect(); cl.clEnqueueReadBuffer(q, b, cl.CL_TRUE, 0, 64, h)\n"
      "assert (h == 3).all()", "ok"),
    C("clEnqueueWriteBuffer_released_buffer",
      B + "cl.clReleaseMemObject(b); cl.clEnqueueWriteBuffer(q, b, cl.CL_TRUE, 0, 64, h)", -38),
    # ---- clEnqueueCopyBuffer
    C("clEnqueueCopyBuffer_overlap", B + "cl.clEnqueueCopyBuffer(q, b, b, 0, 16, 32)", -8),
    C("clEnqueueCopyBuffer_sub_buffer_overlaps_parent",
      f"p = buf(512); s = cl.clCreateSubBuffer(p, {RW}, cl.CL_BUFFER_CREATE_TYPE_REGION, "
      "(128, 128))\ncl.clEnqueueCopyBuffer(q, p, s, 100, 0, 64)", -8),
    C("clEnqueueCopyBuffer_same_buffer_no_overlap",
      B + "w = np.arange(16, dtype=np.int32); cl.clEnqueueWriteBuffer(q, b, cl.CL_TRUE, 0, 64, w)"
      "\ncl.clEnqueueCopyBuffer(q, b, b, 0, 32, 32)\n"
      "cl.clEnqueueReadBuffer(q, b, cl.CL_TRUE, 0, 64, h); assert (h[8:] == w[:8]).all()", "ok"),
    C("clEnqueueCopyBuffer_past_end", B + "cl.clEnqueueCopyBuffer(q, b, buf(64), 0, 32, 64)",
      -30),
    C("clEnqueueCopyBuffer_size_zero", B + "cl.clEnqueueCopyBuffer(q, b, buf(64), 0, 0, 0)", -30),
    C("clEnqueueCopyBuffer_buffer_of_another_context",
      CTX2 + B + "cl.clEnqueueCopyBuffer(q, b, cl.clCreateBuffer(ctx2, cl.CL_MEM_READ_WRITE, "
      "64), 0, 0, 64)", -34),
    C("clEnqueueCopyBuffer_not_a_buffer", B + "cl.clEnqueueCopyBuffer(q, b, h, 0, 0, 64)", -38),
    # ---- clEnqueueFillBuffer
    C("clEnqueueFillBuffer_pattern_size_3", B + "cl.clEnqueueFillBuffer(q, b, b'abc', 3, 0, 63)",
      -30),
    C("clEnqueueFillBuffer_pattern_size_256",
      B + "cl.clEnqueueFillBuffer(q, b, bytes(256), 256, 0, 256)", -30),
    C("clEnqueueFillBuffer_offset_not_a_multiple",
      B + "cl.clEnqueueFillBuffer(q, b, np.int32(1), 4, 2, 8)", -30),
    C("clEnqueueFillBuffer_null_pattern", B + "cl.clEnqueueFillBuffer(q, b, None, 4, 0, 64)",
      -30),
    C("clEnqueueFillBuffer_pattern_too_small",
      B + "cl.clEnqueueFillBuffer(q, b, b'ab', 4, 0, 64)", -30),
    C("clEnqueueFillBuffer_pattern_a_string",
      B + "cl.clEnqueueFillBuffer(q, b, 'abcd', 4, 0, 64)", -30),
    C("clEnqueueFillBuffer_past_end", B + "cl.clEnqueueFillBuffer(q, b, np.int32(1), 4, 0, 128)",
      -30),
    C("clEnqueueFillBuffer_ok",
      B + "cl.clEnqueueFillBuffer(q, b, np.int32(-3), 4, 16, 32)\n"
      "cl.clEnqueueReadBuffer(q, b, cl.CL_TRUE, 0, 64, h)\n"
      "assert list(h) == [0] * 4 + [-3] * 8 + [0] * 4, h", "ok"),
    # ---- map and unmap
    C("clEnqueueMapBuffer_unknown_flags",
      B + "cl.clEnqueueMapBuffer(q, b, cl.CL_TRUE, 0xff, 0, 64)", -30),
    C("clEnqueueMapBuffer_invalidate_with_read",
      B + "cl.clEnqueueMapBuffer(q, b, cl.CL_TRUE, cl.CL_MAP_READ | "
      "cl.CL_MAP_WRITE_INVALIDATE_REGION, 0, 64)", -30),
    C("clEnqueueMapBuffer_past_end",
      B + "cl.clEnqueueMapBuffer(q, b, cl.CL_TRUE, cl.CL_MAP_READ, 32, 64)", -30),
    C("clEnqueueMapBuffer_read_host_write_only",
      "b = buf(64, cl.CL_MEM_HOST_WRITE_ONLY)\n"
      "cl.clEnqueueMapBuffer(q, b, cl.CL_TRUE, cl.CL_MAP_READ, 0, 64)", -59),
    C("clEnqueueUnmapMemObject_not_a_mapping",
      B + "cl.clEnqueueUnmapMemObject(q, b, h)", -30),
    C("clEnqueueUnmapMemObject_twice",
      B + "m, e = cl.clEnqueueMapBuffer(q, b, cl.CL_TRUE, cl.CL_MAP_WRITE, 0, 64)\n"
      "cl.clEnqueueUnmapMemObject(q, b, m); cl.clEnqueueUnmapMemObject(q, b, m)", -30),
    C("clEnqueueUnmapMemObject_mapping_of_another_buffer",
      B + "m, e = cl.clEnqueueMapBuffer(q, b, cl.CL_TRUE, cl.CL_MAP_WRITE, 0, 64)\n"
      "cl.clEnqueueUnmapMemObject(q, buf(64), m)", -30),
    C("clEnqueueUnmapMemObject_none", B + "cl.clEnqueueUnmapMemObject(q, b, None)", -30),
    C("clEnqueueMapBuffer_view_outlives_release",
      B + "m, e = cl.clEnqueueMapBuffer(q, b, cl.CL_TRUE, cl.CL_MAP_WRITE, 0, 64)\n"
      "m[:] = 5; cl.clReleaseMemObject(b); import gc; gc.collect(); int(m.sum()); m[0] = 1", "ok"),
    C("clEnqueueMapBuffer_view_outlives_cudaDeviceReset",
      B + "m, e = cl.clEnqueueMapBuffer(q, b, cl.CL_TRUE, cl.CL_MAP_WRITE, 0, 64)\n"
      "m[:] = 5; cudaDeviceReset(); int(m.sum()); m[0] = 1", "ok"),
    C("clEnqueueMapBuffer_use_host_ptr_roundtrip",
      "a = np.arange(16, dtype=np.int32); b = cl.clCreateBuffer(ctx, cl.CL_MEM_USE_HOST_PTR, 64, "
      "a)\nm, e = cl.clEnqueueMapBuffer(q, b, cl.CL_TRUE, cl.CL_MAP_WRITE, 0, 64)\n"
      "m.view(np.int32)[:] = 9; cl.clEnqueueUnmapMemObject(q, b, m); h = np.zeros(16, np.int32)\n"
      "cl.clEnqueueReadBuffer(q, b, cl.CL_TRUE, 0, 64, h); assert (h == 9).all()", "ok"),
    # ---- image types and image commands (OpenCL 1.2 5.3.1, 5.3.6), an image given to a buffer call
    C('clCreateImage_2d_array_size_0',
      'cl.clCreateImage(ctx, 0, cl.cl_image_format(cl.CL_R, cl.CL_FLOAT), cl.cl_image_desc(cl.CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 4, 0, 0))', -40),
    C('clCreateImage_1d_buffer_without_buffer',
      'cl.clCreateImage(ctx, 0, cl.cl_image_format(cl.CL_R, cl.CL_FLOAT), cl.cl_image_desc(cl.CL_MEM_OBJECT_IMAGE1D_BUFFER, 16))', -65),
    C('clCreateImage_1d_buffer_too_small',
      'b = cl.clCreateBuffer(ctx, 0, 16); d = cl.cl_image_desc(cl.CL_MEM_OBJECT_IMAGE1D_BUFFER, 64); d.buffer = b; cl.clCreateImage(ctx, 0, cl.cl_image_format(cl.CL_R, cl.CL_FLOAT), d)', -40),
    C('clEnqueueReadBuffer_of_image',
      'im = cl.clCreateImage(ctx, 0, cl.cl_image_format(cl.CL_R, cl.CL_FLOAT), cl.cl_image_desc(cl.CL_MEM_OBJECT_IMAGE2D, 4, 4)); cl.clEnqueueReadBuffer(q, im, cl.CL_TRUE, 0, 16, np.zeros(4, np.float32))', -38),
    C('clEnqueueMapImage_bad_flags',
      'im = cl.clCreateImage(ctx, 0, cl.cl_image_format(cl.CL_R, cl.CL_FLOAT), cl.cl_image_desc(cl.CL_MEM_OBJECT_IMAGE2D, 4, 4)); cl.clEnqueueMapImage(q, im, cl.CL_TRUE, 1 << 7, (0, 0, 0), (1, 1, 1))', -30),
    C('clEnqueueMapImage_region_past_end',
      'im = cl.clCreateImage(ctx, 0, cl.cl_image_format(cl.CL_R, cl.CL_FLOAT), cl.cl_image_desc(cl.CL_MEM_OBJECT_IMAGE2D, 4, 4)); cl.clEnqueueMapImage(q, im, cl.CL_TRUE, cl.CL_MAP_READ, (2, 0, 0), (4, 1, 1))', -30),
]
