"""What a built module says about itself, read back after g++ built it.

Some facts about a kernel are only known once g++ has compiled it: the
values of its attributes (`reqd_work_group_size(BS*2, 1, 1)` is an integer
constant expression, which g++ evaluates; the driver puts each one into the
module, in the exported array pyemu_attr_values) and the size of its static
shared memory (laid out when the module is loaded, include/pyemu/detail/
smem.h).  read_module() loads the module (its static initialisation only:
nothing runs that needs the core) and lets it go again.
"""
from __future__ import annotations

import ctypes


class _Desc(ctypes.Structure):
    """pyemu_kernel_desc of include/pyemu/abi.h."""
    _fields_ = [("name", ctypes.c_char_p), ("run_block", ctypes.c_void_p),
                ("run_thread", ctypes.c_void_p), ("nparams", ctypes.c_uint),
                ("params", ctypes.c_void_p), ("args_size", ctypes.c_uint),
                ("reqd_block", ctypes.c_uint * 3), ("max_threads", ctypes.c_uint),
                ("smem", ctypes.POINTER(ctypes.c_ulong)),
                ("smem_common", ctypes.POINTER(ctypes.c_ulong))]


class _Info(ctypes.Structure):
    """pyemu_module_info of include/pyemu/abi.h."""
    _fields_ = [("abi_version", ctypes.c_uint), ("nkernels", ctypes.c_uint),
                ("kernels", ctypes.POINTER(_Desc)), ("source_name", ctypes.c_char_p),
                ("bind", ctypes.c_void_p)]


def read_module(so_path: str, nattr: int = 0) -> dict:
    """{"static_smem": {kernel: bytes a block takes (abi.h
    pyemu_desc_static_smem)}, "attr_values": the first `nattr` values of
    pyemu_attr_values}."""
    import _ctypes
    lib = ctypes.CDLL(so_path, mode=getattr(ctypes, "RTLD_LOCAL", 0))
    try:
        info = _Info.in_dll(lib, "pyemu_module_info")
        sizes = {}
        for i in range(info.nkernels):
            d = info.kernels[i]
            common = d.smem_common[0]
            sizes[d.name.decode("utf-8", "replace")] = d.smem[0] + (
                (common + 127) & ~127 if common else 0)
        values = []
        if nattr:
            values = list((ctypes.c_ulong * nattr).in_dll(lib, "pyemu_attr_values"))
        return {"static_smem": sizes, "attr_values": values}
    finally:
        _ctypes.dlclose(lib._handle)


def static_sizes(so_path: str) -> dict:
    """{kernel: bytes of static shared memory a block takes} of a built module."""
    return read_module(so_path)["static_smem"]
