"""Kernel launch arguments through runtime/args.py: every value that cannot
become its parameter is cudaErrorInvalidValue (KernelArgumentError) naming
the argument, on the fast path too, and never a raw Python exception; what
C converts exactly is taken."""
import numpy as np
import pytest

from pyemu.cuda import (CudaError, KernelArgumentError, SourceModule, cudaDeviceSynchronize,
                        cudaErrorInvalidDeviceFunction, cudaErrorInvalidResourceHandle,
                        cudaErrorInvalidValue, cudaFuncGetAttributes, cudaGetLastError,
                        cudaLaunchKernel, cudaMallocManaged, dim3)

SOURCE = r"""
__global__ void take(float *o, float f, unsigned u, int i, bool b, double d) {
    o[0] = f; o[1] = (float)u; o[2] = (float)i; o[3] = b; o[4] = (float)d;
}
__global__ void vec(float *o, float4 v) { o[0] = v.x + v.y + v.z + v.w; }
"""


@pytest.fixture(scope="module")
def mod():
    return SourceModule(SOURCE)


@pytest.fixture
def out():
    m = cudaMallocManaged(64, dtype=np.float32)
    m[:] = 0
    return m


GOOD = (0.5, 7, -3, True, 2.0)


@pytest.mark.parametrize("index, value", [
    (1, 1e39), (1, -1e39), (1, 10 ** 400), (1, "1.0"), (1, 1j), (1, None),
    (2, -1), (2, 2 ** 32), (2, "7"), (2, 7.0), (2, np.float32(7)),
    (3, 2 ** 31), (3, b"\x01\x00\x00\x00"), (3, [1]), (4, 0.5), (5, "x"), (5, 1e400j),
], ids=lambda v: repr(v)[:16])
def test_launch_bad_argument_is_cudaErrorInvalidValue(mod, out, index, value):
    args = [out, *GOOD]
    args[index] = value
    cudaGetLastError()
    with pytest.raises(KernelArgumentError) as info:
        mod.take[1, 1](*args)
    assert info.value.code == cudaErrorInvalidValue
    assert f"argument {index + 1} of take" in str(info.value)
    assert cudaGetLastError() == cudaErrorInvalidValue


def test_launch_fast_path_float_overflow_is_coded(mod, out):
    # every argument of the exact fast-path type: struct.pack raised OverflowError before
    with pytest.raises(KernelArgumentError) as info:
        mod.take[1, 1](out.device_ptr, 1e39, 7, -3, True, 2.0)
    assert "argument 2 of take (float) cannot hold the value 1e+39" in str(info.value)


def test_launch_converts_what_c_converts(mod, out):
    mod.take[1, 1](out, 3, np.uint8(9), True, 5, np.float32(0.25))
    cudaDeviceSynchronize()
    assert out[:5].tolist() == [3.0, 9.0, 1.0, 1.0, 0.25]


def test_launch_vector_argument_takes_a_tuple_or_bytes(mod, out):
    mod.vec[1, 1](out, (1, 2, 3, 4))
    cudaDeviceSynchronize()
    assert out[0] == 10.0
    mod.vec[1, 1](out, np.array([1, 1, 1, 1], np.float32).tobytes())
    cudaDeviceSynchronize()
    assert out[0] == 4.0
    with pytest.raises(KernelArgumentError):
        mod.vec[1, 1](out, (1, 2, 3))


@pytest.mark.parametrize("call, case, field", [
    (lambda f: cudaLaunchKernel(f, 1, 1, ()), "launch_config/cudaLaunchKernel_host_func",
     "return.code"),
    (lambda f: cudaFuncGetAttributes(f), "properties/func_attributes_invalid",
     "func_get_attributes_host_fn.code"),
], ids=["cudaLaunchKernel", "cudaFuncGetAttributes"])
def test_host_function_is_cudaErrorInvalidResourceHandle(gt, call, case, field):
    section, name = case.split("/")
    expected = gt(section, name, field)
    assert expected == cudaErrorInvalidResourceHandle

    def host_function():
        pass
    for func in (host_function, 12345):
        with pytest.raises(CudaError) as info:
            call(func)
        assert info.value.code == expected
    assert cudaGetLastError() == expected
    with pytest.raises(CudaError) as info:       # NULL stays cudaErrorInvalidDeviceFunction
        call(None)
    assert info.value.code == cudaErrorInvalidDeviceFunction


def test_hostile_module_and_launch_input_is_cudaErrorInvalidValue(mod, out):
    cases = [
        lambda: cudaLaunchKernel(mod.take, 1, 1, 5),                  # args not a sequence
        lambda: mod.get_function([]),                                 # unhashable name
        lambda: SourceModule(5),                                      # source not a string
        lambda: SourceModule("__global__ void z() {}", options=5),    # options not a list
        lambda: SourceModule("__global__ void z() {}", include_dirs=[1]),
        lambda: mod.take[1, 1](out, 0.5, np.array([1, 2]), -3, True, 2.0),   # array for an int
    ]
    for case in cases:
        with pytest.raises(CudaError) as info:
            case()
        assert info.value.code == cudaErrorInvalidValue
    with pytest.raises(CudaError) as info:                           # an array for a stream
        mod.take[1, 1, 0, np.array([1, 2])](out, *GOOD)
    assert info.value.code == cudaErrorInvalidResourceHandle
    cudaGetLastError()


def test_dim3_configuration_is_kept_by_value(mod, out):
    g, b = dim3(1), dim3(1)
    mod.take._launches.clear()
    for _ in range(50):
        mod.take[g, b](out, *GOOD)
    assert list(mod.take._launches) == [((1, 1, 1), (1, 1, 1))]   # kept once, found by value
    launch = mod.take[g, b]
    assert launch.launch.grid == (1, 1, 1)
    g.x = 3                                         # a dim3 changed after the launch
    assert mod.take[g, b].launch.grid == (3, 1, 1)
    assert mod.take[dim3(1), dim3(1)] is launch
    assert mod.take[(1, 1, 1), (1, 1, 1)] is launch
    cudaDeviceSynchronize()
