"""The CUDA runtime's memory calls: cudaMalloc, cudaFree, cudaMallocManaged,
cudaMemcpy (every kind, cudaMemcpyDefault), cudaMemset, cudaMemGetInfo.

Expected codes come from what an H100 answered (tests/data/ground_truth,
fixture `gt`), falling back on the CUDA documentation.  The host side of a
copy must never be read or written past its end: those tests surround the
host buffer with guard values and check they are still there.
"""
import ctypes
import threading

import numpy as np
import pytest

from pyemu.cuda import (CudaError, DevicePointer, ManagedArray, SourceModule, cudaDeviceSynchronize,
                        cudaErrorInvalidMemcpyDirection, cudaErrorInvalidValue,
                        cudaErrorMemoryAllocation, cudaFree, cudaGetDeviceProperties,
                        cudaGetLastError, cudaMalloc, cudaMallocManaged, cudaMemAttachGlobal,
                        cudaMemAttachHost, cudaMemcpy, cudaMemcpyDefault, cudaMemcpyDeviceToDevice,
                        cudaMemcpyDeviceToHost, cudaMemcpyHostToDevice, cudaMemcpyHostToHost,
                        cudaMemcpyKind,
                        cudaMemGetInfo, cudaMemset, cudaPeekAtLastError, cudaSuccess)
from pyemu.cuda import _errors

PATTERN = np.array([101, 202, 303, 404], dtype=np.int32)   # the probe's pattern


pytestmark = pytest.mark.usefixtures("cuda_clean_state")


@pytest.fixture(scope="module")
def kernels():
    return SourceModule(r"""
    __global__ void inc(int *a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) a[i] += 1;
    }
    __global__ void store(int *a, int i, int v) { a[i] = v; }
    // waits (bounded) for the host to open the gate, then writes a[0]
    __global__ void gated_store(const int *gate, int *a, int *done) {
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (((volatile const int *)gate)[0] == 0) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if (t.tv_sec - t0.tv_sec > 20) return;
        }
        ((volatile int *)a)[0] = 5;
        done[0] = 1;
    }
    """)


def raises_code(code, fn, *args, **kwargs):
    with pytest.raises(CudaError) as info:
        fn(*args, **kwargs)
    assert int(info.value.code) == int(code), str(info.value)
    return info.value


def to_device(host):
    d = cudaMalloc(host.nbytes)
    cudaMemcpy(d, host, host.nbytes, cudaMemcpyHostToDevice)
    return d


def from_device(d, like, count=None):
    out = np.zeros_like(like)
    cudaMemcpy(out, d, out.nbytes if count is None else count, cudaMemcpyDeviceToHost)
    return out


# ------------------------------------------------------------------ cudaMalloc

def test_cudaMalloc_returns_distinct_256_byte_aligned_device_pointers(gt):
    sizes = gt("memory", "malloc_alignment", "sizes", default=[1, 3, 100, 1000])
    ptrs = [cudaMalloc(n) for n in sizes]
    try:
        assert all(isinstance(p, DevicePointer) for p in ptrs)
        assert all(int(p) % 256 == 0 for p in ptrs), [hex(p) for p in ptrs]
        assert len(set(map(int, ptrs))) == len(ptrs)
        assert all(int(p) != 0 for p in ptrs)
    finally:
        for p in ptrs:
            cudaFree(p)
    assert cudaGetLastError() == cudaSuccess


def test_cudaMalloc_zero_size_returns_null(gt):
    p = cudaMalloc(0)
    assert int(p) == 0
    assert gt("memory", "malloc_0", "ptr_is_null", default=True) is True
    assert cudaGetLastError() == gt("memory", "malloc_0", "get_last_error.code", default=0)
    assert cudaFree(p) == gt("memory", "malloc_0", "free_it.code", default=0)


def test_cudaMalloc_too_large_memory_allocation(gt):
    expected = gt("memory", "malloc_1<<50", "return.code", default=cudaErrorMemoryAllocation)
    raises_code(expected, cudaMalloc, 1 << 50)
    assert cudaGetLastError() == gt("memory", "malloc_1<<50", "get_last_error.code", default=2)
    assert cudaGetLastError() == gt("memory", "malloc_1<<50", "get_last_error_again.code",
                                    default=0)
    p = cudaMalloc(16)                       # the failure leaves nothing behind
    assert int(p) != 0
    cudaFree(p)


def test_cudaMalloc_negative_size_invalid_value():
    raises_code(cudaErrorInvalidValue, cudaMalloc, -1)
    assert cudaGetLastError() == cudaErrorInvalidValue


def test_cudaMalloc_memory_starts_zeroed():
    d = cudaMalloc(4096)
    try:
        assert not from_device(d, np.zeros(1024, np.int32)).any()
    finally:
        cudaFree(d)


def test_DevicePointer_adds_and_subtracts_bytes(kernels):
    d = cudaMalloc(64)
    try:
        q = d + 16
        assert isinstance(q, DevicePointer) and int(q) == int(d) + 16
        assert isinstance(16 + d, DevicePointer)
        assert q - d == 16 and not isinstance(q - d, DevicePointer)
        cudaMemset(d, 0, 64)
        kernels.store[1, 1](d + 16, 1, 77)             # element 1 after byte 16: int 5
        assert from_device(d, np.zeros(16, np.int32))[5] == 77
    finally:
        cudaFree(d)


# ------------------------------------------------------------------ cudaFree

def test_cudaFree_null_is_success(gt):
    assert cudaFree(0) == gt("memory", "free_null", "return.code", default=0)
    assert cudaGetLastError() == cudaSuccess


def test_cudaFree_offset_pointer_invalid_value(gt):
    d = cudaMalloc(64)
    raises_code(gt("memory", "free_offset_ptr", "return.code", default=1), cudaFree, d + 4)
    assert cudaGetLastError() == gt("memory", "free_offset_ptr", "get_last_error.code", default=1)
    assert cudaFree(d) == cudaSuccess                # the allocation is still there
    assert cudaGetLastError() == cudaSuccess


def test_cudaFree_twice_invalid_value(gt):
    d = cudaMalloc(64)
    assert cudaFree(d) == cudaSuccess
    raises_code(gt("memory", "free_twice", "second_free.code", default=1), cudaFree, d)
    assert cudaGetLastError() == cudaErrorInvalidValue
    p = cudaMalloc(64)
    cudaFree(p)


def test_cudaFree_host_array_invalid_value(gt):
    expected = gt("memory_risky: free_host_malloc_ptr", "free_host_malloc_ptr", "return.code",
                  default=1)
    raises_code(expected, cudaFree, PATTERN.copy())
    assert cudaGetLastError() == expected


def test_cudaFree_waits_for_the_kernel_using_the_memory(kernels):
    """If cudaFree did not wait, the kernel would write freed memory and fault."""
    gate = cudaMallocManaged(4, dtype=np.int32)
    done = cudaMallocManaged(4, dtype=np.int32)
    gate[0] = done[0] = 0
    d = cudaMalloc(64)
    try:
        kernels.gated_store[1, 1](gate, d, done)
        opener = threading.Timer(0.2, gate.__setitem__, (0, 1))
        opener.start()
        assert cudaFree(d) == cudaSuccess
        opener.join()
        assert done[0] == 1
        assert _errors.sticky()[0] == cudaSuccess
    finally:
        cudaFree(gate)
        cudaFree(done)


def test_cudaFree_makes_the_pointer_unusable_for_copies(gt):
    d = cudaMalloc(64)
    cudaFree(d)
    h = PATTERN.copy()
    raises_code(gt("memory", "memset_freed", "memcpy_h2d_into_freed.code", default=1),
                cudaMemcpy, d, h, 16, cudaMemcpyHostToDevice)
    raises_code(gt("memory", "memset_freed", "memcpy_d2h_from_freed.code", default=1),
                cudaMemcpy, h, d, 16, cudaMemcpyDeviceToHost)
    assert np.array_equal(h, PATTERN)


# ------------------------------------------------------------------ cudaMallocManaged

def test_cudaMallocManaged_with_dtype_is_an_array_the_kernel_sees(kernels):
    m = cudaMallocManaged(40 * 4, dtype=np.int32)
    try:
        assert isinstance(m, ManagedArray) and m.dtype == np.int32 and m.shape == (40,)
        assert int(m.device_ptr) % 256 == 0
        m[:] = np.arange(40)                          # the host writes...
        kernels.inc[2, 32](m, 40)                     # ...the kernel reads and writes...
        cudaDeviceSynchronize()
        assert np.array_equal(m, np.arange(40) + 1)   # ...the host sees it after a sync
    finally:
        cudaFree(m)


def test_cudaMallocManaged_without_dtype_has_the_buffer_protocol(kernels):
    m = cudaMallocManaged(64)
    try:
        view = np.frombuffer(m, np.int32)
        assert view.shape == (16,)
        view[:] = 5
        kernels.inc[1, 16](m, 16)
        cudaDeviceSynchronize()
        assert np.all(view == 6)
        assert int(m.device_ptr) == view.__array_interface__["data"][0]
    finally:
        cudaFree(m)


def test_cudaMallocManaged_works_as_either_side_of_cudaMemcpy():
    m = cudaMallocManaged(16, dtype=np.int32)
    d = cudaMalloc(16)
    try:
        cudaMemcpy(m, PATTERN, 16, cudaMemcpyHostToDevice)
        assert np.array_equal(m, PATTERN)
        cudaMemcpy(d, m, 16, cudaMemcpyDeviceToDevice)
        out = np.zeros(4, np.int32)
        cudaMemcpy(out, d, 16, cudaMemcpyDeviceToHost)
        assert np.array_equal(out, PATTERN)
        m[:] = 0
        cudaMemcpy(m, d, 16, cudaMemcpyDefault)
        assert np.array_equal(m, PATTERN)
    finally:
        cudaFree(m)
        cudaFree(d)


def test_cudaMallocManaged_attach_host_flag_accepted():
    m = cudaMallocManaged(64, cudaMemAttachHost, dtype=np.uint8)
    assert m.nbytes == 64
    cudaFree(m)


@pytest.mark.parametrize("args,kwargs", [
    ((64, 7), {}),                                   # flags neither Global nor Host (H200: 1)
    ((10,), {"dtype": np.float32}),                  # not a whole number of items
], ids=["bad_flags", "size_not_multiple_of_dtype"])
def test_cudaMallocManaged_invalid_arguments_invalid_value(args, kwargs):
    raises_code(cudaErrorInvalidValue, cudaMallocManaged, *args, **kwargs)
    assert cudaGetLastError() == cudaErrorInvalidValue


@pytest.mark.parametrize("dtype", [None, np.float32])
def test_cudaMallocManaged_zero_size_is_success(dtype):
    m = cudaMallocManaged(0, dtype=dtype)
    assert cudaGetLastError() == cudaSuccess
    assert cudaFree(m) == cudaSuccess


def test_cudaMallocManaged_flags_global_is_default():
    m = cudaMallocManaged(8, cudaMemAttachGlobal)
    assert len(np.frombuffer(m, np.uint8)) == 8
    cudaFree(m)


# ------------------------------------------------------------------ cudaMemcpy

def test_cudaMemcpy_host_to_device_to_host_roundtrip():
    h = np.arange(1000, dtype=np.float64)
    d = to_device(h)
    try:
        assert np.array_equal(from_device(d, h), h)
    finally:
        cudaFree(d)


def test_cudaMemcpy_device_to_device():
    a = to_device(PATTERN)
    b = cudaMalloc(16)
    try:
        assert cudaMemcpy(b, a, 16, cudaMemcpyDeviceToDevice) == cudaSuccess
        assert np.array_equal(from_device(b, PATTERN), PATTERN)
    finally:
        cudaFree(a)
        cudaFree(b)


def test_cudaMemcpy_host_to_host(gt):
    dst = np.zeros(4, np.int32)
    assert cudaMemcpy(dst, PATTERN, 16, cudaMemcpyHostToHost) == \
        gt("memory", "memcpy_hosttohost_kind", "return.code", default=0)
    assert np.array_equal(dst, PATTERN)


def test_cudaMemcpy_default_infers_every_direction(gt):
    d1, d2 = cudaMalloc(16), cudaMalloc(16)
    try:
        cudaMemcpy(d1, PATTERN, 16, cudaMemcpyDefault)           # host -> device
        cudaMemcpy(d2, d1, 16, cudaMemcpyDefault)                # device -> device
        out = np.zeros(4, np.int32)
        cudaMemcpy(out, d2, 16, cudaMemcpyDefault)               # device -> host
        assert np.array_equal(out, PATTERN) == gt("memory", "memcpy_default", "roundtrip_ok",
                                                  default=True)
        out2 = np.zeros(4, np.int32)
        cudaMemcpy(out2, out, 16, cudaMemcpyDefault)             # host -> host
        assert np.array_equal(out2, PATTERN)
        assert cudaGetLastError() == cudaSuccess
    finally:
        cudaFree(d1)
        cudaFree(d2)


def test_cudaMemcpy_to_and_from_device_pointer_offsets():
    d = cudaMalloc(64)
    try:
        cudaMemset(d, 0, 64)
        cudaMemcpy(d + 20, PATTERN, 16, cudaMemcpyHostToDevice)
        out = from_device(d, np.zeros(16, np.int32))
        assert np.array_equal(out[5:9], PATTERN) and not out[:5].any() and not out[9:].any()
        back = np.zeros(2, np.int32)
        cudaMemcpy(back, d + 24, 8, cudaMemcpyDeviceToHost)
        assert np.array_equal(back, PATTERN[1:3])
    finally:
        cudaFree(d)


def test_cudaMemcpy_host_buffers_of_every_kind():
    d = cudaMalloc(8)
    try:
        cudaMemcpy(d, b"abcdefgh", 8, cudaMemcpyHostToDevice)            # bytes
        out = bytearray(8)
        cudaMemcpy(out, d, 8, cudaMemcpyDeviceToHost)                     # bytearray
        assert bytes(out) == b"abcdefgh"
        mv = memoryview(bytearray(8))
        cudaMemcpy(mv, d, 8, cudaMemcpyDeviceToHost)                      # memoryview
        assert mv.tobytes() == b"abcdefgh"
        arr = (ctypes.c_char * 8)()
        cudaMemcpy(arr, d, 8, cudaMemcpyDeviceToHost)                     # ctypes array
        assert arr.raw == b"abcdefgh"
    finally:
        cudaFree(d)


@pytest.mark.parametrize("kind", [7, -1])
def test_cudaMemcpy_bad_kind_invalid_memcpy_direction(gt, kind):
    key = "return.code" if kind == 7 else "return_kind_minus1.code"
    expected = gt("memory", "memcpy_kind_7", key, default=cudaErrorInvalidMemcpyDirection)
    d = cudaMalloc(16)
    try:
        raises_code(expected, cudaMemcpy, d, PATTERN, 16, kind)
        assert cudaGetLastError() == expected
    finally:
        cudaFree(d)


RISKY = "memory_risky: "


def _risky(gt, case):
    return gt(RISKY + case, case, "return.code", default=cudaErrorInvalidValue)


def test_cudaMemcpy_device_to_host_kind_with_host_source_invalid_value(gt):
    dst = np.zeros(4, np.int32)
    raises_code(_risky(gt, "memcpy_kind_D2H_but_src_is_host_ptr_dst_host"),
                cudaMemcpy, dst, PATTERN, 16, cudaMemcpyDeviceToHost)
    assert not dst.any()


def test_cudaMemcpy_host_to_device_kind_fully_reversed_invalid_value(gt):
    d = to_device(PATTERN)
    dst = np.zeros(4, np.int32)
    try:
        raises_code(_risky(gt, "memcpy_kind_H2D_dst_host_src_device (fully reversed)"),
                    cudaMemcpy, dst, d, 16, cudaMemcpyHostToDevice)
        assert not dst.any()
    finally:
        cudaFree(d)


def test_cudaMemcpy_device_to_host_kind_fully_reversed_invalid_value(gt):
    d = cudaMalloc(16)
    try:
        raises_code(_risky(gt, "memcpy_kind_D2H_dst_device_src_host (fully reversed)"),
                    cudaMemcpy, d, PATTERN, 16, cudaMemcpyDeviceToHost)
        assert not from_device(d, PATTERN).any()
    finally:
        cudaFree(d)


def test_cudaMemcpy_device_to_device_kind_with_host_arrays_invalid_value(gt):
    dst = np.zeros(4, np.int32)
    raises_code(_risky(gt, "memcpy_kind_D2D_with_host_ptrs"),
                cudaMemcpy, dst, PATTERN, 16, cudaMemcpyDeviceToDevice)
    assert not dst.any()


def test_cudaMemcpy_host_to_device_kind_accepts_device_source(gt):
    """Unified addressing: the 'host' side of a copy may be device memory."""
    case = "memcpy_kind_H2D_but_src_is_device_ptr"
    src, dst = to_device(PATTERN), cudaMalloc(16)
    try:
        assert cudaMemcpy(dst, src, 16, cudaMemcpyHostToDevice) == _risky(gt, case)
        assert from_device(dst, PATTERN).tolist() == gt(RISKY + case, case, "device_dst_d_after",
                                                        default=PATTERN.tolist())
    finally:
        cudaFree(src)
        cudaFree(dst)


def test_cudaMemcpy_host_to_host_kind_accepts_device_destination(gt):
    case = "memcpy_kind_H2H_dst_device_src_host"
    d = cudaMalloc(16)
    try:
        assert cudaMemcpy(d, PATTERN, 16, cudaMemcpyHostToHost) == _risky(gt, case)
        assert from_device(d, PATTERN).tolist() == gt(RISKY + case, case, "device_dst_d_after",
                                                      default=PATTERN.tolist())
    finally:
        cudaFree(d)


def test_cudaMemcpy_past_the_end_of_the_device_allocation_invalid_value(gt):
    d = cudaMalloc(16)
    src = np.arange(8, dtype=np.int32)
    try:
        raises_code(_risky(gt, "memcpy_H2D_32_bytes_into_16_byte_allocation"),
                    cudaMemcpy, d, src, 32, cudaMemcpyHostToDevice)
        assert not from_device(d, PATTERN).any()               # nothing was copied
        out = np.zeros(8, np.int32)
        raises_code(cudaErrorInvalidValue, cudaMemcpy, out, d, 32, cudaMemcpyDeviceToHost)
    finally:
        cudaFree(d)


def test_cudaMemcpy_null_device_pointer_invalid_value(gt):
    raises_code(_risky(gt, "memcpy_H2D_null_dst"), cudaMemcpy, 0, PATTERN, 16,
                cudaMemcpyHostToDevice)
    raises_code(cudaErrorInvalidValue, cudaMemcpy, np.zeros(4, np.int32), 0, 16,
                cudaMemcpyDeviceToHost)


def test_cudaMemcpy_zero_bytes_is_success(gt):
    d = cudaMalloc(16)
    try:
        assert cudaMemcpy(d, PATTERN, 0, cudaMemcpyHostToDevice) == \
            gt("memory", "memcpy_size_0", "return_h2d.code", default=0)
        assert cudaGetLastError() == cudaSuccess
    finally:
        cudaFree(d)


@pytest.mark.parametrize("kind", ["cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost",
                                  "cudaMemcpyDeviceToDevice", "cudaMemcpyHostToHost",
                                  "cudaMemcpyDefault"])
def test_cudaMemcpy_zero_bytes_between_null_pointers_is_success(gt, kind):
    """The H100 ground truth has HostToDevice; an H200 (CUDA 13.0) gave
    cudaSuccess for every kind."""
    expected = gt("memory", "memcpy_size_0", "return_null_ptrs_size_0.code", default=0)
    assert cudaMemcpy(0, 0, 0, getattr(cudaMemcpyKind, kind)) == expected == cudaSuccess
    assert cudaGetLastError() == cudaSuccess


def test_cudaMemcpy_device_to_host_never_writes_past_the_host_buffer():
    d = to_device(np.arange(8, dtype=np.int32))
    guard = np.full(16, -1, np.int32)
    try:
        raises_code(cudaErrorInvalidValue, cudaMemcpy, guard[4:8], d, 32, cudaMemcpyDeviceToHost)
        assert np.all(guard == -1)                   # not one byte written, around or inside
        raises_code(cudaErrorInvalidValue, cudaMemcpy, bytearray(31), d, 32,
                    cudaMemcpyDeviceToHost)
        cudaMemcpy(guard[4:8], d, 16, cudaMemcpyDeviceToHost)     # exactly the view: fine
        assert guard[4:8].tolist() == [0, 1, 2, 3]
        assert np.all(guard[:4] == -1) and np.all(guard[8:] == -1)
    finally:
        cudaFree(d)


def test_cudaMemcpy_host_to_device_never_reads_past_the_host_buffer():
    d = cudaMalloc(32)
    secret = np.arange(100, 116, dtype=np.int32)      # what lies after the view
    try:
        cudaMemset(d, 0, 32)
        raises_code(cudaErrorInvalidValue, cudaMemcpy, d, secret[:4], 32, cudaMemcpyHostToDevice)
        assert not from_device(d, np.zeros(8, np.int32)).any()
        raises_code(cudaErrorInvalidValue, cudaMemcpy, d, b"short", 6, cudaMemcpyHostToDevice)
    finally:
        cudaFree(d)


def test_cudaMemcpy_default_never_reads_or_writes_past_the_host_buffer():
    d = to_device(np.arange(8, dtype=np.int32))
    guard = np.full(8, -1, np.int32)
    try:
        raises_code(cudaErrorInvalidValue, cudaMemcpy, guard[:2], d, 16, cudaMemcpyDefault)
        raises_code(cudaErrorInvalidValue, cudaMemcpy, d, guard[:2], 16, cudaMemcpyDefault)
        assert np.all(guard == -1)
    finally:
        cudaFree(d)


def test_cudaMemcpy_host_to_host_never_writes_past_the_destination():
    guard = np.full(8, -1, np.int32)
    raises_code(cudaErrorInvalidValue, cudaMemcpy, guard[2:4], PATTERN, 16, cudaMemcpyHostToHost)
    assert np.all(guard == -1)


def test_cudaMemcpy_non_contiguous_host_buffer_invalid_value():
    d = cudaMalloc(32)
    strided = np.zeros(16, np.int32)[::2]
    try:
        raises_code(cudaErrorInvalidValue, cudaMemcpy, strided, d, 32, cudaMemcpyDeviceToHost)
        raises_code(cudaErrorInvalidValue, cudaMemcpy, d, strided, 32, cudaMemcpyHostToDevice)
    finally:
        cudaFree(d)


def test_cudaMemcpy_read_only_host_destination_invalid_value():
    d = to_device(PATTERN)
    ro = np.zeros(4, np.int32)
    ro.flags.writeable = False
    try:
        raises_code(cudaErrorInvalidValue, cudaMemcpy, ro, d, 16, cudaMemcpyDeviceToHost)
        raises_code(cudaErrorInvalidValue, cudaMemcpy, b"\0" * 16, d, 16, cudaMemcpyDeviceToHost)
        assert not ro.any()
    finally:
        cudaFree(d)


def test_cudaMemcpy_waits_for_the_kernel_before_it(kernels):
    n = 64 * 1024
    d = cudaMalloc(4 * n)
    try:
        cudaMemset(d, 0, 4 * n)
        for _ in range(5):
            kernels.inc[n // 256, 256](d, n)
        assert np.all(from_device(d, np.zeros(n, np.int32)) == 5)
    finally:
        cudaFree(d)


def test_cudaMemcpy_error_sets_the_last_error():
    raises_code(cudaErrorInvalidValue, cudaMemcpy, 0, PATTERN, 16, cudaMemcpyHostToDevice)
    assert cudaPeekAtLastError() == cudaErrorInvalidValue
    assert cudaGetLastError() == cudaErrorInvalidValue
    assert cudaGetLastError() == cudaSuccess


# ------------------------------------------------------------------ cudaMemset

def test_cudaMemset_sets_bytes_in_a_range():
    d = cudaMalloc(64)
    try:
        cudaMemset(d, 0, 64)
        assert cudaMemset(d + 8, 0xAB, 16) == cudaSuccess
        out = from_device(d, np.zeros(64, np.uint8))
        assert np.all(out[8:24] == 0xAB) and not out[:8].any() and not out[24:].any()
    finally:
        cudaFree(d)


def test_cudaMemset_value_is_truncated_to_a_byte(gt):
    d = cudaMalloc(16)
    try:
        assert cudaMemset(d, 0x1FF, 16) == gt("memory", "memset_value_truncation",
                                              "return.code", default=0)
        out = from_device(d, np.zeros(16, np.uint8))
        assert np.all(out == gt("memory", "memset_value_truncation", "byte0", default=255))
        cudaMemset(d, -1, 16)
        assert np.all(from_device(d, np.zeros(16, np.uint8)) == 255)
    finally:
        cudaFree(d)


def test_cudaMemset_freed_pointer_invalid_value(gt):
    d = cudaMalloc(16)
    cudaFree(d)
    raises_code(gt("memory", "memset_freed", "return.code", default=1), cudaMemset, d, 0, 16)
    assert cudaGetLastError() == cudaErrorInvalidValue


def test_cudaMemset_null_invalid_value(gt):
    raises_code(gt("memory", "memset_null", "return.code", default=1), cudaMemset, 0, 0, 16)
    assert cudaGetLastError() == cudaErrorInvalidValue


def test_cudaMemset_null_zero_bytes_is_success(gt):
    assert cudaMemset(0, 0, 0) == gt("memory", "memset_null", "return_size_0.code", default=0)
    assert cudaGetLastError() == cudaSuccess


def test_cudaMemset_host_array_invalid_value(gt):
    h = PATTERN.copy()
    raises_code(_risky(gt, "memset_on_host_ptr"), cudaMemset, h, 0, 16)
    assert np.array_equal(h, PATTERN)


def test_cudaMemset_past_the_end_of_the_allocation_invalid_value():
    d = cudaMalloc(16)
    try:
        cudaMemset(d, 0, 16)
        raises_code(cudaErrorInvalidValue, cudaMemset, d + 8, 1, 16)
        assert not from_device(d, np.zeros(16, np.uint8)).any()
    finally:
        cudaFree(d)


def test_cudaMemset_is_ordered_with_kernels(kernels):
    d = cudaMalloc(4 * 256)
    try:
        cudaMemset(d, 0, 1024)
        kernels.inc[1, 256](d, 256)
        cudaMemset(d, 0, 512)                      # after the kernel, before the copy
        out = from_device(d, np.zeros(256, np.int32))
        assert not out[:128].any() and np.all(out[128:] == 1)
    finally:
        cudaFree(d)


# ------------------------------------------------------------------ cudaMemGetInfo

def test_cudaMemGetInfo_total_is_the_device_memory():
    free, total = cudaMemGetInfo()
    assert 0 < free <= total
    assert total == cudaGetDeviceProperties(0).totalGlobalMem


def test_cudaMemGetInfo_free_drops_by_what_cudaMalloc_takes(gt):
    size = 1 << 30
    assert gt("memory", "mem_get_info", "delta", default=size) == size
    free0, total0 = cudaMemGetInfo()
    d = cudaMalloc(size)
    free1, total1 = cudaMemGetInfo()
    cudaFree(d)
    free2, _ = cudaMemGetInfo()
    assert total1 == total0
    assert free0 - free1 == size
    assert free2 == free0
