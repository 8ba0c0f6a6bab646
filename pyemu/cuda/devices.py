"""Several virtual devices (PYEMU_DEVICE_COUNT, default 1): which exist,
which is current on each host thread, and what belongs to which.

All devices share the machine's cores and one command engine; each device
has its own memory limit and accounting (its share of the device memory:
cudaMemGetInfo, cudaMalloc's cudaErrorMemoryAllocation), its own peer-access
table, and owns the allocations, streams and events made while it was
current (CUDA's rules for using them on another device apply:
cudaEventRecord of an event and a stream of different devices and a launch
on a stream of another device give cudaErrorInvalidResourceHandle,
cudaEventElapsedTime of two devices' events too).

Each device has its own legacy default stream (a queue tagged with the
device: the legacy stream waits only for its own device's blocking
streams) and its own sticky error: a kernel fault on one device makes that
device's later calls fail, not another's (csrc/engine.c).

cudaDeviceSynchronize waits for the current device's work only, and
cudaDeviceReset resets the current device only (reset_current): it waits for
that device's work, frees the allocations made on it (cudaMalloc and what is
built on it: cudaMallocPitch, cudaMallocAsync, ...), destroys its streams and
events, forgets its peer access (both ways) and clears its sticky error;
another device's memory, streams, events, running work and error are left
alone.  With one device (PYEMU_DEVICE_COUNT=1) a reset is the whole reset of
pyemu/runtime/views.py.

Managed memory (cudaMallocManaged) counts against the device current when
it was made and goes with its reset, but every device's kernels may use it.

What pyemu does not separate: page-locked host memory is not owned by a
device (a reset of one device among several leaves it; CUDA frees what was
allocated in that device's context); a kernel that
dereferences another device's memory without peer access fails (cudaErrorIllegalAddress, sticky) when the
pointer is one of its arguments (csrc/devmem.c); a pointer it reads from
memory is not followed (the memory is in one address space, as with
unified addressing).
"""
from __future__ import annotations

import os
import threading
import weakref

from . import _errors as E


def _count_from_env() -> int:
    raw = os.environ.get("PYEMU_DEVICE_COUNT", "1").strip()
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if not 1 <= n <= 64:
        raise ValueError(f"PYEMU_DEVICE_COUNT={raw!r}: give a number of devices from 1 to 64")
    return n


COUNT = _count_from_env()
MULTI = COUNT > 1

class _Current(threading.local):
    value = 0           # a thread that never called cudaSetDevice: device 0, found
                        # without the exception a getattr default costs (each launch)


_current = _Current()
_lock = threading.Lock()
_owner = {}                          # allocation start -> (device, size)
_used = [0] * COUNT                  # bytes allocated, per device
_peers = [set() for _ in range(COUNT)]   # _peers[d]: devices whose memory d may access
_objects = [weakref.WeakSet() for _ in range(COUNT)]  # streams and events made on each


def track(obj) -> None:
    """obj (a stream or an event, with `device` and `_gen`) dies with its
    device's reset: reset_current sets its `_gen` to -1, which no generation is."""
    if MULTI:
        with _lock:
            _objects[obj.device].add(obj)


def current() -> int:
    """This host thread's current device (cudaGetDevice)."""
    return _current.value


def set_current(d: int) -> None:
    _current.value = d
    from ..runtime.core import lib
    lib.pyemu_set_current_device(d)     # the sticky error this thread reads (csrc/engine.c)


def queue_flags() -> int:
    """The engine-queue flag bits that tag a queue with the current device."""
    return current() << 8               # PYEMU_QUEUE_DEVICE_SHIFT


def check(device, call, what="device") -> int:
    """`device` as an int, or cudaErrorInvalidValue (not an int) /
    cudaErrorInvalidDevice (no such device)."""
    if type(device) is bool or not isinstance(device, int):
        try:
            import numpy as np
            if isinstance(device, np.integer):
                device = int(device)
            else:
                raise TypeError
        except TypeError:
            E.fail(E.cudaErrorInvalidValue, f"{what} must be an int, not "
                   f"{type(device).__name__}", call)
    d = int(device)
    if not 0 <= d < COUNT:
        E.fail(E.cudaErrorInvalidDevice, f"{what} {d} does not exist; there "
               f"{'is one device, 0' if COUNT == 1 else f'are {COUNT} devices, 0 to {COUNT - 1}'}"
               " (PYEMU_DEVICE_COUNT)", call)
    return d


def limit(total: int) -> int:
    """Each device's share of the `total` bytes of device memory."""
    return total // COUNT


def reserve(nbytes: int, total: int, call) -> int:
    """Count nbytes against the current device, or cudaErrorMemoryAllocation
    when its share would be exceeded.  Returns the device."""
    d = current()
    if MULTI:
        with _lock:
            if _used[d] + nbytes > limit(total):
                E.fail(E.cudaErrorMemoryAllocation, f"{nbytes} bytes asked for; device {d} has "
                       f"{limit(total) - _used[d]} of its {limit(total)} bytes free", call)
            _used[d] += nbytes
    return d


def unreserve(d: int, nbytes: int) -> None:
    if MULTI:
        with _lock:
            _used[d] -= nbytes


def _lib():
    from ..runtime.core import lib
    return lib


def record(addr: int, d: int, nbytes: int) -> None:
    """The allocation at addr belongs to device d (and the launch check of
    csrc/devmem.c knows it)."""
    if MULTI:
        with _lock:
            _owner[addr] = (d, nbytes)
        _lib().pyemu_devmem_add(addr, nbytes, d)


def accessible_to_all(addr: int) -> None:
    """The allocation at addr (managed memory) is reached by every device's
    kernels without peer access; it still counts against, and goes with a
    reset of, the device it was made on."""
    if MULTI:
        _lib().pyemu_devmem_remove(addr)


def release(addr: int) -> None:
    """The allocation at addr was freed: its device gets the bytes back."""
    if MULTI:
        with _lock:
            d, n = _owner.pop(addr, (None, 0))
            if d is not None:
                _used[d] -= n
        if d is not None:
            _lib().pyemu_devmem_remove(addr)


def used(d: int) -> int:
    return _used[d]


def owner_of(addr: int):
    """The device of the allocation starting at addr (None: not known)."""
    return _owner.get(addr, (None, 0))[0]


def forget_all() -> None:
    """cudaDeviceReset freed every allocation (of every device, see the module's text)."""
    with _lock:
        _owner.clear()
        for d in range(COUNT):
            _used[d] = 0
            _peers[d].clear()
    if MULTI:
        _lib().pyemu_devmem_clear()


def reset_current() -> None:
    """cudaDeviceReset with several devices: the current device's work,
    memory, streams, events, peer access and sticky error (the module's text)."""
    from ..runtime import sync as _sync
    from ..runtime import views as _views
    lib = _lib()
    d = current()
    if d == 0:      # OpenCL's user events (device 0's): nobody may set them after a reset
        lib.pyemu_user_events_fail_unset()
    _sync.wait_device_one(d)
    with _lock:
        mine = [a for a, (dev, _) in _owner.items() if dev == d]
        objs = list(_objects[d])
        _objects[d] = weakref.WeakSet()
    for obj in objs:
        obj._gen = -1
    for addr in mine:
        _views.free(addr, b"cudaDeviceReset")   # viewed pages stay mapped
        release(addr)
    for p in list(_peers[d]):
        set_peer(d, p, False)
    for o in range(COUNT):
        if d in _peers[o]:
            set_peer(o, d, False)
    _views.invalidate()         # cached pointer checks are redone
    lib.pyemu_device_clear_sticky(d)


def peers(d: int) -> set:
    """The devices whose memory device d may access (read only: see set_peer)."""
    return _peers[d]


def set_peer(d: int, p: int, on: bool) -> None:
    """Device d may (or no longer may) access device p's memory."""
    (_peers[d].add if on else _peers[d].discard)(p)
    if MULTI:
        _lib().pyemu_devmem_peer(d, p, 1 if on else 0)


def same_device(obj_device, call, what) -> None:
    """cudaErrorInvalidResourceHandle when `what` belongs to another device
    than the current one."""
    if MULTI and obj_device is not None and obj_device != current():
        E.fail(E.cudaErrorInvalidResourceHandle, f"{what} belongs to device {obj_device}; the "
               f"current device is {current()}", call)
