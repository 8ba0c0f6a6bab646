"""SourceModule, kernel functions and launches: `k[grid, block](args)`.

A kernel's parameters are the ones its C++ declaration has: the compiler
reports their types, and each launch converts the Python arguments to them
(an int that does not fit, a float for an int, host memory for a pointer:
all raise before anything runs).  Launches are asynchronous, as in CUDA.
"""
from __future__ import annotations

import ctypes
import operator
from struct import error as _struct_error

from ..runtime import core as _core
from ..runtime.args import MEMORY, Packer, fast_test
from ..runtime.kernel import PARAM_FLOAT, PARAM_POINTER, PARAM_SIGNED, PARAM_UNSIGNED
from ..runtime.core import CoreError, ffi, lib
from ..runtime.kernel import Param  # noqa: F401 (re-exported)
from ..runtime.kernel import KernelDesc, Loaded
from ..runtime.launch import Launches, describe, max_threads
from ..compiler import CompileError, compile_source
from . import _errors as E
from ._errors import CudaError, cudaSuccess
from ._memory import DevicePointer, device_address, is_device_address
from ._types import as_dim3, cudaFuncAttribute, cudaFuncAttributes, dim3
from .runtime import default_queue
from .devices import same_device as _same_device
from .stream import cudaStream_t
from .stream import queue_of as _stream_queue


class KernelArgumentError(CudaError, TypeError, ValueError):
    """A kernel argument that cannot become its parameter (cudaErrorInvalidValue)."""


def _pointer(v, bad):
    """The device address a pointer argument stands for (runtime/args.py's
    `pointer`): a DevicePointer, an int address, managed memory or None."""
    addr = device_address(v)
    if addr is None:
        if v is None:
            return 0
        try:
            memoryview(v)
        except TypeError:
            bad(MEMORY, f"is a pointer; got {type(v).__name__}")
        bad(MEMORY, f"is host memory ({type(v).__name__}); copy it to the device with "
            "cudaMemcpy first and pass the device pointer")
    if addr and not is_device_address(addr) and not lib.pyemu_hostreg_contains(addr):
        bad(MEMORY, f"is a pointer; 0x{addr:x} is not device memory")
    return addr


_DEFAULT_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)   # void (*)(void *out)


class Function:
    """A __global__ function of a SourceModule (PyCUDA's Function, CUDA's kernel).

    Launch it as `k[grid, block](args)`, `k[grid, block, sharedBytes](args)`
    or `k[grid, block, sharedBytes, stream](args)`: the <<<...>>> of CUDA.
    The arguments are converted by runtime/args.py's Packer; a value that
    cannot become its parameter raises KernelArgumentError
    (cudaErrorInvalidValue) naming the argument."""

    def __init__(self, module, index):
        self.module = module
        self.index = index
        self.desc = desc = KernelDesc(module, index)
        self.name = desc.name
        self.args_size = desc.args_size
        # __launch_bounds__(maxThreadsPerBlock): a bigger block is refused, as on a GPU
        self.max_threads = max_threads(desc)
        self.params = desc.params
        self.static_shared = desc.static_smem
        self._max_dynamic_shared = lib.PYEMU_MAX_SHARED_PER_BLOCK
        self._packer = Packer(desc, DevicePointer)
        self._make_call = _launcher(self)
        self._launches = Launches()   # launch configuration -> its call, checked once

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

    def _bad(self, i, reason, msg):
        """runtime/args.py's error callback: every reason is cudaErrorInvalidValue."""
        if i < 0:
            sig = ", ".join(p.type_name for p in self.params)
            detail = f"{self.name} takes {len(self.params)} argument(s) ({sig}), {msg}"
        else:
            detail = f"argument {i + 1} of {self.name} ({self.params[i].type_name}) {msg}"
        E.set_last(E.cudaErrorInvalidValue)
        raise KernelArgumentError(E.cudaErrorInvalidValue, detail, "kernel launch")

    def pack(self, args) -> bytes:
        """The kernel's argument buffer for `args`, as the C ABI lays it out."""
        return self._packer.pack(args, _pointer, self._bad)

    def _pack_checked(self, args) -> bytes:
        if len(args) < len(self.params):
            data = self._with_defaults(args)
            if data is not None:
                return data
        return self._packer.pack_checked(args, _pointer, self._bad)

    def _with_defaults(self, args):
        """The buffer of a launch that leaves out trailing parameters with C++
        default arguments (`int *partial_sums = NULL`), as nvcc's <<<>>> fills
        them in: the module evaluates each default at each launch, as C++ does
        at each call (compiler/driver.py's pyemu_default_<kernel>_<parameter>);
        None when a parameter left out has none."""
        fns = self._default_fns()
        missing = range(len(args), len(self.params))
        if any(fns.get(i) is None for i in missing):
            bad = [i for i in missing if i in fns and fns[i] is None]
            if bad and all(i in fns for i in missing):
                i = bad[0]
                self._bad(-1, "", f"{len(args)} given: the default argument of parameter "
                          f"{i + 1} ({self.params[i].type_name}) is ill-formed for this "
                          "instance of the template, so a launch must pass it")
            return None
        holders = tuple(None if p.kind == PARAM_POINTER else 0.0 if p.kind == PARAM_FLOAT
                        else 0 if p.kind in (PARAM_SIGNED, PARAM_UNSIGNED) else bytes(p.size)
                        for p in self.params[len(args):])
        data = bytearray(self._packer.pack_checked(tuple(args) + holders, _pointer, self._bad))
        for i in missing:
            p = self.params[i]
            out = ctypes.create_string_buffer(max(p.size, 1))
            fns[i](out)
            data[p.offset:p.offset + p.size] = out.raw[:p.size]
        return bytes(data)

    def _default_fns(self) -> dict:
        """{parameter: the module's function that writes its default, or None
        where the default is ill-formed for this template instance}, read once
        from this module instance's symbol table (csrc/symbols.c)."""
        fns = self.__dict__.get("_defaults")
        if fns is None:
            fns, prefix = {}, f"pyemu_default_{self.index}_"
            count = ffi.new("unsigned int *")
            _core.check(lib.pyemu_module_symbol_count(self.module.handle, count))
            view = ffi.new("pyemu_symbol_view *")
            for j in range(count[0]):
                _core.check(lib.pyemu_module_symbol(self.module.handle, j, view))
                name = ffi.string(view.name).decode("latin-1")
                if name.startswith(prefix) and name[len(prefix):].isdigit():
                    addr = ctypes.c_void_p.from_address(int(view.addr)).value
                    # null: the default is ill-formed for this template instance
                    fns[int(name[len(prefix):])] = _DEFAULT_FN(addr) if addr else None
            self.__dict__["_defaults"] = fns
        return fns

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
            E.fail(E.cudaErrorInvalidValue, "launch as kernel[grid, block], kernel[grid, block, "
                   "sharedBytes] or kernel[grid, block, sharedBytes, stream]", "kernel launch")
        launch = _Launch(self, *config).call
        # configurations of ints, tuples and dim3s on the default stream or on
        # a cudaStream_t (by identity: the call looks its queue up each time,
        # so a destroyed stream still fails) are kept; a dim3 by its values
        # (it can change after the launch), under a key that a configuration
        # with a dim3 of those values finds again (dim3 hashes and compares
        # as its (x, y, z) tuple)
        if (len(config) < 4 or config[3] is None or type(config[3]) is int and config[3] == 0
                or type(config[3]) is cudaStream_t) and all(
                type(c) is int or type(c) is tuple or type(c) is dim3 for c in config[:3]):
            key = tuple((c.x, c.y, c.z) if type(c) is dim3 else c for c in config)
            self._launches.remember(key, launch)
        return launch

    def __call__(self, *args, grid=(1, 1, 1), block=(1, 1, 1), shared=0, stream=None):
        """PyCUDA's form: k(args..., grid=..., block=..., shared=0, stream=None)."""
        return self.launch(grid, block, shared, stream, args)


def _queue_of(stream):
    """The engine queue of a launch's stream (pyemu/cuda/stream.py decides:
    0/None the default stream, cudaStreamLegacy, cudaStreamPerThread, a live stream)."""
    q = _stream_queue(stream, "kernel launch")
    _same_device(getattr(stream, "device", None), "kernel launch", "the stream")  # devices.py
    return q


def _dims(v):
    t = type(v)
    return (v, 1, 1) if t is int else (v.x, v.y, v.z) if t is dim3 else as_dim3(v)


# The call of a launch configuration, `k[grid, block](args)`, written once per
# kernel: the packer's fast path inlined (runtime/args.py: Packer.pack, with
# the kernel's own type tests) and everything it uses held in closure cells.
# It costs about a microsecond less than the same steps as method calls.
_LAUNCHER = """
def make(launch, stream, desc):
    def call(*args):
        if {test}:
            try:
                data = pack(*args)
            except fast_errors:
                data = slow(args)
        else:
            data = slow(args)
        status = enqueue(default_queue() if stream is None else queue_of(stream), desc,
                         data, len(data), NULL, 0, NULL)
        if status:
            launch.failed(status, args)
        return SUCCESS
    call.launch = launch
    return call
"""


def _launcher(fn):
    """make(launch, stream, desc) -> the call of one launch configuration of fn."""
    scope = {"P": DevicePointer, "pack": fn._packer.struct.pack, "slow": fn._pack_checked,
             "fast_errors": (_struct_error, OverflowError, TypeError, ValueError), "enqueue": lib.pyemu_enqueue_kernel,
             "default_queue": default_queue, "queue_of": _queue_of, "NULL": ffi.NULL,
             "SUCCESS": cudaSuccess}
    exec(_LAUNCHER.format(test=fast_test(fn.params)), scope)  # noqa: S102 - our own text
    return scope["make"]


class _Launch:
    """One launch configuration of a kernel, `k[grid, block, shared, stream]`:
    checked once; `call` (the <<<...>>> of CUDA) takes the arguments."""

    __slots__ = ("fn", "grid", "block", "shared", "stream", "desc", "call")

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
        if stream is not None and isinstance(stream, int) and stream == 0:
            stream = None     # stream 0: the legacy default stream
        self.fn, self.grid, self.block, self.shared, self.stream = fn, g, b, shared, stream
        # what the core is handed on every call (pyemu_launch in pyemu_core.h)
        self.desc = describe(fn.desc, g, b, dyn_smem=shared, smem_limit=fn.max_dynamic_shared)
        self.call = fn._make_call(self, stream, self.desc)

    def __call__(self, *args):
        return self.call(*args)

    def failed(self, status, args):
        """Raise the CudaError of a launch the core refused with `status`."""
        fn = self.fn
        if status == lib.PYEMU_E_BAD_POINTER:      # the checked path names the argument
            fn._pack_checked(args)
            E.set_last(E.cudaErrorInvalidValue)
            raise KernelArgumentError(E.cudaErrorInvalidValue, _core.last_error(),
                                      "kernel launch")
        code = E.from_core(status)
        if status >= lib.PYEMU_E_ILLEGAL_ADDRESS:   # the sticky error of an earlier fault
            E.fail(code, E.in_cuda_words(_core.last_error()), "kernel launch")
        E.fail(code, f"{fn.name}<<<{self.grid}, {self.block}, {self.shared}>>>: "
               f"{_core.last_error()}", "kernel launch")


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
        if not isinstance(source, (str, bytes)):
            E.fail(E.cudaErrorInvalidValue, f"the source is {type(source).__name__}, not a "
                   "string", "SourceModule")
        opts = _strings(options, "options")
        for d in _strings(include_dirs, "include_dirs"):
            opts.append(f"-I{d}")
        name_expressions = _strings(name_expressions, "name_expressions")
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
        if isinstance(name, bytes):
            name = name.decode("utf-8", "replace")
        if not isinstance(name, str):
            E.fail(E.cudaErrorInvalidValue, f"the kernel name is {type(name).__name__}, not a "
                   "string", "get_function")
        fn = self._functions.get(name)
        if fn is None:
            base = [f for n, f in self._functions.items() if n.split("<", 1)[0] == name]
            if len(base) == 1:
                return base[0]
            known = ", ".join(self._functions) or "none"
            base = name.split("<", 1)[0].strip()
            hint = ""
            if f"kernel template '{base}' has no instances" in (self.compiled.log or ""):
                hint = (f"; '{base}' is a kernel template without instances: name them "
                        f"with SourceModule(..., name_expressions=['{base}<...>']), as "
                        "nvrtcAddNameExpression does")
            E.set_last(E.cudaErrorSymbolNotFound)
            raise _MissingKernel(E.cudaErrorSymbolNotFound,
                                 f"no kernel '{name}' in the module (kernels: {known}){hint}",
                                 "get_function")
        return fn

    def get_global(self, name):
        """PyCUDA's get_global(name) (cuModuleGetGlobal): `(pointer, size)` of a
        file-scope __device__ or __constant__ variable, as a DeviceSymbol, which
        is also the symbol argument of cudaMemcpyToSymbol and its relatives
        (pyemu/cuda/symbols.py)."""
        from .symbols import get_global
        return get_global(self, name)

    def get_texref(self, name):
        """PyCUDA's get_texref(name) (cuModuleGetTexRef): the module's file-scope
        `texture<T, dim, readMode> name;` as a textureReference to set and bind
        (pyemu/cuda/texref.py); cudaErrorInvalidTexture when there is none."""
        from .texref import texref_of
        return texref_of(self, name)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self.get_function(name)


def _strings(values, what) -> list:
    """SourceModule's list arguments (options, include_dirs, name_expressions)
    as a list of str; cudaErrorInvalidValue for anything else."""
    if values is None:
        return []
    if isinstance(values, (str, bytes)):
        values = [values]
    try:
        items = list(values)
    except TypeError:
        items = None
    if items is None or not all(isinstance(v, (str, bytes)) for v in items):
        E.fail(E.cudaErrorInvalidValue, f"{what} must be a list of strings, not {values!r}",
               "SourceModule")
    return [v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in items]


class _MissingKernel(CudaError, AttributeError):
    pass


# ---- launch and function attributes through the runtime API ----

def _check_kernel(func, call) -> None:
    """func must be a kernel: NULL is cudaErrorInvalidDeviceFunction, any other
    value (a host function) cudaErrorInvalidResourceHandle, as CUDA 13 on an
    H100 answers (tests/data/ground_truth: cudaLaunchKernel_host_func,
    func_get_attributes_host_fn)."""
    if not isinstance(func, Function):
        if func is None or (type(func) is int and func == 0):
            E.fail(E.cudaErrorInvalidDeviceFunction, "func is NULL", call)
        E.fail(E.cudaErrorInvalidResourceHandle, f"{func!r} is not a kernel", call)


def cudaLaunchKernel(func, gridDim, blockDim, args=(), sharedMem=0, stream=0):
    """cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem=0, stream=0).

    `args` is the sequence of kernel arguments (C passes an array of pointers
    to them)."""
    _check_kernel(func, "cudaLaunchKernel")
    if args is None:
        args = ()
    try:
        args = tuple(args)
    except TypeError:
        E.fail(E.cudaErrorInvalidValue, f"args is {type(args).__name__}, not a sequence of the "
               "kernel's arguments", "cudaLaunchKernel")
    return func.launch(gridDim, blockDim, sharedMem, stream, args)


def cudaFuncGetAttributes(func) -> cudaFuncAttributes:
    """cudaFuncGetAttributes(func): what the device knows of a kernel."""
    _check_kernel(func, "cudaFuncGetAttributes")
    return cudaFuncAttributes(sharedSizeBytes=func.static_shared,
                              maxThreadsPerBlock=func.max_threads,
                              maxDynamicSharedSizeBytes=func.max_dynamic_shared,
                              preferredShmemCarveout=getattr(func, "shmem_carveout", -1))


def cudaFuncSetAttribute(func, attr, value):
    """cudaFuncSetAttribute(func, attr, value): cudaFuncAttributeMaxDynamicSharedMemorySize
    raises the dynamic shared memory a launch may ask for, up to the opt-in limit."""
    _check_kernel(func, "cudaFuncSetAttribute")
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
