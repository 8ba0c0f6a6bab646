"""PYEMU_CACHE_MAX: least recently used entries go; cache_info and cache_clear
(what `python -m pyemu cache --info/--clear` calls)."""
from __future__ import annotations

import multiprocessing
import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_compiler import VECADD, host, module_info, tree, tree_dir  # noqa: E402,F401

from pyemu.compiler import cache as C  # noqa: E402
from pyemu.compiler import compile_source  # noqa: E402
from pyemu.compiler import driver as compiler  # noqa: E402
from pyemu.runtime import config  # noqa: E402


@pytest.mark.parametrize("raw,value", [(None, 512 << 20), ("", 512 << 20), ("0", 0),
                                       ("123", 123), ("500M", 500 << 20), ("2G", 2 << 30),
                                       ("64MiB", 64 << 20), ("10k", 10 << 10)])
def test_cache_max_setting(monkeypatch, raw, value):
    if raw is None:
        monkeypatch.delenv("PYEMU_CACHE_MAX", raising=False)
    else:
        monkeypatch.setenv("PYEMU_CACHE_MAX", raw)
    assert config.cache_max() == value


@pytest.mark.parametrize("raw", ["lots", "-5", "5X", "M"])
def test_cache_max_rejects_nonsense(monkeypatch, raw):
    monkeypatch.setenv("PYEMU_CACHE_MAX", raw)
    with pytest.raises(ValueError, match="PYEMU_CACHE_MAX"):
        config.cache_max()


def _fill(root: str, n: int, size: int) -> None:
    """n entries stored by another process (so this one does not protect them)."""
    def child():
        os.environ["PYEMU_CACHE_MAX"] = "0"
        cache = C.KernelCache(root)
        for i in range(n):
            with cache.staging() as tmp:
                (tmp / "m.so").write_bytes(bytes([i]) * size)
                cache.store(f"{i:02x}" + "0" * 62, tmp / "m.so", {"kernel_names": ["k"]})
    p = multiprocessing.get_context("fork").Process(target=child)
    p.start()
    p.join(60)
    assert p.exitcode == 0


def test_least_recently_used_entries_go_first(tmp_path, monkeypatch):
    root = str(tmp_path)
    _fill(root, 6, 10_000)
    cache = C.KernelCache(root)
    keys = [f"{i:02x}" + "0" * 62 for i in range(6)]
    base = time.time() - 3600
    for i, k in enumerate(keys):          # entry 0 oldest ... 5 newest
        os.utime(cache.paths(k)[1], (base + i * 100, base + i * 100))
    assert cache.load(keys[0]) is not None   # a hit makes 0 the most recent
    assert cache.size()[0] == 6
    per_entry = cache.size()[1] // 6
    limit = 5 * per_entry    # the new entry is smaller than the others: two must go
    monkeypatch.setenv("PYEMU_CACHE_MAX", str(limit))
    with cache.staging() as tmp:              # a store evicts
        (tmp / "m.so").write_bytes(b"new" * 3000)
        cache.store("ff" + "0" * 62, tmp / "m.so", {"kernel_names": ["k"]})
    left = {k for k in keys + ["ff" + "0" * 62] if cache.paths(k)[1].exists()}
    # 1 and 2 were the least recently used; 0 was used; ff is this process's
    assert left == {keys[0], keys[3], keys[4], keys[5], "ff" + "0" * 62}
    for k in (keys[1], keys[2]):           # their modules went with them
        assert not cache.module_path(C.hashlib.sha256(bytes([int(k[:2], 16)]) * 10_000)
                                     .hexdigest()).exists()
    n, nbytes = cache.size()
    assert n == 5 and nbytes <= limit


def test_no_limit_keeps_everything(tmp_path, monkeypatch):
    _fill(str(tmp_path), 5, 5000)
    monkeypatch.setenv("PYEMU_CACHE_MAX", "0")
    cache = C.KernelCache(tmp_path)
    assert cache.evict(0) == 0 and cache.size()[0] == 5


def test_loaded_entries_are_never_evicted_by_their_process(tree, monkeypatch):
    monkeypatch.setenv("PYEMU_CACHE_MAX", "1")
    mods = [compile_source(VECADD + f"// {i}\n") for i in range(3)]
    info = C.cache_info()
    assert info["entries"] == 3 and info["max_bytes"] == 1
    for m in mods:    # still hits, and still runnable
        assert compile_source(VECADD + f"// {mods.index(m)}\n") == m
        assert module_info(m.path)[2].keys() == {"vecAdd"}


def test_cache_info_and_clear(tree, monkeypatch):
    monkeypatch.setenv("PYEMU_CACHE_MAX", "1G")
    empty = C.cache_info()
    assert empty == {"root": os.environ["PYEMU_CACHE_DIR"], "entries": 0, "bytes": 0,
                     "max_bytes": 1 << 30}
    a = compile_source(VECADD)
    compile_source(VECADD + "// two\n")
    info = C.cache_info()
    # (the two builds may give the same module bytes: then they share one file)
    assert info["entries"] == 2 and info["bytes"] > os.path.getsize(a.path)
    assert C.cache_clear() == 2
    assert C.cache_info()["entries"] == 0 and C.cache_info()["bytes"] == 0
    assert module_info(a.path)[2].keys() == {"vecAdd"}   # this process's copy still loads
    C._state().copies.clear()                             # a new process builds again
    assert compile_source(VECADD).kernel_names == ("vecAdd",)
    assert C.cache_info()["entries"] == 1


def _tag(i: int, worker: int) -> str:
    """A line that makes a different module (a comment may not)."""
    return f"__device__ int tag_{i}_{worker} = {i * 10 + worker};\n"


def _worker(tree_path: str, ident: int, n: int, barrier, queue) -> None:
    compiler._include_root = lambda: Path(tree_path)
    barrier.wait()
    try:
        out = []
        for i in range(n):
            m = compile_source(VECADD + _tag(i % 3, ident % 2))
            out.append(sorted(module_info(m.path)[2]))
        queue.put(("ok", out))
    except Exception as e:  # reported to the parent
        queue.put(("error", repr(e)))


def test_processes_compiling_under_eviction_pressure(tree, monkeypatch):
    first = compile_source(VECADD + _tag(9, 9))
    per_entry = C.cache_info()["bytes"]
    monkeypatch.setenv("PYEMU_CACHE_MAX", str(2 * per_entry))
    ctx = multiprocessing.get_context("fork")
    barrier, queue = ctx.Barrier(4), ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(str(tree), i, 4, barrier, queue))
             for i in range(4)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=240) for _ in procs]
    for p in procs:
        p.join(30)
        assert p.exitcode == 0
    assert all(r == ("ok", [["vecAdd"]] * 4) for r in results), results
    assert module_info(first.path)[2].keys() == {"vecAdd"}
    # 6 different modules were stored; the cache holds what the limit allows,
    # and each of its entries is whole
    info = C.cache_info()
    assert 1 <= info["entries"] < 7
    cache = C.KernelCache(os.environ["PYEMU_CACHE_DIR"])
    for js in Path(os.environ["PYEMU_CACHE_DIR"]).glob("kernels/*/*.json"):
        C._state().copies.clear()
        cache.load(js.stem)   # a miss at worst, never an exception
