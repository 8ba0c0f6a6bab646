"""Kernel execution: clEnqueueNDRangeKernel and clEnqueueTask.

An NDRange is one launch of the core (pyemu_enqueue_kernel, pyemu_launch), as a CUDA
<<<grid, block>>> is: a work-group is a thread block, the local size its
dimensions, global_size / local_size the number of groups, and the global
offset goes to the work-item functions through the thread context.  The
device reports no non-uniform work-groups, so the global size must be a
multiple of the local size.  Without a local size the enqueue picks the
largest one that divides the global size (dimension 0 first, as PoCL does),
within the device's limits and the kernel's reqd_work_group_size.

A fault in the kernel (an access outside every buffer, a division by zero, a
barrier only part of a group reaches) fails the command's event with
CL_OUT_OF_RESOURCES, as GPU drivers answer, and every later command too: the
core's sticky error, which OpenCL has no call to clear.

The checked launch description (pyemu_launch) of each work size a kernel
object is enqueued with is kept in its argument state (ArgState.launches,
keyed by the sizes exactly as given, only when every size is a plain int),
so enqueueing the same range again checks the queue, the kernel, the
arguments and the wait list, and hands the core what it built last time
with the argument bytes clSetKernelArg keeps packed.  The enqueue of the
same queue, arguments and sizes as the last one, without a wait list, is one
core call with one pointer (kernel._hot, a pyemu_bound_launch), and reuses
the event object of the last enqueue when the program has dropped it: an
unused event costs what a C program's event = NULL does.
"""
from __future__ import annotations

import functools
import operator
import struct
import sys

from ..runtime import launch as _launch
from ..runtime.core import CoreError, ffi, last_error, lib
from ..runtime.views import _epoch, _generation
from . import _constants as K
from ._errors import (CL_INVALID_CONTEXT, CL_INVALID_GLOBAL_OFFSET, CL_INVALID_GLOBAL_WORK_SIZE,
                      CL_INVALID_WORK_DIMENSION, CL_INVALID_WORK_GROUP_SIZE,
                      CL_INVALID_WORK_ITEM_SIZE, fail, raise_core)
from .event import _new_event, cl_event, enqueue_kernel, wait_list
from .kernel import check_kernel, pack_args, work_group_size
from .queue import check_queue

_SIZE_T_MAX = (1 << 64) - 1
_ITEM_LIMITS = (lib.PYEMU_MAX_BLOCK_X, lib.PYEMU_MAX_BLOCK_Y, lib.PYEMU_MAX_BLOCK_Z)
_GROUP_LIMITS = (lib.PYEMU_MAX_GRID_X, lib.PYEMU_MAX_GRID_Y, lib.PYEMU_MAX_GRID_Z)
_OFFSET_LIMIT = 0xFFFFFFFF          # the core keeps a global offset in 32 bits


def _sizes(values, wd, what, code, call) -> list:
    """`values` (a list of work_dim ints, or one int when work_dim is 1) as ints."""
    if hasattr(values, "__index__") and not hasattr(values, "__len__"):
        values = [values]
    try:
        items = list(values)
    except TypeError:
        fail(code, f"{what} is {type(values).__name__}, not a list of {wd} sizes", call)
    if len(items) != wd:
        fail(code, f"{what} has {len(items)} value(s); work_dim is {wd}", call)
    out = []
    for v in items:
        try:
            n = operator.index(v)
        except TypeError:
            fail(code, f"{what} holds {v!r}, not an int", call)
        if n < 0 or n > _SIZE_T_MAX:
            fail(code, f"{what} holds {n}, which is not a size_t", call)
        out.append(n)
    return out


@functools.lru_cache(maxsize=256)
def choose_local(gws: tuple, max_wg: int) -> tuple | None:
    """The local size an enqueue without one gets: dimension by dimension, the
    largest divisor of the global size within the device's limits, after the
    least each dimension needs for its number of groups to fit the device.
    None when no local size fits."""
    wd = len(gws)
    local = []
    for d, g in enumerate(gws):     # the least: g // l groups must fit
        need = -(-g // _GROUP_LIMITS[d])
        lo = next((n for n in range(need, min(g, _ITEM_LIMITS[d]) + 1) if g % n == 0), None)
        if lo is None:
            return None
        local.append(lo)
    if _prod(local) > max_wg:
        return None
    for d in range(wd):             # then as large as the rest allows, x first
        room = max_wg // (_prod(local) // local[d])
        cap = min(gws[d], _ITEM_LIMITS[d], room)
        for n in range(cap - cap % local[d], local[d] - 1, -local[d]):
            if gws[d] % n == 0:
                local[d] = n
                break
    return tuple(local)


def _prod(xs) -> int:
    r = 1
    for x in xs:
        r *= x
    return r


def _local_size(k, wd, gws, local_work_size, call) -> list:
    reqd = k.entry.reqd
    max_wg = work_group_size(k)
    if local_work_size is None:
        if any(reqd):
            lws = list(reqd[:wd])
            if any(r != 1 for r in reqd[wd:]):
                fail(CL_INVALID_WORK_GROUP_SIZE, f"{k.name} has reqd_work_group_size"
                     f"{tuple(reqd)}, which a {wd}-dimensional range cannot have", call)
        else:
            chosen = choose_local(tuple(gws), max_wg)
            if chosen is None:
                fail(CL_INVALID_GLOBAL_WORK_SIZE, f"global_work_size {gws} cannot be cut into "
                     f"at most {_GROUP_LIMITS[:wd]} work-groups of at most {max_wg} "
                     "work-items", call)
            return list(chosen)
    else:
        lws = _sizes(local_work_size, wd, "local_work_size", CL_INVALID_WORK_GROUP_SIZE, call)
        if 0 in lws:
            fail(CL_INVALID_WORK_GROUP_SIZE, f"local_work_size {lws} has a 0", call)
        for d, n in enumerate(lws):
            if n > _ITEM_LIMITS[d]:
                fail(CL_INVALID_WORK_ITEM_SIZE, f"local_work_size[{d}] is {n}; "
                     f"CL_DEVICE_MAX_WORK_ITEM_SIZES[{d}] is {_ITEM_LIMITS[d]}", call)
        if _prod(lws) > max_wg:
            fail(CL_INVALID_WORK_GROUP_SIZE, f"local_work_size {lws} has {_prod(lws)} "
                 f"work-items; CL_KERNEL_WORK_GROUP_SIZE is {max_wg}", call)
        if any(reqd) and tuple(lws) + (1,) * (3 - wd) != reqd:
            fail(CL_INVALID_WORK_GROUP_SIZE, f"local_work_size {lws} is not the kernel's "
                 f"reqd_work_group_size{tuple(reqd)}", call)
    for d in range(wd):
        if gws[d] % lws[d]:
            fail(CL_INVALID_WORK_GROUP_SIZE, f"global_work_size[{d}] = {gws[d]} is not a "
                 f"multiple of local_work_size[{d}] = {lws[d]} (the device has no "
                 "non-uniform work-groups)", call)
    return lws


_LAUNCH_CACHE = 64          # work sizes remembered per kernel object
_NULL = ffi.NULL
_enqueue_kernel = lib.pyemu_enqueue_kernel_event


def _describe(k, wd, offs, gws, lws):
    """The pyemu_launch of a checked range (it points at k's __local argument list;
    pyemu/runtime/launch.py builds it).  More work-groups than the device takes
    is CL_INVALID_GLOBAL_WORK_SIZE; the core checks the __local memory
    against CL_DEVICE_LOCAL_MEM_SIZE (CL_OUT_OF_RESOURCES)."""
    groups = [g // n for g, n in zip(gws, lws)]
    for d, n in enumerate(groups):
        if n > _GROUP_LIMITS[d]:
            fail(CL_INVALID_GLOBAL_WORK_SIZE, f"global_work_size[{d}] / local_work_size[{d}] "
                 f"is {n} work-groups; the device takes at most {_GROUP_LIMITS[d]}",
                 "clEnqueueNDRangeKernel")
    pad = [1] * (3 - wd)
    st = k.state
    return _launch.describe(k.entry.desc, groups + pad, lws + pad, offset=offs + [0] * (3 - wd),
                            work_dim=wd, local_args=st.local_args, num_local=st.num_local)


def _validate(command_queue, kernel):
    """Every check of the queue, the kernel and its arguments (check_queue,
    check_kernel, the same context, pack_args); then what a later enqueue of
    this pair needs, kept as kernel._fast: (id of the queue, the epoch, the
    argument bytes, the arguments' core buffers as a cffi array, their count,
    len of the bytes, the generation, the queue's core handle, its context,
    the launches bound to all these by key (runtime/launch.py's bind), and
    the event of the hot path's last enqueue, for it to recycle).

    It stays valid while nothing it checked can have changed: each
    clSetKernelArg makes a new ArgState.data (bytes, at least 8 of them when
    a pointer is among them), so its identity says the arguments are the
    same, without holding their memory objects (a buffer no argument names
    any more can go); and views.epoch() moves on whenever a queue, kernel or
    memory object reaches count 0 or goes, and at a device reset."""
    epoch = _epoch[0]
    q, k = _queue_and_kernel(command_queue, kernel, _CALL)
    st = pack_args(k, _CALL)
    mems, data = st.mems, st.data
    fast = k._fast = (id(q), epoch, data, ffi.new("pyemu_buffer *[]", [m.handle for m in mems])
                      if mems else _NULL, len(mems), len(data), _generation[0], q.handle,
                      q.context, {}, [])
    return fast


def _cache_key(work_dim, offs, gws, lws):
    """The sizes as a key of the launch cache when each is None, an int or a
    list/tuple of ints (no bool, float or NumPy value: those take the checked
    path every time); else None."""
    key = [work_dim]
    for v in (offs, gws, lws):
        t = type(v)
        if t is list or t is tuple:
            for x in v:
                if type(x) is not int:
                    return None
            key.append(tuple(v))
        elif v is None or t is int:
            key.append(v)
        else:
            return None
    return tuple(key) if type(work_dim) is int else None


def _queue_and_kernel(command_queue, kernel, call):
    q = check_queue(command_queue, call)
    k = check_kernel(kernel, call)
    if k.context is not q.context:
        fail(CL_INVALID_CONTEXT, "the kernel and the command queue are of different contexts",
             call)
    return q, k


def _enqueue(q, k, launch, event_wait_list, call, command_type) -> cl_event:
    st = pack_args(k, call)
    mems = st.mems
    bufs = ffi.new("pyemu_buffer *[]", [m.handle for m in mems]) if mems else _NULL
    return enqueue_kernel(q, launch, st.data, bufs, len(mems), event_wait_list, call,
                          command_type)


def _launch_of(k, work_dim, global_work_offset, global_work_size, local_work_size, key, call):
    """The launch description of these sizes: from the cache under `key` (the
    caller's fast key) or _cache_key's, else checked, described and kept."""
    if key is None:
        key = _cache_key(work_dim, global_work_offset, global_work_size, local_work_size)
    launches = k.state.launches
    launch = launches.get(key) if key is not None else None
    if launch is None:
        launch = _describe(k, *_check_range(k, work_dim, global_work_offset, global_work_size,
                                            local_work_size, call))
        if key is not None:
            if len(launches) >= _LAUNCH_CACHE:
                launches.clear()
            launches[key] = launch
    return launch


# The key of the common form (no offset, as many local sizes as global
# ones): work_dim and the sizes, packed as unsigned 64-bit integers by the
# packer of that many sizes (n global sizes, then n local ones: the length
# of the key says n).  struct packs exactly what operator.index takes (ints,
# NumPy integers, bool) and raises for anything else (a float, a negative
# size, a work_dim over 255, local sizes of another count, None), which then
# goes the checked way; a bytes key cannot equal a _cache_key tuple.
_FAST_KEY = {n: struct.Struct(f"<B{2 * n}Q").pack for n in range(1, 4)}
_NDRANGE = K.CL_COMMAND_NDRANGE_KERNEL
_CALL = "clEnqueueNDRangeKernel"
_new = object.__new__


def clEnqueueNDRangeKernel(command_queue, kernel, work_dim, global_work_offset,
                           global_work_size, local_work_size, event_wait_list=None) -> cl_event:
    """clEnqueueNDRangeKernel(command_queue, kernel, work_dim, global_work_offset,
    global_work_size, local_work_size, event_wait_list=None) -> event.

    The sizes are lists of work_dim ints (an int for work_dim 1);
    global_work_offset and local_work_size may be None.  Global sizes must be
    > 0 (OpenCL 1.2's rule; 2.1 allows 0), and global offsets below 2**32.

    Every check runs on every call; what a repeated call would only repeat is
    kept: the launch description by sizes (ArgState.launches), the checked
    queue, kernel and arguments until one of them changes (_validate), and
    the launch bound to all of them (kernel._hot: _enqueue_checked says when
    it answers), which the core takes as one pointer."""
    try:
        hot = kernel._hot
        if (hot[0] != id(command_queue) or hot[1] != _epoch[0] or event_wait_list is not None
                or global_work_offset is not None):
            same = False
        elif hot[9] == 1:       # one size each: unpacked, which costs less than f(*a, *b)
            (g,) = global_work_size
            (l,) = local_work_size
            same = hot[2](work_dim, g, l) == hot[3]
        else:
            same = hot[2](work_dim, *global_work_size, *local_work_size) == hot[3]
    except _NOT_HOT:
        same = False
    if not same:
        return _enqueue_checked(command_queue, kernel, work_dim, global_work_offset,
                                global_work_size, local_work_size, event_wait_list)
    spare = hot[8]
    try:
        e = spare.pop()
    except IndexError:
        e = None
    if e is not None and _refcount(e) == _SOLE:
        # the event of the last enqueue, which the program dropped: it
        # becomes this one's (nothing can tell: cl_event takes no weak
        # references), and lets go of its command in the enqueue's call
        old = e._cmd
        cmd = _enqueue_bound(hot[4], _NULL if old is None else old)
        if not cmd:
            raise_core(CoreError(lib.pyemu_enqueue_status(), last_error()), _CALL)
        e._cmd = cmd
        e._refs = 1
    else:
        cmd = _enqueue_bound(hot[4], _NULL)
        if not cmd:
            raise_core(CoreError(lib.pyemu_enqueue_status(), last_error()), _CALL)
        e = _new(cl_event)          # event._new_event, inline
        e._refs = 1
        e._gen = hot[5]
        e._cmd = cmd
        e.queue = command_queue
        e.context = hot[6]
        e.command_type = _NDRANGE
    spare.append(e)
    return e


# what the hot path's test raises for a call it cannot answer: kernel not a
# cl_kernel, sizes that are not sequences (or not of one size), a size struct
# cannot pack
_NOT_HOT = (AttributeError, TypeError, ValueError, struct.error)
_enqueue_bound = lib.pyemu_enqueue_bound
_refcount = sys.getrefcount


def _sole_count() -> int:
    """What sys.getrefcount says of an object that one local name holds."""
    probe = object()
    return _refcount(probe)


_SOLE = _sole_count()


def _enqueue_checked(command_queue, kernel, work_dim, global_work_offset, global_work_size,
                     local_work_size, event_wait_list) -> cl_event:
    """clEnqueueNDRangeKernel when kernel._hot does not answer: the checks
    (those _validate keeps, then the work sizes), the enqueue, and kernel._hot
    for the next call.

    kernel._hot is (id of the queue, the epoch, the key's packer, the key,
    the pyemu_bound_launch, the generation, the context, what the bound
    launch points at, the spare events, the number of sizes) and answers for the same queue, no
    wait list, no offset and the same sizes (the common form's key: exact
    ints) while the epoch stands (nothing released, no device reset) and no
    clSetKernelArg came (each empties it: kernel.py's _store).  The spare
    events list holds the event of its last enqueue (one per thread that
    enqueues at once): when the program has dropped it, the next enqueue
    reuses the object, so an enqueue whose event goes unused costs one core
    call and no Python object, as a C program's with event NULL."""
    q, k = command_queue, kernel
    try:
        fast = k._fast
        st = k.state
        valid = fast[0] == id(q) and fast[1] == _epoch[0] and fast[2] is st.data
    except AttributeError:
        valid = False
    if not valid:
        fast = _validate(command_queue, kernel)
        st = k.state
    pack = key = None
    if global_work_offset is None:
        try:
            pack = _FAST_KEY[len(global_work_size)]
            key = pack(work_dim, *global_work_size, *local_work_size)
        except (TypeError, KeyError, struct.error):
            key = None
    launch = st.launches.get(key)       # never None: no key is
    if launch is None:
        launch = _launch_of(k, work_dim, global_work_offset, global_work_size, local_work_size,
                            key, _CALL)
    bound = None
    if key is not None:
        bounds = fast[9]
        bound = bounds.get(key)
        if bound is None:
            if len(bounds) >= _LAUNCH_CACHE:
                bounds.clear()
            bound = bounds[key] = _launch.bind(q.handle, launch, fast[2], fast[3], fast[4])
    if event_wait_list is None and bound is not None:
        cmd = _enqueue_bound(bound[0], _NULL)
    else:
        if event_wait_list is None:
            arr, n = _NULL, 0
        else:
            arr, n, _ = wait_list(event_wait_list, fast[8], _CALL)
        cmd = _enqueue_kernel(fast[7], launch, fast[2], fast[5], fast[3], fast[4], arr, n)
    if not cmd:
        raise_core(CoreError(lib.pyemu_enqueue_status(), last_error()), _CALL)
    if bound is not None:
        k._hot = (fast[0], fast[1], pack, key, bound[0], fast[6], fast[8], bound, fast[10],
                  len(global_work_size))
    return _new_event(cmd, q, _NDRANGE)


def _check_range(k, work_dim, global_work_offset, global_work_size, local_work_size, call):
    """(work_dim, offsets, global sizes, local sizes) as lists, every rule checked."""
    try:
        wd = operator.index(work_dim)
    except TypeError:
        fail(CL_INVALID_WORK_DIMENSION, f"work_dim is {type(work_dim).__name__}, not an int",
             call)
    if not 1 <= wd <= 3:
        fail(CL_INVALID_WORK_DIMENSION, f"work_dim is {wd}; CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS "
             "is 3", call)
    if global_work_size is None:
        fail(CL_INVALID_GLOBAL_WORK_SIZE, "global_work_size is NULL", call)
    gws = _sizes(global_work_size, wd, "global_work_size", CL_INVALID_GLOBAL_WORK_SIZE, call)
    if 0 in gws:
        fail(CL_INVALID_GLOBAL_WORK_SIZE, f"global_work_size {gws} has a 0", call)
    if global_work_offset is None:
        offs = [0] * wd
    else:
        offs = _sizes(global_work_offset, wd, "global_work_offset", CL_INVALID_GLOBAL_OFFSET,
                      call)
        for d in range(wd):
            if offs[d] + gws[d] > _SIZE_T_MAX:
                fail(CL_INVALID_GLOBAL_OFFSET, f"global_work_offset[{d}] + global_work_size"
                     f"[{d}] is over the size_t range", call)
            if offs[d] > _OFFSET_LIMIT:
                fail(CL_INVALID_GLOBAL_OFFSET, f"global_work_offset[{d}] is {offs[d]}; pyemu "
                     f"takes offsets up to {_OFFSET_LIMIT}", call)
    lws = _local_size(k, wd, gws, local_work_size, call)
    return wd, offs, gws, lws


def clEnqueueTask(command_queue, kernel, event_wait_list=None) -> cl_event:
    """clEnqueueTask(command_queue, kernel, event_wait_list=None) -> event: the kernel
    as one work-item (work_dim 1, global and local size 1); deprecated in 2.0, kept."""
    call = "clEnqueueTask"
    q, k = _queue_and_kernel(command_queue, kernel, call)
    launch = k.state.launches.get("task")
    if launch is None:
        launch = k.state.launches["task"] = _describe(k, 1, [0], [1],
                                                      _local_size(k, 1, [1], [1], call))
    return _enqueue(q, k, launch, event_wait_list, call, K.CL_COMMAND_TASK)


__all__ = ["clEnqueueNDRangeKernel", "clEnqueueTask"]
