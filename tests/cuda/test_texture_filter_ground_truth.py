"""Linear filtering against what an H200 fetched (tests/data/ground_truth/
texture_filter_h200.json, made by probe_texture_filter.cu; the H200's texture
units are the H100's, sm_90): 3-D linear filtering with all three coordinates
fractional, and the linear filtering of 8/16-bit four-channel integer textures
read with cudaReadModeNormalizedFloat in 1-D, 2-D and 3-D.

Bit for bit, every case: every 3-D float case (the weights of
detail/sampler.h's 3-D rule, the position held inside the texel centres in
clamp mode), every case of 8-bit unsigned and 16-bit integers (the exact
weighted sum rounded half up to R / 65535 or R / 32767) and signed 8-bit (the
sum widened by 258 + 1/128, the 1/128 part cut to 1/8: pyemu_snorm8_widen,
read off texture_snorm8_h200.bin: tests/cuda/test_texture_snorm8_ground_truth.py).
"""
import json
from pathlib import Path

import numpy as np
import pytest

from pyemu.cuda import (SourceModule, cudaCreateChannelDesc, cudaCreateTextureObject,
                        cudaDestroyTextureObject, cudaFree, cudaFreeArray, cudaMalloc,
                        cudaMalloc3DArray, cudaMemcpy, cudaMemcpy3D, cudaMemcpy3DParms,
                        cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice, cudaReadModeElementType,
                        cudaReadModeNormalizedFloat, cudaResourceDesc, cudaResourceTypeArray,
                        cudaTextureDesc, make_cudaExtent, make_cudaPitchedPtr)

GT = json.loads((Path(__file__).resolve().parents[1] / "data" / "ground_truth" /
                 "texture_filter_h200.json").read_text())
CASES = {c["case"]: c for c in GT["cases"]}

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

_DTYPES = {("f", 32): np.float32, ("u", 8): np.uint8, ("s", 8): np.int8,
           ("u", 16): np.uint16, ("s", 16): np.int16}


@pytest.fixture(scope="module")
def mod():
    return SourceModule(r"""
    __global__ void f1(cudaTextureObject_t t, const float *c, float4 *o, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) o[i] = tex1D<float4>(t, c[i]);
    }
    __global__ void f2(cudaTextureObject_t t, const float *c, float4 *o, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) o[i] = tex2D<float4>(t, c[2 * i], c[2 * i + 1]);
    }
    __global__ void f3(cudaTextureObject_t t, const float *c, float4 *o, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) o[i] = tex3D<float4>(t, c[3 * i], c[3 * i + 1], c[3 * i + 2]);
    }
    """)


def hex_floats(hexes):
    return np.array([int(h, 16) for h in hexes], dtype=np.uint32).view(np.float32)


def sample_case(mod, c):
    dt = _DTYPES[(c["kind"], c["bits"])]
    if c["kind"] == "f":
        data = hex_floats(c["data"])
    else:
        data = np.array(c["data"], np.int64).astype(dt)
    w, h, d, dims = c["width"], c["height"], c["depth"], c["dims"]
    ext = (w, h if dims > 1 else 0, d if dims > 2 else 0)
    arr = cudaMalloc3DArray(cudaCreateChannelDesc(dt, c["channels"]), make_cudaExtent(*ext))
    p = cudaMemcpy3DParms()
    row = w * c["channels"] * data.itemsize
    p.srcPtr = make_cudaPitchedPtr(data, row, w, h)
    p.dstArray = arr
    p.extent = make_cudaExtent(w, h, d)
    p.kind = cudaMemcpyHostToDevice
    cudaMemcpy3D(p)
    r = cudaResourceDesc()
    r.resType = cudaResourceTypeArray
    r.res.array.array = arr
    td = cudaTextureDesc()
    td.addressMode = [c["address_mode"]] * 3
    td.filterMode = 1
    td.normalizedCoords = int(c["normalized_coords"])
    td.readMode = (cudaReadModeNormalizedFloat if c["read_mode"] == "normalized_float"
                   else cudaReadModeElementType)
    t = cudaCreateTextureObject(r, td, None)
    coords = hex_floats(c["coords"])
    n = len(coords) // dims
    dc = cudaMalloc(coords.nbytes)
    cudaMemcpy(dc, coords, coords.nbytes, cudaMemcpyHostToDevice)
    out = np.zeros(4 * n, np.float32)
    do = cudaMalloc(out.nbytes)
    getattr(mod, f"f{dims}")[(n + 63) // 64, 64](t, dc, do, n)
    cudaMemcpy(out, do, out.nbytes, cudaMemcpyDeviceToHost)
    cudaDestroyTextureObject(t)
    cudaFreeArray(arr)
    cudaFree(dc)
    cudaFree(do)
    return out, hex_floats(c["results"])


@pytest.mark.parametrize("name", list(CASES))
def test_linear_filter_bit_exact(mod, name):
    got, want = sample_case(mod, CASES[name])
    off = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
    assert len(off) == 0, (name, len(off), off[:8], got[off[:4]], want[off[:4]])

