"""pyemu's headers precompiled for g++'s compile of a unit (driver.py).

Every unit the driver compiles starts with the same text: pyemu's headers
as `g++ -E` wrote them (about 25,000 lines, macros already expanded) and the
module's binding, up to the line of `pyemu_dyn_smem_probe`.  Parsing it is
about a sixth of an uncached build.  That head is compiled once into a
precompiled header, kept in the cache as

    unitpch/<key>.h        the head's text
    unitpch/<key>.h.gch    its precompiled form

keyed by the compiler's version, the compile's options and the head's
text, and each unit is then compiled as its remainder with `-include
<key>.h`.  g++ reads the .gch where it is valid for the compile (the same
compiler and options) and otherwise the .h itself, so the result is the
unit's either way.  The .h is checked to hold the head (a damaged one is
built again with its .gch), the .gch to begin as g++'s do.  A compile with
them that fails as a compile error does (status 1) is the unit's own: its
diagnostics are reported, one g++ run as before; one that crashes is run
again on the whole unit, and the pair is removed.
Both files are written under temporary names and moved into place (.h
first), so a reader sees a whole file or none; two processes that build the
same one at once both succeed.  Where anything fails (no cache directory, a
full disk, a PCH build that does not succeed) the unit is compiled whole.
"""
from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path
from typing import Callable, Optional

DIRNAME = "unitpch"
_MAGIC = b"gpch"     # how every g++ precompiled header begins
# the last line of the head: the module's own definition of the probe
# (driver._DYN_PROBE, as g++ -E writes it)
_HEAD_END = "inline void *pyemu_dyn_smem_probe()"


def split(text: str) -> int:
    """Where the head of `text` (a unit the driver compiles) ends: the
    offset after the line of pyemu_dyn_smem_probe, or 0 where it has none."""
    at = text.find("\n" + _HEAD_END)
    if at < 0:
        return 0
    end = text.find("\n", at + 1)
    return end + 1 if end > 0 else 0


def header(cache_root, cmd: list, version: str, head: str,
           run: Callable) -> Optional[Path]:
    """The .h whose .h.gch holds `head` precompiled for compile command
    `cmd` (its options, without the input and output) of a compiler whose
    --version says `version`; built now if it is not in the cache yet
    (`run` runs a command: driver._run).  None where there is none."""
    if cache_root is None or not head:
        return None
    key = hashlib.sha256(repr((version, cmd)).encode() + b"\0"
                         + head.encode("latin-1")).hexdigest()[:32]
    where = Path(cache_root) / DIRNAME
    h, gch = where / f"{key}.h", where / f"{key}.h.gch"
    data = head.encode("latin-1")
    try:
        if gch.stat().st_size > 0 and h.read_bytes() == data:
            with open(gch, "rb") as f:
                if f.read(4) == _MAGIC:
                    return h
    except OSError:
        pass
    tag = f"{os.getpid()}.{uuid.uuid4().hex[:12]}.tmp"     # threads of one process too
    tmp_h, tmp_gch = where / f"{key}.{tag}.h", where / f"{key}.{tag}.h.gch"
    try:
        where.mkdir(parents=True, exist_ok=True)
        tmp_h.write_bytes(data)
        r = run(list(cmd) + ["-x", "c++-header", str(tmp_h), "-o", str(tmp_gch)])
        if r.returncode != 0 or not tmp_gch.is_file():
            return None
        os.replace(tmp_h, h)
        os.replace(tmp_gch, gch)
        return h
    except OSError:
        return None
    finally:
        for p in (tmp_h, tmp_gch):
            try:
                p.unlink()
            except OSError:
                pass


def discard(h: Path) -> None:
    """Remove precompiled head `h` and its .gch (a compile with them failed
    where the whole unit built): the next build makes them again."""
    for p in (Path(str(h) + ".gch"), Path(h)):
        try:
            p.unlink()
        except OSError:
            pass


def clear(cache_root) -> None:
    """Remove every precompiled head (pyemu cache --clear)."""
    for p in (Path(cache_root) / DIRNAME).glob("*"):
        try:
            p.unlink()
        except OSError:
            pass
