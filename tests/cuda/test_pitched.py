"""Pitched, 2-D and 3-D memory: cudaMallocPitch, cudaMalloc3D, cudaMemcpy2D(Async),
cudaMemset2D, cudaMemcpy3D, cudaMemset3D.

Expected pitches and codes come from an H100 with CUDA 13.0
(tests/data/ground_truth/cuda_h100_pitch_symbols.json, probe_pitch_symbols.cu).
Every copy and memset is checked against guard values: the padding between
rows, the bytes around the rectangle, and host buffers around the copied part
must keep their values.
"""
import json
from pathlib import Path

import numpy as np
import pytest

from pyemu.cuda import (CudaError, SourceModule, cudaErrorInvalidMemcpyDirection,
                        cudaErrorInvalidPitchValue, cudaErrorInvalidResourceHandle,
                        cudaErrorInvalidValue, cudaErrorMemoryAllocation,
                        cudaFree, cudaGetLastError, cudaMalloc3D,
                        cudaMallocPitch, cudaMemcpy, cudaMemcpy2D, cudaMemcpy2DAsync,
                        cudaMemcpy3D, cudaMemcpy3DAsync, cudaMemcpy3DParms, cudaMemcpyDefault,
                        cudaMemcpyDeviceToDevice, cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice,
                        cudaMemcpyHostToHost, cudaMemset, cudaMemset2D, cudaMemset3D,
                        cudaPitchedPtr, make_cudaExtent, make_cudaPitchedPtr, make_cudaPos)
from pyemu.cuda.runtime import default_queue

GT = {c["case"]: c for c in json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "ground_truth" /
     "cuda_h100_pitch_symbols.json").read_text())["cases"]}

pytestmark = pytest.mark.usefixtures("cuda_clean_state")


def code(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except CudaError as exc:
        cudaGetLastError()
        return int(exc.code)
    return 0


def device_bytes(ptr, n):
    out = np.empty(n, np.uint8)
    cudaMemcpy(out, ptr, n, cudaMemcpyDeviceToHost)
    return out


@pytest.fixture
def pitched():
    """A 100-byte x 4-row pitched allocation filled with 0xAB (the probe's)."""
    d, pitch = cudaMallocPitch(100, 4)
    cudaMemset(d, 0xAB, pitch * 4)
    yield d, pitch
    cudaFree(d)


@pytest.mark.parametrize("w", [1, 4, 100, 256, 511, 512, 513, 1000, 1024, 2048, 4097, 10000,
                               65536, 100000])
def test_cudaMallocPitch_pitch_is_the_h100s(w):
    for h in (1, 4):
        d, pitch = cudaMallocPitch(w, h)
        try:
            assert pitch == GT[f"mallocpitch_w{w}_h{h}"]["pitch"]
            assert int(d) % 512 == 0
            back = device_bytes(d, pitch * h)       # all of it is device memory
            assert not back.any()
        finally:
            cudaFree(d)


def test_cudaMallocPitch_zero_and_errors():
    assert cudaMallocPitch(0, 4) == (0, GT["mallocpitch_w0_h4"]["pitch"])
    assert cudaMallocPitch(100, 0) == (0, GT["mallocpitch_w100_h0"]["pitch"])
    assert code(cudaMallocPitch, 1 << 40, 1 << 20) == GT["mallocpitch_huge"]["err"] == \
        cudaErrorMemoryAllocation
    for bad in (-1, 1.5, "3", None):
        assert code(cudaMallocPitch, bad, 4) == cudaErrorInvalidValue
        assert code(cudaMallocPitch, 4, bad) == cudaErrorInvalidValue


def test_cudaMalloc3D_pitch_and_sizes():
    for w in (1, 100, 600):
        p = cudaMalloc3D(make_cudaExtent(w, 10, 5))
        g = GT[f"malloc3d_w{w}_h10_d5"]
        try:
            assert (p.pitch, p.xsize, p.ysize) == (g["pitch"], g["xsize"], g["ysize"])
            assert not device_bytes(p.ptr, p.pitch * 10 * 5).any()
        finally:
            cudaFree(p.ptr)
    z = cudaMalloc3D(make_cudaExtent(0, 10, 5))
    g = GT["malloc3d_w0"]
    assert (z.ptr, z.pitch, z.xsize, z.ysize) == (0, g["pitch"], g["xsize"], g["ysize"])
    assert cudaMalloc3D(make_cudaExtent(100, 10, 0)).ptr == 0
    assert code(cudaMalloc3D, (100, 10, 5)) == cudaErrorInvalidValue


def test_cudaMemcpy2D_round_trip_leaves_the_padding(pitched):
    d, pitch = pitched
    h = (np.arange(400) % 251).astype(np.uint8).reshape(4, 100)
    cudaMemcpy2D(d, pitch, h, 100, 100, 4, cudaMemcpyHostToDevice)
    back = device_bytes(d, pitch * 4).reshape(4, pitch)
    assert np.array_equal(back[:, :100], h)
    assert (back[:, 100:] == 0xAB).all()                 # GT memcpy2d_h2d_ok: pad unchanged
    assert GT["memcpy2d_h2d_ok"]["pad_changed"] == 0
    # back to the host, into the middle of a guarded buffer with another pitch
    host = np.full((6, 130), 0x5A, np.uint8)
    cudaMemcpy2D(host[1:5, 10:110], 130, d, pitch, 100, 4, cudaMemcpyDeviceToHost)
    assert np.array_equal(host[1:5, 10:110], h)
    host[1:5, 10:110] = 0x5A
    assert (host == 0x5A).all()


def test_cudaMemcpy2D_sub_rectangle_device_to_device(pitched):
    d, pitch = pitched
    h = (np.arange(400) % 199).astype(np.uint8).reshape(4, 100)
    cudaMemcpy2D(d, pitch, h, 100, 100, 4, cudaMemcpyHostToDevice)
    e, epitch = cudaMallocPitch(64, 3)
    try:
        cudaMemset(e, 0x11, epitch * 3)
        # 3 rows of 20 bytes from (row 1, byte 30) to (row 0, byte 8)
        cudaMemcpy2D(e + 8, epitch, d + pitch + 30, pitch, 20, 3, cudaMemcpyDeviceToDevice)
        back = device_bytes(e, epitch * 3).reshape(3, epitch)
        want = np.full((3, epitch), 0x11, np.uint8)
        want[:, 8:28] = h[1:4, 30:50]
        assert np.array_equal(back, want)
    finally:
        cudaFree(e)


def test_cudaMemcpy2D_host_to_host_and_default():
    src = (np.arange(800) % 256).astype(np.uint8).reshape(4, 200)
    dst = np.zeros((4, 100), np.uint8)
    assert code(cudaMemcpy2D, dst, 100, src, 200, 100, 4, cudaMemcpyHostToHost) == \
        GT["memcpy2d_h2h_ok"]["err"]
    assert np.array_equal(dst, src[:, :100])
    d, pitch = cudaMallocPitch(100, 4)
    try:
        assert code(cudaMemcpy2D, d, pitch, dst, 100, 100, 4, cudaMemcpyDefault) == \
            GT["memcpy2d_default_ok"]["err"]
        out = np.zeros((4, 100), np.uint8)
        cudaMemcpy2D(out, 100, d, pitch, 100, 4, cudaMemcpyDefault)
        assert np.array_equal(out, dst)
    finally:
        cudaFree(d)


def test_cudaMemcpy2D_errors_match_the_h100(pitched):
    d, pitch = pitched
    h = np.full(8192, 7, np.uint8)
    H2D = cudaMemcpyHostToDevice
    assert code(cudaMemcpy2D, d, 50, h, 100, 100, 4, H2D) == GT["memcpy2d_width_gt_dpitch"]["err"] \
        == cudaErrorInvalidPitchValue
    assert code(cudaMemcpy2D, d, pitch, h, 50, 100, 4, H2D) == GT["memcpy2d_width_gt_spitch"]["err"]
    assert code(cudaMemcpy2D, d, 50, h, 50, 100, 4, H2D) == GT["memcpy2d_width_gt_both"]["err"]
    assert code(cudaMemcpy2D, d, 0, h, 100, 100, 1, H2D) == GT["memcpy2d_dpitch_0_h1"]["err"] == 0
    assert code(cudaMemcpy2D, d, pitch, h, 100, 100, 0, H2D) == GT["memcpy2d_height_0"]["err"] == 0
    assert code(cudaMemcpy2D, d, pitch, h, 100, 0, 4, H2D) == GT["memcpy2d_width_0"]["err"] == 0
    assert code(cudaMemcpy2D, d, pitch, h, 100, 100, 4, 7) == GT["memcpy2d_kind_7"]["err"] == \
        cudaErrorInvalidMemcpyDirection
    assert code(cudaMemcpy2D, d, pitch, h, 100, 100, 4, -1) == GT["memcpy2d_kind_minus1"]["err"]
    assert code(cudaMemcpy2D, d, pitch, h, 100, 100, 5, H2D) == \
        GT["memcpy2d_rows_past_alloc_h5"]["err"] == cudaErrorInvalidValue
    assert code(cudaMemcpy2D, d, pitch, h, 100, 100, 8, H2D) == GT["memcpy2d_rows_past_alloc_h8"]["err"]
    assert code(cudaMemcpy2D, 0, pitch, h, 100, 100, 4, H2D) == GT["memcpy2d_null_dst"]["err"]
    assert code(cudaMemcpy2DAsync, d, 50, h, 100, 100, 4, H2D, 0) == \
        GT["memcpy2d_async_width_gt_dpitch"]["err"]
    # the host side is never overrun: a buffer one byte short, a read-only destination
    assert code(cudaMemcpy2D, d, pitch, np.zeros(399, np.uint8), 100, 100, 4, H2D) == \
        cudaErrorInvalidValue
    ro = np.zeros(400, np.uint8)
    ro.flags.writeable = False
    assert code(cudaMemcpy2D, ro, 100, d, pitch, 100, 4, cudaMemcpyDeviceToHost) == \
        cudaErrorInvalidValue
    # a row-strided array must be given its own pitch, and the rectangle must fit it
    view = np.zeros((4, 200), np.uint8)[:, :100]
    assert code(cudaMemcpy2D, view, 100, d, pitch, 100, 4, cudaMemcpyDeviceToHost) == \
        cudaErrorInvalidValue
    assert code(cudaMemcpy2D, view, 200, d, pitch, 101, 4, cudaMemcpyDeviceToHost) == \
        cudaErrorInvalidValue
    assert code(cudaMemcpy2D, view, 200, d, pitch, 100, 4, cudaMemcpyDeviceToHost) == 0
    # the device side of the kind must be device memory; bad sizes are CUDA errors
    assert code(cudaMemcpy2D, h, 100, h, 100, 100, 4, H2D) == cudaErrorInvalidValue
    for bad in (-1, 2.0, "100", None):
        assert code(cudaMemcpy2D, d, pitch, h, 100, bad, 4, H2D) == cudaErrorInvalidValue
    back = device_bytes(d, pitch * 4).reshape(4, pitch)
    assert (back[0, :100] == 7).all()           # the one good copy: dpitch 0, one row
    back[0, :100] = 0xAB
    assert (back == 0xAB).all()                 # none of the failed ones wrote anything


class _Stream:
    def __init__(self):
        self._queue = default_queue()


def test_cudaMemcpy2DAsync_on_a_stream(pitched):
    d, pitch = pitched
    h = np.arange(300, dtype=np.uint8).reshape(3, 100)
    cudaMemcpy2DAsync(d, pitch, h, 100, 100, 3, cudaMemcpyHostToDevice, _Stream())
    out = np.zeros((3, 100), np.uint8)
    cudaMemcpy2DAsync(out, 100, d, pitch, 100, 3, cudaMemcpyDeviceToHost, None)
    assert np.array_equal(out, h)
    assert code(cudaMemcpy2DAsync, out, 100, d, pitch, 100, 3, cudaMemcpyDeviceToHost, object()) \
        == cudaErrorInvalidResourceHandle


def test_cudaMemcpy2D_waits_for_the_kernel_before_it():
    mod = SourceModule(r"""
    __global__ void fill_rows(char* p, size_t pitch, int w, int h) {
        int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
        if (x < w && y < h) p[y * pitch + x] = (char)(x + y);
    }""")
    d, pitch = cudaMallocPitch(300, 5)
    try:
        mod.fill_rows[(2, 5), 256](d, pitch, 300, 5)
        out = np.zeros((5, 300), np.uint8)
        cudaMemcpy2D(out, 300, d, pitch, 300, 5, cudaMemcpyDeviceToHost)
    finally:
        cudaFree(d)
    x, y = np.meshgrid(np.arange(300), np.arange(5))
    assert np.array_equal(out, ((x + y) % 256).astype(np.uint8))


def test_cudaMemset2D_rectangle_only(pitched):
    d, pitch = pitched
    assert code(cudaMemset2D, d, pitch, 0x11, 60, 3) == GT["memset2d_ok"]["err"]
    back = device_bytes(d, pitch * 4).reshape(4, pitch)
    assert (back[:3, :60] == 0x11).sum() == GT["memset2d_ok"]["inside_set"] == 180
    back[:3, :60] = 0xAB
    assert (back == 0xAB).all()
    assert code(cudaMemset2D, d, 50, 0, 100, 4) == GT["memset2d_width_gt_pitch"]["err"] == \
        cudaErrorInvalidValue
    assert code(cudaMemset2D, d, pitch, 0, 100, 5) == GT["memset2d_rows_past_alloc"]["err"]
    assert code(cudaMemset2D, d, pitch, 0, 100, 0) == GT["memset2d_height_0"]["err"]
    assert code(cudaMemset2D, d, pitch, 0, 0, 4) == GT["memset2d_width_0"]["err"]
    assert code(cudaMemset2D, np.zeros(400, np.uint8), 100, 0, 100, 4) == \
        GT["memset2d_host_ptr"]["err"]
    assert code(cudaMemset2D, 0, pitch, 0, 100, 4) == GT["memset2d_null"]["err"]
    assert code(cudaMemset2D, d, pitch, 1.5, 100, 4) == cudaErrorInvalidValue
    back = device_bytes(d, pitch * 4).reshape(4, pitch)
    assert (back[:3, :60] == 0x11).all() and (back[3] == 0xAB).all()


@pytest.fixture
def box():
    p = cudaMalloc3D(make_cudaExtent(40, 6, 3))
    yield p
    cudaFree(p.ptr)


def test_cudaMemcpy3D_whole_box_and_padding(box):
    hs = (np.arange(40 * 6 * 3) % 256).astype(np.uint8)
    cudaMemset(box.ptr, 0xAB, box.pitch * 18)
    m = cudaMemcpy3DParms()
    m.srcPtr = make_cudaPitchedPtr(hs, 40, 40, 6)
    m.dstPtr = box
    m.extent = make_cudaExtent(40, 6, 3)
    m.kind = cudaMemcpyHostToDevice
    assert code(cudaMemcpy3D, m) == GT["memcpy3d_h2d_ok"]["err"]
    back = device_bytes(box.ptr, box.pitch * 18).reshape(18, box.pitch)
    assert np.array_equal(back[:, :40].ravel(), hs)
    assert (back[:, 40:] == 0xAB).all()
    out = np.zeros(40 * 6 * 3 + 8, np.uint8)
    r = cudaMemcpy3DParms(srcPtr=box, dstPtr=make_cudaPitchedPtr(out, 40, 40, 6),
                          extent=make_cudaExtent(40, 6, 3), kind=cudaMemcpyDeviceToHost)
    cudaMemcpy3DAsync(r, 0)
    assert np.array_equal(out[:-8], hs) and not out[-8:].any()


def test_cudaMemcpy3D_positions_as_the_h100(box):
    """The probe's box: 8 bytes x 2 rows x 2 slices from src (4, 1, 1) to dst (16, 2, 0)."""
    hs = (np.arange(40 * 6 * 3) % 256).astype(np.uint8)
    cudaMemset(box.ptr, 0, box.pitch * 18)
    q = cudaMemcpy3DParms(srcPtr=make_cudaPitchedPtr(hs, 40, 40, 6), srcPos=make_cudaPos(4, 1, 1),
                          dstPtr=box, dstPos=make_cudaPos(16, 2, 0),
                          extent=make_cudaExtent(8, 2, 2), kind=cudaMemcpyHostToDevice)
    cudaMemcpy3D(q)
    back = device_bytes(box.ptr, box.pitch * 18)
    got = [[int(i), int(back[i])] for i in np.flatnonzero(back)]
    assert box.pitch == GT["memcpy3d_positions"]["pitch"]
    assert got == GT["memcpy3d_positions"]["nonzero_index_value"]


def test_cudaMemcpy3D_errors_match_the_h100(box):
    hs = np.zeros(40 * 6 * 3, np.uint8)

    def parms(**kw):
        m = cudaMemcpy3DParms(srcPtr=make_cudaPitchedPtr(hs, 40, 40, 6), dstPtr=box,
                              extent=make_cudaExtent(40, 6, 3), kind=cudaMemcpyHostToDevice)
        for k, v in kw.items():
            setattr(m, k, v)
        return m
    cudaMemset(box.ptr, 0xAB, box.pitch * 18)
    assert code(cudaMemcpy3D, parms(kind=7)) == GT["memcpy3d_kind_7"]["err"]
    assert code(cudaMemcpy3D, parms(extent=make_cudaExtent(0, 6, 3))) == GT["memcpy3d_extent_w0"]["err"]
    assert code(cudaMemcpy3D, parms(extent=make_cudaExtent(40, 6, 0))) == GT["memcpy3d_extent_d0"]["err"]
    assert code(cudaMemcpy3D, parms(extent=make_cudaExtent(41, 6, 3))) == \
        GT["memcpy3d_width_gt_srcpitch"]["err"] == cudaErrorInvalidPitchValue
    big = np.zeros(600, np.uint8)
    assert code(cudaMemcpy3D, parms(srcPtr=make_cudaPitchedPtr(big, 600, 600, 1),
                                    extent=make_cudaExtent(600, 1, 1))) == \
        GT["memcpy3d_width_gt_dstpitch"]["err"] == cudaErrorInvalidValue
    assert code(cudaMemcpy3D, parms(extent=make_cudaExtent(40, 6, 4))) == \
        GT["memcpy3d_depth_past_alloc"]["err"]
    assert code(cudaMemcpy3D, parms(dstPos=make_cudaPos(0, 0, 1))) == \
        GT["memcpy3d_dstpos_z_past_alloc"]["err"]
    assert code(cudaMemcpy3D, parms(srcPtr=make_cudaPitchedPtr(0, 40, 40, 6))) == \
        GT["memcpy3d_null_src"]["err"]
    assert code(cudaMemcpy3D, None) == GT["memcpy3d_null_parms"]["err"]
    assert code(cudaMemcpy3D, parms(srcPtr=make_cudaPitchedPtr(hs, 40, 40, 0))) == \
        GT["memcpy3d_src_ysize_0"]["err"]
    assert code(cudaMemcpy3D, parms(srcPtr=make_cudaPitchedPtr(hs, 40, 40, 3))) == \
        GT["memcpy3d_src_ysize_lt_extent_h"]["err"]
    # an array and a pointer both on the source side (the H100's code:
    # tests/cuda/test_array3d.py covers the array copies)
    assert code(cudaMemcpy3D, parms(srcArray=object())) == cudaErrorInvalidValue
    assert code(cudaMemcpy3D, parms(srcPos=(0, 0, 0))) == cudaErrorInvalidValue
    assert (device_bytes(box.ptr, box.pitch * 18) == 0xAB).all()


def test_cudaMemset3D_box_only(box):
    cudaMemset(box.ptr, 0xAB, box.pitch * 18)
    assert code(cudaMemset3D, box, 0x22, make_cudaExtent(10, 2, 2)) == GT["memset3d_ok"]["err"]
    back = device_bytes(box.ptr, box.pitch * 18).reshape(3, 6, box.pitch)
    assert (back[:2, :2, :10] == 0x22).sum() == GT["memset3d_ok"]["inside_set"] == 40
    back[:2, :2, :10] = 0xAB
    assert (back == 0xAB).all()
    bad = cudaPitchedPtr(box.ptr, 10, box.xsize, box.ysize)
    assert code(cudaMemset3D, bad, 0, make_cudaExtent(40, 1, 1)) == \
        GT["memset3d_width_gt_pitch"]["err"] == 0
    assert code(cudaMemset3D, bad, 0, make_cudaExtent(40, 2, 1)) == cudaErrorInvalidValue
    assert code(cudaMemset3D, box, 0, make_cudaExtent(40, 6, 4)) == \
        GT["memset3d_depth_past_alloc"]["err"] == cudaErrorInvalidValue
    assert code(cudaMemset3D, box, 0, make_cudaExtent(0, 6, 3)) == GT["memset3d_extent_0"]["err"]
    assert code(cudaMemset3D, cudaPitchedPtr(np.zeros(10, np.uint8), 512, 40, 6), 0,
                make_cudaExtent(4, 1, 1)) == cudaErrorInvalidValue


def test_pitched_kernel_walks_rows():
    """The course's cudaMallocPitch kernel: each thread walks one column down the rows."""
    mod = SourceModule(r"""
    __global__ void scale(float* devPtr, size_t pitch, int width, int height, float s) {
        int c = blockIdx.x * blockDim.x + threadIdx.x;
        if (c < width)
            for (int r = 0; r < height; ++r) {
                float* row = (float*)((char*)devPtr + r * pitch);
                row[c] *= s;
            }
    }""")
    width, height = 70, 9
    a = np.random.default_rng(3).random((height, width), dtype=np.float32)
    d, pitch = cudaMallocPitch(width * 4, height)
    try:
        cudaMemcpy2D(d, pitch, a, width * 4, width * 4, height, cudaMemcpyHostToDevice)
        mod.scale[1, 128](d, pitch, width, height, 3.0)
        out = np.empty_like(a)
        cudaMemcpy2D(out, width * 4, d, pitch, width * 4, height, cudaMemcpyDeviceToHost)
    finally:
        cudaFree(d)
    assert np.array_equal(out, a * np.float32(3.0))


def test_example_pitch_2d_runs():
    """examples/cuda/pitch_2d.py: rows not a multiple of 512 bytes, and a one-row matrix."""
    import os
    import subprocess
    import sys
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root),
                                                                     os.environ.get("PYTHONPATH")])))
    for args, pitch in ((["300", "70"], 1536), (["3", "1"], 512)):
        run = subprocess.run([sys.executable, str(root / "examples" / "cuda" / "pitch_2d.py"), *args],
                             capture_output=True, text=True, timeout=300, env=env)
        assert run.returncode == 0 and "Test PASSED" in run.stdout, run.stdout + run.stderr
        assert f"pitch {pitch} bytes" in run.stdout
