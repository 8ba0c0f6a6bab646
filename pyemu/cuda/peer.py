"""Peer access and peer copies: cudaDeviceCanAccessPeer, cudaDeviceEnablePeerAccess,
cudaDeviceDisablePeerAccess, cudaMemcpyPeer, cudaMemcpyPeerAsync.

pyemu has one device (PYEMU_DEVICE_COUNT, several virtual devices, is not
built yet), so these answer as CUDA does on a machine with one GPU: a
device is not its own peer (cudaDeviceCanAccessPeer gives 0, enabling
access to it cudaErrorInvalidDevice), any other ordinal is
cudaErrorInvalidDevice, and a peer copy between device 0 and itself is a
device-to-device copy (synchronous with respect to the host for
cudaMemcpyPeer, on the stream for cudaMemcpyPeerAsync).
"""
from __future__ import annotations

from . import _errors as E
from . import runtime as _rt
from ._errors import cudaSuccess
from ._types import cudaMemcpyDeviceToDevice


def _device(d, call, what="device"):
    if type(d) is bool or not isinstance(d, int):
        E.fail(E.cudaErrorInvalidValue, f"{what} must be an int, not {type(d).__name__}", call)
    if d != 0:
        E.fail(E.cudaErrorInvalidDevice, f"{what} {d} does not exist; there is one device, 0",
               call)
    return d


def cudaDeviceCanAccessPeer(device, peerDevice) -> int:
    """cudaDeviceCanAccessPeer(device, peerDevice): 0 (a device is not its
    own peer; there is no other)."""
    _device(device, "cudaDeviceCanAccessPeer")
    _device(peerDevice, "cudaDeviceCanAccessPeer", "peerDevice")
    return 0


def cudaDeviceEnablePeerAccess(peerDevice, flags=0) -> cudaError_t:  # noqa: F821
    """cudaDeviceEnablePeerAccess(peerDevice, flags=0): flags must be 0
    (cudaErrorInvalidValue); the current device as its own peer, or a device
    that does not exist, gives cudaErrorInvalidDevice."""
    call = "cudaDeviceEnablePeerAccess"
    if type(flags) is bool or not isinstance(flags, int) or flags != 0:
        E.fail(E.cudaErrorInvalidValue, f"flags must be 0, not {flags!r}", call)
    _device(peerDevice, call, "peerDevice")
    E.fail(E.cudaErrorInvalidDevice, "a device cannot be its own peer", call)


def cudaDeviceDisablePeerAccess(peerDevice) -> cudaError_t:  # noqa: F821
    """cudaDeviceDisablePeerAccess(peerDevice): peer access was never enabled
    (cudaErrorPeerAccessNotEnabled), or the device does not exist."""
    call = "cudaDeviceDisablePeerAccess"
    _device(peerDevice, call, "peerDevice")
    E.fail(E.cudaErrorPeerAccessNotEnabled, "peer access to device 0 was never enabled", call)


def cudaMemcpyPeer(dst, dstDevice, src, srcDevice, count) -> cudaError_t:  # noqa: F821
    """cudaMemcpyPeer(dst, dstDevice, src, srcDevice, count): a copy between
    devices' memory; with one device, cudaMemcpy device to device."""
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
