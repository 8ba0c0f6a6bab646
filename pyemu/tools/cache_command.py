"""`python -m pyemu cache`: show or empty the compiled-kernel cache.

The cache itself is pyemu.compiler.cache; this command prints what its
cache_info() reports and calls its cache_clear().
"""
from __future__ import annotations

import sys


def _size(n: int) -> str:
    """Bytes as people read them: 0 B, 12.3 KiB, 4.0 MiB."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"


def run(args) -> int:
    """Entry point: --info (the default) or --clear."""
    try:
        from ..compiler.cache import cache_clear, cache_info
    except ImportError as exc:
        print(f"pyemu cache: error: this pyemu's kernel cache cannot report itself ({exc})",
              file=sys.stderr)
        return 1
    if args.clear:
        root = cache_info()["root"]
        removed = cache_clear()
        print(f"removed {removed} cached kernel{'s' if removed != 1 else ''} from {root}")
        return 0
    info = cache_info()
    limit = info["max_bytes"]
    print(f"kernel cache  {info['root']}")
    print(f"  entries     {info['entries']}")
    print(f"  size        {_size(info['bytes'])}")
    print(f"  limit       {_size(limit) if limit else 'none'}"
          + ("" if not limit else " (PYEMU_CACHE_MAX)"))
    return 0
