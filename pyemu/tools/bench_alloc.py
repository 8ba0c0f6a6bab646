"""How cudaMalloc and cudaFree scale with the number of live allocations.

`alloc_rows()` allocates `count` blocks of 256 bytes with cudaMalloc, all
live at once, then frees them all with cudaFree, and reports the seconds per
call of each.  The memory manager's allocation and free are O(1) per call
(csrc/memory.c), so the per-call times of 10^4 and 10^6 allocations should
be within a small factor of each other.  Each row is checked: every
allocation is a distinct device address, and the first and the last one
hold what was copied into them.

Run it in a process of its own (`run_in_child`, which `python -m pyemu
bench` uses), or at least with no other allocations live: a million
256-byte allocations take about 4.2 GB of device memory (a page each) and
several seconds, and PYEMU_DEVICE_MEMORY must allow that.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np

SIZE = 256
BYTES_PER_ALLOCATION = 4200     # what a 256-byte allocation takes of device memory, and more


def _check(ptrs, count) -> str:
    """'' when the allocations are distinct and usable, else what is wrong."""
    from pyemu.cuda import cudaMemcpy, cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice

    if len(set(int(p) for p in ptrs)) != count:
        return f"{count - len(set(int(p) for p in ptrs))} allocations share an address"
    for p in (ptrs[0], ptrs[-1]):
        data = np.arange(SIZE // 4, dtype=np.int32) + int(p) % 1000
        back = np.empty_like(data)
        cudaMemcpy(p, data, SIZE, cudaMemcpyHostToDevice)
        cudaMemcpy(back, p, SIZE, cudaMemcpyDeviceToHost)
        if not np.array_equal(back, data):
            return f"the allocation at 0x{int(p):x} did not keep what was copied into it"
    return ""


def alloc_rows(counts=(10**4, 10**6)) -> list[dict]:
    """One row per count: {"count", "size", "malloc_s", "free_s", "ok", "why"},
    seconds per cudaMalloc(256) and per cudaFree with `count` allocations live
    at the peak; `ok` says the allocations were distinct and usable."""
    from pyemu.cuda import cudaFree, cudaMalloc

    # start the device, and map the memory the smallest count takes, untimed
    for p in [cudaMalloc(SIZE) for _ in range(min(counts, default=1))]:
        cudaFree(p)
    rows = []
    for count in counts:
        ptrs = [None] * count
        t0 = time.perf_counter()
        for i in range(count):
            ptrs[i] = cudaMalloc(SIZE)
        t1 = time.perf_counter()
        why = _check(ptrs, count)
        t2 = time.perf_counter()
        for p in ptrs:
            cudaFree(p)
        t3 = time.perf_counter()
        rows.append({"count": count, "size": SIZE, "malloc_s": (t1 - t0) / count,
                     "free_s": (t3 - t2) / count, "ok": not why, "why": why})
    return rows


def run_in_child(counts=(10**4, 10**6), timeout: float = 600) -> list[dict]:
    """alloc_rows(counts) in a fresh process whose PYEMU_DEVICE_MEMORY allows the
    largest count (never less than it already is).  Raises RuntimeError with
    the child's last line when it fails."""
    env = dict(os.environ)
    need = max(counts) * BYTES_PER_ALLOCATION + (256 << 20)
    have = int(env.get("PYEMU_DEVICE_MEMORY") or 0)
    if have < need:
        env["PYEMU_DEVICE_MEMORY"] = str(need)
    proc = subprocess.run([sys.executable, "-m", "pyemu.tools.bench_alloc", "--json",
                           *map(str, counts)], env=env, capture_output=True, text=True,
                          timeout=timeout)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"the allocation benchmark's process failed: {tail}")
    return json.loads(lines[-1])


def format_rows(rows) -> str:
    """The rows as a small text table (microseconds per call)."""
    lines = [f"{'allocations':>12} {'cudaMalloc(256)':>16} {'cudaFree':>10}"]
    for r in rows:
        lines.append(f"{r['count']:>12,} {r['malloc_s'] * 1e6:>13.2f} us "
                     f"{r['free_s'] * 1e6:>7.2f} us" + ("" if r.get("ok", True)
                                                        else f"  FAIL: {r['why']}"))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """`python -m pyemu.tools.bench_alloc [--json] [COUNT ...]`: the table, or the
    rows as one JSON line; exit status 1 when a row's check failed."""
    as_json = "--json" in argv
    counts = tuple(int(a) for a in argv if a != "--json") or (10**4, 10**6)
    rows = alloc_rows(counts)
    print(json.dumps(rows) if as_json else format_rows(rows))
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
