"""Module instances: every SourceModule is a module of its own, as every
cuModuleLoad is in CUDA, even of a source compiled before (one cached .so):
its __device__ and __constant__ variables and its texture references are its
own (csrc/module.c loads a file already loaded from a private copy)."""
import gc

import numpy as np
import pytest

from pyemu.cuda import (CudaError, SourceModule, cudaBindTexture, cudaCreateChannelDesc,
                        cudaDeviceSynchronize, cudaErrorInvalidTexture, cudaFree,
                        cudaGetLastError, cudaMalloc, cudaMemcpy, cudaMemcpyDeviceToHost,
                        cudaMemcpyFromSymbol, cudaMemcpyHostToDevice, cudaMemcpyToSymbol)
from pyemu.cuda.texref import textureReference

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

SRC = r"""
__constant__ float scale[2] = {2.0f, 3.0f};
__device__ int counter;
texture<float, 1, cudaReadModeElementType> lin;
__global__ void bump(float *o) {
    atomicAdd(&counter, 1);
    o[0] = scale[0] * scale[1];
    o[1] = (float)counter;
}
__global__ void fetch(float *o, int n) {
    int i = threadIdx.x;
    if (i < n) o[i] = tex1Dfetch(lin, i);
}
"""


def _run(mod, kern, *args, n=2):
    d = cudaMalloc(4 * n)
    try:
        getattr(mod, kern)[1, n](d, *args)
        out = np.zeros(n, np.float32)
        cudaMemcpy(out, d, 4 * n, cudaMemcpyDeviceToHost)
    finally:
        cudaFree(d)
    return out


def test_constant_and_device_variables_are_each_instances_own():
    a, b = SourceModule(SRC), SourceModule(SRC)
    cudaMemcpyToSymbol(a.get_global("scale"), np.array([5, 7], np.float32), 8)
    a.bump[1, 1](cudaMalloc(8))
    a.bump[1, 1](cudaMalloc(8))
    out_b = _run(b, "bump", n=1)
    assert out_b[0] == 6.0                     # b's initialiser, not a's 35
    ca, cb = np.zeros(1, np.int32), np.zeros(1, np.int32)
    cudaMemcpyFromSymbol(ca, a.get_global("counter"), 4)
    cudaMemcpyFromSymbol(cb, b.get_global("counter"), 4)
    assert (ca[0], cb[0]) == (2, 1)


def test_texture_references_are_each_instances_own():
    a, b = SourceModule(SRC), SourceModule(SRC)
    ta, tb = a.get_texref("lin"), b.get_texref("lin")
    assert isinstance(ta, textureReference) and ta._addr != tb._addr
    da, db = cudaMalloc(16), cudaMalloc(16)
    try:
        cudaMemcpy(da, np.arange(4, dtype=np.float32) + 1, 16, cudaMemcpyHostToDevice)
        cudaMemcpy(db, np.arange(4, dtype=np.float32) * -10, 16, cudaMemcpyHostToDevice)
        cudaBindTexture(ta, da, cudaCreateChannelDesc(np.float32), 16)
        cudaBindTexture(tb, db, cudaCreateChannelDesc(np.float32), 16)
        assert _run(a, "fetch", 4, n=4).tolist() == [1, 2, 3, 4]
        assert _run(b, "fetch", 4, n=4).tolist() == [0, -10, -20, -30]
    finally:
        cudaDeviceSynchronize()
        cudaFree(da)
        cudaFree(db)


def test_get_texref_is_a_method_and_unknown_names_fail():
    assert "get_texref" in SourceModule.__dict__
    m = SourceModule(SRC)
    for bad in ("nope", "counter", 3):
        with pytest.raises(CudaError) as e:
            m.get_texref(bad)
        assert e.value.code == cudaErrorInvalidTexture
    cudaGetLastError()


def test_many_instances_load_and_unload():
    """Instances come and go (each extra one a private copy of the file, whose
    memfd is closed when the instance is unloaded)."""
    import os
    SourceModule(SRC)          # compiled and cached before counting
    gc.collect()
    fds = len(os.listdir("/proc/self/fd"))
    for round_ in range(3):
        mods = [SourceModule(SRC) for _ in range(6)]
        for i, m in enumerate(mods):
            cudaMemcpyToSymbol(m.get_global("scale"), np.array([i, 1], np.float32), 8)
        outs = [_run(m, "bump", n=1)[0] for m in mods]
        assert outs == [float(i) for i in range(6)], round_
        del mods, m
        gc.collect()
    gc.collect()
    assert len(os.listdir("/proc/self/fd")) <= fds
