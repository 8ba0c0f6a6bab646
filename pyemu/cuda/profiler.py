"""cudaProfilerStart / cudaProfilerStop: pyemu's timeline (pyemu/runtime/trace.py).

With PYEMU_TRACE=file.json the timeline records from the start and is
written at exit; cudaProfilerStop stops it early (and writes the file),
cudaProfilerStart starts it (again): as with nvprof's
--profile-from-start off, a program can record only the part it brackets.
"""
from __future__ import annotations

from ..runtime import trace as _trace
from ._errors import cudaSuccess


def cudaProfilerStart() -> cudaError_t:  # noqa: F821
    """cudaProfilerStart: start recording the timeline (written where
    PYEMU_TRACE says, or returned by pyemu.runtime.trace.stop())."""
    _trace.start()
    return cudaSuccess


def cudaProfilerStop() -> cudaError_t:  # noqa: F821
    """cudaProfilerStop: wait for the device, stop recording and write the
    timeline (if PYEMU_TRACE named a file)."""
    from ..runtime import sync
    sync.wait_device()
    if _trace.recording():
        _trace.stop()
    return cudaSuccess


__all__ = ["cudaProfilerStart", "cudaProfilerStop"]
