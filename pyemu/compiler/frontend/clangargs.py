"""The clang command line for a preprocessed unit of each dialect.

clang reads the text g++ -E wrote (pyemu.compiler.driver, with
__PYEMU_SCAN__ defined), so it sees exactly the tokens g++ compiles; its own
preprocessor then only expands the markers the scan leaves (`__global__`
became `__pyemu_global__`, `__local` `__pyemu_as_local__`, ...), here into
`annotate` attributes that the syntax tree keeps on each declaration.
"""
from __future__ import annotations


def _ann(word: str) -> str:
    return f'__attribute__((annotate("pyemu.{word}")))'


# the scan's markers (include/pyemu/detail/*_qualifiers.h) and the driver's
# __pyemu_shared__ (what __shared__ means in the user's part of the unit)
MARKERS = {
    "cuda": {"__pyemu_global__": _ann("kernel"), "__pyemu_shared__": _ann("shared"),
             "__launch_bounds__(...)": _ann("launch_bounds"), "__pyemu_smem__": ""},
    "opencl": {"__pyemu_kernel__": _ann("kernel"),
               "__pyemu_as_global__": _ann("global"), "__pyemu_as_local__": _ann("local"),
               "__pyemu_as_constant__": _ann("constant"),
               "__pyemu_as_private__": _ann("private"),
               "__pyemu_acc_read_only__": _ann("read_only"),
               "__pyemu_acc_write_only__": _ann("write_only"),
               "__pyemu_acc_read_write__": _ann("read_write"), "__pyemu_smem__": "",
               # inside __attribute__((...)): clang takes these for OpenCL only
               "reqd_work_group_size(...)": 'annotate("pyemu.reqd_work_group_size")',
               "work_group_size_hint(...)": 'annotate("pyemu.work_group_size_hint")',
               "vec_type_hint(...)": 'annotate("pyemu.vec_type_hint")'},
}


def clang_args(dialect: str, std: str = "c++17") -> list:
    """Arguments for clang_parseTranslationUnit of a preprocessed unit."""
    args = ["-x", "c++", f"-std={std}", "-undef", "-nostdinc", "-nostdinc++",
            "-ferror-limit=0", "-w", "-Wno-everything"]
    if dialect == "opencl":
        args += ["-fno-operator-names", "-fsigned-char"]
    args += [f"-D{k}={v}" for k, v in MARKERS[dialect].items()]
    return args
