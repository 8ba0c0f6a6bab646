"""pyemu's headers precompiled for g++'s compile of a unit
(pyemu/compiler/unitpch.py): built once per compiler, options and headers,
then every uncached build compiles only its own part; a damaged one is built
again or removed, never a wrong module or a failed build; a user's error is
reported as before; `cache --clear` removes them."""
from __future__ import annotations

import uuid

import numpy as np
import pytest

import pyemu.compiler.driver as d
from pyemu.compiler import unitpch
from pyemu.compiler.cache import open_cache

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

SRC = r"""
__global__ void scale(float *y, const float *x, float a, int n) {
  __shared__ float s[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n) y[i] = a * s[blockDim.x - 1 - threadIdx.x];
}
"""


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PYEMU_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / unitpch.DIRNAME


def _build_and_check(tag=None):
    from pyemu.cuda import (SourceModule, cudaFree, cudaMalloc, cudaMemcpy,
                            cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice)
    m = SourceModule(SRC + f"// {tag or uuid.uuid4()}\n")
    n = 300
    x = np.arange(n, dtype=np.float32)
    dx, dy = cudaMalloc(4 * n), cudaMalloc(4 * n)
    cudaMemcpy(dx, x, 4 * n, cudaMemcpyHostToDevice)
    m.scale[3, 128](dy, dx, np.float32(2.0), np.int32(n))
    y = np.empty(n, np.float32)
    cudaMemcpy(y, dy, 4 * n, cudaMemcpyDeviceToHost)
    xs = np.concatenate([x, np.zeros(84, np.float32)])
    want = np.concatenate([2 * xs[b:b + 128][::-1] for b in (0, 128, 256)])[:n]
    assert (y == want).all()
    cudaFree(dx)
    cudaFree(dy)
    return m


def _pch_builds(runs):
    return [c for c in runs if "c++-header" in c]


def _unit_compiles(runs):
    return [c for c in runs if "c++" in c and "-E" not in c and "c++-header" not in c
            and "--version" not in c]


def test_built_once_then_each_uncached_build_compiles_its_own_part(own_cache, runs):
    _build_and_check()
    assert len(_pch_builds(runs)) == 1
    (h,) = own_cache.glob("*.h")
    gch = own_cache / (h.name + ".gch")
    assert gch.read_bytes()[:4] == b"gpch"
    assert len(list(own_cache.iterdir())) == 2             # no temporary file left
    runs.clear()
    _build_and_check()
    assert _pch_builds(runs) == []
    (compile_,) = _unit_compiles(runs)
    assert compile_[compile_.index("-include") + 1] == str(h)


@pytest.mark.parametrize("damage", [b"", b"gpch but cut short", b"not a precompiled header"])
def test_a_damaged_precompiled_head_never_costs_a_build_or_a_wrong_module(own_cache, runs,
                                                                          damage):
    _build_and_check()
    (h,) = own_cache.glob("*.h")
    gch = own_cache / (h.name + ".gch")
    gch.write_bytes(damage)
    _build_and_check()
    # the damaged one is built again where it does not look like g++'s; where
    # it does, g++ finds it invalid and reads the .h text instead
    assert len(_pch_builds(runs)) == (1 if damage.startswith(b"gpch") else 2)
    h.write_bytes(b"this is not C++ at all;\n")
    runs.clear()
    _build_and_check()                      # a .h that is not the head: both built again
    assert len(_pch_builds(runs)) == 1 and len(_unit_compiles(runs)) == 1
    assert gch.read_bytes()[:4] == b"gpch" and b"pyemu_dyn_smem_probe" in h.read_bytes()


def test_a_compile_that_crashes_with_it_runs_again_whole(own_cache, runs, monkeypatch):
    """g++ dying (an internal error: status 4) with the precompiled head is
    the head's fault: the pair goes and the whole unit is compiled."""
    _build_and_check()
    (h,) = own_cache.glob("*.h")
    real = d._run

    def crash_with_pch(cmd, *a, **k):
        r = real(cmd, *a, **k)
        if "-include" in cmd and str(h) in cmd:
            r.returncode = 4
        return r
    monkeypatch.setattr(d, "_run", crash_with_pch)
    runs.clear()
    _build_and_check()
    assert not h.exists() and not (own_cache / (h.name + ".gch")).exists()
    monkeypatch.setattr(d, "_run", real)
    _build_and_check()                      # and the next build makes it again
    assert h.exists()


def test_a_users_error_is_reported_as_without_it(own_cache):
    from pyemu.cuda import SourceModule
    bad = "__global__ void k(int *p) {\n  p[0] = undeclared_name;\n}\n"
    _build_and_check()                      # the precompiled head exists
    with pytest.raises(d.CompileError) as e:
        SourceModule(bad)
    msg = str(e.value)
    assert "kernel.cu:2" in msg and "undeclared_name" in msg and "was not declared" in msg
    assert "pyemu_unit" not in msg and unitpch.DIRNAME not in msg
    assert len(list(own_cache.glob("*.h.gch"))) == 1       # kept: the error was the user's


def test_a_users_error_costs_one_compile(own_cache, runs):
    from pyemu.cuda import SourceModule
    _build_and_check()
    runs.clear()
    with pytest.raises(d.CompileError):
        SourceModule("__global__ void k(int *p) { p[0] = nope; }\n")
    assert len(_unit_compiles(runs)) == 1


def test_cache_clear_removes_them(own_cache):
    _build_and_check()
    assert list(own_cache.iterdir())
    open_cache().clear()
    assert list(own_cache.iterdir()) == []


def test_the_head_is_where_the_module_binding_ends():
    text = "int a;\ninline void *pyemu_dyn_smem_probe() { return 0; }\n# 1 \"k.cu\"\nint b;\n"
    at = unitpch.split(text)
    assert text[:at].endswith("return 0; }\n") and text[at:].startswith("# 1")
    assert unitpch.split("int a;\n") == 0
