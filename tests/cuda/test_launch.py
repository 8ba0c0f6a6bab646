"""Kernel launches: every launch form, grid/block spellings, argument conversion
by declared type, launch configurations (codes as an H100 answered them,
fixture `gt`), asynchrony, dynamic shared memory, device printf, templates.
"""
import ctypes
import time

import numpy as np
import pytest

from pyemu.cuda import (CudaError, KernelArgumentError, SourceModule, cudaDeviceSynchronize,
                        cudaErrorInvalidDeviceFunction, cudaErrorInvalidResourceHandle,
                        cudaErrorInvalidValue, cudaErrorSymbolNotFound, cudaFree,
                        cudaFuncAttributeMaxDynamicSharedMemorySize, cudaFuncSetAttribute,
                        cudaGetLastError, cudaLaunchKernel, cudaMalloc, cudaMallocManaged,
                        cudaMemcpy, cudaMemcpyDeviceToHost, cudaMemset, cudaPeekAtLastError,
                        cudaMemcpyHostToDevice, cudaSuccess, dim3)
from pyemu.cuda.runtime import DevicePointer

SOURCE = r"""
struct Pair { int a; double b; char c; };          // 24 bytes, 8-aligned

__global__ void k_flag(int *flag) { flag[0] = 1; }

__global__ void dims(unsigned *o) {
    if (threadIdx.x + threadIdx.y + threadIdx.z + blockIdx.x + blockIdx.y + blockIdx.z == 0) {
        o[0] = gridDim.x; o[1] = gridDim.y; o[2] = gridDim.z;
        o[3] = blockDim.x; o[4] = blockDim.y; o[5] = blockDim.z;
    }
    atomicAdd(&o[6], 1u);
}

__global__ void scalars(long long *o, int i, unsigned u, size_t s, long long ll, float f,
                        double d, char c, bool b, unsigned char uc, short sh) {
    o[0] = i; o[1] = u; o[2] = (long long)s; o[3] = ll;
    o[4] = (long long)(f * 1000.0f); o[5] = (long long)(d * 1000.0);
    o[6] = c; o[7] = (int)b; o[8] = b == true; o[9] = uc; o[10] = sh;
}

__global__ void by_value(double *o, Pair p) { o[0] = p.a; o[1] = p.b; o[2] = p.c; }

__global__ void is_null(int *o, const int *p) { o[0] = p == nullptr; }

__global__ void store(int *a, int v) { a[0] = v; }

__global__ void add_one(int *a) { a[0] += 1; }

extern "C" __global__ void reverse_shared(int *o, int n) {
    extern __shared__ int s[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = 3 * i + 1;
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) o[i] = s[n - 1 - i];
}

__global__ void fill_shared_bytes(unsigned *bad, int nbytes) {
    extern __shared__ unsigned char bytes[];
    for (int i = threadIdx.x; i < nbytes; i += blockDim.x) bytes[i] = (unsigned char)(i * 7);
    __syncthreads();
    for (int i = threadIdx.x; i < nbytes; i += blockDim.x)
        if (bytes[i] != (unsigned char)(i * 7)) atomicAdd(bad, 1u);
}

// Waits for the host to open the gate (bounded), then stays busy `ms` more.
__global__ void gated(int *gate, int *state, int ms) {
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    state[0] = 1;                                        // started
    while (((volatile int *)gate)[0] == 0) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 20) { state[1] = -1; return; }      // nobody opened it
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec) < ms * 1000000LL);
    state[1] = 1;                                        // done
}

__global__ void k_print(int tag) {
    printf("kernel launch %d: block %d thread %d\n", tag, (int)blockIdx.x, (int)threadIdx.x);
}

__global__ void k_print_formats() {
  printf("fmt: d=%d u=%u x=%x X=%X o=%o ld=%ld lld=%lld llu=%llu\n", -42, 42u, 255u, 255u, 8u,
         -1234567890123L, -1234567890123LL, 18446744073709551615ULL);
  printf("fmt: f=%f e=%e g=%g .3f=%.3f 8.2f=[%8.2f] -8.2f=[%-8.2f] a=%a\n", 3.14159265358979,
         12345.678, 0.0001234, 2.0 / 3.0, 3.14159, 3.14159, 1.0);
  printf("fmt: inf=%f nan=%f negzero=%f float_arg=%f\n", 1.0 / 0.0, 0.0 / 0.0, -0.0, 1.5f);
  printf("fmt: s=%s c=%c pct=%% 5d=[%5d] -5d=[%-5d] 05d=[%05d] +d=%+d\n", "str", 'Z', 42, 42, 42, 42);
  printf("fmt: p=%p null_p=%p\n", (void*)0x1234, (void*)0);
  printf("fmt: no newline at end");
  printf("|next printf\n");
}

__global__ void __launch_bounds__(128) k_lb128(int *flag) { flag[0] = 1; }

template <int N> __global__ void tk(int *o) { o[threadIdx.x] = N; }
template <typename T> __global__ void twice(T *o, T v) { o[0] = v + v; }
"""
NAMES = ["tk<3>", "tk<5>", "twice<float>", "twice<long long>"]


pytestmark = pytest.mark.usefixtures("cuda_clean_state")


@pytest.fixture(scope="module")
def mod():
    return SourceModule(SOURCE, name_expressions=NAMES)


@pytest.fixture
def managed():
    made = []

    def make(n, dtype=np.int32):
        m = cudaMallocManaged(n * np.dtype(dtype).itemsize, dtype=dtype)
        m[:] = 0
        made.append(m)
        return m

    yield make
    cudaDeviceSynchronize()
    for m in made:
        cudaFree(m)


def raises_code(code, fn, *args, **kwargs):
    with pytest.raises(CudaError) as info:
        fn(*args, **kwargs)
    assert int(info.value.code) == int(code), str(info.value)
    return info.value


# ------------------------------------------------------------------ launch forms

def run_dims(launch, o):
    o[:] = 0
    assert launch() == cudaSuccess
    cudaDeviceSynchronize()
    return o[:6].tolist(), int(o[6])


def test_launch_kernel_grid_block(mod, managed):
    o = managed(8, np.uint32)
    assert run_dims(lambda: mod.dims[(2, 3), (4, 2)](o), o) == ([2, 3, 1, 4, 2, 1], 48)


def test_launch_kernel_grid_block_shared(mod, managed):
    o = managed(64)
    mod.reverse_shared[1, 8, 64 * 4](o, 64)
    cudaDeviceSynchronize()
    assert o.tolist() == [3 * (63 - i) + 1 for i in range(64)]


@pytest.mark.parametrize("stream", [0, None], ids=["stream0", "streamNone"])
def test_launch_kernel_grid_block_shared_stream(mod, managed, stream):
    o = managed(8, np.uint32)
    assert run_dims(lambda: mod.dims[3, 5, 0, stream](o), o) == ([3, 1, 1, 5, 1, 1], 15)


def test_launch_kernel_bad_stream_invalid_resource_handle(mod, managed):
    o = managed(8, np.uint32)
    raises_code(cudaErrorInvalidResourceHandle, mod.dims[1, 1, 0, "not a stream"], o)


def test_cudaLaunchKernel_all_arguments(mod, managed):
    o = managed(8, np.uint32)
    assert run_dims(lambda: cudaLaunchKernel(mod.dims, dim3(2, 2, 2), (2, 2), (o,), 0, 0), o) == \
        ([2, 2, 2, 2, 2, 1], 32)


def test_cudaLaunchKernel_shared_memory(mod, managed):
    o = managed(100)
    cudaLaunchKernel(mod.reverse_shared, 1, 32, [o, 100], 400, 0)
    cudaDeviceSynchronize()
    assert o[0] == 3 * 99 + 1 and o[99] == 1


def test_cudaLaunchKernel_defaults(mod, managed):
    flag = managed(1)
    assert cudaLaunchKernel(mod.k_flag, 1, 1, (flag,)) == cudaSuccess
    cudaDeviceSynchronize()
    assert flag[0] == 1


def test_cudaLaunchKernel_not_a_kernel_invalid_device_function(gt):
    expected = gt("launch_config", "cudaLaunchKernel_null_func", "return.code",
                  default=cudaErrorInvalidDeviceFunction)
    raises_code(expected, cudaLaunchKernel, None, 1, 1, ())
    assert cudaGetLastError() == gt("launch_config", "cudaLaunchKernel_null_func",
                                    "get_last_error.code", default=expected)


def test_launch_pycuda_call_form(mod, managed):
    o = managed(8, np.uint32)
    assert run_dims(lambda: mod.dims(o, grid=(2, 1), block=(3, 1, 1)), o) == \
        ([2, 1, 1, 3, 1, 1], 6)


@pytest.mark.parametrize("config", [(1,), (1, 2, 3, 4, 5), 1], ids=["one", "five", "int"])
def test_launch_subscript_needs_grid_and_block(mod, config):
    with pytest.raises(CudaError) as info:
        mod.k_flag[config]
    assert info.value.code == cudaErrorInvalidValue and "kernel[grid, block]" in str(info.value)
    cudaGetLastError()


@pytest.mark.parametrize("grid,block,want", [
    (3, 4, ([3, 1, 1, 4, 1, 1], 12)),
    ((3,), (4,), ([3, 1, 1, 4, 1, 1], 12)),
    ((3, 2), (4, 2), ([3, 2, 1, 4, 2, 1], 48)),
    ((1, 2, 3), (2, 3, 4), ([1, 2, 3, 2, 3, 4], 144)),
    ([2, 2], [2, 2, 2], ([2, 2, 1, 2, 2, 2], 32)),
    (dim3(2), dim3(3, 2), ([2, 1, 1, 3, 2, 1], 12)),
    (dim3(1, 2, 2), dim3(2, 1, 2), ([1, 2, 2, 2, 1, 2], 16)),
    (np.int32(2), np.uint64(5), ([2, 1, 1, 5, 1, 1], 10)),
], ids=["int", "tuple1", "tuple2", "tuple3", "list", "dim3_partial", "dim3_full", "numpy_int"])
def test_launch_grid_and_block_spellings(mod, managed, grid, block, want):
    o = managed(8, np.uint32)
    assert run_dims(lambda: mod.dims[grid, block](o), o) == want


def test_dim3_defaults_and_equality():
    assert tuple(dim3()) == (1, 1, 1) and tuple(dim3(4)) == (4, 1, 1)
    assert dim3(2, 3) == (2, 3, 1) and dim3(2, 3, 1) == dim3(2, 3)
    assert repr(dim3(1, 2, 3)) == "dim3(1, 2, 3)"


@pytest.mark.parametrize("grid", [1.5, "2", (1, 1, 1, 1), -1, 2 ** 32])
def test_launch_unusable_grid_invalid_value(mod, managed, grid):
    flag = managed(1)
    with pytest.raises(CudaError) as info:
        mod.k_flag[grid, 1](flag)
    assert info.value.code in (cudaErrorInvalidValue, 9)   # 9: cudaErrorInvalidConfiguration
    assert cudaGetLastError() == info.value.code
    cudaDeviceSynchronize()
    assert flag[0] == 0


# ------------------------------------------------------------------ arguments

def scalars(mod, managed, **over):
    args = dict(i=-5, u=2 ** 32 - 1, s=2 ** 40, ll=-2 ** 40, f=1.25, d=2.5, c=65, b=True, uc=255,
                sh=-32768)
    args.update(over)
    o = managed(11, np.int64)
    mod.scalars[1, 1](o, *args.values())
    cudaDeviceSynchronize()
    return o.tolist()


def test_launch_scalar_arguments_by_declared_type(mod, managed):
    assert scalars(mod, managed) == [-5, 2 ** 32 - 1, 2 ** 40, -2 ** 40, 1250, 2500, 65, 1, 1, 255,
                                     -32768]


def test_launch_numpy_scalar_arguments(mod, managed):
    got = scalars(mod, managed, i=np.int32(-7), u=np.uint32(7), s=np.uint64(9), ll=np.int64(-9),
                  f=np.float32(0.5), d=np.float64(0.25), c=np.int8(-3), uc=np.uint8(200),
                  sh=np.int16(300))
    assert got == [-7, 7, 9, -9, 500, 250, -3, 1, 1, 200, 300]


def test_launch_float_parameters_take_ints(mod, managed):
    assert scalars(mod, managed, f=3, d=-2)[4:6] == [3000, -2000]


@pytest.mark.parametrize("value", [False, 0])
def test_launch_bool_false(mod, managed, value):
    assert scalars(mod, managed, b=value)[7:9] == [0, 0]


@pytest.mark.parametrize("value", [True, 1, 2, np.bool_(True)], ids=["True", "1", "2", "np_True"])
def test_launch_bool_parameter_is_exactly_true(mod, managed, value):
    """C++ converts any non-zero value to true; the kernel must never see a bool
    whose byte is neither 0 nor 1."""
    assert scalars(mod, managed, b=value)[7:9] == [1, 1]


@pytest.mark.parametrize("name,value", [
    ("i", 2 ** 31), ("i", -2 ** 31 - 1), ("u", -1), ("u", 2 ** 32), ("s", -1), ("s", 2 ** 64),
    ("ll", 2 ** 63), ("c", 128), ("uc", 256), ("uc", -1), ("sh", 32768),
])
def test_launch_integer_that_does_not_fit_raises(mod, managed, name, value):
    with pytest.raises(KernelArgumentError) as info:
        scalars(mod, managed, **{name: value})
    e = info.value
    assert e.code == cudaErrorInvalidValue and isinstance(e, ValueError)
    assert "scalars" in str(e) and str(value) in str(e)
    assert cudaGetLastError() == cudaErrorInvalidValue


@pytest.mark.parametrize("value", [1.0, 1.5, np.float32(2.0), np.float64(-1.0)])
def test_launch_float_for_int_raises(mod, managed, value):
    with pytest.raises(KernelArgumentError) as info:
        scalars(mod, managed, i=value)
    assert "argument 2 of scalars (int)" in str(info.value)
    assert isinstance(info.value, TypeError)


@pytest.mark.parametrize("name,value", [("i", "3"), ("f", "1.0"), ("d", None), ("i", None)])
def test_launch_non_number_for_scalar_raises(mod, managed, name, value):
    with pytest.raises(KernelArgumentError):
        scalars(mod, managed, **{name: value})


def test_launch_nothing_runs_when_an_argument_is_bad(mod, managed):
    flag = managed(1)
    with pytest.raises(KernelArgumentError):
        mod.store[1, 1](flag, 1.5)
    cudaDeviceSynchronize()
    assert flag[0] == 0


class CPair(ctypes.Structure):
    _fields_ = [("a", ctypes.c_int), ("b", ctypes.c_double), ("c", ctypes.c_char)]


PAIR_DTYPE = np.dtype([("a", "<i4"), ("b", "<f8"), ("c", "i1")], align=True)


@pytest.mark.parametrize("make", [
    lambda: CPair(7, 2.5, b"x"),
    lambda: np.array((7, 2.5, ord("x")), dtype=PAIR_DTYPE)[()],
    lambda: np.array((7, 2.5, ord("x")), dtype=PAIR_DTYPE),
    lambda: bytes(CPair(7, 2.5, b"x")),
], ids=["ctypes_Structure", "numpy_structured_scalar", "numpy_0d_array", "bytes"])
def test_launch_struct_by_value(mod, managed, make):
    o = managed(3, np.float64)
    mod.by_value[1, 1](o, make())
    cudaDeviceSynchronize()
    assert o.tolist() == [7.0, 2.5, float(ord("x"))]


@pytest.mark.parametrize("value", [b"\0" * 23, b"\0" * 25, 7, 2.5])
def test_launch_struct_of_wrong_size_or_kind_raises(mod, managed, value):
    o = managed(3, np.float64)
    with pytest.raises(KernelArgumentError) as info:
        mod.by_value[1, 1](o, value)
    assert "argument 2 of by_value" in str(info.value) and "24 bytes" in str(info.value)


def test_launch_pointer_offset_is_in_bytes(mod):
    d = cudaMalloc(64)
    try:
        cudaMemset(d, 0, 64)
        mod.store[1, 1](d + 16, 99)
        out = np.zeros(16, np.int32)
        cudaMemcpy(out, d, 64, cudaMemcpyDeviceToHost)
        assert out[4] == 99 and out.sum() == 99
    finally:
        cudaFree(d)


def test_launch_none_is_a_null_pointer(mod, managed):
    o = managed(1)
    mod.is_null[1, 1](o, None)
    cudaDeviceSynchronize()
    assert o[0] == 1
    mod.is_null[1, 1](o, o)
    cudaDeviceSynchronize()
    assert o[0] == 0


def test_launch_host_array_for_pointer_raises_naming_argument_and_kernel(mod, managed):
    with pytest.raises(KernelArgumentError) as info:
        mod.is_null[1, 1](managed(1), np.zeros(4, np.int32))
    text = str(info.value)
    assert "argument 2 of is_null (const int*)" in text
    assert "host memory" in text and "cudaMemcpy" in text
    assert info.value.code == cudaErrorInvalidValue
    assert cudaGetLastError() == cudaErrorInvalidValue


@pytest.mark.parametrize("value", [12345, 1.5, "0x10", b"abcd"], ids=["int", "float", "str", "bytes"])
def test_launch_non_device_value_for_pointer_raises(mod, managed, value):
    with pytest.raises(KernelArgumentError) as info:
        mod.is_null[1, 1](managed(1), value)
    assert "argument 2 of is_null" in str(info.value)


@pytest.mark.parametrize("args", [(), (1, 2)], ids=["too_few", "too_many"])
def test_launch_wrong_argument_count_raises(mod, managed, args):
    flag = managed(1)
    with pytest.raises(KernelArgumentError) as info:
        mod.store[1, 1](flag, *args) if args else mod.store[1, 1](flag)
    assert "store takes 2 argument(s) (int*, int)" in str(info.value)
    assert info.value.code == cudaErrorInvalidValue
    with pytest.raises(KernelArgumentError):
        cudaLaunchKernel(mod.store, 1, 1, (flag,))


# ------------------------------------------------------------------ configurations

def launch_case(gt, mod, managed, case, smem=None, kernel=None):
    """Launch like the probe did (<<<>>> then cudaLaunchKernel) and compare every read."""
    rec = gt("launch_config", case, "")
    g, b = tuple(rec["grid"]), tuple(rec["block"])
    smem = rec["dyn_smem"] if smem is None else smem
    k = kernel or mod.k_flag
    flag = managed(1)

    code = 0
    try:
        k[g, b, smem](flag)
    except CudaError as e:
        code = int(e.code)
    chevron = {"peek_right_after_launch": int(cudaPeekAtLastError()),
               "get_last_error": int(cudaGetLastError()),
               "peek_after_get": int(cudaPeekAtLastError()),
               "device_synchronize": int(cudaDeviceSynchronize()),
               "get_last_error_after_sync": int(cudaGetLastError()),
               "kernel_ran": bool(flag[0] == 1)}
    assert code == chevron["peek_right_after_launch"]
    want = {key: (v["code"] if isinstance(v, dict) else v) for key, v in rec["chevron"].items()}
    assert chevron == want, "<<<>>>"

    flag[0] = 0
    try:
        ret = int(cudaLaunchKernel(k, dim3(*g), dim3(*b), (flag,), smem, 0))
    except CudaError as e:
        ret = int(e.code)
    via_api = {"return": ret, "get_last_error": int(cudaGetLastError()),
               "device_synchronize": int(cudaDeviceSynchronize()),
               "kernel_ran": bool(flag[0] == 1)}
    want = {key: (v["code"] if isinstance(v, dict) else v)
            for key, v in rec["cudaLaunchKernel"].items()}
    assert via_api == want, "cudaLaunchKernel"
    return chevron


def test_launch_1024_threads_ok(gt, mod, managed):
    assert launch_case(gt, mod, managed, "block_1024_ok")["kernel_ran"]


def test_launch_1025_threads_invalid_value(gt, mod, managed):
    assert launch_case(gt, mod, managed, "block_1025")["get_last_error"] == cudaErrorInvalidValue


def test_launch_block_1024x2x1_invalid_value(gt, mod, managed):
    launch_case(gt, mod, managed, "block_1024x2x1")


def test_launch_block_z_64_ok(gt, mod, managed):
    launch_case(gt, mod, managed, "block_1x1x64_ok")


def test_launch_block_z_65_invalid_value(gt, mod, managed):
    launch_case(gt, mod, managed, "block_1x1x65")


def test_launch_block_y_1025_invalid_value(gt, mod, managed):
    launch_case(gt, mod, managed, "block_1x1025x1")


@pytest.mark.parametrize("case", ["block_0x1x1", "grid_0x1x1", "grid_1x0x1"])
def test_launch_zero_dimension_invalid_value(gt, mod, managed, case):
    launch_case(gt, mod, managed, case)


def test_launch_grid_y_65535_ok(gt, mod, managed):
    launch_case(gt, mod, managed, "grid_1x65535x1_ok")


@pytest.mark.parametrize("case", ["grid_1x65536x1", "grid_1x1x65536", "grid_2^31x1x1",
                                  "grid_0xffffffff_x1x1"])
def test_launch_grid_over_the_limit_invalid_value(gt, mod, managed, case):
    launch_case(gt, mod, managed, case)


def test_launch_invalid_configuration_message_names_kernel_and_config(mod, managed):
    with pytest.raises(CudaError) as info:
        mod.k_flag[1, 1025](managed(1))
    assert "k_flag" in str(info.value) and "1025" in str(info.value)


def test_launch_dynamic_shared_48KiB_ok(gt, mod, managed):
    launch_case(gt, mod, managed, "dyn_smem_48KiB_ok")


@pytest.mark.parametrize("case", ["dyn_smem_48KiB+1_no_optin", "dyn_smem_228KiB+1_no_attr"])
def test_launch_dynamic_shared_over_the_limit_invalid_value(gt, mod, managed, case):
    launch_case(gt, mod, managed, case)


def test_launch_dynamic_shared_raised_by_cudaFuncSetAttribute(gt, managed):
    """The probe's sequence on one kernel: a failed raise changes nothing; the
    opt-in maximum then allows exactly that much; 100 KiB allows exactly 100 KiB."""
    fresh = SourceModule(SOURCE, name_expressions=NAMES)
    k = fresh.k_flag
    with pytest.raises(CudaError):
        cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 233473)
    cudaGetLastError()
    launch_case(gt, fresh, managed, "dyn_smem_228KiB+1_after_failed_set_attr")
    optin = gt("launch_config", "set_attr_optin_max", "value", default=232448)
    cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, optin)
    for case in ["dyn_smem_optin_max_with_attr", "dyn_smem_optin_max+1_with_attr",
                 "dyn_smem_228KiB+1_with_attr_at_optin", "dyn_smem_64KiB_with_attr"]:
        launch_case(gt, fresh, managed, case)
    assert cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024) == \
        gt("launch_config", "set_attr_100KiB", "return.code", default=0)
    launch_case(gt, fresh, managed, "dyn_smem_100KiB_with_attr_100KiB")
    launch_case(gt, fresh, managed, "dyn_smem_100KiB+1_with_attr_100KiB", smem=100 * 1024 + 1)


def test_launch_optin_dynamic_shared_memory_is_all_usable(managed):
    k = SourceModule(SOURCE, name_expressions=NAMES).fill_shared_bytes
    cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448)
    bad = managed(1, np.uint32)
    k[2, 256, 232448](bad, 232448)
    cudaDeviceSynchronize()
    assert bad[0] == 0


def test_launch_more_threads_than_launch_bounds_invalid_value(gt, mod, managed):
    flag = managed(1)
    try:
        mod.k_lb128[1, 256](flag)
    except CudaError:
        pass
    assert cudaGetLastError() == gt("launch_config", "launch_bounds_128_with_256",
                                    "get_last_error.code", default=cudaErrorInvalidValue)
    cudaDeviceSynchronize()
    assert bool(flag[0]) is gt("launch_config", "launch_bounds_128_with_256", "kernel_ran",
                               default=False)


# ------------------------------------------------------------------ asynchrony

def test_launch_returns_before_the_kernel_finishes(mod, managed):
    """The kernel waits for a gate only the host opens after the launch returned:
    a synchronous launch would leave it to time out (state[1] == -1)."""
    gate, state = managed(1), managed(2)
    mod.gated[1, 1](gate, state, 0)
    assert state[1] == 0                       # not done: it cannot be, the gate is shut
    gate[0] = 1
    cudaDeviceSynchronize()
    assert state.tolist() == [1, 1]


def test_cudaDeviceSynchronize_waits_for_the_kernel(mod, managed):
    gate, state = managed(1), managed(2)
    gate[0] = 1
    t0 = time.monotonic()
    mod.gated[1, 1](gate, state, 200)
    cudaDeviceSynchronize()
    assert state[1] == 1                       # done as soon as the synchronize returns
    assert time.monotonic() - t0 >= 0.2


def test_launches_run_in_order_on_the_default_stream(mod):
    d = cudaMalloc(4)
    try:
        cudaMemset(d, 0, 4)
        for _ in range(200):
            mod.add_one[1, 1](d)
        out = np.zeros(1, np.int32)
        cudaMemcpy(out, d, 4, cudaMemcpyDeviceToHost)
        assert out[0] == 200
    finally:
        cudaFree(d)


# ------------------------------------------------------------------ extern __shared__

@pytest.mark.parametrize("n,threads", [(1, 1), (100, 32), (3000, 256), (12288, 1024)])
def test_launch_extern_shared_sized_by_the_launch(mod, managed, n, threads):
    o = managed(n)
    mod.reverse_shared[1, threads, 4 * n](o, n)
    cudaDeviceSynchronize()
    assert np.array_equal(o, 3 * (n - 1 - np.arange(n)) + 1)


def test_launch_extern_shared_is_per_block(mod, managed):
    n = 512
    outs = [managed(n) for _ in range(4)]
    for o in outs:
        mod.reverse_shared[1, 64, 4 * n](o, n)
    cudaDeviceSynchronize()
    for o in outs:
        assert np.array_equal(o, 3 * (n - 1 - np.arange(n)) + 1)


# ------------------------------------------------------------------ device printf

def test_printf_appears_at_the_next_sync_in_launch_order(gt, mod, capsys):
    print("host: before launches")
    mod.k_print[1, 1](1)
    mod.k_print[1, 1](2)
    print("host: after two launches, before sync")
    cudaDeviceSynchronize()
    print("host: after sync")
    mod.k_print[2, 3](3)
    cudaDeviceSynchronize()
    print("host: after launch 3 (2 blocks x 3 threads) and sync")
    lines = capsys.readouterr().out.splitlines()

    doc = gt.doc
    want = None
    if doc is not None:
        sec = next(s for s in doc["sections"] if s["section"] == "printf")
        want = sec["stdout"].splitlines()[:len(lines)]
    else:
        want = ["host: before launches", "host: after two launches, before sync",
                "kernel launch 1: block 0 thread 0", "kernel launch 2: block 0 thread 0",
                "host: after sync"] + [f"kernel launch 3: block {b} thread {t}"
                                       for b in range(2) for t in range(3)] + [
                "host: after launch 3 (2 blocks x 3 threads) and sync"]
    assert lines[:5] == want[:5]
    # blocks of one launch may print in either order (they run on several workers);
    # the threads of a block print in order, and the launch's lines come together
    assert sorted(lines[5:11]) == sorted(want[5:11])
    for b in range(2):
        mine = [ln for ln in lines[5:11] if f"block {b} " in ln]
        assert mine == [f"kernel launch 3: block {b} thread {t}" for t in range(3)]
    assert lines[11:] == want[11:]


def test_printf_formats_as_on_the_H100(gt, mod, capsys):
    mod.k_print_formats[1, 1]()
    cudaDeviceSynchronize()
    out = capsys.readouterr().out.splitlines()
    doc = gt.doc
    if doc is None:
        pytest.skip("no ground truth")
    sec = next(s for s in doc["sections"] if s["section"] == "printf")
    want = [ln for ln in sec["stdout"].splitlines() if ln.startswith("fmt:")]
    assert out == want


def test_printf_is_flushed_by_cudaMemcpy(mod, capsys):
    d = cudaMalloc(4)
    try:
        mod.k_print[1, 1](7)
        cudaMemcpy(np.zeros(1, np.int32), d, 4, cudaMemcpyDeviceToHost)
        assert capsys.readouterr().out == "kernel launch 7: block 0 thread 0\n"
    finally:
        cudaFree(d)


def test_printf_not_shown_before_a_sync(mod, managed, capsys):
    gate, state = managed(1), managed(2)
    mod.k_print[1, 1](8)
    mod.gated[1, 1](gate, state, 0)            # holds the device until the gate opens
    assert "kernel launch 8" not in capsys.readouterr().out
    gate[0] = 1
    cudaDeviceSynchronize()
    assert capsys.readouterr().out == "kernel launch 8: block 0 thread 0\n"


# ------------------------------------------------------------------ templates

def test_template_kernels_by_name_expressions(mod, managed):
    o = managed(4)
    mod.get_function("tk<3>")[1, 2](o)
    mod.get_function("tk<5>")[1, 2](o[2:])
    cudaDeviceSynchronize()
    assert o.tolist() == [3, 3, 5, 5]


def test_template_kernel_with_type_parameter(mod, managed):
    f = managed(1, np.float32)
    ll = managed(1, np.int64)
    mod.get_function("twice<float>")[1, 1](f, 1.25)
    mod.get_function("twice<long long>")[1, 1](ll, 2 ** 40)
    cudaDeviceSynchronize()
    assert f[0] == 2.5 and ll[0] == 2 ** 41
    with pytest.raises(KernelArgumentError):
        mod.get_function("twice<long long>")[1, 1](ll, 0.5)


def test_template_kernel_names_are_listed(mod):
    assert set(NAMES) <= set(mod.kernel_names)


def test_template_base_name_is_ambiguous_with_two_instances(mod):
    with pytest.raises(CudaError) as info:
        mod.get_function("tk")
    assert info.value.code == cudaErrorSymbolNotFound
    assert "tk<3>" in str(info.value)


def test_get_function_unknown_name_symbol_not_found(mod):
    with pytest.raises(CudaError) as info:
        mod.get_function("no_such_kernel")
    assert info.value.code == cudaErrorSymbolNotFound
    assert cudaGetLastError() == cudaErrorSymbolNotFound
    with pytest.raises(AttributeError):
        mod.no_such_kernel



def test_a_template_without_instances_says_how_to_make_one():
    # as with nvrtc, a template gives no kernel until a name expression names
    # an instance; the lookup error says so rather than only "kernels: none"
    m = SourceModule("template <class T> __global__ void lone(T *p) { p[0] = T(1); }\n")
    with pytest.raises(CudaError) as info:
        m.get_function("lone<float>")
    assert info.value.code == cudaErrorSymbolNotFound
    assert "name_expressions=['lone<...>']" in str(info.value)
    assert "lone' has no instances" in m.compiled.log
    m2 = SourceModule("template <class T> __global__ void lone(T *p) { p[0] = T(1); }\n",
                      name_expressions=["lone<float>"])
    assert m2.kernel_names == ("lone<float>",)

# ---- the launch fast path: a configuration is checked once, arguments that
# are already what their parameters take are packed without converting

FAST_SRC = r"""
__global__ void axpb(float *out, const float *in, int a, float b, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * in[i] + b;
}
__global__ void dyn(int *out) {
    extern __shared__ int s[];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}"""


def test_launch_configuration_is_kept_and_reused():
    m = SourceModule(FAST_SRC)
    k = m.axpb
    assert k[4, 32] is k[4, 32]
    assert k[(4, 1), (32, 1)] is k[(4, 1), (32, 1)]
    g = dim3(4)
    first = k[g, 32]
    assert k[g, 32] is first          # a dim3 is kept by its values...
    g.x = 8
    assert k[g, 32] is not first and k[g, 32].launch.grid == (8, 1, 1)   # ...which can change


def test_launch_fast_path_gives_the_same_result_as_the_checked_path():
    m = SourceModule(FAST_SRC)
    n = 100
    x = np.arange(n, dtype=np.float32)
    d_in, d_out = cudaMalloc(4 * n), cudaMalloc(4 * n)
    cudaMemcpy(d_in, x, 4 * n, cudaMemcpyHostToDevice)
    out = np.empty_like(x)
    for args in ((d_out, d_in, 3, 0.5, n),                          # fast: exact types
                 (d_out, d_in, np.int32(3), np.float32(0.5), np.uint32(n))):  # converted
        cudaMemset(d_out, 0, 4 * n)
        m.axpb[4, 32](*args)
        cudaMemcpy(out, d_out, 4 * n, cudaMemcpyDeviceToHost)
        assert np.array_equal(out, 3 * x + np.float32(0.5))
    cudaFree(d_in)
    cudaFree(d_out)


@pytest.mark.parametrize("which,value", [(2, 2**31), (4, -1), (4, 2**32), (2, -2**31 - 1)])
def test_launch_fast_path_still_refuses_integers_that_do_not_fit(which, value):
    m = SourceModule(FAST_SRC)
    d = cudaMalloc(16)
    args = [d, d, 1, 1.0, 1]
    args[which] = value
    with pytest.raises(KernelArgumentError) as e:
        m.axpb[1, 1](*args)
    assert e.value.code == cudaErrorInvalidValue
    assert f"argument {which + 1} of axpb" in str(e.value)
    cudaFree(d)


def test_launch_fast_path_still_refuses_a_pointer_outside_device_memory():
    m = SourceModule(FAST_SRC)
    d = cudaMalloc(16)
    bad = DevicePointer(0x1000)            # a DevicePointer that is no device memory
    with pytest.raises(KernelArgumentError) as e:
        m.axpb[1, 1](bad, d, 1, 1.0, 1)
    assert e.value.code == cudaErrorInvalidValue and "not device memory" in str(e.value)
    cudaFree(d)


def test_launch_kept_configuration_follows_cudaFuncSetAttribute():
    m = SourceModule(FAST_SRC)
    d = cudaMalloc(4 * 32)
    big = 64 * 1024
    with pytest.raises(CudaError):
        m.dyn[1, 32, big](d)                # over the default 48 KiB
    cudaFuncSetAttribute(m.dyn, cudaFuncAttributeMaxDynamicSharedMemorySize, big)
    m.dyn[1, 32, big](d)                    # the kept description knew the old limit
    cudaDeviceSynchronize()
    h = np.empty(32, np.int32)
    cudaMemcpy(h, d, h.nbytes, cudaMemcpyDeviceToHost)
    assert np.array_equal(h, np.arange(32)[::-1])
    cudaFree(d)
