"""Peer access and peer copies: cudaDeviceCanAccessPeer, cudaDeviceEnablePeerAccess,
cudaDeviceDisablePeerAccess, cudaMemcpyPeer, cudaMemcpyPeerAsync.

With PYEMU_DEVICE_COUNT=n (pyemu/cuda/devices.py) every device can access
every other (cudaDeviceCanAccessPeer gives 1; a device and itself 0, as
CUDA).  Enabling access records it for the current device:
cudaErrorPeerAccessAlreadyEnabled the second time,
cudaErrorPeerAccessNotEnabled when disabling access never enabled,
cudaErrorInvalidDevice for the device itself or one that does not exist.
A peer copy is a device-to-device copy (all devices' memory is one address
space, as with unified addressing): synchronous with respect to the host
for cudaMemcpyPeer, on the stream for cudaMemcpyPeerAsync.  Differs from
CUDA: a kernel's access to a peer's memory without peer access is caught
only through its pointer arguments (see devices.py).
"""
from __future__ import annotations

from . import _errors as E
from . import devices as _dev
from . import runtime as _rt
from ._errors import cudaSuccess
from ._types import cudaMemcpyDeviceToDevice


def _device(d, call, what="device"):
    return _dev.check(d, call, what)


def cudaDeviceCanAccessPeer(device, peerDevice) -> int:
    """cudaDeviceCanAccessPeer(device, peerDevice): 1 when both exist and
    differ, 0 for a device and itself."""
    d = _device(device, "cudaDeviceCanAccessPeer")
    p = _device(peerDevice, "cudaDeviceCanAccessPeer", "peerDevice")
    return int(d != p)


def cudaDeviceEnablePeerAccess(peerDevice, flags=0) -> cudaError_t:  # noqa: F821
    """cudaDeviceEnablePeerAccess(peerDevice, flags=0): the current device may
    access peerDevice's memory.  flags must be 0 (cudaErrorInvalidValue);
    the current device itself or a device that does not exist gives
    cudaErrorInvalidDevice, a second call cudaErrorPeerAccessAlreadyEnabled."""
    call = "cudaDeviceEnablePeerAccess"
    if type(flags) is bool or not isinstance(flags, int) or flags != 0:
        E.fail(E.cudaErrorInvalidValue, f"flags must be 0, not {flags!r}", call)
    p = _device(peerDevice, call, "peerDevice")
    cur = _dev.current()
    if p == cur:
        E.fail(E.cudaErrorInvalidDevice, "a device cannot be its own peer", call)
    if p in _dev.peers(cur):
        E.fail(E.cudaErrorPeerAccessAlreadyEnabled, f"device {cur} has access to device {p} "
               "already", call)
    _dev.set_peer(cur, p, True)
    return cudaSuccess


def cudaDeviceDisablePeerAccess(peerDevice) -> cudaError_t:  # noqa: F821
    """cudaDeviceDisablePeerAccess(peerDevice): undo cudaDeviceEnablePeerAccess;
    access never enabled gives cudaErrorPeerAccessNotEnabled, a device that
    does not exist cudaErrorInvalidDevice."""
    call = "cudaDeviceDisablePeerAccess"
    p = _device(peerDevice, call, "peerDevice")
    cur = _dev.current()
    if p not in _dev.peers(cur):
        E.fail(E.cudaErrorPeerAccessNotEnabled, f"peer access from device {cur} to device {p} "
               "was never enabled", call)
    _dev.set_peer(cur, p, False)
    return cudaSuccess


def cudaMemcpyPeer(dst, dstDevice, src, srcDevice, count) -> cudaError_t:  # noqa: F821
    """cudaMemcpyPeer(dst, dstDevice, src, srcDevice, count): a copy between
    two devices' memory (no peer access needed, as in CUDA)."""
    _device(dstDevice, "cudaMemcpyPeer", "dstDevice")
    _device(srcDevice, "cudaMemcpyPeer", "srcDevice")
    return _rt.cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice)


def cudaMemcpyPeerAsync(dst, dstDevice, src, srcDevice, count, stream=0) -> cudaError_t:  # noqa: F821
    """cudaMemcpyPeerAsync(dst, dstDevice, src, srcDevice, count, stream=0): as
    cudaMemcpyPeer, on `stream`; returns at once."""
    from .async_copy import cudaMemcpyAsync
    _device(dstDevice, "cudaMemcpyPeerAsync", "dstDevice")
    _device(srcDevice, "cudaMemcpyPeerAsync", "srcDevice")
    return cudaMemcpyAsync(dst, src, count, cudaMemcpyDeviceToDevice, stream)


__all__ = ["cudaDeviceCanAccessPeer", "cudaDeviceEnablePeerAccess", "cudaDeviceDisablePeerAccess",
           "cudaMemcpyPeer", "cudaMemcpyPeerAsync"]
