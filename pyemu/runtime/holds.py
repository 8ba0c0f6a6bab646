"""Python objects kept alive while the commands that use them are in flight.

An asynchronous command (a non-blocking copy from a NumPy array, a kernel
launch that uses an OpenCL buffer) must keep the Python objects it touches
alive until it completes, whatever the caller does with its references.
hold(cmd, objects) retains the command in the core and keeps the objects;
sweep() lets go of every entry whose command has completed.  Sweeps run on
the calling thread, at the next hold and after every wait: no Python code
ever runs on a worker thread, so a worker never waits for the GIL.

Commands mostly complete in the order they were held, so a sweep looks at
the oldest entries first and stops at the first one still running; a full
pass runs only when the list has doubled since the last one (a command that
waits on a user event nobody sets does not keep everything after it).
"""
from __future__ import annotations

import collections
import threading

from .core import lib

_lock = threading.Lock()
_held = collections.deque()      # (cmd, objects), oldest first
_full_at = [64]                  # length that triggers the next full pass


def hold(cmd, objects) -> None:
    """Keep `objects` alive until `cmd` (a pyemu_cmd *) has completed."""
    lib.pyemu_cmd_retain(cmd)
    with _lock:
        _held.append((cmd, objects))
        _sweep_locked()


def hold_owned(cmd, objects) -> None:
    """hold(), taking over the caller's reference to `cmd` (no retain and
    release around it: one copy call's worth of C calls saved)."""
    with _lock:
        _held.append((cmd, objects))
        _sweep_locked()


def sweep() -> None:
    """Drop the objects of every command that has completed."""
    if _held:
        with _lock:
            _sweep_locked()


def _sweep_locked() -> None:
    while _held and lib.pyemu_cmd_status(_held[0][0]) <= 0:
        lib.pyemu_cmd_release(_held.popleft()[0])
    if len(_held) >= _full_at[0]:
        live = collections.deque()
        for cmd, objects in _held:
            if lib.pyemu_cmd_status(cmd) > 0:
                live.append((cmd, objects))
            else:
                lib.pyemu_cmd_release(cmd)
        _held.clear()
        _held.extend(live)
        _full_at[0] = max(64, 2 * len(_held))


def count() -> int:
    """How many commands still hold objects (for tests)."""
    return len(_held)
