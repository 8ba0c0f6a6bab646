"""Helpers for the block-function tests (test_regions*.py): compile a kernel
with and without block functions, run the pass on a source directly, and the
`managed` fixture (import it into the test module to use it)."""
import numpy as np
import pytest

from pyemu.compiler import driver as compiler
from pyemu.compiler.regions import blocks as _regions
from pyemu.cuda import SourceModule, cudaDeviceSynchronize, cudaFree, cudaMallocManaged

NO_REGIONS = "-D" + _regions.DISABLE_MACRO


@pytest.fixture
def managed():
    """managed(data, dtype=None): a managed copy of an array, freed after the test."""
    made = []

    def make(data, dtype=None):
        a = np.asarray(data, dtype=dtype)
        m = cudaMallocManaged(max(a.size, 1) * a.itemsize, dtype=a.dtype)
        m[:a.size] = a.ravel()
        made.append(m)
        return m

    yield make
    cudaDeviceSynchronize()
    for m in made:
        cudaFree(m)


def paths_module(src, **kw):
    """A `mod` fixture for a test module: SourceModule(src, **kw) built once
    with block functions and once forced onto fibers (mod.force "0" or "1"),
    block-function compile failures raising (strict)."""
    @pytest.fixture(params=["0", "1"], ids=["block", "fibers"])
    def mod(request, monkeypatch):
        monkeypatch.setenv(_regions.FORCE_ENV, request.param)
        monkeypatch.setenv(_regions.STRICT_ENV, "1")
        m = SourceModule(src, **kw)
        m.force = request.param
        return m
    return mod


def fails_alike(run_cuda, tmp_path, script, source, name, words):
    """Runs `script` (its NAME replaced by the kernel's name) in a process of
    its own on each path; both must fail with cudaErrorLaunchFailure (719)
    and the same message, which names every one of `words`."""
    got = {}
    for force in ("0", "1"):
        run = run_cuda(script.replace("NAME", repr(name)), consts={"SOURCE": source},
                       env={_regions.FORCE_ENV: force,
                            "PYEMU_CACHE_DIR": str(tmp_path / force)}, timeout=90)
        assert run.returncode == 0, run.explain()
        assert run.R["code"] == 719, run.R
        assert run.R["path"] == ("block function" if force == "0" else "fibers"), run.R
        got[force] = run.R["message"]
    assert got["0"] == got["1"]
    for w in words:
        assert w in got["0"], got


def both(src, name, options=(), expect_block=True, **kw):
    """The kernel compiled with and without block functions (asserting which
    one has one), as (block path, fiber path)."""
    m = SourceModule(src, options=list(options), **kw)
    f = SourceModule(src, options=list(options) + [NO_REGIONS], **kw)
    path = path_of(src, name, options)
    assert (path == "block function") == expect_block, path
    assert (name in m.compiled.block_kernels) == (path in ("block function", "fiber variant"))
    assert f.compiled.block_kernels == ()
    return m.get_function(name), f.get_function(name)


def unit(src, options=()):
    """(text, functions, include root): the unit the compiler hands the
    regions pass (the preprocessed source after the front end's edits) and
    the front end's function records in it (pyemu.compiler.driver.unit_of)."""
    return compiler.unit_of(src, "cuda", list(options))


def preprocessed(src, options=()):
    """(text, include root) of the unit the compiler hands the regions pass."""
    text, _, root = unit(src, options)
    return text, root


def blocks(src, options=(), implicit=False):
    """The pass's output for `src` (implicit: as the compiler calls it, with
    implicit barriers and one-region functions for barrier-free kernels)."""
    text, functions, root = unit(src, options)
    return _regions.generate(text, "__pyemu_global__", root, implicit=implicit,
                             functions=functions)


def path_of(src, name, options=()):
    """The path the pass gives kernel `name` ('block function', 'fiber
    variant', 'fibers', 'plain loop'), as the compiler calls it."""
    b = blocks(src, options, implicit=True)
    return b.paths[name.split("<")[0]][0]


def unit_groups(src, options=()):
    """(tokens, files, groups) of the unit of src, its groups from the front
    end's function records, as the compiler takes them."""
    from pyemu.compiler.regions import syntax as S
    text, functions, root = unit(src, options)
    files = []
    toks = S.tokenize(text, files, skip_root=root)
    return toks, files, _regions._groups(toks, functions)
