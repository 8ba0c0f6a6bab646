"""Storage of compiled kernel modules (the policy lives in pyemu.compiler.driver).

Layout under the cache root (pyemu.runtime.config.cache_dir()):

    kernels/<key[:2]>/<key>.json   an entry: its metadata, naming its module
    kernels/<sha[:2]>/<sha>.so     a module, named by the sha256 of its bytes
    tmp/build-*/                   staging directories of compiles in flight
    tmp/run-<pid>-*/               the copies of modules this process loads
    tmp/evict.lock                 held by the process that evicts
    frontend/<hash>.pch            pyemu's headers, precompiled for the front end
                                   (pyemu.compiler.frontend; one per dialect and
                                   set of options, built on first use)
    unitpch/<hash>.h, .h.gch       the same headers, precompiled for g++'s compile
                                   of a unit (pyemu.compiler.unitpch; built on
                                   first use)

Files are written in a staging directory and moved into place with
os.replace, never rewritten in place: a reader sees the old file, no file or
the new one.  An entry is trusted only when its JSON parses, names its key,
and the module has the size and sha256 the JSON records; anything else is a
miss, and the caller builds again.  A module is named by its content, so a
rebuild that gives different code (a user header changed) lands on a new
path, and dlopen, which returns a module it already has for a path it has
seen, loads the new code.

The process never dlopens a file of the shared cache: load() and store()
copy the verified bytes to the process's own run directory (removed at exit)
and hand out that path.  Another process that truncates, overwrites or
deletes a cache file therefore cannot touch a loaded module (a mapped file
cut short is SIGBUS, not an error).

Use is recorded by touching the entry's JSON (at most once a minute); after
a store, the least recently used entries are removed until the cache is
under PYEMU_CACHE_MAX, skipping the ones this process loaded; one process
evicts at a time (a lock it does not wait for).  A cache root that cannot be
written makes the process use a private temporary cache, with one
CacheWarning: a compiler needs no cache.
"""
from __future__ import annotations

import atexit
import fcntl
import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

from ..runtime import config as _config

__all__ = ["CacheEntry", "CacheWarning", "KernelCache", "cache_clear", "cache_info",
           "file_sha256", "open_cache"]

FORMAT = 2                     # bump when the layout or the JSON changes
_STALE_S = 24 * 3600           # staging and run dirs older than this are leftovers of crashes
_TOUCH_S = 60                  # a hit refreshes the entry's time at most this often
_ORPHAN_S = 600                # a module no entry names is removed after this long
_HEX64 = re.compile(r"[0-9a-f]{64}")


class CacheWarning(UserWarning):
    """The kernel cache cannot be used as configured (pyemu compiles anyway)."""


def file_sha256(path: os.PathLike | str) -> str:
    """Hex sha256 of a file's content."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@dataclass(frozen=True)
class CacheEntry:
    """One verified entry: the path to load (this process's copy) and the metadata."""
    key: str
    so_path: Path     # the process's private copy: what dlopen gets
    meta: dict


# ------------------------------------------------------ process-wide state

class _Process:
    """What this process owns: its run directory, the copies in it, the
    entries it loaded (never evicted by it), private roots to remove at exit."""

    def __init__(self):
        self.pid = os.getpid()
        self.lock = threading.Lock()
        self.run_dirs: dict[str, str] = {}     # cache root -> run dir
        self.copies: dict[str, str] = {}       # sha256 -> private copy
        self.used_keys: set[str] = set()
        self.used_shas: set[str] = set()
        self.roots: dict[str, str] = {}        # configured root -> root in use
        self.cleanup: list[str] = []           # removed at exit
        self.warned: set[str] = set()


_STATE = _Process()


def _state() -> _Process:
    """The state of this process (a forked child starts its own)."""
    global _STATE
    if _STATE.pid != os.getpid():
        _STATE = _Process()
    return _STATE


@atexit.register
def _remove_private_dirs() -> None:
    st = _STATE
    if st.pid == os.getpid():
        for d in st.cleanup:
            shutil.rmtree(d, ignore_errors=True)


def _remove_in_child_exit(path: str) -> None:
    """A process started by multiprocessing ends without atexit: remove
    `path` at its end too (a multiprocessing finalizer)."""
    import sys
    util = sys.modules.get("multiprocessing.util")
    if util is not None:
        util.Finalize(None, shutil.rmtree, args=(path,), kwargs={"ignore_errors": True},
                      exitpriority=0)


def _warn_once(what: str, message: str) -> None:
    st = _state()
    if what not in st.warned:
        st.warned.add(what)
        warnings.warn(CacheWarning(message), stacklevel=4)


def _private_root(reason: str, configured: str) -> str:
    """A temporary cache for this process alone, removed at exit."""
    root = tempfile.mkdtemp(prefix="pyemu-cache-")
    _state().cleanup.append(root)
    _remove_in_child_exit(root)
    _warn_once(configured, f"pyemu: the kernel cache {configured} cannot be written ({reason}); "
               f"kernels are cached in {root} until this process exits (set PYEMU_CACHE_DIR to "
               "a writable directory to keep them)")
    return root


def usable_root(configured: os.PathLike | str) -> str:
    """`configured` if a cache can be written there (checked once a process),
    else a private temporary directory, with one CacheWarning."""
    configured = os.fspath(configured)
    st = _state()
    root = st.roots.get(configured)
    if root is None:
        try:
            os.makedirs(os.path.join(configured, "kernels"), exist_ok=True)
            os.makedirs(os.path.join(configured, "tmp"), exist_ok=True)
            fd, probe = tempfile.mkstemp(prefix="probe-", dir=os.path.join(configured, "tmp"))
            os.close(fd)
            os.unlink(probe)
            root = configured
        except OSError as e:
            root = _private_root(e.strerror or str(e), configured)
        st.roots[configured] = root
    return root


def open_cache() -> "KernelCache":
    """The cache pyemu.runtime.config configures (or the private fallback)."""
    return KernelCache(usable_root(_config.cache_dir()))


# ------------------------------------------------------------------ cache

class KernelCache:
    """The kernel cache rooted at `root` (directories created as needed)."""

    def __init__(self, root: os.PathLike | str):
        self.root = Path(root)
        self._root = os.fspath(root)

    def paths(self, key: str) -> tuple[Path, Path]:
        """(directory of the entry, its JSON) for `key`."""
        if len(key) < 3 or not all(c in "0123456789abcdef" for c in key):
            raise ValueError(f"bad cache key {key!r}")
        d = self.root / "kernels" / key[:2]
        return d, d / f"{key}.json"

    def module_path(self, sha: str) -> Path:
        """Where the module whose sha256 is `sha` lives in the cache."""
        return self.root / "kernels" / sha[:2] / f"{sha}.so"

    def load(self, key: str) -> Optional[CacheEntry]:
        """The entry of `key`, or None when it is missing, corrupt or truncated."""
        self.paths(key)
        json_path = os.path.join(self._root, "kernels", key[:2], key + ".json")
        try:
            with open(json_path, "rb") as f:
                mtime = os.fstat(f.fileno()).st_mtime
                meta = json.loads(f.read())
        except (OSError, ValueError):
            return None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("key") != key:
            return None
        sha, size = meta.get("so_sha256"), meta.get("so_size")
        if not isinstance(sha, str) or not _HEX64.fullmatch(sha) or type(size) is not int:
            return None
        st = _state()
        copy = st.copies.get(sha)
        if copy is None or not os.path.exists(copy):
            try:
                with open(os.path.join(self._root, "kernels", sha[:2], sha + ".so"), "rb") as f:
                    data = f.read(size + 1)
            except OSError:
                return None
            if len(data) != size or hashlib.sha256(data).hexdigest() != sha:
                return None
            try:
                copy = self._private_copy(sha, data)
            except OSError:
                return None
        if time.time() - mtime > _TOUCH_S:
            try:
                os.utime(json_path)
            except OSError:
                pass
        st.used_keys.add(key)
        return CacheEntry(key, Path(copy), meta)

    @contextmanager
    def staging(self) -> Iterator[Path]:
        """A fresh private directory inside the cache (else in the system's
        temporary directory), removed on exit."""
        tmp_root = os.path.join(self._root, "tmp")
        try:
            os.makedirs(tmp_root, exist_ok=True)
            self._sweep(Path(tmp_root))
            path = tempfile.mkdtemp(prefix="build-", dir=tmp_root)
        except OSError:
            path = tempfile.mkdtemp(prefix="pyemu-build-")
        try:
            yield Path(path)
        finally:
            shutil.rmtree(path, ignore_errors=True)

    def store(self, key: str, so_file: os.PathLike | str, meta: dict) -> CacheEntry:
        """Put the module `so_file` (inside a staging directory) into the cache as `key`.

        `meta` must be JSON-serialisable; the key, the format and the module's
        sha256 and size are added.  The module is moved first and the JSON
        last, so a reader that finds the JSON finds the module.  A cache that
        cannot be written gives one CacheWarning: the entry is then this
        process's alone.  Evicts least recently used entries afterwards.
        """
        self.paths(key)
        with open(so_file, "rb") as f:
            data = f.read()
        sha = hashlib.sha256(data).hexdigest()
        full = dict(meta, format=FORMAT, key=key, so_sha256=sha, so_size=len(data))
        copy = self._private_copy(sha, data)
        try:
            self._publish(key, Path(so_file), sha, full)
        except OSError as e:
            _warn_once(self._root + ":store",
                       f"pyemu: cannot store a kernel in the cache {self._root} "
                       f"({e.strerror or e}); this process keeps its own copy")
        st = _state()
        st.used_keys.add(key)
        self.evict(_config.cache_max())
        return CacheEntry(key, Path(copy), full)

    def _publish(self, key: str, so_file: Path, sha: str, full: dict) -> None:
        so_path = self.module_path(sha)
        _, json_path = self.paths(key)
        so_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_tmp = so_file.with_name(so_file.name + ".json.tmp")
        with open(json_tmp, "w", encoding="utf-8") as f:
            json.dump(full, f, indent=1, sort_keys=True)
            f.write("\n")
        os.chmod(so_file, 0o755)
        os.replace(so_file, so_path)
        os.replace(json_tmp, json_path)

    def _private_copy(self, sha: str, data: bytes) -> str:
        """This process's copy of a module (made once per module)."""
        st = _state()
        with st.lock:
            copy = st.copies.get(sha)
            if copy is not None and os.path.exists(copy):
                st.used_shas.add(sha)
                return copy
            run = st.run_dirs.get(self._root)
            if run is None or not os.path.isdir(run):
                try:
                    tmp_root = os.path.join(self._root, "tmp")
                    os.makedirs(tmp_root, exist_ok=True)
                    run = tempfile.mkdtemp(prefix=f"run-{os.getpid()}-", dir=tmp_root)
                except OSError:
                    run = tempfile.mkdtemp(prefix=f"pyemu-run-{os.getpid()}-")
                st.run_dirs[self._root] = run
                st.cleanup.append(run)
                _remove_in_child_exit(run)
            copy = os.path.join(run, sha + ".so")
            part = copy + ".part"
            with open(part, "wb") as f:
                f.write(data)
            os.replace(part, copy)
            st.copies[sha] = copy
            st.used_shas.add(sha)
            return copy

    # ------------------------------------------------- size and eviction

    def _scan(self):
        """({key: (mtime, size, path)}, {sha: (mtime, size, path)}) of the cache."""
        entries, modules = {}, {}
        base = os.path.join(self._root, "kernels")
        try:
            subdirs = list(os.scandir(base))
        except OSError:
            return entries, modules
        for d in subdirs:
            try:
                files = list(os.scandir(d.path))
            except OSError:
                continue
            for f in files:
                name, _, ext = f.name.partition(".")
                if ext not in ("json", "so"):
                    continue
                try:
                    s = f.stat()
                except OSError:
                    continue
                (entries if ext == "json" else modules)[name] = (s.st_mtime, s.st_size, f.path)
        return entries, modules

    def size(self) -> tuple[int, int]:
        """(entries, bytes of entries and modules) in the cache."""
        entries, modules = self._scan()
        return len(entries), sum(v[1] for v in entries.values()) + sum(
            v[1] for v in modules.values())

    def evict(self, max_bytes: int) -> int:
        """Removes least recently used entries until the cache holds at most
        `max_bytes` (0: no limit); returns how many.  Entries this process
        loaded stay; when another process is evicting, this one leaves it."""
        if max_bytes <= 0:
            return 0
        try:
            lock = open(os.path.join(self._root, "tmp", "evict.lock"), "a")
        except OSError:
            return 0
        with lock:
            try:
                fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return 0
            return self._evict_locked(max_bytes)

    def _evict_locked(self, max_bytes: int) -> int:
        entries, modules = self._scan()
        total = sum(v[1] for v in entries.values()) + sum(v[1] for v in modules.values())
        if total <= max_bytes:
            return 0
        refs: dict[str, str] = {}
        for key, (_, _, path) in entries.items():
            try:
                with open(path, "rb") as f:
                    sha = json.loads(f.read()).get("so_sha256")
                if isinstance(sha, str):
                    refs[key] = sha
            except (OSError, ValueError, AttributeError):
                pass
        users: dict[str, int] = {}
        for sha in refs.values():
            users[sha] = users.get(sha, 0) + 1
        st = _state()
        now = time.time()

        def unlink(path: str) -> bool:
            try:
                os.unlink(path)
                return True
            except OSError:
                return False

        for sha, (mtime, size, path) in modules.items():     # modules no entry names
            if (sha not in users and sha not in st.used_shas and now - mtime > _ORPHAN_S
                    and unlink(path)):
                total -= size
        removed = 0
        for key, (mtime, size, path) in sorted(entries.items(), key=lambda kv: kv[1][0]):
            if total <= max_bytes:
                break
            if key in st.used_keys or refs.get(key) in st.used_shas:
                continue
            if not unlink(path):
                continue
            total -= size
            removed += 1
            sha = refs.get(key)
            if sha is not None:
                users[sha] -= 1
                if users[sha] == 0 and sha in modules and unlink(modules[sha][2]):
                    total -= modules[sha][1]
        return removed

    def clear(self) -> int:
        """Removes every entry and module; returns the number of entries.  A
        process that loaded one keeps its own copy."""
        entries, modules = self._scan()
        removed = 0
        for _, _, path in entries.values():
            try:
                os.unlink(path)
                removed += 1
            except OSError:
                pass
        for _, _, path in modules.values():
            try:
                os.unlink(path)
            except OSError:
                pass
        for path in [*(self.root / "frontend").glob("*.pch"),
                     *(self.root / "unitpch").glob("*")]:
            try:
                os.unlink(path)
            except OSError:
                pass
        return removed

    @staticmethod
    def _sweep(tmp_root: Path) -> None:
        """Remove staging and run directories left behind by crashed processes."""
        now = time.time()
        try:
            names = os.listdir(tmp_root)
        except OSError:
            return
        for name in names:
            if not name.startswith(("build-", "run-")):
                continue
            p = tmp_root / name
            try:
                if now - p.stat().st_mtime > _STALE_S and not _alive_owner(name):
                    shutil.rmtree(p, ignore_errors=True)
            except OSError:
                pass


def _alive_owner(name: str) -> bool:
    """True for the run directory of a process that still runs (run-<pid>-...)."""
    parts = name.split("-")
    if parts[0] != "run" or len(parts) < 3 or not parts[1].isdigit():
        return False
    try:
        os.kill(int(parts[1]), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


# ------------------------------------------- what `python -m pyemu cache` calls

def cache_info() -> dict:
    """The configured cache: {"root", "entries", "bytes", "max_bytes" (0: no limit)}."""
    root = _config.cache_dir()
    entries, nbytes = KernelCache(root).size()
    return {"root": str(root), "entries": entries, "bytes": nbytes,
            "max_bytes": _config.cache_max()}


def cache_clear() -> int:
    """Empties the configured cache; returns the number of entries removed.

    Safe while other processes use it: they see misses and build again, and
    modules they already loaded are their own copies."""
    return KernelCache(_config.cache_dir()).clear()
