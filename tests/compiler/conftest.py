"""Fixtures shared by the compiler tests.

forced       parametrises a test over the two execution paths: "paths" (what
             the compiler chose: block function, fiber variant, fibers) and
             "fibers" (PYEMU_FORCE_FIBERS=1); the value is True on fibers.
launch_read  launch_read(mod, name, blocks, threads, shape): runs
             mod's kernel `name` on one int32 output buffer of `shape` and
             returns it as an array, the buffer freed.
"""
import numpy as np
import pytest

from pyemu.compiler.regions import blocks as _regions
from pyemu.cuda import cudaDeviceSynchronize, cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyDeviceToHost


@pytest.fixture(params=["paths", "fibers"])
def forced(request, monkeypatch):
    if request.param == "fibers":
        monkeypatch.setenv(_regions.FORCE_ENV, "1")
    return request.param == "fibers"


def _launch_read(mod, name, blocks, threads, shape, dtype=np.int32):
    out = np.zeros(shape, dtype)
    d = cudaMalloc(out.nbytes)
    try:
        mod.get_function(name)[blocks, threads](d)
        cudaDeviceSynchronize()
        cudaMemcpy(out, d, out.nbytes, cudaMemcpyDeviceToHost)
    finally:
        cudaFree(d)
    return out


@pytest.fixture
def launch_read():
    return _launch_read
