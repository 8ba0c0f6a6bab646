"""Kernel modules are unloaded when their last user is gone (csrc/module.c):
a long-running process that builds many modules does not run out of memory
mappings (vm.max_map_count), and a fault in a module loaded later is still
told apart from one in a module unloaded before."""
from __future__ import annotations

import gc
import shutil

import numpy as np
import pytest

from pyemu.cuda import (CudaError, SourceModule, cudaDeviceReset, cudaDeviceSynchronize,
                        cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyDeviceToHost)
from pyemu.runtime.kernel import Loaded

SRC = r"""
__global__ void fill(int *out, int v) {
    __shared__ int s[64];
    s[threadIdx.x] = v + threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[63 - threadIdx.x];
}"""


def _maps() -> int:
    with open("/proc/self/maps") as f:
        return sum(1 for _ in f)


def test_loading_and_releasing_many_modules_keeps_the_mapping_count(tmp_path):
    mod = SourceModule(SRC)
    d = cudaMalloc(4 * 64)
    # copies of the module under distinct paths are distinct modules to dlopen
    paths = []
    for i in range(300):
        p = tmp_path / f"m{i}.so"
        shutil.copyfile(mod.compiled.path, p)
        paths.append(str(p))
    gc.collect()
    before = _maps()
    for i, p in enumerate(paths):
        loaded = Loaded(p)
        del loaded
        if i == 10:
            gc.collect()
            after_ten = _maps()
    gc.collect()
    after = _maps()
    assert after - before < 20, f"{after - before} mappings left behind by 300 modules"
    assert after <= after_ten + 5
    # the module still in use works as before
    mod.fill[1, 64](d, 100)
    h = np.empty(64, np.int32)
    cudaMemcpy(h, d, h.nbytes, cudaMemcpyDeviceToHost)
    assert np.array_equal(h, 100 + np.arange(64)[::-1])
    cudaFree(d)


def test_a_module_stays_loaded_while_a_launch_of_it_is_pending():
    d = cudaMalloc(4 * 64)
    mod = SourceModule(SRC + "\n// pending-launch variant\n")
    fn = mod.fill
    fn[1, 64](d, 7)            # queued; the command holds the module
    del fn, mod
    gc.collect()
    cudaDeviceSynchronize()
    h = np.empty(64, np.int32)
    cudaMemcpy(h, d, h.nbytes, cudaMemcpyDeviceToHost)
    assert np.array_equal(h, 7 + np.arange(64)[::-1])
    cudaFree(d)


def test_fault_in_a_module_loaded_after_others_were_unloaded_is_reported(run_cuda):
    run = run_cuda(r"""
        import gc
        for i in range(8):
            m = SourceModule("__global__ void k%d(int *p) { p[threadIdx.x] = %d; }" % (i, i))
            d = cudaMalloc(128)
            getattr(m, "k%d" % i)[1, 32](d)
            cudaDeviceSynchronize()
            cudaFree(d)
            del m
            gc.collect()
        bad = SourceModule("__global__ void bad(int *p) { p[1 << 28] = 1; }")
        d = cudaMalloc(64)
        bad.bad[1, 1](d)
        R["code"] = code_of(cudaDeviceSynchronize)
    """)
    assert run.returncode == 0, run.explain()
    assert run.R["code"] == 700
