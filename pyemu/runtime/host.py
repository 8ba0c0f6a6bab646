"""What the facades (pyemu.cuda, pyemu.opencl) share about the host: the CPU
they describe as the device, and host buffers (anything with the buffer
protocol) turned into pointers the core can copy from or to.
"""
from __future__ import annotations

import os
import platform

from .core import ffi


def cpu_name() -> str:
    """The CPU's model name (/proc/cpuinfo), or what the platform module says."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def clock_khz() -> int:
    """The CPU clock in kHz (1 GHz when unknown)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("cpu MHz"):
                    return int(float(line.split(":", 1)[1]) * 1000)
    except (OSError, ValueError):
        pass
    return 1000000


def l2_bytes() -> int:
    """The L2 cache size in bytes (0 when unknown)."""
    try:
        return os.sysconf("SC_LEVEL2_CACHE_SIZE") or 0
    except (ValueError, OSError):
        return 0


def host_buffer(obj, writable: bool):
    """A cffi pointer to obj's bytes and their count; raises TypeError/ValueError."""
    try:
        mv = memoryview(obj)
    except TypeError:
        raise TypeError(f"{type(obj).__name__} is neither a device pointer nor a host buffer "
                        "(an object with the buffer protocol, such as a NumPy array)") from None
    if not mv.c_contiguous:
        raise ValueError("the host buffer is not contiguous (use np.ascontiguousarray)")
    if writable and mv.readonly:
        raise ValueError("the host buffer is read-only")
    return ffi.from_buffer(obj, require_writable=writable), mv.nbytes
