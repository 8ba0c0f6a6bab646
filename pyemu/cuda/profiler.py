"""cudaProfilerStart / cudaProfilerStop: pyemu's timeline (pyemu/runtime/trace.py).

With PYEMU_TRACE=file.json the timeline records from the start and is
written at exit; cudaProfilerStop stops it early (and writes the file),
cudaProfilerStart starts it (again): as with nvprof's
--profile-from-start off, a program can record only the part it brackets.
Without PYEMU_TRACE (no profiler attached) neither records nor waits.
"""
from __future__ import annotations

from ..runtime import trace as _trace
from ._errors import cudaSuccess


def cudaProfilerStart() -> cudaError_t:  # noqa: F821
    """cudaProfilerStart: start recording the timeline, written where
    PYEMU_TRACE (or an earlier pyemu.runtime.trace.start(path)) says.  With
    no such file nothing is recorded, as CUDA's call has no effect without a
    profiler (pyemu.runtime.trace.start() records to memory for
    trace.stop() to return)."""
    if _trace.destination():
        _trace.start()
    return cudaSuccess


def cudaProfilerStop() -> cudaError_t:  # noqa: F821
    """cudaProfilerStop: while the timeline records, wait for the device (so
    that what the program bracketed is in it), stop recording and write it
    (if PYEMU_TRACE named a file).  Otherwise nothing: as in CUDA without a
    profiler, the call does not wait for the device (asyncAPI calls it right
    after queueing work, then counts while the work runs)."""
    if _trace.recording():
        from ..runtime import sync
        sync.wait_device()
        _trace.stop()
    return cudaSuccess


__all__ = ["cudaProfilerStart", "cudaProfilerStop"]
