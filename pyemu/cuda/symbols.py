"""__device__ and __constant__ variables seen from the host: cudaMemcpyToSymbol,
cudaMemcpyFromSymbol (and their Async forms), cudaGetSymbolAddress,
cudaGetSymbolSize, and PyCUDA's SourceModule.get_global.

How a symbol is named.  In C++ the host passes the variable itself
(`cudaMemcpyToSymbol(coeffs, h, n)`); Python has no such name, so a symbol
is what `mod.get_global("coeffs")` returns: a DeviceSymbol, which unpacks as
PyCUDA's `(pointer, size)` pair and is also the `symbol` argument of the
runtime calls:

    coeffs = mod.get_global("coeffs")
    cudaMemcpyToSymbol(coeffs, h_coeffs, h_coeffs.nbytes)
    ptr, size = coeffs

A string, a device pointer or anything else is not a symbol: the calls give
cudaErrorInvalidSymbol, as CUDA does for an address that is no variable
(strings as symbols were removed in CUDA 5).  Names are looked up as
written in the source, qualified for namespaces (`"ns::coef"`), with
template arguments as C++ spells them (`"table<float>"`); the mangled name
works too.

Every variable is one instance per loaded module (as per module and device
on a GPU), zeroed or from its initialiser; it keeps its value across
cudaDeviceReset (a GPU re-initialises it).  A variable declared `const`
lives in read-only memory and g++ folds its reads into the code, so it has
no device address and cannot be written: get_global gives
cudaErrorInvalidSymbol for it, naming the reason.

A symbol's device address (get_global, cudaGetSymbolAddress) is the
module's data mapped a second time into device memory, sharing its pages
(csrc/symbols.c): the first call waits for the device, and from then on the
module's data pages are shared memory, so a process forked afterwards shares
them with its parent.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import threading
import weakref

import numpy as np

from ..runtime import core as _core
from ..runtime import holds as _holds
from ..runtime import sync as _sync
from ..runtime import views as _views
from ..runtime.core import CoreError, ffi, lib
from . import _errors as E
from ._errors import cudaSuccess
from ._memory import DevicePointer
from ._types import (cudaMemcpyDefault, cudaMemcpyDeviceToDevice, cudaMemcpyDeviceToHost,
                     cudaMemcpyHostToDevice, cudaMemcpyKind)
from . import runtime as _rt

_lock = threading.Lock()

# ---- demangling (libstdc++'s own demangler: the names g++ wrote) ----

_cxa = None


def _demangle(raw: str) -> str:
    global _cxa
    if not raw.startswith("_Z"):
        return raw
    if _cxa is None:
        try:
            lib_ = ctypes.CDLL(ctypes.util.find_library("stdc++") or "libstdc++.so.6")
            fn = lib_.__cxa_demangle
            fn.restype = ctypes.c_void_p
            fn.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p,
                           ctypes.POINTER(ctypes.c_int)]
            free = ctypes.CDLL(None).free
            free.argtypes = [ctypes.c_void_p]
            _cxa = (fn, free)
        except (OSError, AttributeError):
            _cxa = False
    if not _cxa:
        return raw
    fn, free = _cxa
    status = ctypes.c_int(0)
    p = fn(raw.encode(), None, None, ctypes.byref(status))
    if not p or status.value != 0:
        return raw
    try:
        return ctypes.string_at(p).decode("latin-1")
    finally:
        free(p)


def _internal(name: str) -> bool:
    """pyemu's own variables in every module (kernel tables, the core's API)."""
    return name.startswith("pyemu") or "pyemu_entry::" in name or name == "completed.0"


# ---- the symbols of one loaded module ----

class _Symbols:
    """The variables of one loaded module, and its data mapped as device memory."""

    def __init__(self, loaded):
        self.loaded = loaded           # keeps the module loaded while a symbol lives
        self.by_name = {}
        self.mapping = None            # (generation, alloc, host_lo, dev_lo, len)
        self.state = [None, 0]         # (generation, alloc) for the finalizer
        h = loaded.handle
        count = ffi.new("unsigned int *")
        _core.check(lib.pyemu_module_symbol_count(h, count))
        view = ffi.new("pyemu_symbol_view *")
        for i in range(count[0]):
            _core.check(lib.pyemu_module_symbol(h, i, view))
            raw = ffi.string(view.name).decode("latin-1")
            entry = (raw, int(view.addr), int(view.size), int(view.flags))
            nice = _demangle(raw)
            for key in (nice, raw, nice.replace("(anonymous namespace)::", "")):
                self.by_name.setdefault(key, entry)
        weakref.finalize(loaded, _free_alias, self.state)

    def names(self):
        return sorted({_demangle(e[0]) for e in self.by_name.values()
                       if not _internal(_demangle(e[0]))})

    def device_address(self, host_addr: int, call: str) -> DevicePointer:
        """The device address of the module's byte at host_addr (mapping the data once
        per device generation)."""
        with _lock:
            gen = _views.generation()
            if self.mapping is None or self.mapping[0] != gen:
                if self.mapping is None:
                    _sync.wait_device()   # no kernel of the module may run while its data moves
                out = [ffi.new("unsigned long long *") for _ in range(4)]
                try:
                    _core.check(lib.pyemu_module_map_data(self.loaded.handle, *out))
                except CoreError as exc:
                    E.raise_core(exc, call)
                host_lo, length, alloc, dev_lo = (o[0] for o in out)
                self.mapping = (gen, alloc, host_lo, dev_lo, length)
                self.state[0], self.state[1] = gen, alloc
            _, _, host_lo, dev_lo, length = self.mapping
        if not host_lo <= host_addr < host_lo + length:
            E.fail(E.cudaErrorInvalidSymbol, "the variable is not in the module's writable data",
                   call)
        return DevicePointer(dev_lo + host_addr - host_lo)


def _free_alias(state):
    gen, alloc = state
    if alloc and gen == _views.generation() and lib is not None:
        lib.pyemu_mem_free(alloc, b"module unload")


def _symbols_of(module) -> _Symbols:
    table = module.__dict__.get("_pyemu_symbols")
    if table is None:
        with _lock:
            table = module.__dict__.get("_pyemu_symbols")
            if table is None:
                table = _Symbols(module._loaded)
                module.__dict__["_pyemu_symbols"] = table
    return table


class DeviceSymbol(tuple):
    """A __device__ or __constant__ variable: what SourceModule.get_global returns.

    Unpacks as PyCUDA's `(pointer, size)`: `pointer` is its device address
    (cudaGetSymbolAddress), `size` its bytes (cudaGetSymbolSize).  It is the
    `symbol` argument of cudaMemcpyToSymbol and its relatives, and keeps its
    module loaded."""

    def __new__(cls, table, name, raw, host, size, flags, ptr):
        self = super().__new__(cls, (ptr, size))
        self._table, self.name, self.mangled = table, name, raw
        self._host, self.size, self.flags = host, size, flags
        return self

    @property
    def ptr(self) -> DevicePointer:
        return self[0]

    @property
    def is_constant(self) -> bool:
        """Declared __constant__ (counted in the module's 64 KiB)."""
        return bool(self.flags & lib.PYEMU_SYM_CONSTANT)

    def __repr__(self):
        kind = "__constant__" if self.is_constant else "__device__"
        return f"<{kind} {self.name}: {self.size} bytes at {self[0]!r}>"


def get_global(module, name) -> DeviceSymbol:
    """SourceModule.get_global(name): PyCUDA's (pointer, size) of a file-scope
    __device__ or __constant__ variable, as a DeviceSymbol (cuModuleGetGlobal).

    An unknown name gives cudaErrorSymbolNotFound (cuModuleGetGlobal's
    CUDA_ERROR_NOT_FOUND), as get_function does; a const variable
    cudaErrorInvalidSymbol."""
    call = "get_global"
    if not isinstance(name, str):
        E.fail(E.cudaErrorInvalidValue, f"a symbol name is a str, not {type(name).__name__}", call)
    table = _symbols_of(module)
    entry = table.by_name.get(name) or table.by_name.get(name.strip().lstrip(":"))
    if entry is None:
        known = ", ".join(table.names()) or "none"
        E.fail(E.cudaErrorSymbolNotFound,
               f"no __device__ or __constant__ variable '{name}' in the module (variables: "
               f"{known}); a static or anonymous-namespace __device__ variable that no kernel "
               "writes is folded away by g++: declare it without static", call)
    raw, host, size, flags = entry
    if flags & lib.PYEMU_SYM_READONLY:
        E.fail(E.cudaErrorInvalidSymbol,
               f"'{name}' is declared const: g++ placed it in read-only memory and folds its "
               "reads into the kernels, so it has no device address and cannot be set from the "
               "host (declare it without const)", call)
    ptr = table.device_address(host, call)
    return DeviceSymbol(table, name, raw, host, size, flags, ptr)


# ---- the runtime calls ----

def _symbol(symbol, call) -> DeviceSymbol:
    if isinstance(symbol, DeviceSymbol):
        return symbol
    if isinstance(symbol, (str, bytes)):
        hint = f"a name is not a symbol: pass mod.get_global({symbol!r})"
    else:
        hint = (f"{type(symbol).__name__} is not a symbol: pass what mod.get_global(name) "
                "returns")
    E.fail(E.cudaErrorInvalidSymbol, hint, call)


def _count(value, call, what):
    """A size_t argument: an int (not a bool, a float or a string), at least 0."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        E.fail(E.cudaErrorInvalidValue, f"{what} must be an int, not {type(value).__name__}", call)
    n = int(value)
    if not 0 <= n < 1 << 64:
        E.fail(E.cudaErrorInvalidValue, f"{what} {n} is not a size_t", call)
    return n


def _kind(kind, allowed, call):
    try:
        k = cudaMemcpyKind(int(kind))
    except (TypeError, ValueError, OverflowError):
        E.fail(E.cudaErrorInvalidMemcpyDirection, f"kind {kind!r} is not a cudaMemcpyKind", call)
    if k not in allowed:
        names = " or ".join(a.name for a in allowed)
        E.fail(E.cudaErrorInvalidMemcpyDirection, f"{k.name}: this copy takes {names}", call)
    return k


def _queue(stream, call):
    if stream is None or (isinstance(stream, int) and not isinstance(stream, bool) and stream == 0):
        return _rt.default_queue()
    q = getattr(stream, "_queue", None)
    if q is None:
        E.fail(E.cudaErrorInvalidResourceHandle, f"{stream!r} is not a stream", call)
    return q


def _copy(to_symbol, symbol, other, count, offset, kind, stream, call, blocking):
    sym = _symbol(symbol, call)
    n = _count(count, call, "count")
    off = _count(offset, call, "offset")
    if to_symbol:
        k = _kind(kind, (cudaMemcpyHostToDevice, cudaMemcpyDeviceToDevice, cudaMemcpyDefault), call)
        side = {cudaMemcpyHostToDevice: "host", cudaMemcpyDeviceToDevice: "device"}.get(k)
    else:
        k = _kind(kind, (cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault), call)
        side = {cudaMemcpyDeviceToHost: "host", cudaMemcpyDeviceToDevice: "device"}.get(k)
    if side is None:
        side = "device" if _rt._is_device(other) else "host"
    queue = _queue(stream, call)
    E.check_sticky(call)
    if n == 0:
        return cudaSuccess          # as CUDA: nothing to copy, even at an offset past the end
    if off + n > sym.size:
        E.fail(E.cudaErrorInvalidValue, f"{n} bytes at offset {off} run past the end of "
               f"'{sym.name}' ({sym.size} bytes)", call)
    mem = ffi.cast("void *", sym._host + off)
    p = _rt._resolve(other, n, side, not to_symbol, call, "src" if to_symbol else "dst")
    dst, src = (mem, p) if to_symbol else (p, mem)
    ev = ffi.new("pyemu_cmd **")
    try:
        _core.check(lib.pyemu_enqueue_copy(queue, dst, src, n, ffi.NULL, 0, ev))
    except CoreError as exc:
        E.raise_core(exc, call)
    if blocking:
        _sync.wait_command(ev[0])
        lib.pyemu_cmd_release(ev[0])
        _rt._after_wait(call)
    else:
        # the host buffer and the module stay alive until the copy has run
        _holds.hold(ev[0], (other, p, sym._table))
        lib.pyemu_cmd_release(ev[0])
    return cudaSuccess


def cudaMemcpyToSymbol(symbol, src, count, offset=0, kind=cudaMemcpyHostToDevice):
    """cudaMemcpyToSymbol(symbol, src, count, offset=0, kind=cudaMemcpyHostToDevice):
    copy `count` bytes from `src` to the variable, `offset` bytes into it.

    `symbol` is what mod.get_global("name") returns (a string or a pointer
    gives cudaErrorInvalidSymbol); kind is cudaMemcpyHostToDevice,
    cudaMemcpyDeviceToDevice or cudaMemcpyDefault, others give
    cudaErrorInvalidMemcpyDirection; offset + count past the variable's size
    gives cudaErrorInvalidValue.  Waits for the copy, as CUDA does."""
    return _copy(True, symbol, src, count, offset, kind, None, "cudaMemcpyToSymbol", True)


def cudaMemcpyFromSymbol(dst, symbol, count, offset=0, kind=cudaMemcpyDeviceToHost):
    """cudaMemcpyFromSymbol(dst, symbol, count, offset=0, kind=cudaMemcpyDeviceToHost):
    copy `count` bytes of the variable, from `offset` bytes into it, to `dst`.

    kind is cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice or
    cudaMemcpyDefault; the errors are cudaMemcpyToSymbol's."""
    return _copy(False, symbol, dst, count, offset, kind, None, "cudaMemcpyFromSymbol", True)


def cudaMemcpyToSymbolAsync(symbol, src, count, offset=0, kind=cudaMemcpyHostToDevice, stream=0):
    """cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, stream=0): the copy
    of cudaMemcpyToSymbol, queued on `stream` (0/None: the default stream, or a
    stream object); returns at once.  `src` is kept alive until the copy ran.

    Differs from CUDA 13 on an H100, which accepts a count past the
    variable's end here and writes past it: pyemu gives cudaErrorInvalidValue."""
    return _copy(True, symbol, src, count, offset, kind, stream, "cudaMemcpyToSymbolAsync", False)


def cudaMemcpyFromSymbolAsync(dst, symbol, count, offset=0, kind=cudaMemcpyDeviceToHost,
                              stream=0):
    """cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, stream=0): the copy
    of cudaMemcpyFromSymbol, queued on `stream`; returns at once."""
    return _copy(False, symbol, dst, count, offset, kind, stream, "cudaMemcpyFromSymbolAsync",
                 False)


def cudaGetSymbolAddress(symbol) -> DevicePointer:
    """cudaGetSymbolAddress(symbol): the variable's device address (the C output
    parameter devPtr, returned).  A device pointer like any other: pass it to
    kernels, cudaMemcpy, cudaMemset; it aliases the variable the kernels read."""
    sym = _symbol(symbol, "cudaGetSymbolAddress")
    E.check_sticky("cudaGetSymbolAddress")
    return sym._table.device_address(sym._host, "cudaGetSymbolAddress")


def cudaGetSymbolSize(symbol) -> int:
    """cudaGetSymbolSize(symbol): the variable's size in bytes (the C output
    parameter size, returned)."""
    sym = _symbol(symbol, "cudaGetSymbolSize")
    return sym.size


__all__ = ["DeviceSymbol", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol",
           "cudaMemcpyToSymbolAsync", "cudaMemcpyFromSymbolAsync", "cudaGetSymbolAddress",
           "cudaGetSymbolSize"]
