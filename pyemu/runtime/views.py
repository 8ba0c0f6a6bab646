"""Host views of device memory, and the device reset: one rule for both facades.

A NumPy array can look straight at device memory: CUDA's unified memory
(cudaMallocManaged returns one) and an OpenCL buffer mapped without a host
pointer (clEnqueueMapBuffer's zero-copy view).  Freeing such memory while a
view lives would leave the view on unmapped pages (a segfault in Python), so
the core counts the views of each allocation (pyemu_mem_view): a free while
one lives is "keep mapped" (the allocation table lets go of it, kernels that
use it fault and say use after free, its pages stay readable as zeros) and
the last view to go unmaps it.  The count is the core's, so a free done
later by the core (an OpenCL buffer released while commands still use it,
csrc/buffer.c) follows the same rule.

A device reset (cudaDeviceReset) frees all device memory (viewed pages stay
mapped the same way), and `generation()` moves on, so the objects of both
facades made before it (an OpenCL buffer, context, queue) answer with their
invalid-object code instead of reaching memory that may belong to a new
allocation now.
"""
from __future__ import annotations

import threading
import weakref

from . import sync
from .core import ffi, lib

_lock = threading.Lock()
_viewed = {}        # address -> live views: the core's count, mirrored for Python callers
_kept = set()       # addresses freed while viewed (kept for callers that note them)
_generation = [0]
_epoch = [0]        # moves on at each invalidate() and reset: cached checks are redone


def add_view(addr: int, view) -> None:
    """Note that `view` (an object Python may collect) looks at the allocation at addr."""
    with _lock:
        _viewed[addr] = _viewed.get(addr, 0) + 1
    lib.pyemu_mem_view(addr, 1)
    weakref.finalize(view, _view_gone, addr)


def _view_gone(addr: int) -> None:
    with _lock:
        left = _viewed.get(addr, 0) - 1
        if left > 0:
            _viewed[addr] = left
        else:
            _viewed.pop(addr, None)
            _kept.discard(addr)
    if lib is not None:
        lib.pyemu_mem_view(addr, -1)    # the last one unmaps a freed allocation


def free(addr: int, freed_by: bytes, users=()) -> int:
    """Free the allocation at addr (pyemu_mem_free's status); kept mapped while
    viewed.  `users`: commands (pyemu_cmd *) that may still use the memory:
    the core frees it when the last of them completes, and this returns at once."""
    if users:
        arr = ffi.new("pyemu_cmd *[]", list(users))
        return lib.pyemu_mem_free_after(addr, 0, freed_by, arr, len(users))
    return lib.pyemu_mem_free(addr, freed_by)


def reset_device() -> None:
    """Wait for all work, free all device memory (viewed pages stay mapped),
    clear the sticky error, and start a new generation of objects.  User
    events nobody set fail first (no one can set them after the reset), and
    with them the commands that wait for them."""
    lib.pyemu_user_events_fail_unset()
    sync.wait_device()
    lib.pyemu_device_reset()
    with _lock:
        _generation[0] += 1
        _epoch[0] += 1


def invalidate() -> None:
    """An object a cached check relied on is gone (an OpenCL object reached
    count 0): checks kept by epoch() are done again."""
    _epoch[0] += 1      # no lock: a finaliser may call it; a lost race still moves it


def epoch() -> int:
    """Moves on at every invalidate() and device reset."""
    return _epoch[0]


def generation() -> int:
    """How many device resets there have been: objects remember the one they were made in."""
    return _generation[0]
