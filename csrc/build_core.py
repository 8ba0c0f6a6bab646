"""cffi build script for pyemu's C core (API mode, out of line).

The cdef is generated from csrc/pyemu_core.h, so declarations are never
copied by hand.  setup.py names this file in cffi_modules; for a quick
in-place build run `python csrc/build_core.py`.
"""
import glob
import os
import re

from cffi import FFI

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def cdef_from_header(path):
    """The declarations of pyemu_core.h, less comments and preprocessor lines
    other than integer #defines (which cffi understands)."""
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    lines = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#"):
            if re.match(r"#define\s+PYEMU_\w+\s+-?\d+\s*$", s):
                lines.append(s)
            continue
        lines.append(line)
    return "\n".join(lines)


def make_builder(absolute=False):
    """The FFI builder; setuptools wants source paths relative to the project."""
    sources = sorted(glob.glob(os.path.join(HERE, "*.c")))
    if not absolute:
        sources = [os.path.relpath(p, ROOT) for p in sources]
    builder = FFI()
    builder.cdef(cdef_from_header(os.path.join(HERE, "pyemu_core.h")))
    # the one callback into Python: a command completed (pyemu/runtime/core.py on_complete)
    builder.cdef('extern "Python" void pyemu_py_on_complete(pyemu_cmd *, int, void *);')
    builder.set_source(
        "pyemu._native",
        '#include "pyemu_core.h"\n',
        sources=sources,
        include_dirs=[HERE, os.path.join(ROOT, "include")],
        extra_compile_args=["-O2", "-pthread", "-std=gnu11", "-U_FORTIFY_SOURCE",
                            "-Wall", "-Wno-unused-function"],
        libraries=["dl", "pthread"],
    )
    return builder


ffibuilder = make_builder()

if __name__ == "__main__":
    # in-place build for development: pyemu/_native.<this Python's suffix>.so.
    # A core built before under another name (pip's pyemu/_native.abi3.so)
    # would be imported instead of this one, or this one instead of a later
    # pip build: keep only the new file.
    built = os.path.abspath(make_builder(absolute=True).compile(tmpdir=ROOT, verbose=False))
    for old in glob.glob(os.path.join(ROOT, "pyemu", "_native*.so")):
        if os.path.abspath(old) != built:
            os.remove(old)
