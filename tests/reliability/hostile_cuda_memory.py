"""Hostile input for CUDA's memory calls: cudaMalloc, cudaMallocManaged,
cudaFree, cudaMemcpy, cudaMemset (expectations: CUDA 13 on an H100,
tests/data/ground_truth/cuda_h100.json, section "memory")."""
from hostile_cases import Case

C = Case
H = "h = np.arange(16, dtype=np.int32); d = cudaMalloc(64)\n"

CASES = [
    # ---- cudaMalloc
    C("cudaMalloc_2_to_64", "cudaMalloc(2**64)", 2),
    C("cudaMalloc_2_to_63", "cudaMalloc(2**63)", 2),
    C("cudaMalloc_1_shl_50", "cudaMalloc(1 << 50)", 2),
    C("cudaMalloc_negative", "cudaMalloc(-1)", 1),
    C("cudaMalloc_string", "cudaMalloc('x')", 1),
    C("cudaMalloc_none", "cudaMalloc(None)", 1),
    C("cudaMalloc_nan", "cudaMalloc(float('nan'))", 1),
    C("cudaMalloc_infinity", "cudaMalloc(float('inf'))", 1),
    C("cudaMalloc_float", "cudaMalloc(1.5)", "ok"),
    C("cudaMalloc_zero_is_null", "p = cudaMalloc(0); assert int(p) == 0; cudaFree(p)", "ok"),
    C("cudaMalloc_numpy_int64", "p = cudaMalloc(np.int64(64)); cudaFree(p)", "ok"),
    C("cudaMalloc_numpy_uint8", "p = cudaMalloc(np.uint8(200)); cudaFree(p)", "ok"),
    C("cudaMalloc_past_device_memory", "cudaMalloc(128 << 20)", 2,
      env=(("PYEMU_DEVICE_MEMORY", "67108864"),)),
    C("cudaMalloc_until_out_of_memory",
      "ps = []\nwhile True:\n    ps.append(cudaMalloc(1 << 20))", 2,
      env=(("PYEMU_DEVICE_MEMORY", "16777216"),)),
    C("cudaMalloc_after_out_of_memory_still_works",
      "try:\n    cudaMalloc(1 << 40)\nexcept CudaError:\n    pass\n"
      "assert cudaGetLastError() == cudaErrorMemoryAllocation\n"
      "p = cudaMalloc(64); cudaFree(p)", "ok"),
    # ---- cudaFree
    C("cudaFree_negative", "cudaFree(-1)", 1),
    C("cudaFree_2_to_65", "cudaFree(2**65)", 1),
    C("cudaFree_null", "cudaFree(0)", "ok"),
    C("cudaFree_not_an_allocation", "cudaFree(12345)", 1),
    C("cudaFree_twice", "p = cudaMalloc(64); cudaFree(p); cudaFree(p)", 1),
    C("cudaFree_inside_allocation", "p = cudaMalloc(64); cudaFree(p + 16)", 1),
    C("cudaFree_host_array", "cudaFree(np.zeros(4))", 1),
    C("cudaFree_string", "cudaFree('x')", 1),
    C("cudaFree_float", "p = cudaMalloc(64); cudaFree(float(p))", 1),
    C("cudaFree_numpy_uint64_pointer", "p = cudaMalloc(64); cudaFree(np.uint64(int(p)))", "ok"),
    C("cudaFree_after_cudaDeviceReset", "p = cudaMalloc(64); cudaDeviceReset(); cudaFree(p)", 1),
    C("cudaFree_host_address_of_numpy_data",
      "h = np.zeros(16); cudaFree(h.__array_interface__['data'][0])", 1),
    C("cudaFree_managed_twice",
      "m = cudaMallocManaged(64, dtype=np.int32); cudaFree(m); cudaFree(m)", 1),
    # ---- cudaMallocManaged
    C("cudaMallocManaged_string_flags", "cudaMallocManaged(64, 'x')", 1),
    C("cudaMallocManaged_none_flags", "cudaMallocManaged(64, None)", 1),
    C("cudaMallocManaged_unknown_flags", "cudaMallocManaged(64, 7)", 1),
    C("cudaMallocManaged_bool_flags", "cudaMallocManaged(64, True)", 1),
    C("cudaMallocManaged_negative", "cudaMallocManaged(-64)", 1),
    C("cudaMallocManaged_2_to_64", "cudaMallocManaged(2**64)", 2),
    C("cudaMallocManaged_size_not_whole_items", "cudaMallocManaged(6, dtype=np.int32)", 1),
    C("cudaMallocManaged_unknown_dtype", "cudaMallocManaged(64, dtype='no such type')", 1),
    C("cudaMallocManaged_zero", "m = cudaMallocManaged(0, dtype=np.int32); assert m.size == 0",
      "ok"),
    C("cudaMallocManaged_view_after_cudaFree_reads",
      "m = cudaMallocManaged(64, dtype=np.int32); m[:] = 7; cudaFree(m); int(m.sum())", "ok"),
    C("cudaMallocManaged_view_after_cudaDeviceReset_reads",
      "m = cudaMallocManaged(64, dtype=np.int32); m[:] = 7; cudaDeviceReset()\n"
      "assert int(m.sum()) in (0, 112); m[0] = 1", "ok"),
    # ---- cudaMemcpy
    C("cudaMemcpy_kind_7", H + "cudaMemcpy(d, h, 64, 7)", 21),
    C("cudaMemcpy_kind_negative", H + "cudaMemcpy(d, h, 64, -1)", 21),
    C("cudaMemcpy_kind_string", H + "cudaMemcpy(d, h, 64, 'x')", 21),
    C("cudaMemcpy_kind_none", H + "cudaMemcpy(d, h, 64, None)", 21),
    C("cudaMemcpy_kind_numpy", H + "cudaMemcpy(d, h, 64, np.int32(1))", "ok"),
    C("cudaMemcpy_count_negative", H + "cudaMemcpy(d, h, -4, cudaMemcpyHostToDevice)", 1),
    C("cudaMemcpy_count_2_to_64", H + "cudaMemcpy(d, h, 2**64, cudaMemcpyHostToDevice)", 1),
    C("cudaMemcpy_count_string", H + "cudaMemcpy(d, h, '64', cudaMemcpyHostToDevice)", 1),
    C("cudaMemcpy_count_zero_null_pointers", "cudaMemcpy(0, 0, 0, cudaMemcpyDeviceToDevice)",
      "ok"),
    C("cudaMemcpy_count_numpy", H + "cudaMemcpy(d, h, np.uint64(64), cudaMemcpyHostToDevice)",
      "ok"),
    C("cudaMemcpy_past_device_allocation", H + "cudaMemcpy(d, np.zeros(32, np.int32), 128, "
      "cudaMemcpyHostToDevice)", 1),
    C("cudaMemcpy_offset_pointer_past_end", H + "cudaMemcpy(d + 60, h, 8, "
      "cudaMemcpyHostToDevice)", 1),
    C("cudaMemcpy_pointer_in_guard_gap", H + "cudaMemcpy(d + 4096, h, 4, "
      "cudaMemcpyHostToDevice)", 1),
    C("cudaMemcpy_host_source_too_small", H + "cudaMemcpy(d, h[:4], 64, "
      "cudaMemcpyHostToDevice)", 1),
    C("cudaMemcpy_host_destination_too_small", H + "cudaMemcpy(np.zeros(4, np.int32), d, 64, "
      "cudaMemcpyDeviceToHost)", 1),
    C("cudaMemcpy_read_only_destination", H + "r = np.zeros(16, np.int32); "
      "r.flags.writeable = False\ncudaMemcpy(r, d, 64, cudaMemcpyDeviceToHost)", 1),
    C("cudaMemcpy_bytes_destination", H + "cudaMemcpy(bytes(64), d, 64, cudaMemcpyDeviceToHost)",
      1),
    C("cudaMemcpy_non_contiguous_destination", H + "r = np.zeros(32, np.int32)[::2]\n"
      "cudaMemcpy(r, d, 64, cudaMemcpyDeviceToHost)", 1),
    C("cudaMemcpy_list_source", H + "cudaMemcpy(d, [1, 2, 3], 12, cudaMemcpyHostToDevice)", 1),
    C("cudaMemcpy_string_source", H + "cudaMemcpy(d, 'abcd', 4, cudaMemcpyHostToDevice)", 1),
    C("cudaMemcpy_freed_destination", H + "cudaFree(d); cudaMemcpy(d, h, 64, "
      "cudaMemcpyHostToDevice)", 1),
    C("cudaMemcpy_h2d_fully_reversed", H + "cudaMemcpy(h, d, 64, cudaMemcpyHostToDevice)", 1),
    C("cudaMemcpy_d2h_fully_reversed", H + "cudaMemcpy(d, h, 64, cudaMemcpyDeviceToHost)", 1),
    C("cudaMemcpy_d2d_with_host_arrays", H + "cudaMemcpy(h, np.zeros(16, np.int32), 64, "
      "cudaMemcpyDeviceToDevice)", 1),
    C("cudaMemcpy_h2d_source_is_device_memory",
      H + "e = cudaMalloc(64); cudaMemcpy(e, h, 64, cudaMemcpyHostToDevice)\n"
      "cudaMemcpy(d, e, 64, cudaMemcpyHostToDevice); o = np.zeros(16, np.int32)\n"
      "cudaMemcpy(o, d, 64, cudaMemcpyDeviceToHost); assert (o == h).all()", "ok"),
    C("cudaMemcpy_default_roundtrip",
      H + "cudaMemcpy(d, h, 64, cudaMemcpyDefault); o = np.zeros(16, np.int32)\n"
      "cudaMemcpy(o, d, 64, cudaMemcpyDefault); assert (o == h).all()", "ok"),
    C("cudaMemcpy_host_to_host", "a = np.arange(8.0); b = np.zeros(8)\n"
      "cudaMemcpy(b, a, 64, cudaMemcpyHostToHost); assert (a == b).all()", "ok"),
    C("cudaMemcpy_d2d_overlapping_same_allocation",
      H + "cudaMemcpy(d, h, 64, cudaMemcpyHostToDevice)\n"
      "cudaMemcpy(d + 4, d, 32, cudaMemcpyDeviceToDevice)  # undefined data, as in CUDA\n"
      "o = np.zeros(16, np.int32); cudaMemcpy(o, d, 64, cudaMemcpyDeviceToHost)\n"
      "assert (o[9:] == h[9:]).all()", "ok"),
    C("cudaMemcpy_huge_host_count_into_small_array", H + "cudaMemcpy(np.zeros(1, np.int8), d, "
      "2**40, cudaMemcpyDeviceToHost)", 1),
    # ---- cudaMemset
    C("cudaMemset_null", "cudaMemset(0, 0, 4)", 1),
    C("cudaMemset_null_count_zero", "cudaMemset(0, 0, 0)", "ok"),
    C("cudaMemset_host_array", "cudaMemset(np.zeros(4, np.int32), 0, 16)", 1),
    C("cudaMemset_past_end", "d = cudaMalloc(64); cudaMemset(d, 0, 65)", 1),
    C("cudaMemset_freed", "d = cudaMalloc(64); cudaFree(d); cudaMemset(d, 0, 64)", 1),
    C("cudaMemset_count_negative", "d = cudaMalloc(64); cudaMemset(d, 0, -1)", 1),
    C("cudaMemset_value_string", "d = cudaMalloc(64); cudaMemset(d, 'x', 64)", 1),
    C("cudaMemset_value_truncates_to_a_byte",
      "d = cudaMalloc(64); cudaMemset(d, -1, 64); cudaMemset(d + 8, 0x1234, 8)\n"
      "o = np.zeros(64, np.uint8); cudaMemcpy(o, d, 64, cudaMemcpyDeviceToHost)\n"
      "assert o[0] == 255 and o[8] == 0x34", "ok"),
    C("cudaMemset_count_2_to_64", "d = cudaMalloc(64); cudaMemset(d, 0, 2**64)", 1),
]
