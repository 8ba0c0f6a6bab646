"""Page-locked host memory: cudaMallocHost, cudaHostAlloc, cudaFreeHost,
cudaHostRegister/Unregister, cudaHostGetDevicePointer (zero copy: a kernel
reads and writes the host array), cudaPointerGetAttributes, and misuse with
CUDA's codes."""
import numpy as np
import pytest

from pyemu.cuda import *  # noqa: F401,F403

pytestmark = pytest.mark.usefixtures("cuda_clean_state")


def raises_code(code, fn, *args):
    with pytest.raises(CudaError) as info:
        fn(*args)
    assert int(info.value.code) == int(code), str(info.value)


@pytest.fixture(scope="module")
def k():
    return SourceModule(r"""
    __global__ void scale(const float *in, float *out, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = 2.0f * in[i];
    }
    __global__ void poke(int *p, int i) { p[i] = 1; }
    """)


def test_cudaMallocHost_is_a_numpy_array_and_frees():
    h = cudaMallocHost(4000, np.float32)
    assert isinstance(h, np.ndarray) and h.dtype == np.float32 and h.shape == (1000,)
    assert not h.any()
    h[:] = 3
    assert cudaFreeHost(h) == cudaSuccess
    raises_code(cudaErrorInvalidValue, cudaFreeHost, h)          # double free
    b = cudaMallocHost(64)
    assert b.dtype == np.uint8 and b.nbytes == 64
    cudaFreeHost(b)
    assert cudaMallocHost(0).size == 0


def test_zero_copy_kernel_reads_and_writes_host_arrays(k):
    n = 5000
    a = cudaHostAlloc(4 * n, cudaHostAllocMapped, np.float32)
    b = cudaHostAlloc(4 * n, cudaHostAllocMapped | cudaHostAllocPortable, np.float32)
    a[:] = np.random.rand(n)
    da, db = cudaHostGetDevicePointer(a, 0), cudaHostGetDevicePointer(b, 0)
    k.scale[(n + 127) // 128, 128](da, db, n)
    cudaDeviceSynchronize()
    assert np.array_equal(b, 2 * a)
    cudaFreeHost(a)
    cudaFreeHost(b)


def test_zero_copy_out_of_bounds_faults_like_device_memory(run_cuda):
    res = run_cuda("""
        import numpy as np
        mod = SourceModule('__global__ void poke(int *p, int i) { p[i] = 1; }')
        h = cudaHostAlloc(256, cudaHostAllocMapped, np.int32)
        mod.poke[1, 1](cudaHostGetDevicePointer(h, 0), 1 << 26)
        R["sync"] = code_of(cudaDeviceSynchronize)
    """)
    assert res.R.get("sync") == int(cudaErrorIllegalAddress), res.explain()


def test_cudaHostAlloc_bad_arguments():
    raises_code(cudaErrorInvalidValue, cudaHostAlloc, -1, 0)
    raises_code(cudaErrorInvalidValue, cudaHostAlloc, 16, 0x80)
    raises_code(cudaErrorInvalidValue, cudaHostAlloc, 6, 0, np.float32)
    raises_code(cudaErrorInvalidValue, cudaHostAlloc, "16", 0)
    raises_code(cudaErrorInvalidValue, cudaFreeHost, np.zeros(4))
    d = cudaMalloc(16)
    raises_code(cudaErrorInvalidValue, cudaFreeHost, d)             # a device pointer
    h = cudaMallocHost(64)
    raises_code(cudaErrorInvalidValue, cudaFreeHost, h[8:])         # not its start
    cudaFreeHost(h)
    cudaFree(d)


def test_cudaHostRegister_and_unregister():
    a = np.zeros(1024, np.float64)
    assert cudaHostRegister(a, a.nbytes, cudaHostRegisterDefault) == cudaSuccess
    assert cudaPointerGetAttributes(a).type == cudaMemoryTypeHost
    raises_code(cudaErrorHostMemoryAlreadyRegistered, cudaHostRegister, a, a.nbytes, 0)
    raises_code(cudaErrorHostMemoryAlreadyRegistered, cudaHostRegister, a[100:], 8, 0)
    assert int(cudaHostGetDevicePointer(a, 0)) == a.ctypes.data    # as an H100 answers
    assert cudaPointerGetAttributes(a).devicePointer == a.ctypes.data
    raises_code(cudaErrorInvalidValue, cudaHostUnregister, a[1:])
    assert cudaHostUnregister(a) == cudaSuccess
    raises_code(cudaErrorHostMemoryNotRegistered, cudaHostUnregister, a)
    assert cudaPointerGetAttributes(a).type == cudaMemoryTypeUnregistered
    raises_code(cudaErrorInvalidValue, cudaHostRegister, a, 0, 0)
    raises_code(cudaErrorInvalidValue, cudaHostRegister, a, a.nbytes + 1, 0)
    raises_code(cudaErrorInvalidValue, cudaHostRegister, a, 8, 0x100)
    raises_code(cudaErrorInvalidValue, cudaHostRegister, cudaMalloc(16), 16, 0)
    raises_code(cudaErrorInvalidValue, cudaHostGetDevicePointer, np.zeros(4), 0)
    raises_code(cudaErrorInvalidValue, cudaHostGetDevicePointer, cudaMallocHost(4), 1)


def test_registered_memory_makes_async_copies_return_at_once():
    n = 1 << 16
    a = np.arange(n, dtype=np.int32)
    cudaHostRegister(a, a.nbytes, 0)
    d = cudaMalloc(a.nbytes)
    s = cudaStreamCreate()
    cudaMemcpyAsync(d, a, a.nbytes, cudaMemcpyHostToDevice, s)
    out = np.zeros_like(a)
    cudaHostRegister(out, out.nbytes, 0)
    cudaMemcpyAsync(out, d, a.nbytes, cudaMemcpyDeviceToHost, s)
    cudaStreamSynchronize(s)
    assert np.array_equal(out, a)
    cudaHostUnregister(a)
    cudaHostUnregister(out)
    cudaStreamDestroy(s)
    cudaFree(d)


def test_cudaPointerGetAttributes_of_each_kind():
    d = cudaMalloc(64)
    m = cudaMallocManaged(64, cudaMemAttachGlobal, np.int32)
    h = cudaMallocHost(64)
    p = np.zeros(16)
    ad = cudaPointerGetAttributes(d)
    assert (ad.type, ad.device, ad.devicePointer, ad.hostPointer) == (cudaMemoryTypeDevice, 0,
                                                                       int(d), 0)
    am = cudaPointerGetAttributes(m)
    assert am.type == cudaMemoryTypeManaged and am.devicePointer == am.hostPointer != 0
    ah = cudaPointerGetAttributes(h)
    addr = h.__array_interface__["data"][0]
    assert (ah.type, ah.devicePointer, ah.hostPointer) == (cudaMemoryTypeHost, addr, addr)
    assert cudaPointerGetAttributes(p).type == cudaMemoryTypeUnregistered
    cudaFreeHost(h)
    cudaFree(d)


def test_pinned_memory_survives_device_reset_as_readable(run_cuda):
    res = run_cuda("""
        import numpy as np
        h = cudaMallocHost(4096, np.int32)
        h[:] = 5
        cudaDeviceReset()
        R["readable"] = int(h.sum() >= 0)
    """)
    assert res.R.get("readable") == 1, res.explain()


def test_cudaHostRegister_memory_is_read_and_written_by_a_kernel(k):
    n = 1000
    a = np.arange(n, dtype=np.float32)
    b = np.zeros(n, np.float32)
    cudaHostRegister(a, a.nbytes, cudaHostRegisterMapped)
    cudaHostRegister(b, b.nbytes, cudaHostRegisterMapped)
    da, db = cudaHostGetDevicePointer(a, 0), cudaHostGetDevicePointer(b, 0)
    k.get_function("scale")[(n + 127) // 128, 128](da, db, n)
    cudaDeviceSynchronize()
    np.testing.assert_array_equal(b, 2 * a)
    cudaHostUnregister(a)
    cudaHostUnregister(b)
    # unregistered, the same address is host memory again: the launch check refuses it
    with pytest.raises(CudaError) as info:
        k.get_function("scale")[1, 1](da, db, n)
    assert int(info.value.code) == int(cudaErrorInvalidValue)
    assert "not device memory" in str(info.value)


def test_a_fault_near_registered_memory_names_the_range(k):
    import mmap
    m = mmap.mmap(-1, 8192)             # two pages; the second is made inaccessible
    import ctypes
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    libc = ctypes.CDLL(None)
    assert libc.mprotect(ctypes.c_void_p(base + 4096), 4096, 0) == 0
    a = np.frombuffer(m, np.int32, 1024)    # the first page
    cudaHostRegister(a, a.nbytes, 0)
    p = cudaHostGetDevicePointer(a, 0)
    try:
        k.get_function("poke")[1, 1](p, 1024 + 3)      # 12 bytes past the end
        with pytest.raises(CudaError) as info:
            cudaDeviceSynchronize()
        assert int(info.value.code) == int(cudaErrorIllegalAddress)
        assert "12 bytes past the end of the 4096-byte cudaHostRegister'ed range" in \
            str(info.value), str(info.value)
    finally:
        cudaDeviceReset()
        cudaHostUnregister(a)
        libc.mprotect(ctypes.c_void_p(base + 4096), 4096, 3)
    del a


def _resident_pages(addr, nbytes):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    page = 4096
    lo = addr & ~(page - 1)
    npages = (addr + nbytes - lo + page - 1) // page
    vec = (ctypes.c_ubyte * npages)()
    assert libc.mincore(ctypes.c_void_p(lo), ctypes.c_size_t(npages * page), vec) == 0
    return sum(v & 1 for v in vec), npages


def test_page_locked_memory_is_resident_from_the_start():
    # a first copy into fresh cudaHostAlloc memory paid its page faults (34 ms for 16 MiB)
    h = cudaMallocHost(16 << 20, np.uint8)
    resident, total = _resident_pages(h.ctypes.data, h.nbytes)
    assert resident == total
    cudaFreeHost(h)
    import mmap
    m = mmap.mmap(-1, 8 << 20)
    a = np.frombuffer(m, np.uint8)
    assert _resident_pages(a.ctypes.data, a.nbytes)[0] == 0
    cudaHostRegister(a, a.nbytes, 0)
    resident, total = _resident_pages(a.ctypes.data, a.nbytes)
    cudaHostUnregister(a)
    assert resident == total
    assert not a.any()                 # the contents are untouched


@pytest.mark.parametrize("flags", [cudaHostAllocDefault, cudaHostAllocPortable,
                                   cudaHostAllocWriteCombined,
                                   cudaHostAllocMapped | cudaHostAllocWriteCombined])
def test_every_cudaHostAlloc_flag_gives_page_locked_memory(k, flags):
    """Each flag gives page-locked memory (write-combining changes nothing on a
    CPU: the memory is ordinary, read back correctly); a kernel result comes
    back through it with async copies."""
    n = 1000
    h = cudaHostAlloc(4 * n, flags, np.float32)
    d = cudaMalloc(8 * n)
    s = cudaStreamCreate()
    try:
        assert cudaPointerGetAttributes(h).type == cudaMemoryTypeHost
        h[:] = np.arange(n, dtype=np.float32)
        cudaMemcpyAsync(d, h, 4 * n, cudaMemcpyHostToDevice, s)
        k.scale[(n + 255) // 256, 256, 0, s](d, d + 4 * n, n)
        cudaMemcpyAsync(h, d + 4 * n, 4 * n, cudaMemcpyDeviceToHost, s)
        cudaStreamSynchronize(s)
        assert np.array_equal(h, 2 * np.arange(n, dtype=np.float32))
        if flags & cudaHostAllocMapped:
            assert int(cudaHostGetDevicePointer(h, 0)) == h.__array_interface__["data"][0]
    finally:
        cudaStreamDestroy(s)
        cudaFree(d)
        cudaFreeHost(h)
