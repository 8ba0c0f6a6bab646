"""The CUDA device headers on their own, with g++ and no runtime: the C++
harness (tests/cuda/device_lib/harness.cpp), course kernels that must compile
unchanged, and what the shim headers shadow."""
from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "include"
LIB = Path(__file__).resolve().parent / "device_lib"
KERNELS = sorted((LIB / "kernels").glob("*.cu"))
SHIMS = sorted(p.name for p in (INCLUDE / "pyemu" / "cuda").glob("*.h"))
CXX = os.environ.get("PYEMU_CXX") or os.environ.get("CXX") or "g++"

pytestmark = pytest.mark.skipif(shutil.which(CXX) is None, reason=f"no C++ compiler {CXX!r}")

# What pyemu's compiler passes (pyemu/compiler.py), less -shared.
FLAGS = ["-march=native", "-fPIC", f"-I{INCLUDE}", f"-I{INCLUDE / 'pyemu' / 'cuda'}",
         "-include", "pyemu/cuda_device.h"]


def cxx(*args, check=True, cwd=None, compiler=None):
    compiler = compiler or CXX
    proc = subprocess.run([compiler, *args], capture_output=True, text=True, cwd=cwd)
    if check and proc.returncode != 0:
        pytest.fail(f"{compiler} {' '.join(map(str, args))} failed:\n{proc.stderr[-6000:]}")
    return proc


def _clang():
    """A clang++ too, if there is one: PYEMU_CXX may name it."""
    for name in ["clang++"] + [f"clang++-{v}" for v in range(25, 13, -1)]:
        if shutil.which(name):
            return name
    return None


@pytest.mark.parametrize("compiler", ["default", "clang"])
def test_harness_passes(tmp_path, compiler):
    compiler = CXX if compiler == "default" else _clang()
    if compiler is None:
        pytest.skip("no clang++")
    exe = tmp_path / "harness"
    cxx("-std=c++17", "-O3", "-Wall", "-Wextra", "-Werror", "-pthread", *FLAGS,
        str(LIB / "harness.cpp"), "-o", str(exe), compiler=compiler)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert "FAIL" not in out, out
    m = re.search(r"harness: (\d+) checks, (\d+) failed", out)
    assert m, out
    assert int(m.group(2)) == 0, out
    assert int(m.group(1)) >= 300, out   # every test function ran
    assert proc.returncode == 0, out


def test_harness_reports_failures(tmp_path):
    """The checks can fail: a wrong expectation is reported and fails the run."""
    src = tmp_path / "broken.cpp"
    src.write_text(f'#include "{LIB / "harness.cpp"}"\n'
                   "static struct Broken { Broken() { CHECK_EQ(unsigned, __brev(1u), 1u); } } broken;\n")
    exe = tmp_path / "broken"
    cxx("-std=c++17", "-O1", "-pthread", *FLAGS, str(src), "-o", str(exe))
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1
    assert "FAIL" in proc.stdout and "__brev(1u)" in proc.stdout
    assert re.search(r"harness: \d+ checks, 1 failed", proc.stdout)


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.name for k in KERNELS])
def test_course_kernel_compiles(kernel):
    proc = cxx("-std=c++17", "-fsyntax-only", "-Wall", "-Wno-unknown-pragmas", "-Wno-sign-compare",
               *FLAGS, "-x", "c++", str(kernel), check=False)
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr, proc.stderr   # nothing from our headers


@pytest.mark.parametrize("std", ["c++11", "c++14", "c++17", "c++20"])
def test_headers_compile_in_every_dialect(std):
    """pyemu accepts -std=c++11 .. c++20; every shim and function must compile in each."""
    cxx(f"-std={std}", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", *FLAGS,
        "-x", "c++", str(LIB / "kernels" / "headers_and_math.cu"))


def test_headers_survive_user_macros(tmp_path):
    """Options such as -DN=1024 or -DT=float come before the forced include:
    no identifier of the headers (but the x, y, z, w members CUDA has too) may
    be one of them."""
    macros = [f"-D{c}=1" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"] + [
        f"-D{name}=1" for name in ("SIZE", "WIDTH", "HEIGHT", "BLOCK", "BLOCK_SIZE", "TILE", "TILE_WIDTH",
                                   "TILE_DIM", "NUM_BINS", "DIM", "MAX", "MIN", "EPS", "PI", "blocksize")]
    src = tmp_path / "m.cu"
    src.write_text("".join(f"#include <{shim}>\n" for shim in SHIMS) + "__global__ void k() {}\n")
    cxx("-std=c++17", "-fsyntax-only", *macros, *FLAGS, "-x", "c++", str(src))


def test_kernel_module_links_only_libc_and_core(tmp_path):
    """A kernel module must not need symbols nobody provides at dlopen time:
    glibc's internal __sinf, __expf, ... or libatomic's __atomic_*."""
    provided = set()
    for lib in ("libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1"):
        path = cxx(f"-print-file-name={lib}").stdout.strip()
        if os.path.isabs(path):
            nm = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True)
            provided.update(line.split()[-1].split("@")[0] for line in nm.stdout.splitlines() if line.strip())
    assert "malloc" in provided and "sinf" in provided
    src = tmp_path / "module.cu"
    src.write_text((LIB / "kernels" / "headers_and_math.cu").read_text() +
                   "#ifdef PYEMU_MODULE_BINDING\nPYEMU_MODULE_BINDING\n#endif\n")   # as the compiler adds
    for opt in ("-O0", "-O3"):
        so = tmp_path / f"k{opt}.so"
        cxx("-std=c++17", opt, "-shared", *FLAGS, "-x", "c++", str(src), "-o", str(so))
        nm = subprocess.run(["nm", "-D", "--undefined-only", str(so)], capture_output=True, text=True)
        undefined = {line.split()[-1].split("@")[0] for line in nm.stdout.splitlines() if line.strip()}
        missing = {s for s in undefined if not s.startswith("pyemu_") and s not in provided
                   and not s.startswith("_ITM_") and s not in ("__gmon_start__", "__tls_get_addr")}
        assert not missing, f"{opt}: unresolved {sorted(missing)}"
        assert "__assert_fail" not in undefined            # glibc's assert would abort Python


def test_harness_passes_on_aarch64_under_qemu(tmp_path):
    """The headers are portable C++: the harness built for aarch64 passes too."""
    if platform.machine() == "aarch64":
        pytest.skip("test_harness_passes runs natively")
    gxx, qemu = shutil.which("aarch64-linux-gnu-g++"), shutil.which("qemu-aarch64")
    if not (gxx and qemu):
        pytest.skip("needs g++-aarch64-linux-gnu and qemu-user")
    exe = tmp_path / "harness"
    cxx("-std=c++17", "-O3", "-Wall", "-Wextra", "-Werror", "-static", "-pthread", *FLAGS[1:],
        str(LIB / "harness.cpp"), "-o", str(exe), compiler=gxx)    # FLAGS less -march=native
    proc = subprocess.run([qemu, str(exe)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and re.search(r"harness: \d+ checks, 0 failed", proc.stdout), \
        proc.stdout + proc.stderr


def _assert_macro(tmp_path, source, *defines):
    src = tmp_path / "a.cu"
    src.write_text(source)
    out = cxx("-std=c++17", "-E", "-dM", *defines, *FLAGS, "-x", "c++", str(src)).stdout
    lines = [line for line in out.splitlines() if line.startswith("#define assert(")]
    assert len(lines) == 1, out
    return lines[0]


def test_assert_h_keeps_pyemu_assert(tmp_path):
    forced = _assert_macro(tmp_path, "")
    assert forced.replace(" ", "") == "#defineassert(e)PYEMU_DEVICE_ASSERT(e,#e)"
    (tmp_path / "b.cu").write_text("")
    dm = cxx("-std=c++17", "-E", "-dM", *FLAGS, "-x", "c++", str(tmp_path / "b.cu")).stdout
    assert re.search(r"#define PYEMU_DEVICE_ASSERT\(e, ?text\) .*pyemu_assert_fail\(text,", dm), dm
    after = _assert_macro(tmp_path, "#include <stdio.h>\n#include <assert.h>\n#include <cassert>\n")
    assert after == forced                  # same macro as cuda_builtins.h
    assert _assert_macro(tmp_path, "#include <assert.h>\n", "-DNDEBUG") == "#define assert(e) ((void)0)"
    again = _assert_macro(tmp_path, "#define NDEBUG\n#include <assert.h>\n#undef NDEBUG\n#include <assert.h>\n")
    assert again == forced                  # re-included, it follows NDEBUG again
    deps = cxx("-std=c++17", "-M", *FLAGS, "-x", "c++", str(tmp_path / "a.cu")).stdout
    assert str(INCLUDE / "pyemu" / "cuda" / "assert.h") in deps
    assert "/usr/include/assert.h" not in deps


@pytest.mark.parametrize("shim", SHIMS)
def test_shim_header_alone(tmp_path, shim):
    """Each shim works first thing in a file, also without the forced include."""
    src = tmp_path / "s.cpp"
    src.write_text(f"#include <{shim}>\n__global__ void k(float *p) {{ p[threadIdx.x] = make_float2(1, 2).y; }}\n")
    for flags in (FLAGS, FLAGS[:-2]):
        cxx("-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", *flags, str(src))


def test_vector_types_have_no_operators_without_helper_math(tmp_path):
    """As in CUDA: float2 + float2 needs helper_math.h."""
    src = tmp_path / "v.cu"
    body = "__device__ float2 f(float2 a, float2 b) { return a + b; }\n"
    src.write_text(body)
    proc = cxx("-std=c++17", "-fsyntax-only", *FLAGS, "-x", "c++", str(src), check=False)
    assert proc.returncode != 0 and "operator+" in proc.stderr
    src.write_text("#include <helper_math.h>\n" + body)
    cxx("-std=c++17", "-fsyntax-only", *FLAGS, "-x", "c++", str(src))
