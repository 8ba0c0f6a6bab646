"""What both facades share about a compiled kernel module: loading it into
the core, reading its kernels and their parameters, and laying out an
argument buffer.

The compiler reports each kernel parameter's kind, size, alignment and byte
offset in the packed argument buffer (include/pyemu/abi.h); `KernelDesc`
reads them once and builds the struct.Struct that packs the buffer.  What a
Python value may become is args.py's (one converter; each facade maps its
reasons to its own error codes): pyemu.cuda.module converts a whole
launch's arguments, pyemu.opencl.kernel one clSetKernelArg at a time.
"""
from __future__ import annotations

import struct

from . import core as _core
from .core import ffi, lib

PARAM_SIGNED, PARAM_UNSIGNED, PARAM_FLOAT, PARAM_POINTER, PARAM_STRUCT = 1, 2, 3, 4, 5
INT_CODES = {(1, 1): "b", (1, 2): "h", (1, 4): "i", (1, 8): "q",
             (2, 1): "B", (2, 2): "H", (2, 4): "I", (2, 8): "Q"}
FLOAT_CODES = {2: "e", 4: "f", 8: "d"}


class Loaded:
    """A kernel module loaded into the core (pyemu_module_load); the core's
    reference goes when the last Python holder does.  Raises CoreError."""

    def __init__(self, path):
        _core.ensure_started()
        h = ffi.new("pyemu_module **")
        _core.check(lib.pyemu_module_load(path.encode(), h))
        self.handle = h[0]
        count = ffi.new("unsigned int *")
        _core.check(lib.pyemu_module_kernel_count(self.handle, count))
        self.count = count[0]

    def __del__(self):
        if getattr(self, "handle", None) is not None and lib is not None:
            lib.pyemu_module_release(self.handle)
            self.handle = None


class Param:
    """One kernel parameter as the compiler reported it."""

    __slots__ = ("type_name", "kind", "size", "align", "offset", "flags", "is_bool")

    def __init__(self, view):
        self.type_name = ffi.string(view.type_name).decode()
        self.is_bool = self.type_name == "bool"
        self.kind, self.size, self.align = view.kind, view.size, view.align
        self.offset, self.flags = view.offset, view.flags

    def __repr__(self):
        return f"Param({self.type_name!r}, size={self.size}, offset={self.offset})"


def code_of(p) -> str:
    """The struct format of one parameter's value."""
    if p.kind == PARAM_POINTER:
        return "Q" if p.size == 8 else "I"
    if p.kind == PARAM_FLOAT:
        return FLOAT_CODES[p.size]
    if p.kind in (PARAM_SIGNED, PARAM_UNSIGNED):
        return INT_CODES[(p.kind, p.size)]
    return f"{p.size}s"


class KernelDesc:
    """Kernel `index` of a loaded module: its name, parameters, argument buffer
    size, reqd_work_group_size, __launch_bounds__, and `struct`, the
    struct.Struct that packs one value per parameter into the buffer (a
    parameter whose size no scalar format has is packed as bytes, kind
    PARAM_STRUCT)."""

    def __init__(self, loaded: Loaded, index: int):
        self.loaded = loaded
        self.index = index
        view = ffi.new("pyemu_kernel_view *")
        _core.check(lib.pyemu_module_kernel(loaded.handle, index, view))
        self.name = ffi.string(view.name).decode()
        self.args_size = view.args_size
        self.reqd_block = tuple(view.reqd_block)
        self.launch_bounds = view.max_threads       # 0 when none
        self.static_smem = view.static_smem         # static __shared__ / __local bytes
        self.params = []
        pview = ffi.new("pyemu_param_view *")
        for j in range(view.nparams):
            _core.check(lib.pyemu_module_param(loaded.handle, index, j, pview))
            self.params.append(Param(pview))
        self.struct = layout(self.name, self.params, self.args_size)

    def bytes_struct(self) -> struct.Struct:
        """A struct.Struct that takes every parameter as bytes of its size."""
        return _packer(self.name, self.params, self.args_size, lambda p: f"{p.size}s")


def layout(name, params, args_size) -> struct.Struct:
    """The struct.Struct of an argument buffer; fixes up the kind of a
    parameter no scalar format fits to PARAM_STRUCT."""
    for p in params:
        if not (p.kind == PARAM_POINTER
                or p.kind in (PARAM_SIGNED, PARAM_UNSIGNED) and (p.kind, p.size) in INT_CODES
                or p.kind == PARAM_FLOAT and p.size in FLOAT_CODES):
            p.kind = PARAM_STRUCT
    return _packer(name, params, args_size, code_of)


def _packer(name, params, args_size, code) -> struct.Struct:
    """Each parameter's format code(p) at its offset, padding between, to args_size."""
    fmt, end = "<", 0
    for p in params:
        if p.offset < end:
            raise RuntimeError(f"bad parameter layout for {name}")
        fmt += "x" * (p.offset - end) + code(p)
        end = p.offset + p.size
    return struct.Struct(fmt + "x" * (args_size - end))
