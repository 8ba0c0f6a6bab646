"""Launch descriptions, shared by both facades: the checked pyemu_launch of
a configuration, kept so that launching it again checks nothing twice.

A CUDA `k[grid, block]` and an OpenCL clEnqueueNDRangeKernel both end in
pyemu_enqueue_kernel(queue, launch, args): `describe` builds the launch
(csrc/pyemu_core.h: pyemu_launch) and `Launches` remembers the ones built,
by a key the facade makes of the configuration exactly as the program gave
it (only when that key cannot change afterwards: plain ints and tuples).
The threads a block may have are `max_threads`: the device's limit, lowered
by the kernel's __launch_bounds__ (OpenCL's CL_KERNEL_WORK_GROUP_SIZE).
"""
from __future__ import annotations

from .core import ffi, lib

CACHE_SIZE = 64          # configurations remembered per kernel


class Launches(dict):
    """Launch descriptions by configuration key.  A plain dict (ndrange.py
    fills it with its own keys) with `remember`, which keeps at most
    CACHE_SIZE: a program that launches with ever new sizes empties it
    rather than growing it."""

    __slots__ = ()

    def remember(self, key, launch):
        if len(self) >= CACHE_SIZE:
            self.clear()
        self[key] = launch
        return launch


def max_threads(desc) -> int:
    """The threads a block (work-group) of this kernel may have: the
    device's limit, or the kernel's __launch_bounds__ when lower."""
    return min(desc.launch_bounds or lib.PYEMU_MAX_THREADS_PER_BLOCK,
               lib.PYEMU_MAX_THREADS_PER_BLOCK)


def describe(desc, grid, block, *, dyn_smem=0, smem_limit=None, offset=(0, 0, 0), work_dim=3,
             local_args=ffi.NULL, num_local=0, flags=0):
    """The pyemu_launch of kernel `desc` (a KernelDesc) over `grid` blocks of
    `block` threads (3 ints each); `flags` are PYEMU_LAUNCH_* bits
    (PYEMU_LAUNCH_COOPERATIVE: cudaLaunchCooperativeKernel).  The core checks
    the rest when it is enqueued: too many blocks, too much shared memory."""
    return ffi.new("pyemu_launch *", {
        "module": desc.loaded.handle, "kernel": desc.index, "grid": list(grid),
        "block": list(block), "offset": list(offset), "work_dim": work_dim,
        "dyn_smem": dyn_smem,
        "smem_limit": lib.PYEMU_MAX_SHARED_PER_BLOCK if smem_limit is None else smem_limit,
        "local_args": local_args, "num_local": num_local, "flags": flags})


def bind(queue, launch, data, bufs=ffi.NULL, nbufs=0):
    """The pyemu_bound_launch of `launch` on `queue` (core handles) with the
    argument bytes `data` and the `nbufs` core buffers of `bufs` (a cffi
    pyemu_buffer *[] or NULL) that the command holds until it completes:
    pyemu_enqueue_bound(bound) then costs one pointer, not eight arguments.
    Returned as (bound, what it points at): the caller keeps the tuple while
    it uses the bound launch."""
    args = ffi.from_buffer(data)
    bound = ffi.new("pyemu_bound_launch *", {
        "queue": queue, "launch": launch, "args": args, "args_size": len(data),
        "bufs": bufs, "num_bufs": nbufs})
    return bound, args, launch, bufs, data


__all__ = ["CACHE_SIZE", "Launches", "max_threads", "describe", "bind"]
