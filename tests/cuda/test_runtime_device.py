"""The CUDA runtime's device calls: cudaGetDeviceCount, cudaGetDevice/cudaSetDevice,
cudaGetDeviceProperties, cudaDeviceGetAttribute, cudaFuncGetAttributes,
cudaFuncSetAttribute, the versions, and the deprecated cudaThreadSynchronize
and cudaThreadExit.

The emulated device is an sm_90 part: the limits it reports are those an H100
reported (tests/data/ground_truth, fixture `gt`); what depends on the host
(multiprocessors = worker threads, memory, clock, name) is checked against
the host.  cudaThreadExit/cudaDeviceReset free every allocation of the
process, so those tests run in a subprocess.
"""
import threading

import numpy as np
import pytest

from pyemu.runtime.core import lib
from pyemu.cuda import (CudaError, SourceModule, cudaDevAttrComputeCapabilityMajor,
                        cudaDevAttrWarpSize, cudaDeviceAttr, cudaDeviceGetAttribute,
                        cudaDeviceProp, cudaDriverGetVersion,
                        cudaErrorInvalidDevice, cudaErrorInvalidDeviceFunction,
                        cudaErrorInvalidValue, cudaFree, cudaFuncAttributeMaxDynamicSharedMemorySize,
                        cudaFuncAttributePreferredSharedMemoryCarveout, cudaFuncAttributes,
                        cudaFuncGetAttributes, cudaFuncSetAttribute, cudaGetDevice,
                        cudaGetDeviceCount, cudaGetDeviceProperties, cudaGetLastError,
                        cudaMallocManaged, cudaMemGetInfo, cudaRuntimeGetVersion, cudaSetDevice,
                        cudaSuccess, cudaThreadSynchronize)


pytestmark = pytest.mark.usefixtures("cuda_clean_state")


def raises_code(code, fn, *args, **kwargs):
    with pytest.raises(CudaError) as info:
        fn(*args, **kwargs)
    assert int(info.value.code) == int(code), str(info.value)
    return info.value


SOURCE = r"""
__global__ void simple(float a, float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void __launch_bounds__(128) bounded(int *flag) { flag[0] = 1; }
__global__ void tiled(float *out) {
    __shared__ float tile[256];
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = tile[255 - threadIdx.x];
}
__global__ void slow_write(int *flag, long long spins) {
    volatile long long x = 0;
    for (long long i = 0; i < spins; i++) x += i;
    flag[0] = 1;
}
"""


@pytest.fixture(scope="module")
def mod():
    return SourceModule(SOURCE)


# ------------------------------------------------------------------ devices

def test_cudaGetDeviceCount_is_one(gt):
    assert cudaGetDeviceCount() == 1
    assert gt("memory", "devices", "count", default=1) == 1


def test_cudaGetDevice_is_zero():
    assert cudaGetDevice() == 0


def test_cudaSetDevice_zero_is_success(gt):
    assert cudaSetDevice(0) == gt("memory", "devices", "set_device_0.code", default=0)
    assert cudaGetDevice() == 0
    assert cudaGetLastError() == cudaSuccess


@pytest.mark.parametrize("ordinal", [1, -1])
def test_cudaSetDevice_bad_ordinal_invalid_device(gt, ordinal):
    expected = gt("memory", "devices", f"set_device_{ordinal}.code", default=cudaErrorInvalidDevice)
    raises_code(expected, cudaSetDevice, ordinal)
    assert cudaGetLastError() == gt("memory", "devices", f"get_last_error_{ordinal}.code",
                                    default=expected)
    assert cudaGetDevice() == 0                      # the current device did not change


def test_cudaGetDevice_per_host_thread():
    seen = []

    def worker():
        cudaSetDevice(0)
        seen.append(cudaGetDevice())

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [0, 0, 0]


# ------------------------------------------------------------------ cudaGetDeviceProperties

# fields in which the emulated device is an H100 (sm_90)
H100_FIELDS = [
    "sharedMemPerBlock", "sharedMemPerBlockOptin", "reservedSharedMemPerBlock", "regsPerBlock",
    "regsPerMultiprocessor", "warpSize", "memPitch", "maxThreadsPerBlock", "maxThreadsDim",
    "maxGridSize", "totalConstMem", "major", "minor", "textureAlignment",
    "texturePitchAlignment", "maxThreadsPerMultiProcessor", "maxBlocksPerMultiProcessor",
    "sharedMemPerMultiprocessor", "concurrentKernels", "unifiedAddressing", "managedMemory",
    "concurrentManagedAccess", "canMapHostMemory", "integrated", "streamPrioritiesSupported",
]
DOCUMENTED_SM90 = {
    "sharedMemPerBlock": 49152, "sharedMemPerBlockOptin": 232448, "reservedSharedMemPerBlock": 1024,
    "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32,
    "memPitch": 2147483647, "maxThreadsPerBlock": 1024, "maxThreadsDim": [1024, 1024, 64],
    "maxGridSize": [2147483647, 65535, 65535], "totalConstMem": 65536, "major": 9, "minor": 0,
    "textureAlignment": 512, "texturePitchAlignment": 32, "maxThreadsPerMultiProcessor": 2048,
    "maxBlocksPerMultiProcessor": 32, "sharedMemPerMultiprocessor": 233472,
    "concurrentKernels": 1, "unifiedAddressing": 1, "managedMemory": 1,
    "concurrentManagedAccess": 1, "canMapHostMemory": 1, "integrated": 0,
    "streamPrioritiesSupported": 1,
}


@pytest.mark.parametrize("field", H100_FIELDS)
def test_cudaGetDeviceProperties_field_as_on_an_H100(gt, field):
    p = cudaGetDeviceProperties(0)
    assert isinstance(p, cudaDeviceProp)
    expected = gt("properties", "device_properties", field, default=DOCUMENTED_SM90[field])
    value = getattr(p, field)
    assert (list(value) if isinstance(value, tuple) else value) == expected


def test_cudaGetDeviceProperties_host_dependent_fields():
    p = cudaGetDeviceProperties(0)
    assert p.multiProcessorCount == lib.pyemu_num_workers() >= 1   # one per worker thread
    assert p.totalGlobalMem == cudaMemGetInfo()[1] > 0
    assert isinstance(p.name, str) and p.name
    assert p.clockRate > 0
    assert p.multiProcessorCount * p.maxThreadsPerMultiProcessor >= p.maxThreadsPerBlock


def test_cudaGetDeviceProperties_default_device_is_zero():
    assert cudaGetDeviceProperties() == cudaGetDeviceProperties(0)


@pytest.mark.parametrize("ordinal", [5, -1])
def test_cudaGetDeviceProperties_bad_ordinal_invalid_device(gt, ordinal):
    expected = gt("memory", "devices", f"get_device_properties_{ordinal}.code",
                  default=cudaErrorInvalidDevice)
    raises_code(expected, cudaGetDeviceProperties, ordinal)
    assert cudaGetLastError() == expected


# ------------------------------------------------------------------ cudaDeviceGetAttribute

ATTR_FIELD = {
    "cudaDevAttrMaxThreadsPerBlock": "maxThreadsPerBlock",
    "cudaDevAttrMaxBlockDimX": ("maxThreadsDim", 0),
    "cudaDevAttrMaxBlockDimY": ("maxThreadsDim", 1),
    "cudaDevAttrMaxBlockDimZ": ("maxThreadsDim", 2),
    "cudaDevAttrMaxGridDimX": ("maxGridSize", 0),
    "cudaDevAttrMaxGridDimY": ("maxGridSize", 1),
    "cudaDevAttrMaxGridDimZ": ("maxGridSize", 2),
    "cudaDevAttrMaxSharedMemoryPerBlock": "sharedMemPerBlock",
    "cudaDevAttrTotalConstantMemory": "totalConstMem",
    "cudaDevAttrWarpSize": "warpSize",
    "cudaDevAttrMaxPitch": "memPitch",
    "cudaDevAttrMaxRegistersPerBlock": "regsPerBlock",
    "cudaDevAttrClockRate": "clockRate",
    "cudaDevAttrTextureAlignment": "textureAlignment",
    "cudaDevAttrGpuOverlap": "deviceOverlap",
    "cudaDevAttrMultiProcessorCount": "multiProcessorCount",
    "cudaDevAttrKernelExecTimeout": "kernelExecTimeoutEnabled",
    "cudaDevAttrIntegrated": "integrated",
    "cudaDevAttrCanMapHostMemory": "canMapHostMemory",
    "cudaDevAttrComputeMode": "computeMode",
    "cudaDevAttrConcurrentKernels": "concurrentKernels",
    "cudaDevAttrEccEnabled": "ECCEnabled",
    "cudaDevAttrPciBusId": "pciBusID",
    "cudaDevAttrPciDeviceId": "pciDeviceID",
    "cudaDevAttrMemoryClockRate": "memoryClockRate",
    "cudaDevAttrGlobalMemoryBusWidth": "memoryBusWidth",
    "cudaDevAttrL2CacheSize": "l2CacheSize",
    "cudaDevAttrMaxThreadsPerMultiProcessor": "maxThreadsPerMultiProcessor",
    "cudaDevAttrAsyncEngineCount": "asyncEngineCount",
    "cudaDevAttrUnifiedAddressing": "unifiedAddressing",
    "cudaDevAttrComputeCapabilityMajor": "major",
    "cudaDevAttrComputeCapabilityMinor": "minor",
    "cudaDevAttrMaxSharedMemoryPerMultiprocessor": "sharedMemPerMultiprocessor",
    "cudaDevAttrMaxRegistersPerMultiprocessor": "regsPerMultiprocessor",
    "cudaDevAttrManagedMemory": "managedMemory",
    "cudaDevAttrIsMultiGpuBoard": "isMultiGpuBoard",
    "cudaDevAttrConcurrentManagedAccess": "concurrentManagedAccess",
    "cudaDevAttrMaxSharedMemoryPerBlockOptin": "sharedMemPerBlockOptin",
    "cudaDevAttrMaxBlocksPerMultiprocessor": "maxBlocksPerMultiProcessor",
    "cudaDevAttrCooperativeLaunch": "cooperativeLaunch",
    "cudaDevAttrCooperativeMultiDeviceLaunch": "cooperativeMultiDeviceLaunch",
}


def test_cudaDeviceGetAttribute_every_attribute_is_mapped():
    assert set(cudaDeviceAttr.__members__) == set(ATTR_FIELD)


@pytest.mark.parametrize("attr", sorted(ATTR_FIELD))
def test_cudaDeviceGetAttribute_matches_cudaGetDeviceProperties(attr):
    p = cudaGetDeviceProperties(0)
    field = ATTR_FIELD[attr]
    expected = getattr(p, field[0])[field[1]] if isinstance(field, tuple) else getattr(p, field)
    value = cudaDeviceGetAttribute(cudaDeviceAttr[attr], 0)
    assert type(value) is int and value == int(expected)


def test_cudaDeviceGetAttribute_known_values(gt):
    assert cudaDeviceGetAttribute(cudaDevAttrWarpSize, 0) == 32
    assert cudaDeviceGetAttribute(cudaDevAttrComputeCapabilityMajor, 0) == \
        gt("properties", "device_properties", "major", default=9)
    assert cudaDeviceGetAttribute(int(cudaDevAttrWarpSize), 0) == 32     # a plain int works


@pytest.mark.parametrize("attr", [100000, 0, -1])
def test_cudaDeviceGetAttribute_unknown_attribute_invalid_value(gt, attr):
    expected = gt("memory", "devices", f"device_get_attribute_{attr}.code",
                  default=cudaErrorInvalidValue)
    raises_code(expected, cudaDeviceGetAttribute, attr, 0)
    assert cudaGetLastError() == expected


def test_cudaDeviceGetAttribute_bad_device_invalid_device(gt):
    expected = gt("memory", "devices", "device_get_attribute_valid_on_dev5.code",
                  default=cudaErrorInvalidDevice)
    raises_code(expected, cudaDeviceGetAttribute, cudaDevAttrWarpSize, 5)
    assert cudaGetLastError() == expected


# ------------------------------------------------------------------ cudaFuncGetAttributes

FUNC_FIELDS = ["sharedSizeBytes", "constSizeBytes", "localSizeBytes", "maxThreadsPerBlock",
               "ptxVersion", "binaryVersion", "cacheModeCA", "maxDynamicSharedSizeBytes",
               "preferredShmemCarveout"]
FUNC_DOCUMENTED = {"sharedSizeBytes": 0, "constSizeBytes": 0, "localSizeBytes": 0,
                   "maxThreadsPerBlock": 1024, "ptxVersion": 90, "binaryVersion": 90,
                   "cacheModeCA": 0, "maxDynamicSharedSizeBytes": 49152,
                   "preferredShmemCarveout": -1}


@pytest.mark.parametrize("field", FUNC_FIELDS)
def test_cudaFuncGetAttributes_of_a_simple_kernel(gt, mod, field):
    attrs = cudaFuncGetAttributes(mod.simple)
    assert isinstance(attrs, cudaFuncAttributes)
    assert getattr(attrs, field) == gt("properties", "func_attributes_k_simple(saxpy)", field,
                                       default=FUNC_DOCUMENTED[field])


def test_cudaFuncGetAttributes_registers_are_reported(mod):
    assert cudaFuncGetAttributes(mod.simple).numRegs > 0


def test_cudaFuncGetAttributes_launch_bounds_max_threads(gt, mod):
    expected = gt("properties", "func_attributes_k_lb128(__launch_bounds__(128))",
                  "maxThreadsPerBlock", default=128)
    assert cudaFuncGetAttributes(mod.bounded).maxThreadsPerBlock == expected


def test_cudaFuncGetAttributes_static_shared_size(mod):
    assert cudaFuncGetAttributes(mod.tiled).sharedSizeBytes == 256 * 4


def test_cudaFuncGetAttributes_not_a_kernel_invalid_device_function(gt):
    expected = gt("properties", "func_attributes_invalid", "func_get_attributes_null.code",
                  default=cudaErrorInvalidDeviceFunction)
    raises_code(expected, cudaFuncGetAttributes, None)
    assert cudaGetLastError() == expected


# ------------------------------------------------------------------ cudaFuncSetAttribute

def fresh_kernel():
    """A Function object of its own: attributes set on it stay with it."""
    return SourceModule(SOURCE).simple


def test_cudaFuncSetAttribute_max_dynamic_shared_to_the_optin_limit(gt):
    k = fresh_kernel()
    limit = gt("properties", "device_properties", "sharedMemPerBlockOptin", default=232448)
    assert cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, limit) == \
        gt("launch_config", "set_attr_optin_max", "return.code", default=0)
    assert cudaFuncGetAttributes(k).maxDynamicSharedSizeBytes == \
        gt("launch_config", "set_attr_optin_max", "maxDynamicSharedSizeBytes_after", default=limit)
    raises_code(gt("launch_config", "set_attr_optin_max", "return_plus1.code", default=1),
                cudaFuncSetAttribute, k, cudaFuncAttributeMaxDynamicSharedMemorySize, limit + 1)
    assert cudaGetLastError() == cudaErrorInvalidValue
    assert cudaFuncGetAttributes(k).maxDynamicSharedSizeBytes == \
        gt("launch_config", "set_attr_optin_max", "maxDynamicSharedSizeBytes_after_plus1",
           default=limit)


def test_cudaFuncSetAttribute_over_the_limit_leaves_the_attribute(gt):
    k = fresh_kernel()
    value = gt("launch_config", "set_attr_228KiB+1", "value", default=233473)
    raises_code(gt("launch_config", "set_attr_228KiB+1", "return.code", default=1),
                cudaFuncSetAttribute, k, cudaFuncAttributeMaxDynamicSharedMemorySize, value)
    assert cudaGetLastError() == cudaErrorInvalidValue
    assert cudaFuncGetAttributes(k).maxDynamicSharedSizeBytes == \
        gt("launch_config", "set_attr_228KiB+1", "maxDynamicSharedSizeBytes_after", default=49152)


def test_cudaFuncSetAttribute_is_per_kernel(mod):
    k = fresh_kernel()
    cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024)
    assert cudaFuncGetAttributes(k).maxDynamicSharedSizeBytes == 100 * 1024
    assert cudaFuncGetAttributes(mod.simple).maxDynamicSharedSizeBytes == 49152


def test_cudaFuncSetAttribute_negative_size_invalid_value():
    k = fresh_kernel()
    raises_code(cudaErrorInvalidValue, cudaFuncSetAttribute, k,
                cudaFuncAttributeMaxDynamicSharedMemorySize, -1)


# Measured on an H200 with CUDA 13.0 (not in tests/data/ground_truth): a carveout
# of 50 reads back as 50; 101, a dynamic shared size of -1 and attribute 1234
# give cudaErrorInvalidValue.

def test_cudaFuncSetAttribute_carveout_is_read_back():
    k = fresh_kernel()
    assert cudaFuncGetAttributes(k).preferredShmemCarveout == -1
    assert cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, 50) == \
        cudaSuccess
    assert cudaFuncGetAttributes(k).preferredShmemCarveout == 50


def test_cudaFuncSetAttribute_carveout_over_100_invalid_value():
    k = fresh_kernel()
    raises_code(cudaErrorInvalidValue, cudaFuncSetAttribute, k,
                cudaFuncAttributePreferredSharedMemoryCarveout, 101)
    assert cudaGetLastError() == cudaErrorInvalidValue
    assert cudaFuncGetAttributes(k).preferredShmemCarveout == -1


def test_cudaFuncSetAttribute_unknown_attribute_invalid_value():
    raises_code(cudaErrorInvalidValue, cudaFuncSetAttribute, fresh_kernel(), 1234, 5)


def test_cudaFuncSetAttribute_not_a_kernel_invalid_device_function():
    raises_code(cudaErrorInvalidDeviceFunction, cudaFuncSetAttribute, None,
                cudaFuncAttributeMaxDynamicSharedMemorySize, 1024)
    assert cudaGetLastError() == cudaErrorInvalidDeviceFunction


# ------------------------------------------------------------------ versions

def test_cudaRuntimeGetVersion_is_a_cuda_version_number():
    v = cudaRuntimeGetVersion()
    assert isinstance(v, int) and v >= 12000 and v % 10 == 0      # 1000 * major + 10 * minor


def test_cudaDriverGetVersion_supports_the_runtime():
    assert cudaDriverGetVersion() >= cudaRuntimeGetVersion()       # else cudaErrorInsufficientDriver


# ------------------------------------------------------------------ deprecated names

def test_cudaThreadSynchronize_waits_for_the_kernel(mod):
    flag = cudaMallocManaged(4, dtype=np.int32)
    try:
        flag[0] = 0
        mod.slow_write[1, 1](flag, 20_000_000)
        assert cudaThreadSynchronize() == cudaSuccess
        assert flag[0] == 1
    finally:
        cudaFree(flag)


def test_cudaThreadExit_frees_everything_like_cudaDeviceReset(run_cuda, gt):
    run = run_cuda(r"""
        m = SourceModule('__global__ void fill(int *a) { a[threadIdx.x] = 7 * threadIdx.x; }')
        free0, total = cudaMemGetInfo()
        d = cudaMalloc(1 << 20)
        R["exit"] = int(cudaThreadExit())
        R["free_restored"] = cudaMemGetInfo()[0] == free0
        R["stale_memcpy"] = code_of(cudaMemcpy, np.zeros(4, np.int32), d, 16, cudaMemcpyDeviceToHost)
        R["last_after_stale"] = int(cudaGetLastError())
        d2 = cudaMalloc(64)
        m.fill[1, 16](d2)
        out = np.zeros(16, np.int32)
        cudaMemcpy(out, d2, 64, cudaMemcpyDeviceToHost)
        R["kernel_after_ok"] = out.tolist() == [7 * i for i in range(16)]
        R["last_end"] = int(cudaGetLastError())
    """)
    assert run.returncode == 0, run.explain()
    case = "device_reset_healthy_context"
    assert run.R["exit"] == gt("device_reset_healthy", case, "device_reset.code", default=0)
    assert run.R["free_restored"] is True
    assert run.R["stale_memcpy"] == gt("device_reset_healthy", case,
                                       "memcpy_from_stale_pointer_before_any_new_malloc.code",
                                       default=cudaErrorInvalidValue)
    assert run.R["last_after_stale"] == run.R["stale_memcpy"]
    assert run.R["kernel_after_ok"] is gt("device_reset_healthy", case,
                                          "kernel_after_reset_correct", default=True)
    assert run.R["last_end"] == 0


def test_cudaDeviceReset_healthy_device_runs_on(run_cuda, gt):
    run = run_cuda(r"""
        m = SourceModule('__global__ void fill(int *a) { a[threadIdx.x] = threadIdx.x + 1; }')
        d = cudaMalloc(64)
        cudaDeviceSynchronize()
        R["reset"] = int(cudaDeviceReset())
        R["last_after_reset"] = int(cudaGetLastError())
        d2 = cudaMalloc(64)
        R["launch"] = code_of(m.fill.launch, 1, 16, 0, None, (d2,))
        R["sync"] = code_of(cudaDeviceSynchronize)
        out = np.zeros(16, np.int32)
        cudaMemcpy(out, d2, 64, cudaMemcpyDeviceToHost)
        R["correct"] = out.tolist() == list(range(1, 17))
        R["free"] = int(cudaFree(d2))
    """)
    assert run.returncode == 0, run.explain()
    case = "device_reset_healthy_context"
    for key, gt_key in [("reset", "device_reset"), ("last_after_reset", "get_last_error_after_reset"),
                        ("launch", "launch_after_reset"), ("sync", "sync_after_reset"),
                        ("free", "free_new_ptr")]:
        assert run.R[key] == gt("device_reset_healthy", case, gt_key + ".code", default=0), key
    assert run.R["correct"] is True
