"""The kernel cache: storage (pyemu.compiler.cache) and the compiler's use of it."""
from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_compiler import (REPO, VECADD, host, make_include_tree, module_info,  # noqa: E402,F401
                           tree, tree_dir)

from pyemu.compiler import driver as compiler  # noqa: E402
from pyemu.compiler import cache as cache_mod  # noqa: E402
from pyemu.compiler.cache import FORMAT, KernelCache, file_sha256  # noqa: E402
from pyemu.compiler import CompileError, compile_source  # noqa: E402

KEY = "ab" + "0" * 62


# ------------------------------------------------------------- storage

def _store(cache: KernelCache, key: str = KEY, payload: bytes = b"\x7fELF fake module"):
    with cache.staging() as tmp:
        so = tmp / "module.so"
        so.write_bytes(payload)
        return cache.store(key, so, {"kernel_names": ["k"], "log": ""})


def test_store_and_load_roundtrip(tmp_path):
    cache = KernelCache(tmp_path)
    entry = _store(cache)
    _, js = cache.paths(KEY)
    assert js == tmp_path / "kernels" / "ab" / f"{KEY}.json"
    meta = json.loads(js.read_text())
    so = cache.module_path(meta["so_sha256"])   # named by its content
    assert so == tmp_path / "kernels" / meta["so_sha256"][:2] / (meta["so_sha256"] + ".so")
    assert so.read_bytes() == b"\x7fELF fake module" and meta["so_size"] == len(so.read_bytes())
    assert meta["so_sha256"] == file_sha256(so) and meta["key"] == KEY
    # what the process loads is its own copy, never the shared file
    assert entry.so_path != so and entry.so_path.read_bytes() == so.read_bytes()
    assert entry.so_path.parent.name.startswith(f"run-{os.getpid()}-")
    loaded = cache.load(KEY)
    assert loaded is not None and loaded.meta["kernel_names"] == ["k"]
    assert [p.name for p in (tmp_path / "tmp").iterdir()
            if p.name.startswith("build-")] == []  # staging removed
    assert cache.load("cd" + "0" * 62) is None


@pytest.mark.parametrize("damage", ["truncate_so", "flip_so", "delete_so", "bad_json",
                                    "truncate_json", "other_key", "old_format", "delete_json"])
def test_load_rejects_damaged_entries(tmp_path, damage):
    cache = KernelCache(tmp_path)
    _store(cache)
    _, js = cache.paths(KEY)
    meta = json.loads(js.read_text())
    so = cache.module_path(meta["so_sha256"])
    cache_mod._state().copies.clear()   # as a new process: no copy of its own
    if damage == "truncate_so":
        so.write_bytes(so.read_bytes()[:5])
    elif damage == "flip_so":
        so.write_bytes(b"X" + so.read_bytes()[1:])
    elif damage == "delete_so":
        so.unlink()
    elif damage == "bad_json":
        js.write_text("{not json")
    elif damage == "truncate_json":
        js.write_text(js.read_text()[:20])
    elif damage == "other_key":
        js.write_text(json.dumps(dict(meta, key="cd" + "0" * 62)))
    elif damage == "old_format":
        js.write_text(json.dumps(dict(meta, format=FORMAT + 1)))
    else:
        js.unlink()
    assert cache.load(KEY) is None
    cache_mod._state().copies.clear()
    _store(cache)  # a new store repairs it
    assert cache.load(KEY) is not None


def test_paths_reject_bad_keys(tmp_path):
    cache = KernelCache(tmp_path)
    for bad in ["", "../../etc", "AB" + "0" * 62, "ab/cd"]:
        with pytest.raises(ValueError):
            cache.paths(bad)


def test_stale_staging_dirs_are_swept(tmp_path):
    cache = KernelCache(tmp_path)
    stale = tmp_path / "tmp" / "build-old"
    dead_run = tmp_path / "tmp" / "run-999999999-x"     # no such process
    dead_run.mkdir(parents=True)
    live_run = tmp_path / "tmp" / f"run-{os.getpid()}-x"
    live_run.mkdir()
    fresh = tmp_path / "tmp" / "build-new"
    stale.mkdir(parents=True)
    fresh.mkdir()
    old = time.time() - 3 * 24 * 3600
    for d in (stale, dead_run, live_run):
        os.utime(d, (old, old))
    with cache.staging() as tmp:
        assert tmp.is_dir() and tmp.parent == tmp_path / "tmp"
    assert not stale.exists() and fresh.exists() and not tmp.exists()
    assert not dead_run.exists() and live_run.exists()


def _writer(root: str, n: int, payload: bytes) -> None:
    cache = KernelCache(root)
    for _ in range(n):
        _store(cache, payload=payload)


def test_concurrent_stores_never_show_a_broken_entry(tmp_path):
    ctx = multiprocessing.get_context("fork")
    payload = os.urandom(200_000)
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), 40, payload)) for _ in range(3)]
    for p in procs:
        p.start()
    cache, seen = KernelCache(tmp_path), 0
    while any(p.is_alive() for p in procs):
        e = cache.load(KEY)
        if e is not None:
            seen += 1
            assert e.so_path.read_bytes() == payload
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert cache.load(KEY) is not None and seen > 0


# ------------------------------------------------- the compiler's policy

def test_hit_runs_no_compiler(tree, runs):
    first = compile_source(VECADD)
    assert len(runs) >= 2  # preprocess + compile
    runs.clear()
    t = time.perf_counter()
    second = compile_source(VECADD)
    elapsed = time.perf_counter() - t
    assert runs == [] and elapsed < 0.05
    assert second == first


def test_hit_in_a_new_process_runs_no_compile(tree, tmp_path):
    compile_source(VECADD)
    script = f"""
import sys; sys.path.insert(0, {str(REPO)!r})
from pathlib import Path
from pyemu.compiler import driver as compiler
compiler._include_root = lambda: Path({str(tree)!r})
calls = []
real = compiler._run
compiler._run = lambda cmd, *a, **k: (calls.append(cmd), real(cmd, *a, **k))[1]
m = compiler.compile_source({VECADD!r})
print(len(calls), all('--version' in c for c in calls), m.kernel_names)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.split(maxsplit=2)
    assert out[0] == "1" and out[1] == "True" and "vecAdd" in out[2]


def test_key_depends_on_every_input(tree, runs, monkeypatch):
    base = compile_source(VECADD)
    variants = [
        compile_source(VECADD + "\n"),
        compile_source(VECADD, options=["-DX"]),
        compile_source(VECADD, options=["-O1"]),
        compile_source(VECADD, options=["-std=c++14"]),
        compile_source(VECADD, source_name="other.cu"),
        compile_source(VECADD, name_expressions=["vecAdd"]),
    ]
    monkeypatch.setattr(compiler, "_cpu_id", lambda: "another cpu")
    variants.append(compile_source(VECADD))
    monkeypatch.setattr(compiler, "_cxx_version", lambda cxx: "g++ 99")
    variants.append(compile_source(VECADD))
    keys = {base.key} | {v.key for v in variants}
    assert len(keys) == len(variants) + 1
    assert all(Path(v.path).name == f"{file_sha256(v.path)}.so" for v in variants)


def test_header_change_invalidates(tmp_path, monkeypatch, runs, host):
    root = make_include_tree(tmp_path / "inc")
    monkeypatch.setattr(compiler, "_include_root", lambda: root)
    monkeypatch.setenv("PYEMU_CACHE_DIR", str(tmp_path / "cache"))
    compiler._include_digest.cache_clear()
    a = compile_source(VECADD)
    assert compile_source(VECADD).key == a.key
    with open(root / "pyemu" / "detail" / "cuda_math.h", "a") as f:
        f.write("/* changed */\n")
    assert compile_source(VECADD).key == a.key  # the digest is taken once per process
    compiler._include_digest.cache_clear()        # ... so a new process sees:
    runs.clear()
    b = compile_source(VECADD)
    assert b.key != a.key and len(runs) >= 2


def test_user_header_change_recompiles(tree, runs, tmp_path):
    inc = tmp_path / "user"
    inc.mkdir()
    hdr = inc / "names.h"
    hdr.write_text("#define KNAME first\n")
    src = '#include "names.h"\n__global__ void KNAME(int *p) {}\n'
    a = compile_source(src, options=["-I", str(inc)])
    assert a.kernel_names == ("first",)
    runs.clear()
    assert compile_source(src, options=["-I", str(inc)]) == a and runs == []
    hdr.write_text("#define KNAME second\n")
    b = compile_source(src, options=["-I", str(inc)])
    assert b.kernel_names == ("second",) and b.key == a.key and len(runs) >= 2
    assert module_info(b.path)[2].keys() == {"second"}


@pytest.mark.parametrize("damage", ["truncate_so", "bad_json"])
def test_corrupt_entry_is_recompiled(tree, runs, damage):
    a = compile_source(VECADD)
    cache = KernelCache(os.environ["PYEMU_CACHE_DIR"])
    _, js = cache.paths(a.key)
    so = cache.module_path(file_sha256(a.path))
    if damage == "truncate_so":
        with open(so, "r+b") as f:       # in place, as another program might
            f.truncate(100)
        runs.clear()
        assert compile_source(VECADD) == a and runs == []   # this process has its copy
    else:
        js.write_text("{")
    cache_mod._state().copies.clear()     # as a new process
    runs.clear()
    b = compile_source(VECADD)
    assert len(runs) >= 2 and Path(b.path).name == Path(a.path).name
    assert module_info(b.path)[1].nkernels == 1  # a loadable module again
    runs.clear()
    assert compile_source(VECADD) == b and runs == []


def test_compile_errors_are_not_cached(tree, runs):
    bad = "__global__ void k() { nope; }\n"
    for _ in range(2):
        runs.clear()
        with pytest.raises(CompileError):
            compile_source(bad)
        assert len(runs) >= 2
    cache = Path(os.environ["PYEMU_CACHE_DIR"])
    assert list(cache.glob("kernels/*/*")) == []
    assert list((cache / "tmp").glob("build-*")) == []


def _compile_in_child(tree_path: str, src: str, barrier, queue) -> None:
    compiler._include_root = lambda: Path(tree_path)
    calls = []
    real = compiler._run
    compiler._run = lambda cmd, *a, **k: (calls.append(cmd), real(cmd, *a, **k))[1]
    barrier.wait()
    try:
        m = compile_source(src)
        queue.put(("ok", m.key, m.path, m.kernel_names, len(calls)))
    except Exception as e:  # reported to the parent
        queue.put(("error", repr(e)))


def test_two_processes_compile_the_same_new_source(tree):
    ctx = multiprocessing.get_context("fork")
    src = VECADD + "// fresh source for this test\n"
    barrier, queue = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_compile_in_child, args=(str(tree), src, barrier, queue))
             for _ in range(2)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(30)
        assert p.exitcode == 0
    assert all(r[0] == "ok" for r in results), results
    assert results[0][1] == results[1][1] and results[0][3] == results[1][3]
    assert Path(results[0][2]).name == Path(results[1][2]).name   # the same module
    assert all(r[4] >= 2 for r in results)  # both really compiled, at once
    entry = KernelCache(os.environ["PYEMU_CACHE_DIR"]).load(results[0][1])
    assert entry is not None and module_info(str(entry.so_path))[2].keys() == {"vecAdd"}
    assert not any(Path(r[2]).exists() for r in results)   # the children's copies went
    # both built pyemu's precompiled head at once: one whole pair is left
    pch = sorted(p.name for p in (Path(os.environ["PYEMU_CACHE_DIR"]) / "unitpch").iterdir())
    assert len(pch) == 2 and pch[1] == pch[0] + ".gch", pch
