"""How cudaMalloc and cudaFree scale with the number of live allocations.

`alloc_rows()` allocates `count` blocks of 256 bytes with cudaMalloc, all
live at once, then frees them all with cudaFree, and reports the seconds per
call of each.  The memory manager's allocation and free are O(1) per call
(csrc/memory.c), so the per-call times of 10^4 and 10^6 allocations should
be within a small factor of each other.  Run it in a process of its own, or
at least with no other allocations live: a million 256-byte allocations take
4 GiB of device memory (a page each) and a few seconds.
"""
from __future__ import annotations

import time

SIZE = 256


def alloc_rows(counts=(10**4, 10**6)) -> list[dict]:
    """One row per count: {"count", "size", "malloc_s", "free_s"}, seconds per
    cudaMalloc(256) and per cudaFree with `count` allocations live at the peak."""
    from pyemu.cuda import cudaFree, cudaMalloc

    cudaFree(cudaMalloc(SIZE))      # start the device outside the timing
    rows = []
    for count in counts:
        ptrs = [None] * count
        t0 = time.perf_counter()
        for i in range(count):
            ptrs[i] = cudaMalloc(SIZE)
        t1 = time.perf_counter()
        for p in ptrs:
            cudaFree(p)
        t2 = time.perf_counter()
        rows.append({"count": count, "size": SIZE,
                     "malloc_s": (t1 - t0) / count, "free_s": (t2 - t1) / count})
    return rows


def format_rows(rows) -> str:
    """The rows as a small text table (microseconds per call)."""
    lines = [f"{'allocations':>12} {'cudaMalloc(256)':>16} {'cudaFree':>10}"]
    for r in rows:
        lines.append(f"{r['count']:>12,} {r['malloc_s'] * 1e6:>13.2f} us "
                     f"{r['free_s'] * 1e6:>7.2f} us")
    return "\n".join(lines)


if __name__ == "__main__":
    print(format_rows(alloc_rows()))
