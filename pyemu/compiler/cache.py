"""Storage of compiled kernel modules (the policy lives in pyemu.compiler).

Layout under the cache root (pyemu.runtime.config.cache_dir()):

    kernels/<key[:2]>/<key>.so     the module
    kernels/<key[:2]>/<key>.json   its metadata, with the sha256 of the .so
    tmp/<random>/                  staging directories of compiles in flight

A writer builds in a staging directory on the same file system, then moves
the .so and then the .json into place with os.replace, so a reader never sees
a half-written file: it sees the old entry, no entry, or the new one.  A
reader trusts an entry only when the JSON parses, names the key, and the
.so's sha256 matches; anything else reads as a miss, and the caller compiles
again and overwrites it.  Two processes that store the same key at once both
succeed: each rename is atomic, and both write equivalent files.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

FORMAT = 1                   # bump when the JSON layout changes
_STALE_STAGING_S = 24 * 3600  # staging dirs older than this are leftovers of crashes


def file_sha256(path: os.PathLike | str) -> str:
    """Hex sha256 of a file's content."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@dataclass(frozen=True)
class CacheEntry:
    """One verified entry: the module's path and its metadata."""
    key: str
    so_path: Path
    meta: dict


class KernelCache:
    """The kernel cache rooted at `root` (created on first store)."""

    def __init__(self, root: os.PathLike | str):
        self.root = Path(root)

    def paths(self, key: str) -> tuple[Path, Path]:
        """Where the .so and the .json of `key` live."""
        if len(key) < 3 or not all(c in "0123456789abcdef" for c in key):
            raise ValueError(f"bad cache key {key!r}")
        d = self.root / "kernels" / key[:2]
        return d / f"{key}.so", d / f"{key}.json"

    def load(self, key: str) -> Optional[CacheEntry]:
        """The entry of `key`, or None when it is missing, corrupt or truncated."""
        so_path, json_path = self.paths(key)
        try:
            with open(json_path, "r", encoding="utf-8") as f:
                meta = json.load(f)
        except (OSError, ValueError):
            return None
        if (not isinstance(meta, dict) or meta.get("format") != FORMAT
                or meta.get("key") != key or not isinstance(meta.get("so_sha256"), str)):
            return None
        try:
            if file_sha256(so_path) != meta["so_sha256"]:
                return None
        except OSError:
            return None
        return CacheEntry(key, so_path, meta)

    @contextmanager
    def staging(self) -> Iterator[Path]:
        """A fresh private directory inside the cache, removed on exit."""
        tmp_root = self.root / "tmp"
        tmp_root.mkdir(parents=True, exist_ok=True)
        self._sweep(tmp_root)
        path = Path(tempfile.mkdtemp(prefix="build-", dir=tmp_root))
        try:
            yield path
        finally:
            shutil.rmtree(path, ignore_errors=True)

    def store(self, key: str, so_file: os.PathLike | str, meta: dict) -> CacheEntry:
        """Move `so_file` (inside a staging directory) into the cache as `key`.

        `meta` must be JSON-serialisable; the key, the format and the .so's
        sha256 are added.  The .so is renamed first and the JSON last, so a
        reader that finds the JSON also finds a complete .so.
        """
        so_file = Path(so_file)
        so_path, json_path = self.paths(key)
        so_path.parent.mkdir(parents=True, exist_ok=True)
        full = dict(meta, format=FORMAT, key=key, so_sha256=file_sha256(so_file))
        json_tmp = so_file.with_name(so_file.name + ".json.tmp")
        with open(json_tmp, "w", encoding="utf-8") as f:
            json.dump(full, f, indent=1, sort_keys=True)
            f.write("\n")
        os.chmod(so_file, 0o755)
        os.replace(so_file, so_path)
        os.replace(json_tmp, json_path)
        return CacheEntry(key, so_path, full)

    @staticmethod
    def _sweep(tmp_root: Path) -> None:
        """Remove staging directories left behind by crashed processes."""
        now = time.time()
        try:
            names = os.listdir(tmp_root)
        except OSError:
            return
        for name in names:
            p = tmp_root / name
            try:
                if now - p.stat().st_mtime > _STALE_STAGING_S:
                    shutil.rmtree(p, ignore_errors=True)
            except OSError:
                pass
