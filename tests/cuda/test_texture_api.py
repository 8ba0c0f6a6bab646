"""The CUDA array, texture-object and surface-object calls with valid and bad
arguments: the codes are the ones an H100 answered (texture_h100.json's
"array_api" case), each test names the probe's entry it mirrors."""
import json
from pathlib import Path

import numpy as np
import pytest

from pyemu.cuda import *  # noqa: F401,F403
from pyemu.cuda import CudaError

GT = {c["case"]: c for c in json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "ground_truth" / "texture_h100.json")
    .read_text())["cases"]}["array_api"]

pytestmark = pytest.mark.usefixtures("cuda_clean_state")
F32 = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat)


def code_of(fn, *args):
    try:
        fn(*args)
    except CudaError as exc:
        return int(exc.code)
    return 0


def gt(key):
    return GT[key]["code"]


@pytest.fixture
def arr():
    a = cudaMallocArray(F32, 8, 4)
    yield a
    cudaFreeArray(a)


def test_cudaCreateChannelDesc_forms():
    assert cudaCreateChannelDesc(np.float32) == cudaChannelFormatDesc(32, 0, 0, 0, 2)
    assert cudaCreateChannelDesc(np.uint8, 4) == cudaChannelFormatDesc(8, 8, 8, 8, 1)
    assert cudaCreateChannelDesc(np.int16, 2) == cudaChannelFormatDesc(16, 16, 0, 0, 0)
    assert cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned).x == 8
    assert code_of(cudaCreateChannelDesc, np.float32, 3) == cudaErrorInvalidChannelDescriptor
    assert code_of(cudaCreateChannelDesc, "x", 0, 0, 0, 2) == cudaErrorInvalidValue
    assert code_of(cudaCreateChannelDesc, object()) == cudaErrorInvalidValue


@pytest.mark.parametrize("key, args", [
    ("mallocarray_w0", (F32, 0, 4)),
    ("mallocarray_bad_desc", (cudaChannelFormatDesc(8, 16, 0, 0, 2), 4, 4)),
    ("mallocarray_24bit", (cudaChannelFormatDesc(24, 0, 0, 0, 1), 4, 4)),
    ("mallocarray_3channels", (cudaChannelFormatDesc(16, 16, 16, 0, 0), 4, 4)),
    ("mallocarray_float3", (cudaChannelFormatDesc(32, 32, 32, 0, 2), 4, 4)),
    ("mallocarray_w_131073", (F32, 131073, 0)),
])
def test_cudaMallocArray_bad_arguments(key, args):
    assert code_of(cudaMallocArray, *args) == gt(key) != 0


def test_cudaMallocArray_wide_2d_and_bad_types():
    a = cudaMallocArray(F32, 65537, 4)      # mallocarray_w_65537: success on the GPU
    assert gt("mallocarray_w_65537") == 0
    cudaFreeArray(a)
    assert code_of(cudaMallocArray, F32, "8") == cudaErrorInvalidValue
    assert code_of(cudaMallocArray, F32, -1) == cudaErrorInvalidValue
    assert code_of(cudaMallocArray, "float", 8) == cudaErrorInvalidValue
    assert code_of(cudaMallocArray, F32, 8, 4, 0x1000) == cudaErrorInvalidValue


def test_cudaArrayGetInfo(arr):
    desc, ext, flags = cudaArrayGetInfo(arr)
    assert (desc.x, desc.y, desc.f) == (GT["info_x"], GT["info_y"], GT["info_f"])
    assert (ext.width, ext.height, ext.depth) == (GT["info_w"], GT["info_h"], GT["info_d"])
    assert flags == GT["info_flags"]
    one = cudaMallocArray(F32, 8)
    _, e1, _ = cudaArrayGetInfo(one)
    assert (e1.height, e1.depth) == (GT["info1d_h"], GT["info1d_d"])
    cudaFreeArray(one)
    assert code_of(cudaArrayGetInfo, 5) == cudaErrorInvalidResourceHandle


def test_cudaMalloc3DArray():
    a = cudaMalloc3DArray(F32, (4, 4, 4))
    assert gt("malloc3d_ok") == 0
    _, ext, _ = cudaArrayGetInfo(a)
    assert (ext.width, ext.height, ext.depth) == (4, 4, 4)
    cudaFreeArray(a)
    assert code_of(cudaMalloc3DArray, F32, (0, 4, 4)) == gt("malloc3d_w0")
    assert code_of(cudaMalloc3DArray, F32, (4, 4, 4), 0x1000) == gt("malloc3d_bad_flags")
    # layered and cubemap arrays (tests/cuda/test_array3d.py checks them against the H100)
    assert code_of(cudaMalloc3DArray, F32, (4, 4, 4), cudaArrayLayered) == 0
    assert code_of(cudaMalloc3DArray, F32, (4, 4, 6), cudaArrayCubemap) == 0
    assert code_of(cudaMalloc3DArray, F32, (4, 3, 6), cudaArrayCubemap) == cudaErrorInvalidValue
    assert code_of(cudaMalloc3DArray, F32, "4x4") == cudaErrorInvalidValue


def test_cudaFreeArray_twice_and_null():
    a = cudaMallocArray(F32, 4)
    assert cudaFreeArray(a) == cudaSuccess
    assert code_of(cudaFreeArray, a) == cudaErrorInvalidResourceHandle
    assert cudaFreeArray(None) == cudaSuccess and gt("freearray_null") == 0


def test_cudaMemcpy2DToArray_round_trip_with_guards(arr):
    src = np.arange(64, dtype=np.float32)
    cudaMemcpy2DToArray(arr, 0, 0, src, 32, 32, 4, cudaMemcpyHostToDevice)
    # a 2x2 box at element (1, 1), into a host buffer with guard values round it
    out = np.full(16, -7.0, np.float32)
    cudaMemcpy2DFromArray(out[4:], 16, arr, 4, 1, 8, 2, cudaMemcpyDeviceToHost)
    assert out[4:6].tolist() == [9.0, 10.0] and out[8:10].tolist() == [17.0, 18.0]
    assert (out[:4] == -7).all() and (out[6:8] == -7).all() and (out[10:] == -7).all()
    # a box written into the middle leaves the rest of the array alone
    cudaMemcpy2DToArray(arr, 8, 2, np.array([100, 101], np.float32), 8, 8, 1,
                        cudaMemcpyHostToDevice)
    back = np.zeros(32, np.float32)
    cudaMemcpy2DFromArray(back, 32, arr, 0, 0, 32, 4, cudaMemcpyDeviceToHost)
    want = np.arange(32, dtype=np.float32)
    want[18:20] = [100, 101]
    assert back.tolist() == want.tolist()


def test_cudaMemcpy2DToArray_device_to_device(arr):
    d = cudaMalloc(128)
    cudaMemcpy(d, np.arange(32, dtype=np.float32), 128, cudaMemcpyHostToDevice)
    cudaMemcpy2DToArray(arr, 0, 0, d, 32, 32, 4, cudaMemcpyDeviceToDevice)
    d2 = cudaMalloc(128)
    cudaMemcpy2DFromArray(d2, 32, arr, 0, 0, 32, 4, cudaMemcpyDeviceToDevice)
    out = np.zeros(32, np.float32)
    cudaMemcpy(out, d2, 128, cudaMemcpyDeviceToHost)
    assert out.tolist() == list(range(32))
    cudaFree(d)
    cudaFree(d2)


@pytest.mark.parametrize("key, args", [
    ("copy_too_tall", (0, 3, 32, 32, 2, cudaMemcpyHostToDevice)),
    ("copy_spitch_small", (0, 0, 8, 16, 2, cudaMemcpyHostToDevice)),
    ("copy_bad_kind", (0, 0, 32, 32, 2, 7)),
    ("copy_d2h_kind_to_array", (0, 0, 32, 32, 2, cudaMemcpyDeviceToHost)),
])
def test_cudaMemcpy2DToArray_bad_arguments(arr, key, args):
    host = np.zeros(64, np.float32)
    w, h, sp, width, height, kind = args
    assert code_of(cudaMemcpy2DToArray, arr, w, h, host, sp, width, height, kind) == gt(key) != 0


def test_cudaMemcpy2DToArray_odd_widths_and_host_too_small(arr):
    host = np.zeros(64, np.float32)
    # not whole elements: the GPU copies them (copy_width_not_elem, copy_woffset_not_elem)
    assert cudaMemcpy2DToArray(arr, 0, 0, host, 32, 6, 2, cudaMemcpyHostToDevice) == 0
    assert cudaMemcpy2DToArray(arr, 2, 0, host, 32, 8, 2, cudaMemcpyHostToDevice) == 0
    assert gt("copy_width_not_elem") == gt("copy_woffset_not_elem") == 0
    small = np.zeros(10, np.float32)
    assert code_of(cudaMemcpy2DToArray, arr, 0, 0, small, 32, 32, 4,
                   cudaMemcpyHostToDevice) == cudaErrorInvalidValue
    assert code_of(cudaMemcpy2DToArray, arr, 0, 0, host, 32, 32, 4,
                   cudaMemcpyDeviceToDevice) == cudaErrorInvalidValue
    assert code_of(cudaMemcpy2DFromArray, host, 64, arr, 0, 0, 36, 1,
                   cudaMemcpyDeviceToHost) == gt("from_too_wide")


def test_cudaMemcpyToArray_wraps_rows(arr):
    host = np.arange(16, dtype=np.float32)
    assert cudaMemcpyToArray(arr, 16, 0, host, 32, cudaMemcpyHostToDevice) == 0  # toarray_wraps_rows
    back = np.zeros(32, np.float32)
    cudaMemcpy2DFromArray(back, 32, arr, 0, 0, 32, 4, cudaMemcpyDeviceToHost)
    assert back[4:12].tolist() == list(range(8))
    assert code_of(cudaMemcpyToArray, arr, 16, 3, host, 32,
                   cudaMemcpyHostToDevice) == gt("toarray_past_end")
    assert cudaMemcpyToArray(arr, 0, 0, host, 0, cudaMemcpyHostToDevice) == gt("toarray_zero")
    out = np.zeros(8, np.float32)
    cudaMemcpyFromArray(out, arr, 16, 0, 32, cudaMemcpyDeviceToHost)
    assert out.tolist() == list(range(8))


def _res(a):
    r = cudaResourceDesc()
    r.resType = cudaResourceTypeArray
    r.res.array.array = a
    return r


def test_cudaCreateTextureObject_bad_arguments(arr):
    td = cudaTextureDesc()
    assert code_of(cudaCreateTextureObject, None, td, None) == gt("tex_null_res")
    assert code_of(cudaCreateTextureObject, _res(arr), None, None) == gt("tex_null_texdesc")
    td.readMode = cudaReadModeNormalizedFloat
    assert code_of(cudaCreateTextureObject, _res(arr), td, None) == gt("tex_normfloat_on_float")
    td.readMode = cudaReadModeElementType
    td.addressMode = [7, 1, 1]
    assert code_of(cudaCreateTextureObject, _res(arr), td, None) == gt("tex_bad_address_mode")
    td.addressMode = [1, 1, 1]
    td.filterMode = 5
    assert code_of(cudaCreateTextureObject, _res(arr), td, None) == gt("tex_bad_filter")
    td.filterMode = 0
    r = _res(arr)
    r.resType = 9
    assert code_of(cudaCreateTextureObject, r, td, None) == gt("tex_bad_restype")
    assert code_of(cudaCreateTextureObject, _res(None), td, None) == gt("tex_null_array")


def test_texture_object_lifecycle(arr):
    t = cudaCreateTextureObject(_res(arr), cudaTextureDesc(), None)
    assert t != 0 and GT["tex_handle_nonzero"] == 1
    r = cudaGetTextureObjectResourceDesc(t)
    assert r.resType == GT["getresdesc_type"] == cudaResourceTypeArray
    assert r.res.array.array is arr
    assert cudaGetTextureObjectTextureDesc(t).filterMode == cudaFilterModePoint
    assert cudaDestroyTextureObject(t) == gt("destroy_ok") == 0
    assert cudaDestroyTextureObject(0) == gt("destroy_zero") == 0
    assert code_of(cudaGetTextureObjectResourceDesc, 0) == gt("getresdesc_zero")
    assert code_of(cudaDestroyTextureObject, t) == cudaErrorInvalidValue


def test_integer_texture_linear_filter_refused():
    a = cudaMallocArray(cudaCreateChannelDesc(np.uint8), 4, 4)
    td = cudaTextureDesc()
    td.filterMode = cudaFilterModeLinear
    assert code_of(cudaCreateTextureObject, _res(a), td, None) == cudaErrorInvalidFilterSetting
    td.readMode = cudaReadModeNormalizedFloat
    t = cudaCreateTextureObject(_res(a), td, None)
    cudaDestroyTextureObject(t)
    cudaFreeArray(a)


def test_linear_and_pitch2D_resources():
    d = cudaMalloc(4096)
    td = cudaTextureDesc()
    r = cudaResourceDesc()
    r.resType = cudaResourceTypeLinear
    r.res.linear.devPtr, r.res.linear.desc, r.res.linear.sizeInBytes = d, F32, 4096
    cudaDestroyTextureObject(cudaCreateTextureObject(r, td, None))          # linear_ok
    r.res.linear.devPtr, r.res.linear.sizeInBytes = d + 4, 1024
    assert code_of(cudaCreateTextureObject, r, td, None) == gt("linear_misaligned")
    r.res.linear.devPtr, r.res.linear.sizeInBytes = d, 0
    cudaDestroyTextureObject(cudaCreateTextureObject(r, td, None))          # linear_size0
    r.res.linear.sizeInBytes = 1 << 40
    assert code_of(cudaCreateTextureObject, r, td, None) == gt("linear_too_big")
    r.res.linear.sizeInBytes = 8192      # past the allocation
    assert code_of(cudaCreateTextureObject, r, td, None) == cudaErrorInvalidValue
    r.res.linear.devPtr = np.zeros(4)
    assert code_of(cudaCreateTextureObject, r, td, None) == cudaErrorInvalidValue
    p = cudaResourceDesc()
    p.resType = cudaResourceTypePitch2D
    p2 = p.res.pitch2D
    p2.devPtr, p2.desc, p2.width, p2.height, p2.pitchInBytes = d, F32, 8, 4, 128
    cudaDestroyTextureObject(cudaCreateTextureObject(p, td, None))          # pitch_ok
    for key, pitch, ptr in (("pitch_not_32", 48, d), ("pitch_smaller_than_row", 16, d),
                            ("pitch_misaligned_ptr", 128, d + 16)):
        p2.pitchInBytes, p2.devPtr = pitch, ptr
        assert code_of(cudaCreateTextureObject, p, td, None) == gt(key) != 0
    cudaFree(d)


def test_cudaCreateSurfaceObject(arr):
    assert code_of(cudaCreateSurfaceObject, _res(arr)) == cudaErrorInvalidResourceHandle  # no flag
    a = cudaMallocArray(F32, 4, 4, cudaArraySurfaceLoadStore)
    s = cudaCreateSurfaceObject(_res(a))
    assert cudaGetSurfaceObjectResourceDesc(s).res.array.array is a
    assert cudaDestroySurfaceObject(s) == 0
    assert cudaDestroySurfaceObject(0) == 0
    assert code_of(cudaDestroySurfaceObject, s) == cudaErrorInvalidValue
    assert code_of(cudaCreateSurfaceObject, None) == cudaErrorInvalidValue
    cudaFreeArray(a)


def test_destroyed_texture_faults_as_use_after_free(run_cuda):
    res = run_cuda("""
import numpy as np
a = cudaMallocArray(cudaCreateChannelDesc(np.float32), 4, 4)
r = cudaResourceDesc(); r.resType = cudaResourceTypeArray; r.res.array.array = a
t = cudaCreateTextureObject(r, cudaTextureDesc(), None)
cudaDestroyTextureObject(t)
mod = SourceModule('''__global__ void k(cudaTextureObject_t t, float *o) { o[0] = tex2D<float>(t, 0.5f, 0.5f); }''')
o = cudaMalloc(4)
mod.k[1, 1](t, o)
R['sync'] = code_of(cudaDeviceSynchronize)
""")
    assert res.R["sync"] == cudaErrorIllegalAddress, res.explain()


def test_forged_texture_handle_fails_the_launch(run_cuda):
    res = run_cuda("""
mod = SourceModule('''__global__ void k(cudaTextureObject_t t, float *o) { o[0] = tex2D<float>(t, 0.5f, 0.5f); }''')
o = cudaMalloc(64)
mod.k[1, 1](int(o), o)          # device memory that holds no descriptor
R['sync'] = code_of(cudaDeviceSynchronize)
""")
    assert res.R["sync"] == cudaErrorLaunchFailure, res.explain()
    assert "not a live texture" in res.stdout, res.explain()
