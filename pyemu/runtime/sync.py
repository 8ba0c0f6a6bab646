"""Waiting for the device, the way both facades wait.

cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, clFinish
and clWaitForEvents all block in the core (csrc/engine.c).  They wait in
slices of SLICE_MS with the GIL let go, so a Ctrl-C reaches Python between
two slices (KeyboardInterrupt, raised in the waiting call) instead of being
held until a kernel that may never end returns.  The kernels that run are
then stopped and the device fails as after a fault (pyemu_interrupt): the
launch is reported as failed, and later calls fail until a reset.
"""
from __future__ import annotations

import sys

from . import holds
from .core import lib, take_printf

SLICE_MS = 100


def _wait(fn, *args) -> int:
    try:
        while True:
            status = fn(*args, SLICE_MS)
            if status != lib.PYEMU_E_TIMEOUT:
                holds.sweep()     # what completed commands kept alive can go now
                return status
    except KeyboardInterrupt:
        lib.pyemu_interrupt()
        raise


def wait_device() -> int:
    """Until every command of every queue is complete (pyemu_device_synchronize)."""
    return _wait(lib.pyemu_device_synchronize)


def wait_device_one(device: int) -> int:
    """Until every command of device `device`'s queues is complete
    (pyemu_device_synchronize_one): cudaDeviceSynchronize with several devices."""
    return _wait(lib.pyemu_device_synchronize_one, device)


def wait_queue(queue) -> int:
    """Until every command of `queue` is complete (pyemu_queue_finish)."""
    return _wait(lib.pyemu_queue_finish, queue)


def wait_command(cmd) -> int:
    """Until `cmd` is complete; its PYEMU_E_* failure code, 0 if it succeeded."""
    return _wait(lib.pyemu_cmd_wait, cmd)


def flush_printf() -> None:
    """Write device printf output of completed launches to sys.stdout, in
    launch order: what every synchronising call of either facade does after
    waiting (cudaDeviceSynchronize, clFinish, a blocking read, ...)."""
    text = take_printf()
    if text:
        sys.stdout.write(text)
        sys.stdout.flush()


__all__ = ["SLICE_MS", "wait_device", "wait_device_one", "wait_queue", "wait_command", "flush_printf"]
