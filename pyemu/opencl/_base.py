"""What every OpenCL object shares: a reference count that clRetain*/clRelease*
move, and the check that an argument is a live object of the right kind.

Reference counts are the user's: a create returns an object with count 1,
clRetain* adds one, clRelease* takes one, and at 0 the object is invalid to
every call (which answer with its CL_INVALID_* code) and its core resource
is let go.  An object the program drops without releasing is let go when
Python collects it.

A device reset (pyemu.cuda.cudaDeviceReset: OpenCL has none, but the device
is shared) invalidates every object made before it but platforms and devices:
each remembers the generation it was made in (pyemu/runtime/views.py), and
check() answers a stale one with its CL_INVALID_* code.
"""
from __future__ import annotations

import operator
import threading

from ..runtime import views as _views
from ._errors import fail


class CLObject:
    """Base of the cl_* handles: a reference count, as clRetain*/clRelease* see it."""

    # the count and the generation in slots; a subclass without __slots__
    # of its own gets a __dict__ as usual (cl_event has slots: it is made on
    # every enqueue)
    __slots__ = ("_refs", "_gen")
    _kind = "object"
    _lock = threading.Lock()
    _survives_reset = False      # platforms and devices: what the device is, not state

    def __init__(self):
        self._refs = 1
        self._gen = _views.generation()

    @property
    def _alive(self) -> bool:
        return self._refs > 0

    def _retain(self):
        with CLObject._lock:
            self._refs += 1

    def _release(self) -> bool:
        """Take one reference; True when it was the last."""
        with CLObject._lock:
            self._refs -= 1
            return self._refs == 0

    def _destroy(self):
        """Let go of the core resource (the count reached 0)."""

    def __repr__(self):
        state = f"refs={self._refs}" if self._refs > 0 else "released"
        return f"<{type(self).__name__} at 0x{id(self):x} {state}>"


def check(obj, cls, code, call, what=None):
    """obj, if it is a live `cls`; else CLError(code)."""
    if not isinstance(obj, cls):
        fail(code, f"{what or cls._kind} is {type(obj).__name__}, not a {cls.__name__}", call)
    if not obj._alive:
        fail(code, f"the {cls.__name__} was released", call)
    if obj._gen != _views.generation() and not obj._survives_reset:
        fail(code, f"the {cls.__name__} was made before a device reset (cudaDeviceReset), "
             "which invalidated it", call)
    return obj


def retain(obj, cls, code, call):
    check(obj, cls, code, call)._retain()
    return 0


def release(obj, cls, code, call):
    check(obj, cls, code, call)
    if obj._release():
        _views.invalidate()      # checks cached by enqueues are done again
        obj._destroy()
    return 0


def as_int(value, call, what, code=None):
    """value as a non-negative int; else CL_INVALID_VALUE (or `code`)."""
    from ._errors import CL_INVALID_VALUE
    try:                # an int or a NumPy integer; never a float or a string of digits
        n = operator.index(value)
    except TypeError:
        fail(code or CL_INVALID_VALUE, f"{what} must be an int, not {type(value).__name__}", call)
    if n < 0:
        fail(code or CL_INVALID_VALUE, f"{what} {n} is negative", call)
    return n


def info(table: dict, param, call, what):
    """The value for `param` of an info table of getters; CL_INVALID_VALUE if unknown."""
    from ._errors import CL_INVALID_VALUE
    try:
        getter = table[int(param)]
    except (KeyError, TypeError, ValueError):
        fail(CL_INVALID_VALUE, f"{param!r} is not a {what} parameter", call)
    return getter()
