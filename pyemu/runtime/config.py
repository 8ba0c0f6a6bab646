"""Every environment variable pyemu reads, read in one place.

PYEMU_NUM_THREADS    worker threads (= streaming multiprocessors); default: CPU cores
PYEMU_CACHE_DIR      kernel cache; default: $XDG_CACHE_HOME/pyemu or ~/.cache/pyemu
PYEMU_CACHE_MAX      kernel cache size limit in bytes (500M, 2G, ...; 0 = none); default 512M
PYEMU_CXX            C++ compiler for kernels; default: $CXX or g++
PYEMU_STACK_SIZE     bytes of stack per fiber (GPU thread); default 65536
PYEMU_DEVICE_MEMORY  device memory to report and allow (bytes, or 512M, 8G, ...);
                     default: physical RAM
PYEMU_KERNEL_TIMEOUT seconds a kernel may run before the watchdog stops it
                     (cudaErrorLaunchTimeout, as a display GPU); default: no limit
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


def kernel_timeout_ms() -> int:
    """PYEMU_KERNEL_TIMEOUT (seconds, a float) in milliseconds; 0: no limit."""
    raw = os.environ.get("PYEMU_KERNEL_TIMEOUT")
    if raw is None or raw.strip() == "":
        return 0
    try:
        seconds = float(raw)
    except ValueError:
        raise ValueError(f"PYEMU_KERNEL_TIMEOUT={raw!r} is not a number of seconds") from None
    if not 0 <= seconds <= 4e6:
        raise ValueError(f"PYEMU_KERNEL_TIMEOUT={raw!r} must be between 0 and 4e6 seconds")
    return max(1, round(seconds * 1000)) if seconds else 0


def device_memory() -> int:
    """Bytes (a number, or with K, M, G or T as PYEMU_CACHE_MAX); 0 lets the
    core pick the physical memory size."""
    raw = os.environ.get("PYEMU_DEVICE_MEMORY")
    if raw is None or raw.strip() == "":
        return 0
    return parse_size("PYEMU_DEVICE_MEMORY", raw)


def cache_dir() -> Path:
    """The configured kernel cache directory (pyemu.compiler.cache falls back
    to a private one when it cannot be written)."""
    raw = os.environ.get("PYEMU_CACHE_DIR")
    if raw:
        return Path(raw).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pyemu"


_SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_size(name: str, raw: str) -> int:
    """Bytes of a size such as 123, 500M, 2G or 1.5GiB (units of 1024)."""
    text = raw.strip().upper().replace(" ", "")
    for suffix in ("IB", "B"):
        if text.endswith(suffix) and text[:-len(suffix)][-1:] in _SIZE_UNITS.keys() - {""}:
            text = text[:-len(suffix)]
            break
    else:
        if text.endswith("B") and text[:-1].replace(".", "", 1).isdigit():
            text = text[:-1]
    unit = text[-1:] if text[-1:] in _SIZE_UNITS else ""
    number = text[:-1] if unit else text
    try:
        value = float(number) if "." in number else int(number)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a size (bytes, or with K, M, G or T)") from None
    if value < 0:
        raise ValueError(f"{name}={raw!r} must not be negative")
    return int(value * _SIZE_UNITS[unit])


def cache_max() -> int:
    """Size limit of the kernel cache in bytes; 0 means no limit."""
    raw = os.environ.get("PYEMU_CACHE_MAX")
    if raw is None or raw.strip() == "":
        return 512 << 20
    return parse_size("PYEMU_CACHE_MAX", raw)


def cxx() -> str:
    return os.environ.get("PYEMU_CXX") or os.environ.get("CXX") or "g++"
