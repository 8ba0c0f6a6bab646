"""Texture references: mod.get_texref, cudaBindTexture (offset returned),
cudaBindTexture2D, cudaBindTextureToArray, cudaUnbindTexture, attributes set
on the reference, tex1Dfetch/tex1D/tex2D on them, an unbound fetch."""
import numpy as np
import pytest

from pyemu.cuda import *  # noqa: F401,F403
from pyemu.cuda import CudaError

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

SRC = r"""
texture<float, 1, cudaReadModeElementType> lin;
texture<float, 2> tex2;
texture<unsigned char, 2, cudaReadModeNormalizedFloat> tex8;
texture<uchar4, 2, cudaReadModeNormalizedFloat> tex84;
__global__ void fetch(float *o, int n, int shift) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = tex1Dfetch(lin, i + shift);
}
__global__ void at2(float *o, const float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = tex2D(tex2, c[2 * i], c[2 * i + 1]);
}
__global__ void at8(float *o) { o[threadIdx.x] = tex2D(tex8, threadIdx.x + 0.5f, 0.5f); }
__global__ void at84(float4 *o) { o[threadIdx.x] = tex2D(tex84, threadIdx.x + 0.5f, 0.5f); }
"""


def code_of(fn, *a):
    try:
        fn(*a)
    except CudaError as exc:
        return int(exc.code)
    return 0


@pytest.fixture(scope="module")
def mod():
    return SourceModule(SRC)


def dev(a):
    d = cudaMalloc(a.nbytes)
    cudaMemcpy(d, a, a.nbytes, cudaMemcpyHostToDevice)
    return d


def test_cudaBindTexture_and_tex1Dfetch_past_the_end(mod):
    h = np.arange(100, dtype=np.float32)
    d, o = dev(h), cudaMalloc(400)
    ref = mod.get_texref("lin")
    assert cudaBindTexture(ref, d, cudaCreateChannelDesc(np.float32), 400) == 0
    mod.fetch[2, 64](o, 100, 5)
    out = np.zeros(100, np.float32)
    cudaMemcpy(out, o, 400, cudaMemcpyDeviceToHost)
    assert out.tolist() == list(range(5, 100)) + [0] * 5
    # a size smaller than the memory bounds the texture
    cudaBindTexture(ref, d, None, 40)
    mod.fetch[2, 64](o, 100, 0)
    cudaMemcpy(out, o, 400, cudaMemcpyDeviceToHost)
    assert out[:10].tolist() == list(range(10)) and not out[10:].any()
    assert cudaUnbindTexture(ref) == 0
    cudaFree(d)
    cudaFree(o)


def test_bind_to_array_and_pitch2D_with_attributes(mod):
    img = np.arange(12, dtype=np.float32).reshape(3, 4)
    arr = cudaMallocArray(cudaCreateChannelDesc(np.float32), 4, 3)
    cudaMemcpy2DToArray(arr, 0, 0, img, 16, 16, 3, cudaMemcpyHostToDevice)
    ref = mod.get_texref("tex2")
    ref.filterMode = cudaFilterModeLinear
    ref.addressMode = [cudaAddressModeClamp] * 3
    cudaBindTextureToArray(ref, arr)
    c = np.array([1.0, 0.5, 0.5, 1.0, 9.0, 9.0], np.float32)
    dc, o = dev(c), cudaMalloc(12)
    out = np.zeros(3, np.float32)
    mod.at2[1, 3](o, dc, 3)
    cudaMemcpy(out, o, 12, cudaMemcpyDeviceToHost)
    assert out.tolist() == [0.5, 2.0, 11.0]
    ref.filterMode = cudaFilterModePoint          # a bound reference takes the change
    mod.at2[1, 3](o, dc, 3)
    cudaMemcpy(out, o, 12, cudaMemcpyDeviceToHost)
    assert out.tolist() == [1.0, 4.0, 11.0]
    # the same picture as pitched linear memory, 64-byte rows
    pitched = np.zeros((3, 16), np.float32)
    pitched[:, :4] = img
    dp = dev(pitched)
    assert cudaBindTexture2D(ref, dp, cudaCreateChannelDesc(np.float32), 4, 3, 64) == 0
    mod.at2[1, 3](o, dc, 3)
    cudaMemcpy(out, o, 12, cudaMemcpyDeviceToHost)
    assert out.tolist() == [1.0, 4.0, 11.0]
    assert code_of(cudaBindTexture2D, ref, dp, cudaCreateChannelDesc(np.float32), 4, 3, 48) == \
        cudaErrorInvalidValue
    assert code_of(cudaBindTexture2D, ref, dp, cudaCreateChannelDesc(np.float32), 4, 4, 64) == \
        cudaErrorInvalidValue                     # past the allocation
    cudaUnbindTexture(ref)
    cudaFreeArray(arr)
    for p in (dc, o, dp):
        cudaFree(p)


def test_normalized_float_references(mod):
    a = cudaMallocArray(cudaCreateChannelDesc(np.uint8), 4, 1)
    cudaMemcpy2DToArray(a, 0, 0, np.array([0, 51, 255, 128], np.uint8), 4, 4, 1,
                        cudaMemcpyHostToDevice)
    ref = mod.get_texref("tex8")
    cudaBindTextureToArray(ref, a)
    o = cudaMalloc(64)
    mod.at8[1, 4](o)
    out = np.zeros(4, np.float32)
    cudaMemcpy(out, o, 16, cudaMemcpyDeviceToHost)
    assert out.tolist() == [0.0, np.float32(51 / 255), 1.0, np.float32(128 / 255)]
    a4 = cudaMallocArray(cudaCreateChannelDesc(np.uint8, 4), 2, 1)
    cudaMemcpy2DToArray(a4, 0, 0, np.arange(8, dtype=np.uint8) * 30, 8, 8, 1,
                        cudaMemcpyHostToDevice)
    r4 = mod.get_texref("tex84")
    cudaBindTextureToArray(r4, a4)
    mod.at84[1, 2](o)
    out4 = np.zeros(8, np.float32)
    cudaMemcpy(out4, o, 32, cudaMemcpyDeviceToHost)
    assert out4.tolist() == [np.float32(30 * k / 255) for k in range(8)]
    cudaFreeArray(a)
    cudaFreeArray(a4)
    cudaFree(o)


def test_bad_references(mod):
    assert code_of(mod.get_texref, "no_such") == cudaErrorInvalidTexture
    assert code_of(cudaBindTexture, "lin", cudaMalloc(4)) == cudaErrorInvalidTexture
    ref = mod.get_texref("lin")
    assert code_of(cudaBindTexture, ref, np.zeros(4)) == cudaErrorInvalidValue
    assert code_of(cudaBindTexture, ref, cudaMalloc(4), cudaChannelFormatDesc(24, 0, 0, 0, 1)) == \
        cudaErrorInvalidChannelDescriptor
    assert code_of(cudaBindTextureToArray, ref, 5) == cudaErrorInvalidResourceHandle


def test_unbound_reference_fails_the_launch(run_cuda):
    res = run_cuda("""
mod = SourceModule('''
texture<float, 1, cudaReadModeElementType> t;
__global__ void k(float *o) { o[0] = tex1Dfetch(t, 0); }''')
o = cudaMalloc(4)
mod.k[1, 1](o)
R['sync'] = code_of(cudaDeviceSynchronize)
""")
    assert res.R["sync"] == cudaErrorLaunchFailure, res.explain()
    assert "not bound" in res.stdout


def test_channelDesc_defaults_to_the_declared_element_type():
    """texture<T, ...> is constructed with cudaCreateChannelDesc<T>() in CUDA, so
    cudaBindTexture(0, texRef, devPtr, size) needs no desc (Rodinia leukocyte)."""
    m = SourceModule(r"""
    texture<float, 1, cudaReadModeElementType> tf;
    texture<uchar4, 2, cudaReadModeNormalizedFloat> tu4;
    texture<short2, 1> ts2;
    __global__ void get(float *o) { o[threadIdx.x] = tex1Dfetch(tf, threadIdx.x) * 2.0f; }
    """)
    tf, tu4, ts2 = m.get_texref("tf"), m.get_texref("tu4"), m.get_texref("ts2")
    d = tf.channelDesc
    assert (d.x, d.y, d.z, d.w, d.f) == (32, 0, 0, 0, cudaChannelFormatKindFloat)
    d = tu4.channelDesc
    assert (d.x, d.y, d.z, d.w, d.f) == (8, 8, 8, 8, cudaChannelFormatKindUnsigned)
    d = ts2.channelDesc
    assert (d.x, d.y, d.z, d.w, d.f) == (16, 16, 0, 0, cudaChannelFormatKindSigned)
    buf = cudaMalloc(16)
    out = cudaMalloc(16)
    try:
        cudaMemcpy(buf, np.arange(4, dtype=np.float32), 16, cudaMemcpyHostToDevice)
        assert cudaBindTexture(tf, buf, None, 16) == 0
        m.get[1, 4](out)
        got = np.zeros(4, np.float32)
        cudaMemcpy(got, out, 16, cudaMemcpyDeviceToHost)
        assert got.tolist() == [0, 2, 4, 6]
        cudaUnbindTexture(tf)
        d = m.get_texref("tf").channelDesc      # a fresh view after unbinding
        assert (d.x, d.f) == (32, cudaChannelFormatKindFloat)
    finally:
        cudaFree(buf)
        cudaFree(out)
