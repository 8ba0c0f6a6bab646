"""dim3, the runtime's enums, cudaDeviceProp and cudaFuncAttributes."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum


class dim3:
    """dim3(x=1, y=1, z=1): grid and block sizes, as in CUDA."""

    __slots__ = ("x", "y", "z")

    def __init__(self, x=1, y=1, z=1):
        self.x, self.y, self.z = int(x), int(y), int(z)

    def __iter__(self):
        return iter((self.x, self.y, self.z))

    def __eq__(self, other):
        if type(other) is tuple and len(other) == 3:     # the common case: a launch's key
            return (self.x, self.y, self.z) == other
        try:
            return (self.x, self.y, self.z) == as_dim3(other)
        except (TypeError, ValueError):
            return NotImplemented

    def __hash__(self):
        return hash((self.x, self.y, self.z))

    def __repr__(self):
        return f"dim3({self.x}, {self.y}, {self.z})"


def as_dim3(v) -> tuple:
    """An int, a tuple/list of up to 3 ints or a dim3, as an (x, y, z) tuple."""
    if isinstance(v, dim3):
        return (v.x, v.y, v.z)
    if isinstance(v, (tuple, list)):
        if not 1 <= len(v) <= 3:
            raise ValueError(f"a grid or block has 1 to 3 dimensions, not {len(v)}")
        t = tuple(int(a) for a in v) + (1,) * (3 - len(v))
        return t
    if hasattr(v, "__index__"):
        return (int(v), 1, 1)
    raise TypeError(f"a grid or block size is an int, a tuple or a dim3, not {type(v).__name__}")


class cudaMemcpyKind(IntEnum):
    cudaMemcpyHostToHost = 0
    cudaMemcpyHostToDevice = 1
    cudaMemcpyDeviceToHost = 2
    cudaMemcpyDeviceToDevice = 3
    cudaMemcpyDefault = 4


class cudaDeviceAttr(IntEnum):
    cudaDevAttrMaxThreadsPerBlock = 1
    cudaDevAttrMaxBlockDimX = 2
    cudaDevAttrMaxBlockDimY = 3
    cudaDevAttrMaxBlockDimZ = 4
    cudaDevAttrMaxGridDimX = 5
    cudaDevAttrMaxGridDimY = 6
    cudaDevAttrMaxGridDimZ = 7
    cudaDevAttrMaxSharedMemoryPerBlock = 8
    cudaDevAttrTotalConstantMemory = 9
    cudaDevAttrWarpSize = 10
    cudaDevAttrMaxPitch = 11
    cudaDevAttrMaxRegistersPerBlock = 12
    cudaDevAttrClockRate = 13
    cudaDevAttrTextureAlignment = 14
    cudaDevAttrGpuOverlap = 15
    cudaDevAttrMultiProcessorCount = 16
    cudaDevAttrKernelExecTimeout = 17
    cudaDevAttrIntegrated = 18
    cudaDevAttrCanMapHostMemory = 19
    cudaDevAttrComputeMode = 20
    cudaDevAttrConcurrentKernels = 31
    cudaDevAttrEccEnabled = 32
    cudaDevAttrPciBusId = 33
    cudaDevAttrPciDeviceId = 34
    cudaDevAttrMemoryClockRate = 36
    cudaDevAttrGlobalMemoryBusWidth = 37
    cudaDevAttrL2CacheSize = 38
    cudaDevAttrMaxThreadsPerMultiProcessor = 39
    cudaDevAttrAsyncEngineCount = 40
    cudaDevAttrUnifiedAddressing = 41
    cudaDevAttrComputeCapabilityMajor = 75
    cudaDevAttrComputeCapabilityMinor = 76
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81
    cudaDevAttrMaxRegistersPerMultiprocessor = 82
    cudaDevAttrManagedMemory = 83
    cudaDevAttrIsMultiGpuBoard = 84
    cudaDevAttrConcurrentManagedAccess = 89
    cudaDevAttrCooperativeLaunch = 95
    cudaDevAttrCooperativeMultiDeviceLaunch = 96
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97
    cudaDevAttrMaxBlocksPerMultiprocessor = 106


class cudaFuncAttribute(IntEnum):
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8
    cudaFuncAttributePreferredSharedMemoryCarveout = 9


@dataclass
class cudaDeviceProp:
    """cudaDeviceProp with the real field names (the common ones)."""
    name: str = ""
    uuid: bytes = b""
    totalGlobalMem: int = 0
    sharedMemPerBlock: int = 0
    regsPerBlock: int = 65536
    warpSize: int = 32
    memPitch: int = 2147483647
    maxThreadsPerBlock: int = 1024
    maxThreadsDim: tuple = (1024, 1024, 64)
    maxGridSize: tuple = (2147483647, 65535, 65535)
    clockRate: int = 0
    totalConstMem: int = 65536
    major: int = 9
    minor: int = 0
    textureAlignment: int = 512
    texturePitchAlignment: int = 32
    deviceOverlap: int = 1
    multiProcessorCount: int = 1
    kernelExecTimeoutEnabled: int = 0
    integrated: int = 0
    canMapHostMemory: int = 1
    computeMode: int = 0
    concurrentKernels: int = 1
    ECCEnabled: int = 0
    pciBusID: int = 0
    pciDeviceID: int = 0
    pciDomainID: int = 0
    asyncEngineCount: int = 1
    unifiedAddressing: int = 1
    memoryClockRate: int = 0
    memoryBusWidth: int = 64
    l2CacheSize: int = 0
    persistingL2CacheMaxSize: int = 0
    maxThreadsPerMultiProcessor: int = 2048
    streamPrioritiesSupported: int = 1
    globalL1CacheSupported: int = 1
    localL1CacheSupported: int = 1
    sharedMemPerMultiprocessor: int = 233472
    regsPerMultiprocessor: int = 65536
    managedMemory: int = 1
    isMultiGpuBoard: int = 0
    multiGpuBoardGroupID: int = 0
    concurrentManagedAccess: int = 1
    cooperativeLaunch: int = 1          # cudaLaunchCooperativeKernel (pyemu/cuda/cooperative.py)
    cooperativeMultiDeviceLaunch: int = 1   # CUDA 12's field (gone in 13); the attribute stays
    sharedMemPerBlockOptin: int = 232448
    maxBlocksPerMultiProcessor: int = 32
    reservedSharedMemPerBlock: int = 1024


@dataclass
class cudaFuncAttributes:
    """cudaFuncAttributes, as cudaFuncGetAttributes fills it."""
    sharedSizeBytes: int = 0
    constSizeBytes: int = 0
    localSizeBytes: int = 0
    maxThreadsPerBlock: int = 1024
    numRegs: int = 32
    ptxVersion: int = 90
    binaryVersion: int = 90
    cacheModeCA: int = 0
    maxDynamicSharedSizeBytes: int = 49152
    preferredShmemCarveout: int = -1


globals().update(cudaMemcpyKind.__members__)
globals().update(cudaDeviceAttr.__members__)
globals().update(cudaFuncAttribute.__members__)

__all__ = ["dim3", "cudaMemcpyKind", "cudaDeviceAttr", "cudaFuncAttribute", "cudaDeviceProp",
           "cudaFuncAttributes"] + list(cudaMemcpyKind.__members__) + list(
    cudaDeviceAttr.__members__) + list(cudaFuncAttribute.__members__)
