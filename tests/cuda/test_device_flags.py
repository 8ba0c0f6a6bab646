"""cudaSetDeviceFlags/cudaGetDeviceFlags as CUDA 13 on an H100 answers them
(tests/data/ground_truth/probe_streams_h100.txt), and the device attributes
stream programs read."""
import pytest

from pyemu.cuda import *  # noqa: F401,F403


def raises_code(code, fn, *args):
    with pytest.raises(CudaError) as info:
        fn(*args)
    assert int(info.value.code) == int(code), str(info.value)


def test_device_flags_keep_map_host_and_can_be_set_on_an_active_device():
    cudaMalloc(16)          # the device is active
    try:
        assert cudaGetDeviceFlags() & cudaDeviceMapHost
        assert cudaSetDeviceFlags(cudaDeviceMapHost | cudaDeviceScheduleYield) == cudaSuccess
        assert cudaGetDeviceFlags() == 10                 # as the H100 printed
        assert cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) == cudaSuccess
        assert cudaGetDeviceFlags() == 12
        raises_code(cudaErrorInvalidValue, cudaSetDeviceFlags, 0x100)
        raises_code(cudaErrorInvalidValue, cudaSetDeviceFlags,
                    cudaDeviceScheduleSpin | cudaDeviceScheduleYield)
        raises_code(cudaErrorInvalidValue, cudaSetDeviceFlags, "spin")
    finally:
        cudaSetDeviceFlags(cudaDeviceScheduleAuto)


def test_stream_attributes_say_what_pyemu_does():
    assert cudaDeviceGetAttribute(cudaDevAttrConcurrentKernels, 0) == 1
    assert cudaDeviceGetAttribute(cudaDevAttrCanMapHostMemory, 0) == 1
    assert cudaDeviceGetAttribute(cudaDevAttrUnifiedAddressing, 0) == 1
    assert cudaDeviceGetAttribute(cudaDevAttrAsyncEngineCount, 0) >= 1
    p = cudaGetDeviceProperties(0)
    assert p.concurrentKernels == 1 and p.canMapHostMemory == 1 and p.unifiedAddressing == 1
