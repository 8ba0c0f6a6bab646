"""The OpenCL C device header (include/pyemu/opencl_device.h) on its own, with
g++ and no runtime: the C++ harness (tests/opencl/device_lib/harness.cpp)
checks numerics against known values; OpenCL C kernels that use every
feature compile warning-free; no name of the header can be reached by a
user's -D macro; an empty kernel source instantiates nothing."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pyemu.compiler.opencl import rewrite_opencl

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "include"
DETAIL = INCLUDE / "pyemu" / "detail"
LIB = Path(__file__).resolve().parent / "device_lib"
KERNELS = sorted((LIB / "kernels").glob("*.cl"))
CXX = os.environ.get("PYEMU_CXX") or os.environ.get("CXX") or "g++"



def test_the_compiler_is_installed():
    # the test command installs g++: a missing one fails here, nothing is skipped
    assert shutil.which(CXX), f"no C++ compiler {CXX!r}"

# What pyemu's compiler passes for OpenCL C (pyemu/compiler.py), less -shared.
FLAGS = ["-std=c++17", "-march=native", "-fPIC", "-ffp-contract=fast", "-fno-exceptions",
         "-fno-math-errno", "-fno-operator-names", f"-I{INCLUDE}"]
HEADER = ["-include", "pyemu/opencl_device.h"]
WARN = ["-Wall", "-Wextra", "-Werror"]


def cxx(*args, check=True):
    proc = subprocess.run([CXX, *map(str, args)], capture_output=True, text=True)
    if check and proc.returncode != 0:
        pytest.fail(f"{CXX} {' '.join(map(str, args))} failed:\n{proc.stderr[-6000:]}")
    return proc


def test_harness_passes(tmp_path):
    exe = tmp_path / "harness"
    cxx("-std=c++17", "-O3", "-march=native", "-pthread", f"-I{INCLUDE}", *WARN,
        LIB / "harness.cpp", "-o", exe)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert "FAIL" not in out, out
    m = re.search(r"harness: (\d+) checks, (\d+) failed", out)
    assert m, out
    assert int(m.group(2)) == 0, out
    assert int(m.group(1)) >= 500, out   # every test function ran
    assert proc.returncode == 0, out


def test_harness_reports_failures(tmp_path):
    """The checks can fail: a wrong expectation is reported and fails the run."""
    src = tmp_path / "broken.cpp"
    src.write_text(f'#include "{LIB / "harness.cpp"}"\n'
                   "static struct Broken { Broken() { CHECK_EQ(int, convert_int_rtn(-1.5f), -1); } } broken;\n")
    exe = tmp_path / "broken"
    cxx("-std=c++17", "-O1", "-pthread", f"-I{INCLUDE}", src, "-o", exe)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1
    assert "FAIL" in proc.stdout and "convert_int_rtn(-1.5f)" in proc.stdout
    assert re.search(r"harness: \d+ checks, 1 failed", proc.stdout)


_LITERAL = re.compile(r"\(((?:u?(?:char|short|int|long)|float|double|half)(?:2|3|4|8|16))\)\s*\(")


def _cxx_text(source: str) -> str:
    """The kernel as C++ for these header tests: the compiler's source pass,
    and its vector literals (of the built-in names these kernels use) as the
    front end writes them (pyemu.compiler.frontend works on the preprocessed
    unit, which these tests do not build)."""
    return _LITERAL.sub(r" \1 (", rewrite_opencl(source))


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.name for k in KERNELS])
def test_kernel_compiles_warning_free(tmp_path, kernel):
    """Each feature, as OpenCL C uses it, compiles under -Wall -Wextra -Werror
    (after the compiler's source rewrite: vector literals, __local, keywords)."""
    src = tmp_path / (kernel.stem + ".cpp")
    src.write_text(_cxx_text(kernel.read_text()))
    cxx(*FLAGS, "-O2", *WARN, *HEADER, "-c", src, "-o", tmp_path / "k.o")


KERNEL_NAMES = {"builtins.cl": ["builtins"], "spellings.cl": ["spellings"],
                "sync.cl": ["histogram", "tile_copy"], "vectors.cl": ["vectors"]}


def test_kernels_build_through_the_compiler():
    """The same kernels through pyemu's compiler, as clBuildProgram builds them;
    the spellings without underscores reach the kernel scan as the others do."""
    from pyemu.compiler import compile_source
    assert sorted(KERNEL_NAMES) == [k.name for k in KERNELS]
    for kernel in KERNELS:
        mod = compile_source(kernel.read_text(), dialect="opencl", source_name=kernel.name)
        assert sorted(mod.kernel_names) == KERNEL_NAMES[kernel.name]
    mod = compile_source((LIB / "kernels" / "spellings.cl").read_text(), dialect="opencl")
    info = mod.kernel_info["spellings"]
    assert [a["address"] for a in info["args"]] == ["global", "global", "local", "constant", "global",
                                                    "private"]
    assert info["reqd_work_group_size"] == [8, 1, 1]


def _poison(tmp_path) -> tuple:
    """(a header that makes every 1-2 letter name and common macro names
    unusable, one that undoes it).  The system headers and abi.h come first."""
    import itertools
    import string
    allowed = {"x", "y", "z", "w", "lo", "hi", "if", "do", "or"}
    allowed |= {s + c for s in "sS" for c in "0123456789abcdefABCDEF"}
    allowed |= {"".join(p) for p in itertools.product("xyzw", repeat=2)}
    names = list(string.ascii_letters)
    names += [a + b for a in string.ascii_letters for b in string.ascii_letters + string.digits + "_"]
    names += ("N M K T TS WG TILE WIDTH HEIGHT SIZE TYPE DTYPE REAL real BLOCK_SIZE LOCAL_SIZE value "
              "data size count len result res out src dst idx index sum tmp old val num stride offset "
              "ptr mask bits fmt args event list base elem type vec scalar cond lhs rhs").split()
    names = [n for n in names if n not in allowed]
    poison, unpoison = tmp_path / "poison.h", tmp_path / "unpoison.h"
    system = ["stddef.h", "stdint.h", "stdarg.h", "stdio.h", "stdlib.h", "string.h", "math.h",
              "limits.h", "float.h", "pyemu/abi.h"]
    poison.write_text("".join(f"#include <{h}>\n" for h in system)
                      + "".join(f"#define {n} @\n" for n in names))
    unpoison.write_text("".join(f"#undef {n}\n" for n in names))
    return poison, unpoison


def test_header_names_cannot_be_reached_by_user_macros(tmp_path):
    """-DN=16 and friends are defined before the header is read: it spells
    every name of its own (template parameters, locals) with pyemu_.  The
    kernels instantiate every template while the poison is undone, and
    template bodies were read with it in force."""
    poison, unpoison = _poison(tmp_path)
    for kernel in KERNELS:
        src = tmp_path / (kernel.stem + ".cpp")
        src.write_text(_cxx_text(kernel.read_text()))
        proc = cxx(*FLAGS, "-fsyntax-only", "-include", poison, *HEADER, "-include", unpoison, src,
                   check=False)
        assert proc.returncode == 0, proc.stderr[-4000:]
    # the test can fail: a header that uses a short name is caught
    bad = tmp_path / "bad.h"
    bad.write_text("template <class T> inline T pyemu_twice(T v) { return v + v; }\n")
    proc = cxx(*FLAGS, "-fsyntax-only", "-include", poison, "-include", bad, "-x", "c++", "/dev/null",
               check=False)
    assert proc.returncode != 0 and "stray" in proc.stderr


def test_empty_source_instantiates_no_vector_and_warns_nothing(tmp_path):
    """Kernels compile on demand: the header alone instantiates no vector
    class (typedefs and templates only), and defines nothing twice
    (MAXFLOAT, HUGE_VALF are <math.h>'s too)."""
    src = tmp_path / "empty.cl"
    src.write_text("__kernel void k(__global int *a) { a[get_global_id(0)] = 1; }\n")
    proc = cxx(*FLAGS, "-O3", *WARN, *HEADER, "-fdump-lang-class", "-x", "c++", "-c", src,
               "-o", tmp_path / "k.o")
    assert proc.stderr == ""
    dumps = list(tmp_path.glob("*.class")) + list(Path.cwd().glob("empty.cl.*.class"))
    text = "".join(d.read_text() for d in dumps)
    for d in Path.cwd().glob("empty.cl.*.class"):
        d.unlink()
    assert text, "no class dump"
    assert "pyemu_vec<" not in text and "pyemu_swz<" not in text


def test_trivial_kernel_compile_time(tmp_path):
    """A trivial kernel with the header compiles at -O3 in well under the
    1.5 s target (about 0.15 s on the project's machine; the bound leaves room
    for a loaded one)."""
    src = tmp_path / "k.cl"
    src.write_text("__kernel void k(__global float4 *a) { a[get_global_id(0)] *= 2.0f; }\nPYEMU_MODULE_BINDING\n")
    best = None
    for _ in range(2):
        t = time.perf_counter()
        cxx(*FLAGS, "-O3", "-shared", *HEADER, "-x", "c++", src, "-o", tmp_path / "k.so")
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    assert best < 1.5, f"{best:.2f} s"


def test_generated_header_is_current(tmp_path):
    """cl_vectors_gen.h is what pyemu/compiler/gen_cl.py writes (checked in)."""
    out = tmp_path / "gen.h"
    subprocess.run([sys.executable, "-m", "pyemu.compiler.gen_cl", str(out)], check=True)
    assert out.read_text() == (DETAIL / "cl_vectors_gen.h").read_text()


def _gen_cl():
    from pyemu.compiler import gen_cl
    return gen_cl


@pytest.mark.parametrize("name, chained, want", [
    ("xy", False, None), ("s01", False, None), ("s0123", False, None), ("SB", False, None),
    ("s76543210", False, None), ("lo", False, None), ("odd", False, None), ("count", False, None),
    ("s3c5", False, "pyemu_sw3<0x3c5>()"), ("sCdEf", False, "pyemu_sw4<0xcdef>()"),
    ("s0312", False, "pyemu_sw4<0x0312>()"),          # every combo of a 4-vector, not of an 8-vector
    ("lo", True, "pyemu_lo()"), ("x", True, "pyemu_sw1<0x0>()"), ("wzyx", True, "pyemu_sw4<0x3210>()"),
])
def test_swizzle_member_spelling_for_the_rewrite(name, chained, want):
    """gen_cl.swizzle_member: which member accesses the compiler's rewrite
    spells as pyemu_swN<0x..>() (the harness checks what those return)."""
    assert _gen_cl().swizzle_member(name, chained) == want


def test_swizzle_member_keeps_the_common_spellings():
    """What every vector it can apply to has stays a member access: all
    .xyzw swizzles of components x and y, all pairs in .s notation."""
    gen = _gen_cl()
    xyzw = [n for n in gen.swizzles(2) if n[0] in "xy"]
    assert len(xyzw) == 4 + 8 + 16 and all(gen.swizzle_member(n, False) is None for n in xyzw)
    assert gen.swizzle_member("s000", False) == "pyemu_sw3<0x000>()"   # not a member of an 8-vector
    assert all(gen.swizzle_member(f"s{a:x}{b:x}", False) is None for a in range(2) for b in range(2))
    assert gen.swizzle_member("s0a1b", False) == "pyemu_sw4<0x0a1b>()" and gen.is_swizzle("even")
