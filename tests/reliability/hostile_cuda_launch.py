"""Hostile launches: configurations past the device's limits, arguments that
do not fit their parameters, cudaLaunchKernel and the function attribute
calls (expectations: CUDA 13 on an H100, tests/data/ground_truth/
cuda_h100.json, section "launch_config": every configuration error is
cudaErrorInvalidValue there)."""
from hostile_cases import Case

C = Case
M = "m = SourceModule(VADD); d = cudaMalloc(64)\n"
E = "k = cuda_kernel('__global__ void k() {}')\n"
S = "k = cuda_kernel('__global__ void k() { extern __shared__ char s[]; s[0] = 1; }')\n"
T = ("k = cuda_kernel('__global__ void k(int i, unsigned char u, float f, double g, long long l,"
     " bool b, int *p) { if (p) *p = i + u + (int)f + (int)g + (int)l + b; }')\n")
TARGS = dict(i="1", u="2", f="3.0", g="4.0", l="5", b="True", p="None")


def typed(name, expect, **over):
    args = dict(TARGS, **over)
    return C(name, T + "k[1, 1](" + ", ".join(args.values()) + "); cudaDeviceSynchronize()",
             expect)


CASES = [
    C("launch_host_array_as_pointer",
      "m = SourceModule(VADD); x = np.zeros(4, np.float32)\nm.vadd[1, 4](x, x, x, 4)", 1),
    C("launch_device_pointer_outside_memory",
      "from pyemu.cuda.runtime import DevicePointer\n" + M +
      "m.vadd[1, 4](DevicePointer(0x1000), d, d, 4)", 1),
    C("launch_host_address_as_int_pointer",
      M + "x = np.zeros(4, np.float32); m.vadd[1, 4](x.__array_interface__['data'][0], d, d, 4)",
      1),
    C("launch_int_too_large", M + "m.vadd[1, 4](d, d, d, 2**31)", 1),
    C("launch_int_2_to_64", M + "m.vadd[1, 4](d, d, d, 2**64)", 1),
    C("launch_float_for_int", M + "m.vadd[1, 4](d, d, d, 4.0)", 1),
    C("launch_string_for_int", M + "m.vadd[1, 4](d, d, d, '4')", 1),
    C("launch_wrong_argument_count", M + "m.vadd[1, 4](d, d, d)", 1),
    C("launch_too_many_arguments", M + "m.vadd[1, 4](d, d, d, 4, 5)", 1),
    C("launch_list_for_pointer", M + "m.vadd[1, 4]([1, 2], d, d, 4)", 1),
    C("launch_numpy_scalars", M + "m.vadd[np.int64(1), np.int32(4)](d, d, d, np.int64(4))\n"
      "cudaDeviceSynchronize()", "ok"),
    typed("launch_typed_arguments_ok", "ok"),
    typed("launch_unsigned_char_negative", 1, u="-1"),
    typed("launch_unsigned_char_256", 1, u="256"),
    C("launch_float_1e39", T + "k[1, 1](1, 2, 1e39, 4.0, 5, True, None)", 1),
    typed("launch_float_nan", "ok", f="float('nan')"),
    typed("launch_double_numpy_float32", "ok", g="np.float32(2.5)"),
    typed("launch_long_long_2_to_63", 1, l="2**63"),
    typed("launch_long_long_numpy_int64_min", "ok", l="np.int64(-2**63)"),
    typed("launch_bool_numpy", "ok", b="np.bool_(False)"),
    typed("launch_complex_for_float", 1, f="1j"),
    typed("launch_string_for_bool", 1, b="'yes'"),
    typed("launch_bytes_for_int", 1, i="b'1234'"),
    C("launch_struct_wrong_size",
      "k = cuda_kernel('struct P { int a; double b; };\\n__global__ void k(P p) {}')\n"
      "k[1, 1](b'12345678'); cudaDeviceSynchronize()", 1),
    C("launch_struct_right_size",
      "k = cuda_kernel('struct P { int a; double b; };\\n__global__ void k(P p) {}')\n"
      "k[1, 1](bytes(16)); cudaDeviceSynchronize()", "ok"),
    # ---- configurations
    C("launch_grid_zero", M + "m.vadd[0, 4](d, d, d, 4)", 1),
    C("launch_grid_y_zero", E + "k[(1, 0), 1]()", 1),
    C("launch_grid_y_65536", E + "k[(1, 65536), 1]()", 1),
    C("launch_grid_z_65536", E + "k[(1, 1, 65536), 1]()", 1),
    C("launch_grid_x_2_to_31", E + "k[2**31, 1]()", 1),
    C("launch_grid_x_2_to_32_minus_1", E + "k[2**32 - 1, 1]()", 1),
    C("launch_grid_2_to_64", E + "k[2**64, 1]()", 1),
    C("launch_grid_negative", E + "k[-1, 1]()", 1),
    C("launch_grid_string", E + "k['x', 1]()", 1),
    C("launch_grid_none", E + "k[None, 1]()", 1),
    C("launch_grid_float", E + "k[2.0, 1]()", 1),
    C("launch_grid_four_dimensions", E + "k[(1, 1, 1, 1), 1]()", 1),
    C("launch_block_2048", M + "m.vadd[1, 2048](d, d, d, 4)", 1),
    C("launch_block_1025", E + "k[1, 1025]()", 1),
    C("launch_block_1024x2", E + "k[1, (1024, 2)]()", 1),
    C("launch_block_z_65", E + "k[1, (1, 1, 65)]()", 1),
    C("launch_block_zero", E + "k[1, 0]()", 1),
    C("launch_block_1024_ok", E + "k[1, 1024](); cudaDeviceSynchronize()", "ok"),
    C("launch_block_dim3_ok", E + "k[dim3(2, 2), dim3(8, 4, 2)](); cudaDeviceSynchronize()",
      "ok"),
    C("launch_list_configuration", M + "m.vadd[[1, 1], [4, 1]](d, d, d, 4); "
      "cudaDeviceSynchronize()", "ok"),
    C("launch_one_configuration_value", E + "k[1]()", 1),
    C("launch_negative_shared", M + "m.vadd[1, 4, -1](d, d, d, 4)", 1),
    C("launch_shared_48KiB_ok", S + "k[1, 1, 49152](); cudaDeviceSynchronize()", "ok"),
    C("launch_shared_48KiB_plus_1", S + "k[1, 1, 49153]()", 1),
    C("launch_shared_2_to_40", S + "k[1, 1, 2**40]()", 1),
    C("launch_shared_string", S + "k[1, 1, 'x']()", 1),
    C("launch_shared_after_attribute_100KiB",
      S + "cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 102400)\n"
      "k[1, 1, 102400](); cudaDeviceSynchronize(); k[1, 1, 102401]()", 1),
    C("launch_stream_not_a_stream", E + "k[1, 1, 0, 'x']()", 400),
    C("launch_stream_unknown_handle", E + "k[1, 1, 0, 12345]()", 400),
    C("launch_launch_bounds_exceeded",
      "k = cuda_kernel('__global__ void __launch_bounds__(128) k() {}')\nk[1, 256]()", 1),
    # ---- cudaLaunchKernel and attributes
    C("cudaLaunchKernel_null_function", "cudaLaunchKernel(None, 1, 1, ())", 98),
    C("cudaLaunchKernel_host_function", "cudaLaunchKernel(print, 1, 1, ())", 400),
    C("cudaLaunchKernel_args_not_a_sequence", M + "cudaLaunchKernel(m.vadd, 1, 4, 5)", 1),
    C("cudaLaunchKernel_ok", M + "cudaLaunchKernel(m.vadd, 1, 4, (d, d, d, 4)); "
      "cudaDeviceSynchronize()", "ok"),
    C("cudaFuncGetAttributes_host_function", "cudaFuncGetAttributes(print)", 400),
    C("cudaFuncSetAttribute_over_optin", E + "cudaFuncSetAttribute(k, "
      "cudaFuncAttributeMaxDynamicSharedMemorySize, 232449)", 1),
    C("cudaFuncSetAttribute_negative", E + "cudaFuncSetAttribute(k, "
      "cudaFuncAttributeMaxDynamicSharedMemorySize, -1)", 1),
    C("cudaFuncSetAttribute_unknown_attribute", E + "cudaFuncSetAttribute(k, 12345, 0)", 1),
    C("cudaFuncSetAttribute_string_value", E + "cudaFuncSetAttribute(k, "
      "cudaFuncAttributeMaxDynamicSharedMemorySize, 'x')", 1),
    C("get_function_missing", "SourceModule(VADD).get_function('nope')", 500),
    C("get_function_not_a_string", "SourceModule(VADD).get_function(5)", 1),
]
