"""Signed 8-bit normalized 1-D linear filtering against an H200, every lerp
(tests/data/ground_truth/texture_snorm8_h200.bin, made by
texture_probe_snorm8.cu): a texture object on a 256-texel
cudaChannelFormatKindSigned 8-bit array, cudaFilterModeLinear,
cudaReadModeNormalizedFloat, clamp, unnormalized; for two textures (-128..127
ascending and an LCG order) the sample of every neighbouring pair (i, i + 1)
at every 8-bit weight A, x = i + 0.5 + A/256: 2 x 255 x 256 floats, bit for
bit (detail/sampler.h's pyemu_snorm8_widen; the rule in NumPy first)."""
from pathlib import Path

import numpy as np
import pytest

from pyemu.cuda import (SourceModule, cudaAddressModeClamp, cudaCreateChannelDesc,
                        cudaCreateTextureObject, cudaDestroyTextureObject, cudaFilterModeLinear,
                        cudaFree, cudaFreeArray, cudaMalloc, cudaMallocArray, cudaMemcpy,
                        cudaMemcpy2DToArray, cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice,
                        cudaReadModeNormalizedFloat, cudaResourceDesc, cudaResourceTypeArray,
                        cudaTextureDesc)

RAW = (Path(__file__).resolve().parents[1] / "data" / "ground_truth" /
       "texture_snorm8_h200.bin").read_bytes()
TEXELS = np.frombuffer(RAW[:512], np.int8).reshape(2, 256)
SAMPLES = np.frombuffer(RAW[512:], "<f4").reshape(2, 255 * 256)
N = 255 * 256

pytestmark = pytest.mark.usefixtures("cuda_clean_state")


def test_table_layout():
    """The file is what the probe's header says: the texel bytes, then floats that are float(R / 32767)."""
    assert len(RAW) == 512 + 2 * N * 4
    assert TEXELS[0].tolist() == list(range(-128, 128))
    s, lcg = 7, []
    for _ in range(256):
        s = (s * 1664525 + 1013904223) & 0xFFFFFFFF
        lcg.append(((s >> 24) ^ 0x80) - 0x80)
    assert TEXELS[1].tolist() == lcg
    r = np.round(SAMPLES.astype(np.float64) * 32767)
    assert np.array_equal((r / 32767).astype(np.float32).view(np.uint32), SAMPLES.view(np.uint32))
    assert r.min() == -32767 and r.max() == 32766


def snorm8_rule(n):
    """texture_README.md's rule: the exact s8.8 sum n widened by 258 + 1/128
    (the 1/128 part cut to 1/8), rounded half up, held at -1."""
    r = (258 * n + 32 * (n >> 12) + 128) >> 8
    return (np.maximum(r, -32767) / 32767).astype(np.float32)


def test_the_rule_in_numpy_gives_the_whole_table():
    a = np.arange(256)
    for which in (0, 1):
        t = TEXELS[which].astype(np.int64)
        n = t[:-1, None] * (256 - a) + t[1:, None] * a
        got = snorm8_rule(n).ravel()
        assert np.array_equal(got.view(np.uint32), SAMPLES[which].view(np.uint32))
        # the exact sum rounded once (the rule before) is not it
        exact = (np.maximum((n * 32767 + 127 * 128) // (127 * 256), -32767) / 32767).astype(np.float32)
        assert (exact.ravel() != SAMPLES[which]).sum() > 3000


@pytest.fixture(scope="module")
def mod():
    # the probe's kernel, unchanged
    return SourceModule(r"""
    __global__ void k(cudaTextureObject_t t, float *o, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) { int c = i >> 8, a = i & 255; o[i] = tex1D<float>(t, c + 0.5f + a / 256.0f); }
    }
    """)


@pytest.mark.parametrize("which", [0, 1], ids=["ascending", "lcg"])
def test_snorm8_linear_every_lerp_bit_exact(mod, which):
    arr = cudaMallocArray(cudaCreateChannelDesc(np.int8), 256, 0)
    cudaMemcpy2DToArray(arr, 0, 0, TEXELS[which].copy(), 256, 256, 1, cudaMemcpyHostToDevice)
    r = cudaResourceDesc()
    r.resType = cudaResourceTypeArray
    r.res.array.array = arr
    td = cudaTextureDesc()
    td.addressMode = [cudaAddressModeClamp] * 3
    td.filterMode = cudaFilterModeLinear
    td.readMode = cudaReadModeNormalizedFloat
    t = cudaCreateTextureObject(r, td, None)
    out = np.zeros(N, np.float32)
    do = cudaMalloc(out.nbytes)
    mod.k[(N + 255) // 256, 256](t, do, N)
    cudaMemcpy(out, do, out.nbytes, cudaMemcpyDeviceToHost)
    cudaDestroyTextureObject(t)
    cudaFreeArray(arr)
    cudaFree(do)
    want = SAMPLES[which]
    off = np.flatnonzero(out.view(np.uint32) != want.view(np.uint32))
    assert len(off) == 0, (len(off), [(int(i) >> 8, int(i) & 255, float(out[i]) * 32767,
                                       float(want[i]) * 32767) for i in off[:6]])
