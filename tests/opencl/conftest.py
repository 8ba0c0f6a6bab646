"""Fixtures of the OpenCL host API tests: a context, its device and a queue."""
import pytest

from pyemu.opencl import (CL_CONTEXT_PLATFORM, CL_DEVICE_TYPE_GPU, CL_QUEUE_PROFILING_ENABLE,
                          CLError, clCreateCommandQueue, clCreateContextFromType, clGetDeviceIDs,
                          clGetPlatformIDs)


@pytest.fixture(scope="session")
def platform():
    return clGetPlatformIDs()[0]


@pytest.fixture(scope="session")
def device(platform):
    return clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU)[0]


@pytest.fixture(scope="session")
def context(platform):
    return clCreateContextFromType([CL_CONTEXT_PLATFORM, platform, 0], CL_DEVICE_TYPE_GPU)


@pytest.fixture(scope="session")
def queue(context, device):
    return clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE)


@pytest.fixture
def code_of():
    def code_of(fn, *args, **kwargs):
        """The CL error code a call raises (0 if it returns)."""
        try:
            fn(*args, **kwargs)
        except CLError as exc:
            return int(exc.code)
        return 0
    return code_of
