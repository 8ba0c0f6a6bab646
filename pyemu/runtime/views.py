"""Host views of device memory, and the device reset: one rule for both facades.

A NumPy array can look straight at device memory: CUDA's unified memory
(cudaMallocManaged returns one) and an OpenCL buffer mapped without a host
pointer (clEnqueueMapBuffer's zero-copy view).  Freeing such memory while a
view lives would leave the view on unmapped pages (a segfault in Python), so
it is freed "keep mapped": the allocation table lets go of it (kernels that
use it fault, and say use after free), but its pages stay until the last
view is gone (pyemu_mem_free_keep_mapped, then pyemu_mem_forget).

A device reset (cudaDeviceReset) frees all device memory: every viewed
allocation is kept mapped the same way, and `generation()` moves on, so the
objects of both facades made before it (an OpenCL buffer, context, queue)
answer with their invalid-object code instead of reaching memory that may
belong to a new allocation now.
"""
from __future__ import annotations

import threading
import weakref

from . import sync
from .core import ffi, lib

_lock = threading.Lock()
_viewed = {}        # address -> live views of the allocation there
_kept = set()       # freed while viewed: forgotten when the last view goes
_generation = [0]


def add_view(addr: int, view) -> None:
    """Note that `view` (an object Python may collect) looks at the allocation at addr."""
    with _lock:
        _viewed[addr] = _viewed.get(addr, 0) + 1
    weakref.finalize(view, _view_gone, addr)


def _view_gone(addr: int) -> None:
    with _lock:
        left = _viewed.get(addr, 0) - 1
        if left > 0:
            _viewed[addr] = left
            return
        _viewed.pop(addr, None)
        forget = addr in _kept
        _kept.discard(addr)
    if forget and lib is not None:
        lib.pyemu_mem_forget(addr)


def free(addr: int, freed_by: bytes, users=()) -> int:
    """Free the allocation at addr (pyemu_mem_free's status); kept mapped while
    viewed.  `users`: commands (pyemu_cmd *) that may still use the memory:
    the core frees it when the last of them completes, and this returns at once."""
    with _lock:
        viewed = addr in _viewed
        if viewed:
            _kept.add(addr)
    if users:
        arr = ffi.new("pyemu_cmd *[]", list(users))
        return lib.pyemu_mem_free_after(addr, 1 if viewed else 0, freed_by, arr, len(users))
    if viewed:
        return lib.pyemu_mem_free_keep_mapped(addr, freed_by)
    return lib.pyemu_mem_free(addr, freed_by)


def reset_device() -> None:
    """Wait for all work, free all device memory (viewed pages stay mapped),
    clear the sticky error, and start a new generation of objects."""
    sync.wait_device()
    with _lock:
        viewed = [a for a in _viewed if a not in _kept]
        _kept.update(viewed)
    for addr in viewed:
        lib.pyemu_mem_free_keep_mapped(addr, b"cudaDeviceReset")
    lib.pyemu_device_reset()
    with _lock:
        _generation[0] += 1


def generation() -> int:
    """How many device resets there have been: objects remember the one they were made in."""
    return _generation[0]
