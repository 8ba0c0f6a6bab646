"""Every environment variable pyemu reads, read in one place.

PYEMU_NUM_THREADS    worker threads (= streaming multiprocessors); default: CPU cores
PYEMU_CACHE_DIR      kernel cache; default: $XDG_CACHE_HOME/pyemu or ~/.cache/pyemu
PYEMU_CXX            C++ compiler for kernels; default: $CXX or g++
PYEMU_STACK_SIZE     bytes of stack per fiber (GPU thread); default 65536
PYEMU_DEVICE_MEMORY  bytes of device memory to report and allow; default: physical RAM
"""
from __future__ import annotations

import os
from pathlib import Path


def _int_env(name: str, default: int, minimum: int = 0) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw, 0)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not an integer") from None
    if value < minimum:
        raise ValueError(f"{name}={raw!r} must be at least {minimum}")
    return value


def num_threads() -> int:
    """Worker threads; 0 lets the core pick one per CPU core."""
    return _int_env("PYEMU_NUM_THREADS", 0)


def stack_size() -> int:
    return _int_env("PYEMU_STACK_SIZE", 65536, 16384)


def device_memory() -> int:
    """0 lets the core pick the physical memory size."""
    return _int_env("PYEMU_DEVICE_MEMORY", 0)


def cache_dir() -> Path:
    raw = os.environ.get("PYEMU_CACHE_DIR")
    if raw:
        return Path(raw).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pyemu"


def cxx() -> str:
    return os.environ.get("PYEMU_CXX") or os.environ.get("CXX") or "g++"
