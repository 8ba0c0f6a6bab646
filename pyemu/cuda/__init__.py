"""pyemu.cuda: the CUDA runtime API on the CPU.

    from pyemu.cuda import *

gives the runtime's names (cudaMalloc, cudaMemcpy, cudaDeviceSynchronize,
...), its constants and error codes, dim3, SourceModule and CudaError.
Each concern is a module of its own; this package re-exports them all.
"""
from importlib import import_module as _import

_PARTS = (
    "_errors", "_types", "runtime", "module",          # errors, enums, memory, kernels
    "symbols", "_pitched_types", "pitched",            # __constant__/__device__, 2-D/3-D
    "stream", "event", "host_func", "host_memory",     # streams, events, pinned memory
    "async_copy", "device", "profiler", "stream_alloc", "peer",
    "array", "texture", "texref",                      # CUDA arrays, textures, surfaces
    "cooperative",                                     # occupancy, cooperative launches
)

__all__ = []
for _name in _PARTS:
    _mod = _import("." + _name, __name__)
    for _n in _mod.__all__:
        globals()[_n] = getattr(_mod, _n)
    __all__ += _mod.__all__
del _name, _mod, _n, _import
