"""Device flags: cudaSetDeviceFlags, cudaGetDeviceFlags.

pyemu waits for the device the same way whatever the flags say (in slices,
with the GIL let go, pyemu/runtime/sync.py): the flags are recorded and
reported, as CUDA 13 does it (tests/data/ground_truth/probe_streams_h100.txt):
cudaDeviceMapHost is always set, setting flags on an active device succeeds
and replaces the scheduling flags.
"""
from __future__ import annotations

from . import _errors as E
from ._errors import cudaSuccess

cudaDeviceScheduleAuto = 0x00
cudaDeviceScheduleSpin = 0x01
cudaDeviceScheduleYield = 0x02
cudaDeviceScheduleBlockingSync = 0x04
cudaDeviceBlockingSync = 0x04
cudaDeviceScheduleMask = 0x07
cudaDeviceMapHost = 0x08
cudaDeviceLmemResizeToMax = 0x10
cudaDeviceSyncMemops = 0x80
cudaDeviceMask = 0xFF

_flags = [cudaDeviceMapHost]


def cudaSetDeviceFlags(flags) -> cudaError_t:  # noqa: F821
    """cudaSetDeviceFlags(flags): a scheduling flag (cudaDeviceScheduleAuto,
    Spin, Yield, BlockingSync) or'ed with cudaDeviceMapHost,
    cudaDeviceLmemResizeToMax, cudaDeviceSyncMemops.  Works before and after
    the device is active (CUDA 12/13 no longer answer
    cudaErrorSetOnActiveProcess); more than one scheduling flag or an unknown
    bit gives cudaErrorInvalidValue.  Recorded only: pyemu waits one way."""
    call = "cudaSetDeviceFlags"
    if type(flags) is bool or not isinstance(flags, int) or flags < 0 or flags & ~cudaDeviceMask \
            or flags & 0x60:
        E.fail(E.cudaErrorInvalidValue, f"unknown device flags {flags!r}", call)
    sched = flags & cudaDeviceScheduleMask
    if sched not in (cudaDeviceScheduleAuto, cudaDeviceScheduleSpin, cudaDeviceScheduleYield,
                     cudaDeviceScheduleBlockingSync):
        E.fail(E.cudaErrorInvalidValue, f"flags 0x{flags:x} name more than one scheduling policy",
               call)
    _flags[0] = int(flags) | cudaDeviceMapHost
    return cudaSuccess


def cudaGetDeviceFlags() -> int:
    """cudaGetDeviceFlags: the flags of the current device; cudaDeviceMapHost
    is always among them (as on an H100)."""
    return _flags[0]


__all__ = [
    "cudaDeviceScheduleAuto", "cudaDeviceScheduleSpin", "cudaDeviceScheduleYield",
    "cudaDeviceScheduleBlockingSync", "cudaDeviceBlockingSync", "cudaDeviceScheduleMask",
    "cudaDeviceMapHost", "cudaDeviceLmemResizeToMax", "cudaDeviceSyncMemops", "cudaDeviceMask",
    "cudaSetDeviceFlags", "cudaGetDeviceFlags",
]
