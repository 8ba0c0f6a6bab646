"""The kernel cache on a user's machine: an unwritable cache directory, files
damaged while loaded, a changed user header in a running process (each run
in a fresh interpreter with the real headers, so a crash is a failed test)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

SOURCE = r"""
#include "value.h"
__global__ void fill(int *out) { out[threadIdx.x] = VALUE * (int)threadIdx.x; }
"""

# run(value) builds SOURCE (or takes it from the cache), runs it, and says
# whether every element is value * i.
HELPERS = r"""
import glob, warnings
from pyemu.compiler import cache as C
def run(value, mod=None):
    mod = mod or SourceModule(SOURCE, options=["-I" + INC])
    d = cudaMalloc(64 * 4)
    mod.get_function("fill")[1, 64](d)
    out = np.zeros(64, np.int32)
    cudaMemcpy(out, d, 64 * 4, cudaMemcpyDeviceToHost)
    cudaFree(d)
    return out.tolist() == [value * i for i in range(64)]
def cached_modules():
    return sorted(glob.glob(os.path.join(os.environ["PYEMU_CACHE_DIR"], "kernels", "*", "*.so")))
"""


@pytest.fixture
def inc(tmp_path):
    d = tmp_path / "inc"
    d.mkdir()
    (d / "value.h").write_text("#define VALUE 3\n")
    return d


def _run(run_cuda, body, inc, env):
    r = run_cuda(HELPERS + body, env=env, consts={"SOURCE": SOURCE, "INC": str(inc)})
    assert r.returncode == 0, r.explain()
    return r


@pytest.mark.parametrize("damage", ["truncate", "garbage"])
def test_module_damaged_in_place_while_loaded(run_cuda, inc, tmp_path, damage):
    env = {"PYEMU_CACHE_DIR": str(tmp_path / "cache")}
    body = f"""
m1 = SourceModule(SOURCE, options=["-I" + INC])
R["first"] = run(3, m1)
[so] = cached_modules()
size = os.path.getsize(so)
with open(so, "r+b") as f:          # in place: what the loaded mapping sees
    if {damage!r} == "truncate":
        f.truncate(size // 3)
    else:
        f.write(os.urandom(size))
R["loaded_still_runs"] = run(3, m1)
R["same_process"] = run(3)
"""
    r = _run(run_cuda, body, inc, env)
    assert r.R == {"first": True, "loaded_still_runs": True, "same_process": True}
    # a new process finds the damage, builds again and repairs the entry
    body = """
R["new_process"] = run(3)
[so] = cached_modules()
R["repaired"] = os.path.basename(so) == C.file_sha256(so) + ".so"
"""
    r = _run(run_cuda, body, inc, env)
    assert r.R == {"new_process": True, "repaired": True}


def test_changed_header_loads_new_code_in_the_same_process(run_cuda, inc, tmp_path):
    env = {"PYEMU_CACHE_DIR": str(tmp_path / "cache")}
    body = """
m1 = SourceModule(SOURCE, options=["-I" + INC])
R["v1"] = run(3, m1)
with open(os.path.join(INC, "value.h"), "w") as f:
    f.write("#define VALUE 5\\n")
m2 = SourceModule(SOURCE, options=["-I" + INC])
R["v2"] = run(5, m2)
R["v1_still"] = run(3, m1)
R["paths_differ"] = m1.compiled.path != m2.compiled.path
"""
    r = _run(run_cuda, body, inc, env)
    assert r.R == {"v1": True, "v2": True, "v1_still": True, "paths_differ": True}


def _unwritable(kind: str, tmp_path: Path) -> str:
    if kind == "under_a_file":
        (tmp_path / "afile").write_text("x")
        return str(tmp_path / "afile" / "cache")
    return "/proc/pyemu-cache"          # /proc takes no new directories, even from root


@pytest.mark.parametrize("kind,var", [("under_a_file", "PYEMU_CACHE_DIR"),
                                      ("proc", "PYEMU_CACHE_DIR"),
                                      ("under_a_file", "XDG_CACHE_HOME")])
def test_unwritable_cache_falls_back_with_one_warning(run_cuda, inc, tmp_path, kind, var):
    env = {"PYEMU_CACHE_DIR": "", "XDG_CACHE_HOME": "", var: _unwritable(kind, tmp_path)}
    body = """
from pyemu.opencl import (clGetPlatformIDs, clGetDeviceIDs, clCreateContext,
                          clCreateProgramWithSource, clBuildProgram, clGetProgramInfo,
                          CL_DEVICE_TYPE_ALL, CL_PROGRAM_KERNEL_NAMES)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    R["cuda"] = [run(3), run(3)]
    dev = clGetDeviceIDs(clGetPlatformIDs()[0], CL_DEVICE_TYPE_ALL)[0]
    ctx = clCreateContext(None, [dev])
    for _ in range(2):
        p = clCreateProgramWithSource(ctx, ["__kernel void k(__global int *a) { a[0] = 1; }"])
        clBuildProgram(p)
    R["cl"] = clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES)
R["warnings"] = [(w.category.__name__, str(w.message)) for w in caught]
R["private"] = SourceModule(SOURCE, options=["-I" + INC]).compiled.path
"""
    r = _run(run_cuda, body, inc, {**env, "PYEMU_CACHE_DIR": env["PYEMU_CACHE_DIR"]})
    assert r.R["cuda"] == [True, True] and r.R["cl"] == "k"
    assert [w[0] for w in r.R["warnings"]] == ["CacheWarning"], r.R["warnings"]
    assert "cannot be written" in r.R["warnings"][0][1]
    assert not os.path.exists(r.R["private"])      # the private cache went at exit
