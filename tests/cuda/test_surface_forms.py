"""Every surface load and store form (surf1D/2D/3Dread and write, their
1DLayered, 2DLayered, Cubemap and CubemapLayered forms, the value and the
pointer forms of the reads) on float arrays made with
cudaArraySurfaceLoadStore: each thread reads its element, writes it back
changed, and reports what the pointer form, a cudaBoundaryModeZero read past
the end and a cudaBoundaryModeClamp read before the start returned.  Checked
against NumPy; the layer of a layered surface (a cubemap's face, a layered
cubemap's layer * 6 + face) is its z."""
import numpy as np
import pytest

from pyemu.cuda import (SourceModule, cudaArrayCubemap, cudaArrayLayered, cudaArraySurfaceLoadStore,
                        cudaCreateChannelDesc, cudaCreateSurfaceObject, cudaDestroySurfaceObject,
                        cudaFree, cudaFreeArray, cudaMalloc, cudaMalloc3DArray, cudaMemcpy,
                        cudaMemcpy3D, cudaMemcpy3DParms, cudaMemcpyDeviceToHost,
                        cudaMemcpyHostToDevice, cudaResourceDesc, cudaResourceTypeArray,
                        make_cudaExtent, make_cudaPitchedPtr)

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

# each kernel: element (x, y, z) of a w x h x d surface, z the block (a clamped
# read stays inside its block's z: blocks run in any order); o gets 3 values a thread
SRC = r"""
#define IDX int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x; \
    int i = (z * blockDim.y + y) * blockDim.x + x, w = blockDim.x, h = blockDim.y, d = gridDim.x;
__global__ void s1(cudaSurfaceObject_t s, float *o) {
    IDX
    float v = surf1Dread<float>(s, x * 4), p;
    surf1Dread(&p, s, x * 4);
    o[3 * i] = p;
    o[3 * i + 1] = surf1Dread<float>(s, (w + x) * 4, cudaBoundaryModeZero);
    o[3 * i + 2] = surf1Dread<float>(s, -4 * (x + 1), cudaBoundaryModeClamp);
    __syncthreads();
    surf1Dwrite(v + 1000.0f, s, x * 4);
    surf1Dwrite(5.0f, s, (w + x) * 4, cudaBoundaryModeZero);      /* dropped */
}
__global__ void s2(cudaSurfaceObject_t s, float *o) {
    IDX
    float v = surf2Dread<float>(s, x * 4, y), p;
    surf2Dread(&p, s, x * 4, y);
    o[3 * i] = p;
    o[3 * i + 1] = surf2Dread<float>(s, x * 4, h + y, cudaBoundaryModeZero);
    o[3 * i + 2] = surf2Dread<float>(s, x * 4, -1 - y, cudaBoundaryModeClamp);
    __syncthreads();
    surf2Dwrite(v + 1000.0f, s, x * 4, y);
}
__global__ void s3(cudaSurfaceObject_t s, float *o) {
    IDX
    float v = surf3Dread<float>(s, x * 4, y, z), p;
    surf3Dread(&p, s, x * 4, y, z);
    o[3 * i] = p;
    o[3 * i + 1] = surf3Dread<float>(s, x * 4, y, d + z, cudaBoundaryModeZero);
    o[3 * i + 2] = surf3Dread<float>(s, x * 4, -1 - y, z, cudaBoundaryModeClamp);
    __syncthreads();
    surf3Dwrite(v + 1000.0f, s, x * 4, y, z);
}
__global__ void l1(cudaSurfaceObject_t s, float *o) {
    IDX
    float v = surf1DLayeredread<float>(s, x * 4, z), p;
    surf1DLayeredread(&p, s, x * 4, z);
    o[3 * i] = p;
    o[3 * i + 1] = surf1DLayeredread<float>(s, (w + x) * 4, z, cudaBoundaryModeZero);
    o[3 * i + 2] = surf1DLayeredread<float>(s, -4, z, cudaBoundaryModeClamp);
    __syncthreads();
    surf1DLayeredwrite(v + 1000.0f, s, x * 4, z);
}
__global__ void l2(cudaSurfaceObject_t s, float *o) {
    IDX
    float v = surf2DLayeredread<float>(s, x * 4, y, z), p;
    surf2DLayeredread(&p, s, x * 4, y, z);
    o[3 * i] = p;
    o[3 * i + 1] = surf2DLayeredread<float>(s, x * 4, y, d + z, cudaBoundaryModeZero);
    o[3 * i + 2] = surf2DLayeredread<float>(s, x * 4, -1, z, cudaBoundaryModeClamp);
    __syncthreads();
    surf2DLayeredwrite(v + 1000.0f, s, x * 4, y, z);
}
__global__ void cm(cudaSurfaceObject_t s, float *o) {
    IDX
    float v = surfCubemapread<float>(s, x * 4, y, z), p;
    surfCubemapread(&p, s, x * 4, y, z);
    o[3 * i] = p;
    o[3 * i + 1] = surfCubemapread<float>(s, (w + x) * 4, y, z, cudaBoundaryModeZero);
    o[3 * i + 2] = surfCubemapread<float>(s, -4, y, z, cudaBoundaryModeClamp);
    __syncthreads();
    surfCubemapwrite(v + 1000.0f, s, x * 4, y, z);
}
__global__ void cml(cudaSurfaceObject_t s, float *o) {
    IDX
    float v = surfCubemapLayeredread<float>(s, x * 4, y, z), p;
    surfCubemapLayeredread(&p, s, x * 4, y, z);
    o[3 * i] = p;
    o[3 * i + 1] = surfCubemapLayeredread<float>(s, x * 4, y, d + z, cudaBoundaryModeZero);
    o[3 * i + 2] = surfCubemapLayeredread<float>(s, x * 4, h + 3, z, cudaBoundaryModeClamp);
    __syncthreads();
    surfCubemapLayeredwrite(v + 1000.0f, s, x * 4, y, z);
}
"""


@pytest.fixture(scope="module")
def mod():
    return SourceModule(SRC)


def _copy(arr, host, w, h, d, to_device):
    p = cudaMemcpy3DParms()
    if to_device:
        p.srcPtr, p.dstArray, p.kind = make_cudaPitchedPtr(host, w * 4, w, h), arr, cudaMemcpyHostToDevice
    else:
        p.srcArray, p.dstPtr, p.kind = arr, make_cudaPitchedPtr(host, w * 4, w, h), cudaMemcpyDeviceToHost
    p.extent = make_cudaExtent(w, h, d)
    cudaMemcpy3D(p)


# kernel, extent given to cudaMalloc3DArray, flags, and the clamp read's element per (x, y, z)
CASES = {
    "s1": ((8, 0, 0), 0, lambda a, x, y, z: a[0, 0, 0]),
    "s2": ((5, 3, 0), 0, lambda a, x, y, z: a[0, 0, x]),
    "s3": ((4, 3, 2), 0, lambda a, x, y, z: a[z, 0, x]),
    "l1": ((6, 0, 3), cudaArrayLayered, lambda a, x, y, z: a[z, 0, 0]),
    "l2": ((4, 3, 3), cudaArrayLayered, lambda a, x, y, z: a[z, 0, x]),
    "cm": ((4, 4, 6), cudaArrayCubemap, lambda a, x, y, z: a[z, y, 0]),
    "cml": ((3, 3, 12), cudaArrayCubemap | cudaArrayLayered, lambda a, x, y, z: a[z, 2, x]),
}


@pytest.mark.parametrize("kern", list(CASES))
def test_surface_form_reads_and_writes(mod, kern):
    ext, flags, clamp_at = CASES[kern]
    w, h, d = ext[0], max(ext[1], 1), max(ext[2], 1)
    data = (np.arange(w * h * d, dtype=np.float32) * 3 + 1).reshape(d, h, w)
    arr = cudaMalloc3DArray(cudaCreateChannelDesc(np.float32), make_cudaExtent(*ext),
                            flags | cudaArraySurfaceLoadStore)
    _copy(arr, data, w, h, d, True)
    r = cudaResourceDesc()
    r.resType = cudaResourceTypeArray
    r.res.array.array = arr
    s = cudaCreateSurfaceObject(r)
    n = w * h * d
    do = cudaMalloc(12 * n)
    getattr(mod, kern)[d, (w, h)](s, do)
    out = np.zeros((d, h, w, 3), np.float32)
    cudaMemcpy(out, do, out.nbytes, cudaMemcpyDeviceToHost)
    back = np.zeros_like(data)
    _copy(arr, back, w, h, d, False)
    cudaDestroySurfaceObject(s)
    cudaFreeArray(arr)
    cudaFree(do)
    assert np.array_equal(out[..., 0], data)                  # the pointer form
    assert np.all(out[..., 1] == 0)                           # zero mode past the end
    want_clamp = np.array([[[clamp_at(data, x, y, z) for x in range(w)] for y in range(h)]
                           for z in range(d)], np.float32)
    assert np.array_equal(out[..., 2], want_clamp)            # clamp mode before the start
    assert np.array_equal(back, data + 1000)                  # every store, nothing else
