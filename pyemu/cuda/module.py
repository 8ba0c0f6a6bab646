"""SourceModule, kernel functions and launches: `k[grid, block](args)`.

A kernel's parameters are the ones its C++ declaration has: the compiler
reports their types, and each launch converts the Python arguments to them
(an int that does not fit, a float for an int, host memory for a pointer:
all raise before anything runs).  Launches are asynchronous, as in CUDA.
"""
from __future__ import annotations

import operator
import struct

import numpy as np

from ..runtime import core as _core
from ..runtime.core import CoreError, ffi, lib
from ..runtime.kernel import FLOAT_CODES as _FLOAT_CODES
from ..runtime.kernel import INT_CODES as _INT_CODES
from ..runtime.kernel import PARAM_FLOAT as _KIND_FLOAT
from ..runtime.kernel import PARAM_POINTER as _KIND_POINTER
from ..runtime.kernel import PARAM_SIGNED as _KIND_SIGNED
from ..runtime.kernel import PARAM_UNSIGNED as _KIND_UNSIGNED
from ..runtime.kernel import Param  # noqa: F401 (re-exported)
from ..runtime.kernel import KernelDesc, Loaded, code_of as _code_of
from ..compiler import CompileError, compile_source
from . import _errors as E
from ._errors import CudaError, cudaSuccess
from ._memory import DevicePointer, device_address, device_region, is_device_address
from ._types import as_dim3, cudaFuncAttribute, cudaFuncAttributes, dim3
from .runtime import default_queue
from .devices import same_device as _same_device


class KernelArgumentError(CudaError, TypeError, ValueError):
    """A kernel argument that cannot become its parameter (cudaErrorInvalidValue)."""


def _arg_error(fn, i, msg):
    p = fn.params[i]
    detail = f"argument {i + 1} of {fn.name} ({p.type_name}) {msg}"
    E.set_last(E.cudaErrorInvalidValue)
    raise KernelArgumentError(E.cudaErrorInvalidValue, detail, "kernel launch")


def _convert(fn, i, p, v):
    """The value struct.pack takes for parameter p."""
    t = type(v)
    # the common cases first: this runs for every argument of every launch
    if p.kind == _KIND_POINTER and t is DevicePointer:
        lo, hi = device_region()
        if lo <= v < hi:
            return v
    elif t is int and (p.kind == _KIND_SIGNED or p.kind == _KIND_UNSIGNED) and not p.is_bool:
        return v
    elif t is float and p.kind == _KIND_FLOAT:
        return v
    if p.kind == _KIND_POINTER:
        addr = device_address(v)
        if addr is None:
            if v is None:
                return 0
            try:
                memoryview(v)
            except TypeError:
                _arg_error(fn, i, f"is a pointer; got {type(v).__name__}")
            _arg_error(fn, i, f"is host memory ({type(v).__name__}); copy it to the device with "
                       "cudaMemcpy first and pass the device pointer")
        if addr and not is_device_address(addr) and not lib.pyemu_hostreg_contains(addr):
            _arg_error(fn, i, f"is a pointer; 0x{addr:x} is not device memory")
        return addr
    if p.kind in (_KIND_SIGNED, _KIND_UNSIGNED):
        if isinstance(v, (float, np.floating)):
            _arg_error(fn, i, f"is an integer; got the float {v!r}")
        if p.is_bool and isinstance(v, (int, np.integer, np.bool_)):
            return 1 if v else 0     # C++ converts any non-zero value to true (byte 1)
        try:
            return operator.index(v)
        except TypeError:
            _arg_error(fn, i, f"is an integer; got {type(v).__name__}")
    if p.kind == _KIND_FLOAT:
        if isinstance(v, (str, bytes)) or not isinstance(v, (int, float, np.number)):
            _arg_error(fn, i, f"is a floating-point number; got {type(v).__name__}")
        return float(v)
    # a struct by value: its bytes
    if isinstance(v, np.ndarray) or isinstance(v, np.void):
        data = v.tobytes()
    else:
        try:
            data = bytes(memoryview(v))
        except TypeError:
            _arg_error(fn, i, f"is a struct of {p.size} bytes; got {type(v).__name__} "
                       "(pass bytes, a NumPy structured scalar or a ctypes.Structure)")
    if len(data) != p.size:
        _arg_error(fn, i, f"is a struct of {p.size} bytes; got {len(data)} bytes")
    return data


class Function:
    """A __global__ function of a SourceModule (PyCUDA's Function, CUDA's kernel).

    Launch it as `k[grid, block](args)`, `k[grid, block, sharedBytes](args)`
    or `k[grid, block, sharedBytes, stream](args)`: the <<<...>>> of CUDA."""

    def __init__(self, module, index):
        self.module = module
        self.index = index
        desc = KernelDesc(module, index)
        self.name = desc.name
        self.args_size = desc.args_size
        # __launch_bounds__(maxThreadsPerBlock): a bigger block is refused, as on a GPU
        self.max_threads = min(desc.launch_bounds or lib.PYEMU_MAX_THREADS_PER_BLOCK,
                               lib.PYEMU_MAX_THREADS_PER_BLOCK)
        self.params = desc.params
        self._max_dynamic_shared = lib.PYEMU_MAX_SHARED_PER_BLOCK
        self._struct = desc.struct
        self._launches = {}       # launch configuration -> _Launch, checked once
        # the fast path of pack(): the exact Python type each parameter takes
        # as it is (a DevicePointer, an int, a float), or None when some
        # parameter always needs converting (bool, struct)
        fast = []
        for p in self.params:
            if p.kind == _KIND_POINTER:
                fast.append(DevicePointer)
            elif p.kind in (_KIND_SIGNED, _KIND_UNSIGNED) and not p.is_bool:
                fast.append(int)
            elif p.kind == _KIND_FLOAT:
                fast.append(float)
            else:
                fast = None
                break
        self._fast = tuple(fast) if fast is not None else None

    def __repr__(self):
        sig = ", ".join(p.type_name for p in self.params)
        return f"<kernel {self.name}({sig})>"

    @property
    def max_dynamic_shared(self):
        """The dynamic shared memory a launch may ask for (cudaFuncSetAttribute raises it)."""
        return self._max_dynamic_shared

    @max_dynamic_shared.setter
    def max_dynamic_shared(self, value):
        self._max_dynamic_shared = value
        self._launches.clear()    # their descriptions carry the old limit

    def pack(self, args) -> bytes:
        """The kernel's argument buffer for `args`, as the C ABI lays it out."""
        if tuple(map(type, args)) == self._fast:
            # every argument is already what its parameter takes: struct
            # checks the integers' width, the core that each pointer is
            # device memory (pyemu_enqueue_kernel: PYEMU_E_BAD_POINTER)
            try:
                return self._struct.pack(*args)
            except struct.error:
                pass              # the checked path says which argument
        return self._pack_checked(args)

    def _pack_checked(self, args) -> bytes:
        if not args and not self.params:
            return b""
        if len(args) != len(self.params):
            sig = ", ".join(p.type_name for p in self.params)
            E.set_last(E.cudaErrorInvalidValue)
            raise KernelArgumentError(
                E.cudaErrorInvalidValue,
                f"{self.name} takes {len(self.params)} argument(s) ({sig}), {len(args)} given",
                "kernel launch")
        values = [_convert(self, i, p, v) for i, (p, v) in enumerate(zip(self.params, args))]
        try:
            return self._struct.pack(*values)
        except struct.error:
            for i, (p, v) in enumerate(zip(self.params, values)):
                try:
                    struct.pack("<" + _code_of(p), v)
                except struct.error:
                    _arg_error(self, i, f"cannot hold the value {args[i]!r}")
            raise

    def launch(self, grid, block, shared=0, stream=None, args=()):
        """Enqueue one launch; returns at once (the grid runs on the workers)."""
        return _Launch(self, grid, block, shared, stream)(*args)

    def __getitem__(self, config):
        try:
            launch = self._launches.get(config) if type(config) is tuple else None
        except TypeError:         # a list in the configuration: not a key
            launch = None
        if launch is not None:
            return launch
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise TypeError("launch as kernel[grid, block], kernel[grid, block, sharedBytes] or "
                            "kernel[grid, block, sharedBytes, stream]")
        launch = _Launch(self, *config)
        # configurations made of ints and tuples on the default stream are
        # kept (a dim3 can change after the launch, so it is not a key)
        if (len(config) < 4 or config[3] is None or config[3] == 0) and all(
                type(c) is int or type(c) is tuple for c in config[:3]):
            if len(self._launches) >= 64:
                self._launches.clear()
            self._launches[config] = launch
        return launch

    def __call__(self, *args, grid=(1, 1, 1), block=(1, 1, 1), shared=0, stream=None):
        """PyCUDA's form: k(args..., grid=..., block=..., shared=0, stream=None)."""
        return self.launch(grid, block, shared, stream, args)


_is = operator.is_


def _queue_of(stream):
    if stream is None or (isinstance(stream, int) and stream == 0):
        return default_queue()
    q = getattr(stream, "_queue", None)
    if q is None:
        E.fail(E.cudaErrorInvalidResourceHandle, f"{stream!r} is not a stream", "kernel launch")
    _same_device(getattr(stream, "device", None), "kernel launch", "the stream")  # devices.py
    return q


def _dims(v):
    t = type(v)
    return (v, 1, 1) if t is int else (v.x, v.y, v.z) if t is dim3 else as_dim3(v)


class _Launch:
    """One launch configuration of a kernel, `k[grid, block, shared, stream]`:
    checked once, then called with the arguments (the <<<...>>> of CUDA)."""

    __slots__ = ("fn", "grid", "block", "shared", "stream", "desc")

    def __init__(self, fn, grid, block, shared=0, stream=None):
        try:
            g, b = _dims(grid), _dims(block)
        except (TypeError, ValueError) as exc:
            E.fail(E.cudaErrorInvalidValue, str(exc), "kernel launch")
        if min(g) < 0 or min(b) < 0 or max(g) > 0xFFFFFFFF or max(b) > 0xFFFFFFFF:
            E.fail(E.cudaErrorInvalidValue, f"grid {g} block {b} is out of range", "kernel launch")
        if type(shared) is not int:
            try:
                shared = operator.index(shared)
            except TypeError:
                E.fail(E.cudaErrorInvalidValue, "sharedMem must be an int", "kernel launch")
        if shared < 0 or shared > 0xFFFFFFFF:
            E.fail(E.cudaErrorInvalidValue, f"sharedMem {shared} is out of range", "kernel launch")
        if fn.max_threads < lib.PYEMU_MAX_THREADS_PER_BLOCK and b[0] * b[1] * b[2] > fn.max_threads:
            E.fail(E.cudaErrorInvalidValue, f"{fn.name} has __launch_bounds__({fn.max_threads}); "
                   f"block {b} has {b[0] * b[1] * b[2]} threads", "kernel launch")
        self.fn, self.grid, self.block, self.shared, self.stream = fn, g, b, shared, stream
        # what the core is handed on every call (pyemu_launch in pyemu_core.h)
        self.desc = ffi.new("pyemu_launch *", {
            "module": fn.module.handle, "kernel": fn.index, "grid": g, "block": b,
            "work_dim": 3, "dyn_smem": shared, "smem_limit": fn.max_dynamic_shared})

    def __call__(self, *args):
        fn = self.fn
        stream = self.stream
        queue = default_queue() if stream is None or stream == 0 else _queue_of(stream)
        data = fn.pack(args)
        status = lib.pyemu_enqueue_kernel(queue, self.desc, data, len(data), ffi.NULL, 0, ffi.NULL)
        if status:
            if status == lib.PYEMU_E_BAD_POINTER:      # the checked path names the argument
                fn._pack_checked(args)
                E.set_last(E.cudaErrorInvalidValue)
                raise KernelArgumentError(E.cudaErrorInvalidValue, _core.last_error(),
                                          "kernel launch")
            code = E.from_core(status)
            if status >= lib.PYEMU_E_ILLEGAL_ADDRESS:   # the sticky error of an earlier fault
                E.fail(code, _core.last_error(), "kernel launch")
            E.fail(code, f"{fn.name}<<<{self.grid}, {self.block}, {self.shared}>>>: "
                   f"{_core.last_error()}", "kernel launch")
        return cudaSuccess


def _Loaded(path) -> Loaded:
    """A loaded kernel module; released when the last SourceModule/Function goes."""
    try:
        return Loaded(path)
    except CoreError as exc:
        E.raise_core(exc, "cuModuleLoad")


class SourceModule:
    """SourceModule(source, options=[...], name_expressions=[...]): CUDA C++ compiled
    for the CPU (as PyCUDA's SourceModule and CuPy's RawModule).

    Template kernels are instantiated by name_expressions ("reduce<256>") and
    looked up by that string.  A compile error raises CompileError with the
    diagnostics at the user's line numbers.  PyCUDA's no_extern_c, arch, code
    and keep are accepted and have no effect."""

    def __init__(self, source, options=None, name_expressions=None, no_extern_c=False,
                 include_dirs=None, arch=None, code=None, keep=False, cache_dir=None,
                 name="kernel.cu"):
        opts = list(options or [])
        for d in include_dirs or []:
            opts.append(f"-I{d}")
        self.compiled = compile_source(source, dialect="cuda", options=opts,
                                       name_expressions=list(name_expressions or []),
                                       source_name=name)
        self._loaded = _Loaded(self.compiled.path)
        self.handle = self._loaded.handle
        self._functions = {}
        for i in range(self._loaded.count):
            fn = Function(self._loaded, i)
            self._functions[fn.name] = fn

    @property
    def kernel_names(self):
        return tuple(self._functions)

    def get_function(self, name) -> Function:
        """The kernel called `name` (cuModuleGetFunction); cudaErrorSymbolNotFound otherwise."""
        fn = self._functions.get(name)
        if fn is None:
            base = [f for n, f in self._functions.items() if n.split("<", 1)[0] == name]
            if len(base) == 1:
                return base[0]
            known = ", ".join(self._functions) or "none"
            E.set_last(E.cudaErrorSymbolNotFound)
            raise _MissingKernel(E.cudaErrorSymbolNotFound,
                                 f"no kernel '{name}' in the module (kernels: {known})",
                                 "get_function")
        return fn

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self.get_function(name)


class _MissingKernel(CudaError, AttributeError):
    pass


# ---- launch and function attributes through the runtime API ----

def cudaLaunchKernel(func, gridDim, blockDim, args=(), sharedMem=0, stream=0):
    """cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem=0, stream=0).

    `args` is the sequence of kernel arguments (C passes an array of pointers
    to them)."""
    if not isinstance(func, Function):
        E.fail(E.cudaErrorInvalidDeviceFunction, f"{func!r} is not a kernel", "cudaLaunchKernel")
    return func.launch(gridDim, blockDim, sharedMem, stream, tuple(args))


def cudaFuncGetAttributes(func) -> cudaFuncAttributes:
    """cudaFuncGetAttributes(func): what the device knows of a kernel."""
    if not isinstance(func, Function):
        E.fail(E.cudaErrorInvalidDeviceFunction, f"{func!r} is not a kernel", "cudaFuncGetAttributes")
    return cudaFuncAttributes(maxThreadsPerBlock=func.max_threads,
                              maxDynamicSharedSizeBytes=func.max_dynamic_shared,
                              preferredShmemCarveout=getattr(func, "shmem_carveout", -1))


def cudaFuncSetAttribute(func, attr, value):
    """cudaFuncSetAttribute(func, attr, value): cudaFuncAttributeMaxDynamicSharedMemorySize
    raises the dynamic shared memory a launch may ask for, up to the opt-in limit."""
    if not isinstance(func, Function):
        E.fail(E.cudaErrorInvalidDeviceFunction, f"{func!r} is not a kernel", "cudaFuncSetAttribute")
    try:
        a = cudaFuncAttribute(int(attr))
        v = int(value)
    except (TypeError, ValueError):
        E.fail(E.cudaErrorInvalidValue, f"attribute {attr!r} = {value!r}", "cudaFuncSetAttribute")
    if a == cudaFuncAttribute.cudaFuncAttributeMaxDynamicSharedMemorySize:
        if not 0 <= v <= lib.PYEMU_MAX_SHARED_OPTIN:
            E.fail(E.cudaErrorInvalidValue,
                   f"{v} is over the opt-in limit of {lib.PYEMU_MAX_SHARED_OPTIN} bytes",
                   "cudaFuncSetAttribute")
        func.max_dynamic_shared = v
    else:
        if not -1 <= v <= 100:
            E.fail(E.cudaErrorInvalidValue, f"carveout {v} is not a percentage",
                   "cudaFuncSetAttribute")
        func.shmem_carveout = v
    return cudaSuccess


__all__ = ["SourceModule", "Function", "CompileError", "KernelArgumentError", "cudaLaunchKernel",
           "cudaFuncGetAttributes", "cudaFuncSetAttribute"]
