"""__device__ and __constant__ variables from the host: SourceModule.get_global,
cudaMemcpyToSymbol / cudaMemcpyFromSymbol (and Async), cudaGetSymbolAddress,
cudaGetSymbolSize, and the 64 KiB constant limit.

Expected codes come from what an H100 answered
(tests/data/ground_truth/cuda_h100_pitch_symbols.json, probe_pitch_symbols.cu).
"""
import gc
import json
from pathlib import Path

import numpy as np
import pytest

from pyemu.cuda import (CudaError, DevicePointer, DeviceSymbol, SourceModule, cudaDeviceReset,
                        cudaDeviceSynchronize, cudaErrorInvalidKernelImage,
                        cudaErrorInvalidMemcpyDirection, cudaErrorInvalidResourceHandle,
                        cudaErrorInvalidSymbol, cudaErrorInvalidValue, cudaErrorSymbolNotFound,
                        cudaFree, cudaGetLastError, cudaGetSymbolAddress, cudaGetSymbolSize,
                        cudaMalloc, cudaMemcpy, cudaMemcpyDefault, cudaMemcpyDeviceToDevice,
                        cudaMemcpyDeviceToHost, cudaMemcpyFromSymbol, cudaMemcpyFromSymbolAsync,
                        cudaMemcpyHostToDevice, cudaMemcpyHostToHost, cudaMemcpyToSymbol,
                        cudaMemcpyToSymbolAsync, cudaMemGetInfo, cudaMemset)
from pyemu.cuda.runtime import default_queue

GT = {c["case"]: c for c in json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "ground_truth" /
     "cuda_h100_pitch_symbols.json").read_text())["cases"]}

pytestmark = pytest.mark.usefixtures("cuda_clean_state")

SOURCE = r"""
__constant__ float coef[16];
__constant__ int init[4] = {1, 2, 3, 4};
static __constant__ float hidden[2] = {5, 6};       // internal linkage, set only by the host
namespace ns { __device__ int counter; }
__device__ float dv[8];
__constant__ const float folded = 2.5f;   // const: read-only, reads folded
template <typename T> __device__ T tv = T(3);
__global__ void poly(const float* x, float* y, int n) {       // sum of coef[k] x^k
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int k = 15; k >= 0; --k) acc = acc * x[i] + coef[k];
        y[i] = acc;
    }
}
__global__ void peek(float* out) {
    int i = threadIdx.x;
    out[i] = init[i % 4] + hidden[i % 2] + folded + tv<float>;
}
__global__ void count(float* out) {
    atomicAdd(&ns::counter, 1);
    dv[threadIdx.x % 8] = threadIdx.x;
    out[threadIdx.x] = coef[threadIdx.x];
}
__global__ void twice(const float* p, float* out) { out[threadIdx.x] = 2.0f * p[threadIdx.x]; }
"""


@pytest.fixture(scope="module")
def mod():
    return SourceModule(SOURCE)


def code(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except CudaError as exc:
        cudaGetLastError()
        return int(exc.code)
    return 0


def test_get_global_is_pycuda_pointer_and_size(mod):
    sym = mod.get_global("coef")
    ptr, size = sym
    assert isinstance(sym, DeviceSymbol) and isinstance(ptr, DevicePointer)
    assert size == 64 == cudaGetSymbolSize(sym) == GT["symbol_address"]["size"]
    assert cudaGetSymbolSize(mod.get_global("dv")) == GT["symbol_address"]["size_d_var"]
    assert cudaGetSymbolAddress(sym) == ptr
    assert sym.is_constant and not mod.get_global("dv").is_constant


def test_cudaMemcpyToSymbol_coefficients_read_by_kernel(mod):
    rng = np.random.default_rng(1)
    c = rng.uniform(-1, 1, 16).astype(np.float32)
    x = rng.uniform(-1, 1, 1000).astype(np.float32)
    cudaMemcpyToSymbol(mod.get_global("coef"), c, c.nbytes)
    dx, dy = cudaMalloc(x.nbytes), cudaMalloc(x.nbytes)
    try:
        cudaMemcpy(dx, x, x.nbytes, cudaMemcpyHostToDevice)
        mod.poly[4, 256](dx, dy, 1000)
        y = np.empty_like(x)
        cudaMemcpy(y, dy, y.nbytes, cudaMemcpyDeviceToHost)
    finally:
        cudaFree(dx)
        cudaFree(dy)
    assert np.allclose(y, np.polyval(c[::-1].astype(np.float64), x), rtol=1e-4, atol=1e-5)


def test_initialisers_static_and_template_variables(mod):
    out = np.empty(4, np.float32)
    got = np.empty(4, np.int32)
    cudaMemcpyFromSymbol(got, mod.get_global("init"), 16)
    assert got.tolist() == [1, 2, 3, 4]
    hidden = mod.get_global("hidden")      # static: found in the full symbol table
    cudaMemcpyToSymbol(hidden, np.array([10, 20], np.float32), 8)
    cudaMemcpyToSymbol(mod.get_global("tv<float>"), np.array([7], np.float32), 4)
    d = cudaMalloc(16)
    try:
        mod.peek[1, 4](d)
        cudaMemcpy(out, d, 16, cudaMemcpyDeviceToHost)
    finally:
        cudaFree(d)
    # a host write to a static __constant__ is seen: g++ did not fold its reads
    assert out.tolist() == [1 + 10 + 2.5 + 7, 2 + 20 + 2.5 + 7, 3 + 10 + 2.5 + 7, 4 + 20 + 2.5 + 7]


def test_offset_writes_only_the_bytes_named(mod):
    sym = mod.get_global("coef")
    cudaMemcpyToSymbol(sym, np.zeros(16, np.float32), 64)
    cudaMemcpyToSymbol(sym, np.array([1, 2, 3], np.float32), 12, 8)
    back = np.full(18, -1, np.float32)         # guard values after the 16 copied
    cudaMemcpyFromSymbol(back[:16], sym, 64)
    assert back.tolist() == [0, 0, 1, 2, 3] + [0] * 11 + [-1, -1]
    part = np.full(4, -1, np.float32)
    cudaMemcpyFromSymbol(part[1:3], sym, 8, 12)
    assert part.tolist() == [-1, 2, 3, -1]


def test_symbol_errors_match_the_h100(mod):
    sym = mod.get_global("coef")
    h = np.zeros(32, np.float32)
    assert code(cudaMemcpyToSymbol, sym, h, 68) == GT["tosymbol_count_past_size"]["err"] == 1
    assert code(cudaMemcpyToSymbol, sym, h, 64, 4) == GT["tosymbol_offset_plus_count_past"]["err"]
    assert code(cudaMemcpyToSymbol, sym, h, 0, 64) == GT["tosymbol_offset_eq_size_count_0"]["err"]
    assert code(cudaMemcpyToSymbol, sym, h, 0, 65) == GT["tosymbol_offset_past_size_count_0"]["err"]
    assert code(cudaMemcpyToSymbol, sym, h, 4, 3) == GT["tosymbol_offset_unaligned"]["err"] == 0
    assert code(cudaMemcpyToSymbol, sym, h, 4, 0, cudaMemcpyHostToHost) == \
        GT["tosymbol_kind_h2h"]["err"] == cudaErrorInvalidMemcpyDirection
    assert code(cudaMemcpyToSymbol, sym, h, 4, 0, cudaMemcpyDeviceToHost) == GT["tosymbol_kind_d2h"]["err"]
    assert code(cudaMemcpyToSymbol, sym, h, 4, 0, 7) == GT["tosymbol_kind_7"]["err"]
    assert code(cudaMemcpyToSymbol, sym, h, 4, 0, cudaMemcpyDefault) == GT["tosymbol_kind_default"]["err"]
    assert code(cudaMemcpyFromSymbol, h, sym, 4, 0, cudaMemcpyHostToDevice) == \
        GT["fromsymbol_kind_h2d"]["err"]
    assert code(cudaMemcpyFromSymbol, h, sym, 4, 0, cudaMemcpyHostToHost) == GT["fromsymbol_kind_h2h"]["err"]
    assert code(cudaMemcpyFromSymbol, h, sym, 8, 60) == GT["fromsymbol_past"]["err"]
    # what is not a symbol: a name, a pointer (the H100: a host variable, NULL)
    for bad in ("coef", b"coef", sym.ptr, 0, None, 1.5):
        assert code(cudaMemcpyToSymbol, bad, h, 4) == GT["tosymbol_host_var"]["err"] == \
            cudaErrorInvalidSymbol
        assert code(cudaMemcpyFromSymbol, h, bad, 4) == GT["fromsymbol_host_var"]["err"]
        assert code(cudaGetSymbolAddress, bad) == GT["symbol_address_host_var"]["err_addr"]
        assert code(cudaGetSymbolSize, bad) == GT["symbol_address_host_var"]["err_size"]
    # bad counts are CUDA errors, not Python ones; the host buffer is never overrun
    assert code(cudaMemcpyToSymbol, sym, h, -4) == cudaErrorInvalidValue
    assert code(cudaMemcpyToSymbol, sym, h, "4") == cudaErrorInvalidValue
    assert code(cudaMemcpyToSymbol, sym, h, 4, -1) == cudaErrorInvalidValue
    assert code(cudaMemcpyToSymbol, sym, np.zeros(2, np.float32), 12) == cudaErrorInvalidValue
    assert code(cudaMemcpyToSymbol, sym, h, 4, 0, "x") == cudaErrorInvalidMemcpyDirection


def test_get_global_errors(mod):
    assert code(mod.get_global, "nope") == cudaErrorSymbolNotFound
    assert code(mod.get_global, 3) == cudaErrorInvalidValue
    with pytest.raises(CudaError) as e:
        mod.get_global("folded")
    assert e.value.code == cudaErrorInvalidSymbol and "const" in str(e.value)
    # the namespaced and the mangled name find the same variable
    assert mod.get_global("ns::counter").ptr == mod.get_global("_ZN2ns7counterE").ptr


def test_symbol_address_is_a_device_pointer_both_ways(mod):
    sym = mod.get_global("coef")
    p = cudaGetSymbolAddress(sym)
    h = np.arange(16, dtype=np.float32)
    cudaMemcpy(p, h, 64, cudaMemcpyHostToDevice)          # through the pointer ...
    back = np.empty(16, np.float32)
    cudaMemcpyFromSymbol(back, sym, 64)                   # ... is the variable
    assert np.array_equal(back, h)
    cudaMemcpyToSymbol(sym, 3 * h, 64)
    d = cudaMalloc(64)
    try:
        mod.twice[1, 16](p, d)                            # a kernel reads through it
        cudaMemcpy(back, d, 64, cudaMemcpyDeviceToHost)
        assert np.array_equal(back, 6 * h)
        cudaMemset(p, 0, 64)
        cudaMemcpyFromSymbol(back, sym, 64)
        assert not back.any()
    finally:
        cudaFree(d)
    assert code(cudaFree, p) == cudaErrorInvalidValue     # not an allocation of its own


def test_kernel_writes_to_device_variables_are_seen(mod):
    cudaMemcpyToSymbol(mod.get_global("ns::counter"), np.zeros(1, np.int32), 4)
    d = cudaMalloc(64 * 4)
    try:
        mod.count[3, 64](d)
        n = np.zeros(1, np.int32)
        cudaMemcpyFromSymbol(n, mod.get_global("ns::counter"), 4)
        dv = np.empty(8, np.float32)
        cudaMemcpy(dv, cudaGetSymbolAddress(mod.get_global("dv")), 32, cudaMemcpyDeviceToHost)
    finally:
        cudaFree(d)
    assert n[0] == 192
    assert all(int(v) % 8 == k for k, v in enumerate(dv))   # some thread k + 8j wrote each


def test_device_to_device_symbol_copies(mod):
    sym = mod.get_global("coef")
    h = np.arange(16, dtype=np.float32) + 100
    d = cudaMalloc(64)
    try:
        cudaMemcpy(d, h, 64, cudaMemcpyHostToDevice)
        assert code(cudaMemcpyToSymbol, sym, d, 64, 0, cudaMemcpyDeviceToDevice) == \
            GT["tosymbol_from_device"]["err_d2d"]
        assert code(cudaMemcpyToSymbol, sym, h, 64, 0, cudaMemcpyDeviceToDevice) == \
            GT["tosymbol_d2d_with_host_src"]["err"] == cudaErrorInvalidValue
        cudaMemset(d, 0, 64)
        cudaMemcpyFromSymbol(d, sym, 64, 0, cudaMemcpyDeviceToDevice)
        back = np.empty(16, np.float32)
        cudaMemcpy(back, d, 64, cudaMemcpyDeviceToHost)
        assert np.array_equal(back, h)
    finally:
        cudaFree(d)


class _Stream:
    """What the streams of another branch look like to these calls."""

    def __init__(self):
        self._queue = default_queue()


def test_async_symbol_copies_on_a_stream(mod):
    sym = mod.get_global("coef")
    h = np.arange(16, dtype=np.float32) * 7
    cudaMemcpyToSymbolAsync(sym, h.copy(), 64, 0, cudaMemcpyHostToDevice, 0)   # the copy held
    out = np.zeros(16, np.float32)
    cudaMemcpyFromSymbolAsync(out, sym, 64, 0, cudaMemcpyDeviceToHost, _Stream())
    cudaDeviceSynchronize()
    assert np.array_equal(out, h)
    assert code(cudaMemcpyToSymbolAsync, sym, h, 64, 0, cudaMemcpyHostToDevice, "s") == \
        cudaErrorInvalidResourceHandle
    assert code(cudaMemcpyToSymbolAsync, sym, h, 4, 0, cudaMemcpyDeviceToHost, 0) == \
        GT["tosymbolasync_kind_d2h"]["err"]
    # an H100 accepts 68 bytes here and writes past the variable; pyemu refuses
    assert GT["tosymbolasync_past"]["err"] == 0
    assert code(cudaMemcpyToSymbolAsync, sym, np.zeros(17, np.float32), 68) == cudaErrorInvalidValue


def test_constant_limit_is_64_KiB():
    ok = SourceModule("__constant__ float a[8192]; __constant__ float b[8192];\n"
                      "__global__ void k(float* o) { o[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x]; }")
    assert ok.get_global("b").size == 32768
    # the probe's const_too_big.cu: ptxas refuses 0x10004 bytes
    with pytest.raises(CudaError) as e:
        SourceModule("__constant__ float a[8192]; __constant__ float b[8193];\n"
                     "__global__ void k(float* o) { o[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x]; }")
    cudaGetLastError()
    msg = str(e.value)
    assert e.value.code == cudaErrorInvalidKernelImage
    assert "65540 bytes" in msg and "a (32768 bytes)" in msg and "b (32772 bytes)" in msg
    # __device__ variables do not count
    big = SourceModule("__device__ float a[100000]; __constant__ float c[16384];\n"
                       "__global__ void k(float* o) { o[threadIdx.x] = a[threadIdx.x] + c[threadIdx.x]; }")
    assert big.get_global("a").size == 400000


def test_module_unload_frees_the_mapping_and_reset_maps_again():
    src = "__device__ int v[4];\n__global__ void k(int* o) { o[threadIdx.x] = v[threadIdx.x]; }"
    m = SourceModule(src)
    gc.collect()
    cudaDeviceSynchronize()
    free0 = cudaMemGetInfo()[0]
    sym = m.get_global("v")
    free1 = cudaMemGetInfo()[0]
    assert free0 - free1 >= 65536     # an allocation of its own (an island)
    del m, sym
    gc.collect()
    assert cudaMemGetInfo()[0] - free1 == free0 - free1
    m = SourceModule(src)
    old = m.get_global("v")
    cudaDeviceReset()
    new = m.get_global("v")
    cudaMemcpyToSymbol(new, np.array([4, 3, 2, 1], np.int32), 16)
    d = cudaMalloc(16)
    back = np.empty(4, np.int32)
    m.k[1, 4](d)
    cudaMemcpy(back, d, 16, cudaMemcpyDeviceToHost)
    assert back.tolist() == [4, 3, 2, 1]
    cudaMemcpy(back, new.ptr, 16, cudaMemcpyDeviceToHost)
    assert back.tolist() == [4, 3, 2, 1]
    assert code(cudaMemcpy, back, old.ptr, 16, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue
    cudaFree(d)


def test_reading_past_the_module_data_faults(run_cuda):
    run = run_cuda(r"""
        import numpy as np
        m = SourceModule('''__device__ int v[4];
        __global__ void rd(const int* p, int* o, long i) { o[0] = p[i]; }''')
        p = cudaGetSymbolAddress(m.get_global("v"))
        o = cudaMalloc(4)
        m.rd[1, 1](p, o, 1 << 20)         # 4 MiB on: past the module's data
        R["sync"] = code_of(cudaDeviceSynchronize)
    """)
    assert run.returncode == 0, run.explain()
    assert run.R["sync"] == 700           # cudaErrorIllegalAddress, the process lives


def test_example_constant_memory_runs():
    """examples/cuda/constant_memory.py at a size that is not a multiple of the block."""
    import os
    import subprocess
    import sys
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root),
                                                                     os.environ.get("PYTHONPATH")])))
    for args in (["10001", "7"], ["300", "10"], ["5", "1"]):
        run = subprocess.run([sys.executable, str(root / "examples" / "cuda" / "constant_memory.py"),
                              *args], capture_output=True, text=True, timeout=300, env=env)
        assert run.returncode == 0 and "Test PASSED" in run.stdout, run.stdout + run.stderr


def test_static_device_variables():
    """A static __device__ variable a kernel writes is found; one no kernel writes
    is folded away by g++, and get_global says so instead of giving a copy nobody reads."""
    m = SourceModule(r"""
    namespace { __device__ float scale; __device__ int seen; }
    static __device__ int hits;
    __global__ void k(float* o) {
        o[threadIdx.x] = scale + seen;
        if (threadIdx.x == 0) { hits++; seen = 1; }
    }
    """)
    cudaMemcpyToSymbol(m.get_global("hits"), np.array([10], np.int32), 4)
    d = cudaMalloc(16)
    try:
        m.k[1, 4](d)
        h = np.zeros(2, np.int32)
        cudaMemcpyFromSymbol(h[:1], m.get_global("hits"), 4)
        cudaMemcpyFromSymbol(h[1:], m.get_global("seen"), 4)     # anonymous namespace
    finally:
        cudaFree(d)
    assert h.tolist() == [11, 1]
    with pytest.raises(CudaError) as e:
        m.get_global("scale")
    cudaGetLastError()
    assert e.value.code == cudaErrorSymbolNotFound and "folded away" in str(e.value)


def test_two_modules_of_one_source_have_their_own_variables():
    """Two SourceModules of the same source are two module instances, as two
    cuModuleLoad calls are in CUDA: writing one's variable leaves the other's
    alone (tests/cuda/test_module_instances.py has more)."""
    src = "__device__ int twin[4];\n__global__ void k(int* o) { o[threadIdx.x] = twin[threadIdx.x]; }"
    a, b = SourceModule(src), SourceModule(src)
    pa, pb = a.get_global("twin"), b.get_global("twin")
    assert int(pa.ptr) != int(pb.ptr)
    cudaMemcpy(pa.ptr, np.array([1, 2, 3, 4], np.int32), 16, cudaMemcpyHostToDevice)
    o = np.full(4, 9, np.int32)
    cudaMemcpy(o, pb.ptr, 16, cudaMemcpyDeviceToHost)
    assert o.tolist() == [0, 0, 0, 0]
    d = cudaMalloc(32)
    try:
        a.k[1, 4](d)
        b.k[1, 4](d + 16)
        o = np.zeros(8, np.int32)
        cudaMemcpy(o, d, 32, cudaMemcpyDeviceToHost)
    finally:
        cudaFree(d)
    assert o.tolist() == [1, 2, 3, 4, 0, 0, 0, 0]


def test_template_variables_are_each_modules_own():
    """Two modules with the same variable template: each has its own instance
    (g++'s GNU unique symbols would bind the second to the first's copy)."""
    src = r"""
template <typename T> __device__ T tvar = T(3);
__global__ void get(float *out) { out[0] = tvar<float>; }
"""
    a, b = SourceModule(src), SourceModule(src + "__global__ void other(int *p) { *p = 1; }\n")
    cudaMemcpyToSymbol(b.get_global("tvar<float>"), np.array([9], np.float32), 4)
    d = cudaMalloc(8)
    try:
        a.get[1, 1](d)
        b.get[1, 1](d + 4)
        out = np.empty(2, np.float32)
        cudaMemcpy(out, d, 8, cudaMemcpyDeviceToHost)
    finally:
        cudaFree(d)
    assert out.tolist() == [3.0, 9.0]


LDG = r"""
__constant__ float scale[2];
__global__ void k(const float * __restrict__ a, const float4 * __restrict__ v,
                  const double *d, const int2 *p, float *o, double *od, int *oi) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    o[i] = __ldg(&a[i]) * __ldg(&scale[i % 2]) + __ldg(v + i).y + __ldcg(a + i) + __ldcs(a + i);
    od[i] = __ldg(d + i) + __ldca(d + i) + __ldlu(d + i) + __ldcv(d + i);
    int2 q = __ldg(p + i);
    __stcg(oi + 2 * i, q.x);
    __stwt(oi + 2 * i + 1, q.y * 2.0);         /* converted to int, as CUDA's overload does */
    __stcs(o + i, __ldg(o + i) + 1.0f);
    __stwb(od + i, od[i] * 0.5f);
}"""


def test_ldg_and_cache_hinted_loads_and_stores():
    """__ldg (const __restrict__ pointers, __constant__ memory), the
    cache-hinted loads and stores: the plain element, for scalars and vectors."""
    n = 64
    rng = np.random.default_rng(12)
    a = rng.uniform(-2, 2, n).astype(np.float32)
    v = rng.uniform(-2, 2, (n, 4)).astype(np.float32)
    d = rng.uniform(-2, 2, n)
    p = rng.integers(-1000, 1000, (n, 2)).astype(np.int32)
    sc = np.array([0.5, -3.0], np.float32)
    m = SourceModule(LDG)
    cudaMemcpyToSymbol(m.get_global("scale"), sc, 8)
    bufs = [cudaMalloc(x.nbytes) for x in (a, v, d, p)]
    outs = [cudaMalloc(4 * n), cudaMalloc(8 * n), cudaMalloc(8 * n)]
    try:
        for b, x in zip(bufs, (a, v, d, p)):
            cudaMemcpy(b, x, x.nbytes, cudaMemcpyHostToDevice)
        m.get_function("k")[2, 32](*bufs, *outs)
        o, od, oi = np.empty(n, np.float32), np.empty(n), np.empty(2 * n, np.int32)
        for h, b in zip((o, od, oi), outs):
            cudaMemcpy(h, b, h.nbytes, cudaMemcpyDeviceToHost)
    finally:
        for b in bufs + outs:
            cudaFree(b)
    want = a * sc[np.arange(n) % 2] + v[:, 1] + a + a + np.float32(1)
    np.testing.assert_allclose(o, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(od, 4 * d * 0.5, rtol=1e-7)
    assert oi.tolist() == np.stack([p[:, 0], p[:, 1] * 2], axis=1).reshape(-1).tolist()


@pytest.mark.parametrize("body", ["c[0] = o[0];", "c[1] += o[0];", "n++;", "--n;", "s.b = o[0];",
                                  "(c)[2] = 1.0f;"])
def test_a_kernel_that_writes_constant_memory_does_not_compile(body):
    """As nvcc: __constant__ memory is written from the host (cudaMemcpyToSymbol) only."""
    from pyemu.compiler import CompileError
    src = ("struct S { float a, b; };\n__constant__ float c[4];\n__constant__ int n;\n"
           f"__constant__ S s;\n__global__ void k(float *o) {{ {body} }}")
    with pytest.raises(CompileError) as e:
        SourceModule(src)
    assert "kernel.cu:5: error: a __constant__ variable" in str(e.value)
    assert "cannot be written in device code" in str(e.value)


def test_writes_that_are_not_to_constant_memory_compile():
    """Reads, a comparison, the pointee of a __constant__ pointer, a local that
    shadows a __constant__ name."""
    m = SourceModule("__constant__ float c[4];\n__constant__ float *p;\n"
                     "__global__ void k(float *o) { o[0] = c[1]; o[1] = c[0] == o[2]; "
                     "if (o[3] > 1e30f) p[0] = o[0]; float c[2]; c[0] = o[0]; o[1] = c[0]; }")
    assert m.get_global("c").size == 16
