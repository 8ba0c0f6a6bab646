"""Loads libclang from the PyPI `libclang` wheel (clang.cindex and its
bundled libclang.so): the one C++ front end of pyemu's kernel compiler.

There is no second, token-based path: without libclang the compiler stops
with an error that names the fix.
"""
from __future__ import annotations

import ctypes
import functools

__all__ = ["FrontendUnavailable", "cindex", "index", "presumed"]


class FrontendUnavailable(RuntimeError):
    """libclang cannot be loaded (no wheel for this platform, or not installed)."""


@functools.lru_cache(maxsize=None)
def cindex():
    """The clang.cindex module with its library loaded (once per process)."""
    try:
        from clang import cindex as ci
        ci.conf.lib                     # loads libclang.so now, not mid-parse
    except Exception as e:      # ImportError, or LibclangError of a wheel without the library
        raise FrontendUnavailable(
            "pyemu's kernel compiler needs libclang, which could not be loaded "
            f"({type(e).__name__}: {e}); install it with `pip install libclang`") from None
    _bind_presumed(ci)
    return ci


@functools.lru_cache(maxsize=None)
def index():
    """One clang Index for the process.

    Without LLVM's crash recovery: it would install SIGSEGV/SIGBUS handlers
    for the whole process, in front of the core's (a kernel's fault is
    caught there, csrc/), and re-raise faults that happen outside a parse."""
    import os
    os.environ.setdefault("LIBCLANG_DISABLE_CRASH_RECOVERY", "1")
    return cindex().Index.create()


_presumed_fn = None


def _bind_presumed(ci) -> None:
    """clang_getPresumedLocation: where a location is by the #line markers
    of the preprocessed text (the user's file and line), which cindex
    does not wrap."""
    global _presumed_fn
    lib = ci.conf.lib
    fn = lib.clang_getPresumedLocation
    fn.argtypes = [ci.SourceLocation, ctypes.POINTER(ci._CXString),
                   ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint)]
    fn.restype = None
    _presumed_fn = (fn, ci._CXString)


def presumed(location) -> tuple:
    """(file, line) of a clang SourceLocation, as the line markers say."""
    fn, cxstring = _presumed_fn
    s, line, col = cxstring(), ctypes.c_uint(), ctypes.c_uint()
    fn(location, ctypes.byref(s), ctypes.byref(line), ctypes.byref(col))
    try:
        name = cxstring.from_result(s)    # copies the text and lets the string go
    except UnicodeDecodeError:            # a file name that is not UTF-8: not pyemu's
        name = "?"
    return name, line.value
