"""cudaMemcpy3D and cudaMemcpy3DAsync with CUDA arrays (to, from and between
arrays; extent and array positions in elements, pointer positions in bytes),
and layered and cubemap arrays with their fetches, against what an H100 did
(tests/data/ground_truth/array3d_h100.json, made by probe_array3d.cu: the
same calls, the same data).  Copies are checked with guard values: nothing
outside the described box changes."""
import json
import struct
from pathlib import Path

import numpy as np
import pytest

from pyemu.cuda import (CudaError, SourceModule, cudaArrayCubemap, cudaArrayGetInfo,
                        cudaArrayLayered, cudaArraySurfaceLoadStore, cudaCreateChannelDesc,
                        cudaCreateSurfaceObject, cudaCreateTextureObject,
                        cudaDestroySurfaceObject, cudaDestroyTextureObject, cudaFree,
                        cudaFreeArray, cudaGetLastError, cudaMalloc, cudaMalloc3DArray,
                        cudaMallocArray, cudaMallocPitch, cudaMemcpy, cudaMemcpy3D,
                        cudaMemcpy3DAsync, cudaMemcpy3DParms, cudaMemcpyDefault,
                        cudaMemcpyDeviceToDevice, cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice,
                        cudaResourceDesc, cudaResourceTypeArray, cudaStreamCreate,
                        cudaStreamDestroy, cudaStreamSynchronize, cudaTextureDesc,
                        make_cudaExtent, make_cudaPitchedPtr, make_cudaPos)

GT = json.loads((Path(__file__).resolve().parents[1] / "data" / "ground_truth" /
                 "array3d_h100.json").read_text())

pytestmark = pytest.mark.usefixtures("cuda_clean_state")
F4 = cudaCreateChannelDesc(np.float32)


def hexf(h):
    return np.array([int(x, 16) for x in h], np.uint32).view(np.float32)


def code(fn, *a):
    try:
        fn(*a)
        return 0
    except CudaError as e:
        cudaGetLastError()
        return int(e.code)


def parms(**kw):
    p = cudaMemcpy3DParms()
    for k, v in kw.items():
        setattr(p, k, v)
    return p


def read3(arr, w, h, d):
    out = np.full(w * h * d, -7.0, np.float32)
    cudaMemcpy3D(parms(srcArray=arr, dstPtr=make_cudaPitchedPtr(out, w * 4, w, h),
                       extent=make_cudaExtent(w, h, d), kind=cudaMemcpyDeviceToHost))
    return out.reshape(d, h, w)


@pytest.fixture
def arrays():
    a3 = cudaMalloc3DArray(F4, make_cudaExtent(8, 6, 4))
    b3 = cudaMalloc3DArray(F4, make_cudaExtent(8, 6, 4))
    a2 = cudaMalloc3DArray(F4, make_cudaExtent(8, 6, 0))
    c3 = cudaMalloc3DArray(cudaCreateChannelDesc(np.uint16), make_cudaExtent(8, 6, 4))
    yield a3, b3, a2, c3
    for a in (a3, b3, a2, c3):
        cudaFreeArray(a)


def test_cudaMemcpy3D_host_array_array_host_as_the_h100(arrays):
    a3, b3, _, _ = arrays
    h = np.arange(192, dtype=np.float32)
    hp = make_cudaPitchedPtr(h, 32, 8, 6)
    cudaMemcpy3D(parms(srcPtr=hp, dstArray=a3, extent=make_cudaExtent(8, 6, 4),
                       kind=cudaMemcpyHostToDevice))
    cudaMemcpy3D(parms(srcArray=a3, srcPos=make_cudaPos(1, 2, 1), dstArray=b3,
                       dstPos=make_cudaPos(2, 1, 0), extent=make_cudaExtent(3, 2, 2),
                       kind=cudaMemcpyDeviceToDevice))
    g = np.full(192, -1.0, np.float32)
    cudaMemcpy3D(parms(srcArray=b3, dstPtr=make_cudaPitchedPtr(g, 32, 8, 6),
                       extent=make_cudaExtent(8, 6, 4), kind=cudaMemcpyDeviceToHost))
    assert g.tolist() == [float(v) for v in GT["a2a_result"]]


def test_cudaMemcpy3D_array_box_touches_nothing_else(arrays):
    """A box into the middle of an array from a host buffer with guard
    columns and rows, then out again into a guarded buffer."""
    a3 = arrays[0]
    base = np.arange(192, dtype=np.float32)
    cudaMemcpy3D(parms(srcPtr=make_cudaPitchedPtr(base, 32, 8, 6), dstArray=a3,
                       extent=make_cudaExtent(8, 6, 4), kind=cudaMemcpyHostToDevice))
    src = np.full((3, 5, 10), 99.0, np.float32)     # pitch 40 bytes, 5 rows a slice
    src[:2, 1:3, 2:5] = [[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]]
    cudaMemcpy3D(parms(srcPtr=make_cudaPitchedPtr(src, 40, 10, 5), srcPos=make_cudaPos(8, 1, 0),
                       dstArray=a3, dstPos=make_cudaPos(4, 3, 1), extent=make_cudaExtent(3, 2, 2),
                       kind=cudaMemcpyHostToDevice))
    want = base.reshape(4, 6, 8).copy()
    want[1:3, 3:5, 4:7] = src[:2, 1:3, 2:5]
    assert np.array_equal(read3(a3, 8, 6, 4), want)
    dst = np.full((3, 4, 6), -5.0, np.float32)
    cudaMemcpy3D(parms(srcArray=a3, srcPos=make_cudaPos(4, 3, 1), dstPtr=make_cudaPitchedPtr(
        dst, 24, 6, 4), dstPos=make_cudaPos(4, 1, 1), extent=make_cudaExtent(3, 2, 2),
        kind=cudaMemcpyDeviceToHost))
    guard = np.full((3, 4, 6), -5.0, np.float32)
    guard[1:3, 1:3, 1:4] = src[:2, 1:3, 2:5]
    assert np.array_equal(dst, guard)


def test_cudaMemcpy3D_array_to_device_pitched_pos_in_bytes(arrays):
    a3 = arrays[0]
    base = np.arange(192, dtype=np.float32)
    cudaMemcpy3D(parms(srcPtr=make_cudaPitchedPtr(base, 32, 8, 6), dstArray=a3,
                       extent=make_cudaExtent(8, 6, 4), kind=cudaMemcpyHostToDevice))
    dp, pitch = cudaMallocPitch(64, 24)
    try:
        cudaMemcpy3D(parms(srcArray=a3, dstPtr=make_cudaPitchedPtr(dp, pitch, 64, 6),
                           dstPos=make_cudaPos(4, 0, 0), extent=make_cudaExtent(8, 6, 1),
                           kind=cudaMemcpyDeviceToDevice))
        back = np.zeros(pitch * 6 // 4, np.float32)
        cudaMemcpy(back, dp, pitch * 6, cudaMemcpyDeviceToHost)
    finally:
        cudaFree(dp)
    rows = back.reshape(6, pitch // 4)
    assert np.array_equal(rows[:, 1:9], base[:48].reshape(6, 8))
    assert GT["a2d_dstpos_bytes"] == 0


def test_cudaMemcpy3DAsync_to_an_array_in_stream_order(arrays):
    a3 = arrays[0]
    h = np.arange(192, dtype=np.float32) * 2
    s = cudaStreamCreate()
    try:
        cudaMemcpy3DAsync(parms(srcPtr=make_cudaPitchedPtr(h, 32, 8, 6), dstArray=a3,
                                extent=make_cudaExtent(8, 6, 4), kind=cudaMemcpyHostToDevice), s)
        cudaStreamSynchronize(s)
    finally:
        cudaStreamDestroy(s)
    assert np.array_equal(read3(a3, 8, 6, 4).ravel(), h)
    assert GT["h2a_async"] == 0


def _misuse(arrays):
    a3, b3, a2, c3 = arrays
    h = np.arange(192, dtype=np.float32)
    hp = make_cudaPitchedPtr(h, 32, 8, 6)
    g = np.zeros(192, np.float32)
    E = make_cudaExtent
    H2D, D2D, D2H = cudaMemcpyHostToDevice, cudaMemcpyDeviceToDevice, cudaMemcpyDeviceToHost
    return {
        "h2a_width_past": parms(srcPtr=hp, dstArray=a3, extent=E(9, 6, 1), kind=H2D),
        "h2a_pos_width_past": parms(srcPtr=hp, dstArray=a3, dstPos=make_cudaPos(1, 0, 0),
                                    extent=E(8, 1, 1), kind=H2D),
        "h2a_height_past": parms(srcPtr=hp, dstArray=a3, extent=E(8, 7, 1), kind=H2D),
        "h2a_depth_past": parms(srcPtr=make_cudaPitchedPtr(h, 32, 8, 8), dstArray=a3,
                                dstPos=make_cudaPos(0, 0, 2), extent=E(8, 6, 3), kind=H2D),
        "h2a_2d_depth2": parms(srcPtr=hp, dstArray=a2, extent=E(8, 6, 2), kind=H2D),
        "h2a_2d_ok": parms(srcPtr=hp, dstArray=a2, extent=E(8, 6, 1), kind=H2D),
        "src_both": parms(srcPtr=hp, srcArray=b3, dstArray=a3, extent=E(8, 6, 1), kind=H2D),
        "src_neither": parms(dstArray=a3, extent=E(8, 6, 1), kind=H2D),
        "a2a_format_mismatch": parms(srcArray=c3, dstArray=a3, extent=E(4, 2, 1), kind=D2D),
        "h2a_kind_d2h": parms(srcPtr=hp, dstArray=a3, extent=E(8, 6, 1), kind=D2H),
        "a2a_kind_h2d": parms(srcArray=a3, dstArray=b3, extent=E(8, 6, 1), kind=H2D),
        "a2a_kind_default": parms(srcArray=a3, dstArray=b3, extent=E(8, 6, 1),
                                  kind=cudaMemcpyDefault),
        "a2a_kind_bad": parms(srcArray=a3, dstArray=b3, extent=E(8, 6, 1), kind=7),
        "h2a_src_pitch_small": parms(srcPtr=make_cudaPitchedPtr(h, 16, 4, 6), dstArray=a3,
                                     extent=E(8, 6, 1), kind=H2D),
        "a2h_dst_pitch_small": parms(srcArray=a3, dstPtr=make_cudaPitchedPtr(g, 16, 4, 6),
                                     extent=E(8, 6, 1), kind=D2H),
        "h2a_zero_width": parms(srcPtr=hp, dstArray=a3, extent=E(0, 6, 1), kind=H2D),
        "a2a_same_overlap": parms(srcArray=a3, dstArray=a3, dstPos=make_cudaPos(1, 0, 0),
                                  extent=E(4, 2, 1), kind=D2D),
    }, (h, g)


@pytest.mark.parametrize("case", ["h2a_width_past", "h2a_pos_width_past", "h2a_height_past",
                                  "h2a_depth_past", "h2a_2d_depth2", "h2a_2d_ok", "src_both",
                                  "src_neither", "a2a_format_mismatch", "h2a_kind_d2h",
                                  "a2a_kind_h2d", "a2a_kind_default", "a2a_kind_bad",
                                  "h2a_src_pitch_small", "a2h_dst_pitch_small", "h2a_zero_width",
                                  "a2a_same_overlap"])
def test_cudaMemcpy3D_array_codes_as_the_h100(arrays, case):
    cases, keep = _misuse(arrays)
    before = read3(arrays[0], 8, 6, 4)
    got = code(cudaMemcpy3D, cases[case])
    assert got == GT[case], (case, got, GT[case])
    if got:     # a refused copy wrote nothing
        assert np.array_equal(read3(arrays[0], 8, 6, 4), before)


def test_cudaMemcpy3D_dst_array_and_pointer_both_set(arrays):
    a3 = arrays[0]
    h = np.arange(48, dtype=np.float32)
    dp, pitch = cudaMallocPitch(64, 6)
    try:
        got = code(cudaMemcpy3D, parms(srcPtr=make_cudaPitchedPtr(h, 32, 8, 6), dstArray=a3,
                                       dstPtr=make_cudaPitchedPtr(dp, pitch, 64, 6),
                                       extent=make_cudaExtent(8, 6, 1),
                                       kind=cudaMemcpyHostToDevice))
    finally:
        cudaFree(dp)
    assert got == GT["dst_both"] == 1


def test_cudaMemcpy3D_freed_array_is_invalid_resource_handle(arrays):
    a = cudaMalloc3DArray(F4, make_cudaExtent(4, 4, 2))
    cudaFreeArray(a)
    h = np.zeros(32, np.float32)
    got = code(cudaMemcpy3D, parms(srcPtr=make_cudaPitchedPtr(h, 16, 4, 4), dstArray=a,
                                   extent=make_cudaExtent(4, 4, 2), kind=cudaMemcpyHostToDevice))
    assert got == 400   # cudaErrorInvalidResourceHandle


# ---- layered and cubemap arrays ----

@pytest.mark.parametrize("case,ext,flags", [
    ("malloc_layered1d", (8, 0, 3), cudaArrayLayered),
    ("malloc_layered2d", (4, 3, 3), cudaArrayLayered),
    ("malloc_cubemap", (4, 4, 6), cudaArrayCubemap),
    ("malloc_cubemap_layered", (4, 4, 12), cudaArrayCubemap | cudaArrayLayered),
    ("malloc_cubemap_not_square", (4, 3, 6), cudaArrayCubemap),
    ("malloc_cubemap_depth5", (4, 4, 5), cudaArrayCubemap),
    ("malloc_cubemap_layered_depth8", (4, 4, 8), cudaArrayCubemap | cudaArrayLayered),
    ("malloc_layered_depth0", (4, 3, 0), cudaArrayLayered),
    ("malloc_surface_layered", (4, 3, 2), cudaArrayLayered | cudaArraySurfaceLoadStore)])
def test_cudaMalloc3DArray_layered_cubemap_codes(case, ext, flags):
    try:
        a = cudaMalloc3DArray(F4, make_cudaExtent(*ext), flags)
        got = 0
    except CudaError as e:
        cudaGetLastError()
        got, a = int(e.code), None
    assert got == GT[case]
    if a is not None:
        info = cudaArrayGetInfo(a)
        key = {"malloc_layered1d": "info_layered1d", "malloc_layered2d": "info_layered2d",
               "malloc_cubemap": "info_cubemap"}.get(case)
        if key:
            e = info[1]
            assert [e.width, e.height, e.depth, info[2]] == GT[key]
        cudaFreeArray(a)


def test_cudaMallocArray_layered_flag_is_invalid_value():
    assert code(cudaMallocArray, F4, 4, 3, cudaArrayLayered) == GT["mallocarray_layered"] == 1


@pytest.fixture(scope="module")
def mod():
    return SourceModule(r"""
    __global__ void kl2(cudaTextureObject_t t, const float* c, float* o, int n) {
      int i = threadIdx.x + blockIdx.x * blockDim.x;
      if (i < n) o[i] = tex2DLayered<float>(t, c[3 * i], c[3 * i + 1], (int)c[3 * i + 2]);
    }
    __global__ void kl1(cudaTextureObject_t t, const float* c, float* o, int n) {
      int i = threadIdx.x + blockIdx.x * blockDim.x;
      if (i < n) o[i] = tex1DLayered<float>(t, c[3 * i], (int)c[3 * i + 2]);
    }
    __global__ void kcube(cudaTextureObject_t t, const float* c, float* o, int n) {
      int i = threadIdx.x + blockIdx.x * blockDim.x;
      if (i < n) o[i] = texCubemap<float>(t, c[3 * i], c[3 * i + 1], c[3 * i + 2]);
    }
    __global__ void kcubel(cudaTextureObject_t t, const float* c, float* o, int n) {
      int i = threadIdx.x + blockIdx.x * blockDim.x;
      if (i < n) o[i] = texCubemapLayered<float>(t, c[4 * i], c[4 * i + 1], c[4 * i + 2], (int)c[4 * i + 3]);
    }
    __global__ void swl(cudaSurfaceObject_t s, int layers) {
      int x = threadIdx.x, y = threadIdx.y;
      for (int l = 0; l < layers; l++)
        surf2DLayeredwrite(surf2DLayeredread<float>(s, x * 4, y, l) + 1000.0f * (l + 1), s, x * 4, y, l);
    }
    """)


def _texture(arr, linear, norm, mode):
    r = cudaResourceDesc()
    r.resType = cudaResourceTypeArray
    r.res.array.array = arr
    td = cudaTextureDesc()
    td.addressMode = [mode] * 3
    td.filterMode = int(linear)
    td.normalizedCoords = int(norm)
    return cudaCreateTextureObject(r, td, None)


def _filled(ext, flags, values):
    a = cudaMalloc3DArray(F4, make_cudaExtent(*ext), flags)
    w, h, d = ext
    cudaMemcpy3D(parms(srcPtr=make_cudaPitchedPtr(values, w * 4, w, max(h, 1)), dstArray=a,
                       extent=make_cudaExtent(w, max(h, 1), d), kind=cudaMemcpyHostToDevice))
    return a


def _run(mod, kern, t, coords, stride):
    n = len(coords) // stride
    dc, do = cudaMalloc(coords.nbytes), cudaMalloc(4 * n)
    cudaMemcpy(dc, coords, coords.nbytes, cudaMemcpyHostToDevice)
    getattr(mod, kern)[1, 64](t, dc, do, n)
    out = np.zeros(n, np.float32)
    cudaMemcpy(out, do, out.nbytes, cudaMemcpyDeviceToHost)
    cudaFree(dc)
    cudaFree(do)
    return out


L2 = np.array([l * 100 + y * 10 + x for l in range(3) for y in range(3) for x in range(4)],
              np.float32)
L1 = np.array([l * 100 + x for l in range(3) for x in range(8)], np.float32)
CL = np.array([f * 100 + y * 10 + x for f in range(12) for y in range(4) for x in range(4)],
              np.float32)


@pytest.mark.parametrize("case,kern,linear,norm,mode", [
    ("layered2d_point_clamp", "kl2", 0, 0, 1), ("layered2d_linear_clamp", "kl2", 1, 0, 1),
    ("layered2d_linear_border", "kl2", 1, 0, 3), ("layered1d_point", "kl1", 0, 0, 1),
    ("layered1d_linear", "kl1", 1, 0, 1), ("cubemap_point_norm", "kcube", 0, 1, 1),
    ("cubemap_linear_norm", "kcube", 1, 1, 1), ("cubemap_point_unnorm", "kcube", 0, 0, 1),
    ("cubemap_linear_wrap", "kcube", 1, 1, 0), ("cubemap_layered_point", "kcubel", 0, 1, 1)])
def test_layered_and_cubemap_fetches_bit_exact(mod, case, kern, linear, norm, mode):
    """Layers clamp (a negative layer is a large unsigned one), cube faces as
    the Programming Guide's table with z winning ties over y and y over x,
    filtering and the address mode inside a face."""
    c = GT[case]
    if kern == "kl2":
        arr = _filled((4, 3, 3), cudaArrayLayered, L2)
    elif kern == "kl1":
        arr = _filled((8, 0, 3), cudaArrayLayered, L1)
    elif kern == "kcube":
        arr = _filled((4, 4, 6), cudaArrayCubemap, CL[:96])
    else:
        arr = _filled((4, 4, 12), cudaArrayCubemap | cudaArrayLayered, CL)
    t = _texture(arr, linear, norm, mode)
    got = _run(mod, kern, t, hexf(c["coords"]), 4 if kern == "kcubel" else 3)
    want = hexf(c["out"])
    cudaDestroyTextureObject(t)
    cudaFreeArray(arr)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (case, got, want)


def test_surf2DLayered_read_write(mod):
    arr = cudaMalloc3DArray(F4, make_cudaExtent(4, 3, 3),
                            cudaArrayLayered | cudaArraySurfaceLoadStore)
    cudaMemcpy3D(parms(srcPtr=make_cudaPitchedPtr(L2, 16, 4, 3), dstArray=arr,
                       extent=make_cudaExtent(4, 3, 3), kind=cudaMemcpyHostToDevice))
    r = cudaResourceDesc()
    r.resType = cudaResourceTypeArray
    r.res.array.array = arr
    s = cudaCreateSurfaceObject(r)
    mod.swl[1, (4, 3)](s, 3)
    back = read3(arr, 4, 3, 3)
    cudaDestroySurfaceObject(s)
    cudaFreeArray(arr)
    want = L2.reshape(3, 3, 4) + np.array([1000, 2000, 3000], np.float32)[:, None, None]
    assert np.array_equal(back, want)


def test_cudaArray_types_declared_in_device_code():
    """A header shared by host and device code names cudaArray (as cuda-samples'
    convolutionTexture_common.h does): the device compile must know the type."""
    m = SourceModule(r"""
    extern "C" void convolutionRowsGPU(float *d_Dst, cudaArray *a_Src, int w, int h);
    cudaArray_t unused_handle;
    __global__ void k(int *o) { o[0] = sizeof(cudaArray_t); }
    """)
    d = cudaMalloc(4)
    m.k[1, 1](d)
    out = np.zeros(1, np.int32)
    cudaMemcpy(out, d, 4, cudaMemcpyDeviceToHost)
    cudaFree(d)
    assert out[0] == 8
