// Standalone checks of pyemu's CUDA device headers (vector types, math, atomics, assert), without the core.
//
// Build: g++ -std=c++17 -O3 -march=native -pthread -Iinclude -Iinclude/pyemu/cuda
//        -include include/pyemu/cuda_device.h tests/cuda/device_lib/harness.cpp
// Prints one line per failed check and "harness: N checks, 0 failed" at the end;
// exits 1 if any check failed.
#include <assert.h>   // must resolve to include/pyemu/cuda/assert.h
#include <cassert>
#include <cuda_runtime.h>
#include <math_constants.h>
#include <helper_math.h>

#include <atomic>
#include <cstdarg>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

// ---- stubs of what the core provides (abi.h) --------------------------------

struct device_assert {
    std::string expr;
};
static void stub_barrier(const char *) {}
static int stub_barrier_reduce(const char *, int pred, int) { return pred; }
static int stub_first_thread_done(void) { return 1; }
[[maybe_unused]] static int stub_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vprintf(fmt, ap);
    va_end(ap);
    return n;
}
[[noreturn]] static void stub_assert_fail(const char *expr, const char *, unsigned int, const char *)
{
    throw device_assert{expr};
}
[[noreturn]] static void stub_trap(void) { throw std::runtime_error("trap"); }

#ifdef PYEMU_MODULE_BINDING
// The module imports nothing: the core hands it a table of entry points and
// where the worker's pyemu_thread_ctx lies from the thread pointer.
PYEMU_MODULE_BINDING
static __thread pyemu_thread_ctx harness_tctx;
[[noreturn]] static void stub_barrier_diverged(const char *, unsigned int, unsigned int) { stub_trap(); }
static void bind_core()
{
    static pyemu_core_api api;
    api.abi_version = PYEMU_ABI_VERSION;
    api.tctx_offset = (long)((char *)&harness_tctx - (char *)__builtin_thread_pointer());
    api.barrier = stub_barrier;
    api.barrier_reduce = stub_barrier_reduce;
    api.barrier_diverged = stub_barrier_diverged;
    api.first_thread_done = stub_first_thread_done;
    api.printf = stub_printf;
    api.assert_fail = stub_assert_fail;
    api.trap = stub_trap;
    pyemu_bind(&api);
}
#else
// The module links against the core's symbols.
__thread pyemu_thread_ctx pyemu_tctx;
void pyemu_barrier(const char *site) { stub_barrier(site); }
int pyemu_barrier_reduce(const char *site, int pred, int op) { return stub_barrier_reduce(site, pred, op); }
int pyemu_first_thread_done(void) { return stub_first_thread_done(); }
int pyemu_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vprintf(fmt, ap);
    va_end(ap);
    return n;
}
void pyemu_assert_fail(const char *expr, const char *file, unsigned int line, const char *func)
{
    stub_assert_fail(expr, file, line, func);
}
void pyemu_trap(void) { stub_trap(); }
static void bind_core() {}
#endif

// Binds before anything else runs (the harness' own static checks included).
static const int core_bound = (bind_core(), 1);

// ---- checking ---------------------------------------------------------------

static int checks, failures;

#define CHECK(cond)                                                              \
    do {                                                                         \
        checks++;                                                                \
        if (!(cond)) {                                                           \
            failures++;                                                          \
            fprintf(stdout, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);     \
        }                                                                        \
    } while (0)

// Exact equality of value and type: both sides converted to T.
#define CHECK_EQ(T, got, want)                                                   \
    do {                                                                         \
        checks++;                                                                \
        T g_ = (got), w_ = (want);                                               \
        if (!(g_ == w_)) {                                                       \
            failures++;                                                          \
            fprintf(stdout, "FAIL %s:%d: %s == %s (got %.17g, want %.17g)\n",  \
                    __FILE__, __LINE__, #got, #want, (double)g_, (double)w_);    \
        }                                                                        \
    } while (0)

// Distance in units in the last place, for same-signed finite values.
static long long ulps(float a, float b) { return llabs((long long)__float_as_int(a) - __float_as_int(b)); }
static long long ulps(double a, double b)
{
    long long d = __double_as_longlong(a) - __double_as_longlong(b);
    return d < 0 ? -d : d;
}
#define CHECK_ULP(got, want, n)                                                  \
    do {                                                                         \
        checks++;                                                                \
        auto g_ = (got);                                                         \
        decltype(g_) w_ = (want);                                                \
        if (!(ulps(g_, w_) <= (n))) {                                            \
            failures++;                                                          \
            fprintf(stdout, "FAIL %s:%d: %s ~ %s (got %.17g, want %.17g, %lld ulp)\n", \
                    __FILE__, __LINE__, #got, #want, (double)g_, (double)w_, ulps(g_, w_)); \
        }                                                                        \
    } while (0)

// ---- vector types -----------------------------------------------------------

template <class V, size_t Size, size_t Align>
constexpr bool layout_is()
{
    return sizeof(V) == Size && alignof(V) == Align && std::is_trivial<V>::value &&
           std::is_standard_layout<V>::value;
}
static_assert(std::is_same<uint3, pyemu_uint3>::value, "uint3 is the abi's type");
static_assert(std::is_same<std::remove_reference<decltype(threadIdx)>::type, pyemu_uint3>::value, "");
static_assert(layout_is<char1, 1, 1>() && layout_is<char2, 2, 2>() && layout_is<char3, 3, 1>() && layout_is<char4, 4, 4>(), "");
static_assert(layout_is<uchar1, 1, 1>() && layout_is<uchar2, 2, 2>() && layout_is<uchar3, 3, 1>() && layout_is<uchar4, 4, 4>(), "");
static_assert(layout_is<short1, 2, 2>() && layout_is<short2, 4, 4>() && layout_is<short3, 6, 2>() && layout_is<short4, 8, 8>(), "");
static_assert(layout_is<ushort1, 2, 2>() && layout_is<ushort2, 4, 4>() && layout_is<ushort3, 6, 2>() && layout_is<ushort4, 8, 8>(), "");
static_assert(layout_is<int1, 4, 4>() && layout_is<int2, 8, 8>() && layout_is<int3, 12, 4>() && layout_is<int4, 16, 16>(), "");
static_assert(layout_is<uint1, 4, 4>() && layout_is<uint2, 8, 8>() && layout_is<uint3, 12, 4>() && layout_is<uint4, 16, 16>(), "");
static_assert(layout_is<long1, 8, 8>() && layout_is<long2, 16, 16>() && layout_is<long3, 24, 8>() && layout_is<long4, 32, 16>(), "");
static_assert(layout_is<ulong1, 8, 8>() && layout_is<ulong2, 16, 16>() && layout_is<ulong3, 24, 8>() && layout_is<ulong4, 32, 16>(), "");
static_assert(layout_is<longlong1, 8, 8>() && layout_is<longlong2, 16, 16>() && layout_is<longlong3, 24, 8>() && layout_is<longlong4, 32, 16>(), "");
static_assert(layout_is<ulonglong1, 8, 8>() && layout_is<ulonglong2, 16, 16>() && layout_is<ulonglong3, 24, 8>() && layout_is<ulonglong4, 32, 16>(), "");
static_assert(layout_is<float1, 4, 4>() && layout_is<float2, 8, 8>() && layout_is<float3, 12, 4>() && layout_is<float4, 16, 16>(), "");
static_assert(layout_is<double1, 8, 8>() && layout_is<double2, 16, 16>() && layout_is<double3, 24, 8>() && layout_is<double4, 32, 16>(), "");
static_assert(std::is_same<decltype(char1::x), signed char>::value, "CUDA's char1 holds a signed char");
static_assert(sizeof(dim3) == 12, "");
static_assert(dim3(4).y == 1 && dim3(4, 5).z == 1 && dim3().x == 1, "");
static_assert(__float_as_uint(1.0f) == 0x3f800000u, "bit casts are constant expressions");

// __shared__ arrays of vector types are static __thread.
__shared__ float4 shared_f4[64];
__shared__ double2 shared_d2[8];
__shared__ unsigned int shared_counter;

static void test_vector_types()
{
    float4 f = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
    CHECK(f.x == 1.0f && f.y == 2.0f && f.z == 3.0f && f.w == 4.0f);
    uint3 u = make_uint3(7, 8, 9);
    dim3 d(u);
    CHECK(d.x == 7 && d.y == 8 && d.z == 9);
    dim3 grid(10, 20);
    uint3 back = grid;
    CHECK(back.x == 10 && back.y == 20 && back.z == 1);
    blockDim = make_uint3(32, 4, 1);
    dim3 bd = blockDim;
    CHECK(bd.x == 32 && bd.y == 4 && bd.z == 1);
    CHECK(make_char4(-1, 2, 3, 4).x == -1 && make_ulonglong2(1, ~0ull).y == ~0ull);
    CHECK(make_double3(0.5, 1.5, 2.5).z == 2.5 && make_short1(-3).x == -3);
    CHECK(((uintptr_t)&shared_f4[1] & 15) == 0 && ((uintptr_t)&shared_d2[1] & 15) == 0);
    shared_f4[3] = f;
    CHECK(shared_f4[3].w == 4.0f);

    // helper_math.h
    float3 a = make_float3(1, 2, 3), b = make_float3(4, 5, 6);
    float3 c = a + b * 2.0f - 1.0f;
    CHECK(c.x == 8.0f && c.y == 11.0f && c.z == 14.0f);
    CHECK(dot(a, b) == 32.0f);
    float3 e = cross(make_float3(1, 0, 0), make_float3(0, 1, 0));
    CHECK(e.x == 0.0f && e.y == 0.0f && e.z == 1.0f);
    CHECK(length(make_float2(3, 4)) == 5.0f);
    float4 n = normalize(make_float4(0, 0, 3, 4));
    CHECK(fabsf(n.z - 0.6f) < 1e-6f && fabsf(n.w - 0.8f) < 1e-6f);
    CHECK(lerp(0.0f, 10.0f, 0.25f) == 2.5f);
    int2 i2 = clamp(make_int2(-5, 50), 0, 10);
    CHECK(i2.x == 0 && i2.y == 10);
    float2 g = make_float2(1, 2);
    g += make_float2(1, 1);
    g *= 3.0f;
    CHECK(g.x == 6.0f && g.y == 9.0f);
    int4 h = make_int4(1, 2, 3, 4) * 2 / make_int4(2);
    CHECK(h.x == 1 && h.w == 4);
    uint3 t = make_uint3(1, 2, 3) + make_uint3(1u);
    CHECK(t.z == 4u);
}

// ---- math functions ---------------------------------------------------------

static void test_math()
{
    CHECK_EQ(float, rsqrtf(4.0f), 0.5f);
    CHECK_EQ(float, rsqrtf(0.0f), INFINITY);
    CHECK_EQ(double, rsqrt(0.25), 2.0);
    CHECK_EQ(float, rsqrt(16.0f), 0.25f);
    CHECK_EQ(float, rcbrtf(8.0f), 0.5f);
    CHECK_EQ(double, rcbrt(-27.0), -1.0 / 3.0);

    float s, c;
    sincosf(0.5f, &s, &c);
    CHECK_ULP(s, sinf(0.5f), 0);
    CHECK_ULP(c, cosf(0.5f), 0);
    double sd, cd;
    sincos(1.0, &sd, &cd);
    CHECK_ULP(sd, 0.8414709848078965, 1);
    __sincosf(2.0f, &s, &c);
    CHECK_ULP(s, 0.9092974268f, 1);
    sincos(3.0f, &s, &c); // CUDA's float overload
    CHECK_ULP(c, -0.9899924966f, 1);

    sincospif(0.5f, &s, &c);
    CHECK(s == 1.0f && c == 0.0f && !signbit(c));
    CHECK_EQ(float, sinpif(1.0f), 0.0f);
    CHECK_EQ(double, sinpi(1e300), 0.0);       // an even integer: exactly 0
    CHECK_EQ(double, cospi(1e300), 1.0);
    CHECK_EQ(double, sinpi(-1.5), 1.0);
    CHECK_EQ(double, cospi(1.0), -1.0);
    CHECK_EQ(double, sinpi(0.5 + 4096.0), 1.0);
    CHECK_ULP(sinpif(0.25f), 0.70710678f, 1);
    CHECK_ULP(sinpi(1.0 / 6.0), 0.5, 1);
    CHECK_ULP(cospi(1.0 / 3.0), 0.5, 1);
    CHECK_ULP(sinpif(1e-20f), 3.14159265e-20f, 1);
    CHECK(isnan(sinpi(INFINITY)) && isnan(cospif(NAN)));
    double spi, cpi;
    sincospi(2.25, &spi, &cpi);
    CHECK_ULP(spi, M_SQRT1_2, 1);
    CHECK_ULP(cpi, M_SQRT1_2, 1);

    CHECK_EQ(float, exp10f(2.0f), 100.0f);
    CHECK_EQ(float, exp10(3.0f), 1000.0f);
    CHECK_EQ(float, __exp10f(-1.0f), 0.1f);
    CHECK_EQ(float, norm3df(3, 4, 12), 13.0f);
    CHECK_EQ(float, norm4df(2, 4, 5, 6), 9.0f);
    CHECK_EQ(float, rnorm3df(3, 4, 12), 1.0f / 13.0f);
    CHECK_EQ(double, norm3d(1e300, 1e300, 0), 1e300 * M_SQRT2);
    CHECK_ULP(norm4d(1e-300, 1e-300, 1e-300, 1e-300), 2e-300, 1);
    CHECK_EQ(double, rnorm4d(1, 1, 1, 1), 0.5);
    CHECK_EQ(float, rhypotf(3, 4), 0.2f);
    CHECK_EQ(double, rhypot(0.6, 0.8), 1.0);
    float v5[5] = {1, 2, 4, 6, 8};
    CHECK_EQ(float, normf(5, v5), 11.0f);
    CHECK_EQ(float, rnormf(5, v5), 1.0f / 11.0f);
    double vd[3] = {3e200, 4e200, 12e200};
    CHECK_ULP(norm(3, vd), 13e200, 1);
    CHECK_ULP(rnorm(3, vd), 1.0 / 13e200, 2);
    double vi[2] = {1.0, -INFINITY};
    CHECK_EQ(double, norm(2, vi), INFINITY);
    CHECK_EQ(float, fdividef(1.0f, 4.0f), 0.25f);

    CHECK_ULP(erfinv(0.5), 0.47693627620446987, 2);
    CHECK_ULP(erfinv(0.999999), 3.4589107372754988, 2);
    CHECK_ULP(erfinvf(-0.5f), -0.47693628f, 1);
    CHECK(erfinv(1.0) == INFINITY && erfinv(-1.0) == -INFINITY && isnan(erfinv(1.5)));
    CHECK(erfinv(-0.0) == 0.0 && signbit(erfinv(-0.0)));
    CHECK(erfcinv(0.0) == INFINITY && erfcinv(2.0) == -INFINITY && erfcinv(1.0) == 0.0);
    int bad = 0;
    for (int i = 1; i < 1000; i++) { // erf(erfinv(x)) == x, to rounding
        double x = i / 1000.0, y = erfinv(x);
        if (fabs(erf(y) - x) > 4e-16 * x + 1e-17 || erfinv(-x) != -y)
            bad++;
        float xf = (float)x;
        if (ulps(erfinvf(xf), (float)erfinv((double)xf)) > 0)
            bad++;
    }
    for (double y = 1e-300; y < 2.0; y *= 1.7) { // erfc(erfcinv(y)) == y, to rounding of t
        double t = erfcinv(y), back = erfc(t);
        // d log(erfc(t)) / dt is about -2t: an ulp of t moves erfc(t) by 2 t^2 eps
        double tol = (4.0 * t * t + 4.0) * DBL_EPSILON;
        if (fabs(back - y) > tol * y)
            bad++;
    }
    CHECK_EQ(int, bad, 0);

    CHECK_ULP(erfcx(30.0), 0.018795888861416751, 2);
    CHECK_ULP(erfcx(3.0), 0.17900115118138995, 4);
    CHECK_ULP(erfcx(-2.0), 108.94090438997797, 4);
    CHECK_ULP(erfcxf(30.0f), 0.018795889f, 1);
    CHECK(erfcx(INFINITY) == 0.0 && erfcx(-30.0) == INFINITY);
    CHECK_ULP(normcdf(-30.0), 4.9067139271481871e-198, 8);
    CHECK_ULP(normcdf(1.0), 0.84134474606854295, 2);
    CHECK_ULP(normcdff(1.0f), 0.84134475f, 1);
    CHECK_ULP(normcdfinv(0.975), 1.9599639845400542, 2);
    CHECK_ULP(normcdfinvf(0.025f), -1.959963985f, 1);
    CHECK_ULP(cyl_bessel_i0(1.0), 1.2660658777520083, 4);
    CHECK_ULP(cyl_bessel_i1(-2.0), -1.5906368546373291, 4);
    CHECK_ULP(cyl_bessel_i0f(1.0f), 1.2660658777f, 1);
}

// ---- fast intrinsics and rounding modes --------------------------------------

static void test_intrinsics()
{
    CHECK_ULP(__sinf(1.0f), sinf(1.0f), 0);
    CHECK_ULP(__expf(1.0f), 2.7182817f, 1);
    CHECK_ULP(__logf(2.0f), 0.6931472f, 1);
    CHECK_EQ(float, __log2f(8.0f), 3.0f);
    CHECK_EQ(float, __log10f(1000.0f), 3.0f);
    CHECK_EQ(float, __powf(2.0f, 10.0f), 1024.0f);
    CHECK_EQ(float, __fdividef(3.0f, 4.0f), 0.75f);
    CHECK_EQ(float, __saturatef(2.0f), 1.0f);
    CHECK_EQ(float, __saturatef(-2.0f), 0.0f);
    CHECK_EQ(float, __saturatef(0.25f), 0.25f);
    CHECK_EQ(float, __saturatef(NAN), 0.0f);

    // rounded arithmetic
    const float up1 = nextafterf(1.0f, 2.0f), dn1 = nextafterf(1.0f, 0.0f);
    CHECK_EQ(float, __fadd_rn(1.0f, 1e-10f), 1.0f);
    CHECK_EQ(float, __fadd_ru(1.0f, 1e-10f), up1);
    CHECK_EQ(float, __fadd_rd(1.0f, 1e-10f), 1.0f);
    CHECK_EQ(float, __fadd_rz(-1.0f, -1e-10f), -1.0f);
    CHECK_EQ(float, __fadd_rd(-1.0f, -1e-10f), -up1);
    CHECK_EQ(float, __fsub_rd(1.0f, 1e-10f), dn1);
    CHECK_EQ(float, __fsub_rz(1.0f, 1e-10f), dn1);
    CHECK(__fdiv_ru(1.0f, 3.0f) == nextafterf(__fdiv_rd(1.0f, 3.0f), 1.0f));
    CHECK(__fdiv_rz(1.0f, 3.0f) == __fdiv_rd(1.0f, 3.0f));
    CHECK(__frcp_ru(3.0f) == nextafterf(__frcp_rz(3.0f), 1.0f));
    CHECK(__fsqrt_ru(2.0f) == nextafterf(__fsqrt_rd(2.0f), 2.0f));
    CHECK_EQ(float, __fsqrt_rn(2.0f), sqrtf(2.0f));
    CHECK_EQ(float, __fmul_rz(FLT_MAX, 2.0f), FLT_MAX);
    CHECK_EQ(float, __fmul_rn(FLT_MAX, 2.0f), INFINITY);
    CHECK_EQ(float, __fmul_rd(-FLT_MAX, 2.0f), -INFINITY);
    CHECK_EQ(float, __fmaf_ru(1.0f, 1.0f, 1e-10f), up1);
    CHECK_EQ(float, __fmaf_rn(up1, up1, -1.0f), 2 * FLT_EPSILON + FLT_EPSILON * FLT_EPSILON);
    CHECK_EQ(float, __frsqrt_rn(4.0f), 0.5f);
    CHECK_EQ(double, __dadd_ru(1.0, 1e-20), nextafter(1.0, 2.0));
    CHECK_EQ(double, __dadd_rz(1.0, 1e-20), 1.0);
    CHECK_EQ(double, __dmul_rd(1.0 / 3.0, 3.0), nextafter(1.0, 0.0));
    CHECK_EQ(double, __dmul_rn(1.0 / 3.0, 3.0), 1.0);
    CHECK(__ddiv_ru(1.0, 3.0) == nextafter(__ddiv_rd(1.0, 3.0), 1.0));
    CHECK(__drcp_rd(3.0) == __ddiv_rz(1.0, 3.0));
    CHECK(__dsqrt_ru(2.0) == nextafter(__dsqrt_rd(2.0), 2.0));
    CHECK_EQ(double, __fma_ru(1.0, 1.0, 1e-30), nextafter(1.0, 2.0));
    CHECK_EQ(double, __fma_rd(1.0, 1.0, -1e-30), nextafter(1.0, 0.0));
    CHECK_EQ(double, __dsub_rz(0.0, 0.0), 0.0);
    CHECK(fegetround() == FE_TONEAREST); // the mode is restored
    CHECK_EQ(float, 1.0f + 1e-10f, 1.0f);

    // float to integer: rounding, saturation, NaN
    CHECK_EQ(int, __float2int_rn(2.5f), 2);
    CHECK_EQ(int, __float2int_rn(3.5f), 4);
    CHECK_EQ(int, __float2int_rn(-2.5f), -2);
    CHECK_EQ(int, __float2int_rn(-2.6f), -3);
    CHECK_EQ(int, __float2int_rz(-2.7f), -2);
    CHECK_EQ(int, __float2int_ru(2.1f), 3);
    CHECK_EQ(int, __float2int_ru(-2.9f), -2);
    CHECK_EQ(int, __float2int_rd(-2.1f), -3);
    CHECK_EQ(int, __float2int_rn(3e9f), INT_MAX);
    CHECK_EQ(int, __float2int_rz(-3e9f), INT_MIN);
    CHECK_EQ(int, __float2int_rn(NAN), 0);
    CHECK_EQ(int, __float2int_rn(-INFINITY), INT_MIN);
    CHECK_EQ(unsigned, __float2uint_rn(-1.0f), 0u);
    CHECK_EQ(unsigned, __float2uint_rn(5e9f), UINT_MAX);
    CHECK_EQ(unsigned, __float2uint_rd(4294967040.0f), 4294967040u);
    CHECK_EQ(long long, __float2ll_rn(1e19f), LLONG_MAX);
    CHECK_EQ(long long, __float2ll_rn(-1e19f), LLONG_MIN);
    CHECK_EQ(long long, __float2ll_rd(-0.5f), -1LL);
    CHECK_EQ(unsigned long long, __float2ull_ru(0.5f), 1ull);
    CHECK_EQ(unsigned long long, __float2ull_rn(1e20f), ULLONG_MAX);
    CHECK_EQ(int, __double2int_rn(0.5), 0);
    CHECK_EQ(int, __double2int_rn(1.5), 2);
    CHECK_EQ(int, __double2int_rz(2147483647.9), INT_MAX);
    CHECK_EQ(int, __double2int_ru(2147483647.1), INT_MAX);
    CHECK_EQ(unsigned, __double2uint_rd(4294967295.5), UINT_MAX);
    CHECK_EQ(long long, __double2ll_rn(-4.5), -4LL);
    CHECK_EQ(unsigned long long, __double2ull_rz(1e300), ULLONG_MAX);

    // integer to float
    CHECK_EQ(float, __int2float_rn(16777217), 16777216.0f);
    CHECK_EQ(float, __int2float_rz(16777219), 16777218.0f);
    CHECK_EQ(float, __int2float_ru(16777217), 16777218.0f);
    CHECK_EQ(float, __int2float_rd(-16777217), -16777218.0f);
    CHECK_EQ(float, __int2float_rz(-16777217), -16777216.0f);
    CHECK_EQ(float, __uint2float_ru(4294967295u), 4294967296.0f);
    CHECK_EQ(float, __uint2float_rz(4294967295u), 4294967040.0f);
    CHECK_EQ(float, __ll2float_rd(-1LL), -1.0f);
    CHECK_EQ(float, __ull2float_rn(~0ull), 18446744073709551616.0f);
    CHECK_EQ(double, __ll2double_ru((1LL << 53) + 1), 9007199254740994.0);
    CHECK_EQ(double, __ull2double_rd((1ull << 53) + 1), 9007199254740992.0);
    CHECK_EQ(double, __int2double_rn(-7), -7.0);
    CHECK_EQ(double, __uint2double_rn(4000000000u), 4e9);
    CHECK_EQ(float, __double2float_rn(1.0 / 3.0), 1.0f / 3.0f);
    CHECK_EQ(float, __double2float_rz(1e300), FLT_MAX);
    CHECK_EQ(float, __double2float_ru(1e-300), 1.4e-45f);
    CHECK_EQ(float, __double2float_rd(-1e-300), -1.4e-45f);
    CHECK(fegetround() == FE_TONEAREST);

    // bits
    CHECK_EQ(int, __float_as_int(1.0f), 0x3f800000);
    CHECK_EQ(int, __float_as_int(-0.0f), INT_MIN);
    CHECK_EQ(float, __int_as_float(0x40490fdb), 3.14159274f);
    CHECK_EQ(unsigned, __float_as_uint(-2.0f), 0xc0000000u);
    CHECK_EQ(float, __uint_as_float(0x3f000000u), 0.5f);
    CHECK_EQ(long long, __double_as_longlong(1.0), 0x3ff0000000000000LL);
    CHECK_EQ(double, __longlong_as_double(0x4000000000000000LL), 2.0);
    CHECK_EQ(int, __double2hiint(-2.0), (int)0xc0000000);
    CHECK_EQ(int, __double2loint(__longlong_as_double(0x00000001deadbeefLL)), (int)0xdeadbeef);
    CHECK_EQ(double, __hiloint2double(0x3ff00000, 1), 1.0 + DBL_EPSILON);
    CHECK_EQ(double, __hiloint2double((int)0xbff00000, (int)0x80000000), -(1.0 + 2147483648.0 * DBL_EPSILON));

    // math_constants.h
    CHECK(isinf(CUDART_INF_F) && CUDART_INF_F > 0 && isinf(CUDART_INF) && CUDART_INF > 0);
    CHECK(isnan(CUDART_NAN_F) && __float_as_uint(CUDART_NAN_F) == 0x7fffffffu && isnan(CUDART_NAN));
    CHECK(CUDART_NEG_ZERO_F == 0.0f && signbit(CUDART_NEG_ZERO_F) && signbit(CUDART_NEG_ZERO));
    CHECK_EQ(float, CUDART_PI_F, (float)M_PI);
    CHECK_EQ(double, CUDART_PI, M_PI);
    CHECK_EQ(double, CUDART_PI_HI + CUDART_PI_LO, M_PI);
    CHECK_EQ(float, CUDART_SQRT_HALF_F, (float)M_SQRT1_2);
    CHECK_EQ(float, CUDART_L2E_F, (float)M_LOG2E);
    CHECK_EQ(double, CUDART_LN2, M_LN2);
    CHECK_EQ(double, CUDART_LNT, M_LN10);
    CHECK_EQ(double, CUDART_SQRT_2OPI, M_2_SQRTPI * M_SQRT1_2);
    CHECK_EQ(float, CUDART_MAX_NORMAL_F, FLT_MAX);
    CHECK_EQ(float, CUDART_MIN_DENORM_F, 1.4e-45f);
    CHECK_EQ(double, CUDART_MIN_DENORM, 4.9406564584124654e-324);
    CHECK_EQ(float, CUDART_TWO_TO_M126_F, FLT_MIN);
    CHECK_EQ(unsigned, CUDART_REMQUO_MASK_F, 7u);
}

// ---- integer intrinsics, min and max, clock ---------------------------------

static void test_integer()
{
    CHECK_EQ(int, __popc(0xffffffffu), 32);
    CHECK_EQ(int, __popc(0x80000001u), 2);
    CHECK_EQ(int, __popcll(~0ull), 64);
    CHECK_EQ(int, __clz(0), 32);
    CHECK_EQ(int, __clz(1), 31);
    CHECK_EQ(int, __clz(-1), 0);
    CHECK_EQ(int, __clzll(0), 64);
    CHECK_EQ(int, __clzll(1LL << 40), 23);
    CHECK_EQ(int, __ffs(0), 0);
    CHECK_EQ(int, __ffs(8), 4);
    CHECK_EQ(int, __ffs(INT_MIN), 32);
    CHECK_EQ(int, __ffsll(1LL << 40), 41);
    CHECK_EQ(unsigned, __brev(1u), 0x80000000u);
    CHECK_EQ(unsigned, __brev(0x12345678u), 0x1e6a2c48u);
    CHECK_EQ(unsigned long long, __brevll(1ull), 1ull << 63);
    CHECK_EQ(unsigned long long, __brevll(0x0123456789abcdefull), 0xf7b3d591e6a2c480ull);
    CHECK_EQ(int, __mul24(0x00ffffff, 2), -2);           // 0xffffff is -1 in 24 bits
    CHECK_EQ(int, __mul24(0x7fffff, 0x7fffff), (int)0xff000001);
    CHECK_EQ(int, __mul24(0x12000003, 5), 15);          // the high byte is ignored
    CHECK_EQ(unsigned, __umul24(0x1ffffffu, 2u), 0x1fffffeu);
    CHECK_EQ(int, __mulhi(-1, 1), -1);
    CHECK_EQ(int, __mulhi(0x40000000, 8), 2);
    CHECK_EQ(unsigned, __umulhi(0xffffffffu, 0xffffffffu), 0xfffffffeu);
    CHECK_EQ(long long, __mul64hi(-1LL, 1LL), -1LL);
    CHECK_EQ(long long, __mul64hi(1LL << 62, 8LL), 2LL);
    CHECK_EQ(unsigned long long, __umul64hi(~0ull, ~0ull), ~0ull - 1);
    CHECK_EQ(unsigned, __sad(-5, 3, 10u), 18u);
    CHECK_EQ(unsigned, __sad(INT_MIN, INT_MAX, 0u), 0xffffffffu);
    CHECK_EQ(unsigned, __usad(3u, 10u, 1u), 8u);
    CHECK_EQ(int, __hadd(INT_MAX, INT_MAX), INT_MAX);
    CHECK_EQ(int, __hadd(-3, 0), -2);
    CHECK_EQ(int, __rhadd(-3, 0), -1);
    CHECK_EQ(int, __rhadd(INT_MAX, INT_MAX), INT_MAX);
    CHECK_EQ(unsigned, __uhadd(UINT_MAX, UINT_MAX), UINT_MAX);
    CHECK_EQ(unsigned, __urhadd(UINT_MAX, 0u), 0x80000000u);
    CHECK_EQ(unsigned, __byte_perm(0x33221100u, 0x77665544u, 0x3210u), 0x33221100u);
    CHECK_EQ(unsigned, __byte_perm(0x33221100u, 0x77665544u, 0x7531u), 0x77553311u);
    CHECK_EQ(unsigned, __byte_perm(0x33221100u, 0x77665544u, 0x5432u), 0x55443322u);
    CHECK_EQ(unsigned, __byte_perm(0x33221100u, 0x77665544u, 0xffff0123u), 0x00112233u);
    CHECK_EQ(unsigned, __byte_perm(0x33221100u, 0x77665544u, 0x000bu), 0x00000033u); // 3 bits per selector
    CHECK_EQ(unsigned, __funnelshift_l(0x80000000u, 1u, 1u), 3u);
    CHECK_EQ(unsigned, __funnelshift_l(0x80000000u, 1u, 33u), 3u);
    CHECK_EQ(unsigned, __funnelshift_lc(0x80000000u, 1u, 33u), 0x80000000u);
    CHECK_EQ(unsigned, __funnelshift_l(0xdeadbeefu, 0x12345678u, 0u), 0x12345678u);
    CHECK_EQ(unsigned, __funnelshift_r(2u, 1u, 1u), 0x80000001u);
    CHECK_EQ(unsigned, __funnelshift_r(2u, 1u, 32u), 2u);
    CHECK_EQ(unsigned, __funnelshift_rc(2u, 1u, 40u), 1u);

    // min/max: CUDA's overloads; a signed and an unsigned operand compare as unsigned
    static_assert(std::is_same<decltype(min(1, 2)), int>::value, "");
    static_assert(std::is_same<decltype(min(1, 2u)), unsigned int>::value, "");
    static_assert(std::is_same<decltype(max(1u, 2)), unsigned int>::value, "");
    static_assert(std::is_same<decltype(min(1L, 2UL)), unsigned long>::value, "");
    static_assert(std::is_same<decltype(max(1LL, 2LL)), long long>::value, "");
    static_assert(std::is_same<decltype(max(1LL, 2ULL)), unsigned long long>::value, "");
    static_assert(std::is_same<decltype(min(1.0f, 2.0f)), float>::value, "");
    static_assert(std::is_same<decltype(min(1.0f, 2.0)), double>::value, "");
    static_assert(std::is_same<decltype(max(1.0, 2.0f)), double>::value, "");
    size_t sz = 5, sz2 = 7;
    CHECK_EQ(size_t, min(sz, sz2), 5u);
    CHECK_EQ(int, min(-3, 2), -3);
    CHECK_EQ(unsigned, min(-1, 1u), 1u);
    CHECK_EQ(unsigned, max(-1, 1u), 0xffffffffu);
    CHECK_EQ(long long, max(-1LL, -2LL), -1LL);
    CHECK_EQ(unsigned long long, min(-1LL, 5ULL), 5ull);
    CHECK_EQ(float, min(NAN, 1.0f), 1.0f);
    CHECK_EQ(double, max(2.0, 3.0f), 3.0);
    CHECK_EQ(unsigned, umin(3u, 4u), 3u);
    CHECK_EQ(unsigned, umax(3u, 4u), 4u);
    CHECK_EQ(long long, llmin(-3LL, 4LL), -3LL);
    CHECK_EQ(unsigned long long, ullmax(3ull, ~0ull), ~0ull);

    // the older spellings
    CHECK_EQ(unsigned, mulhi(-1, 2u), 1u);              // mixed: unsigned
    CHECK_EQ(int, mulhi(-1, 2), -1);
    CHECK_EQ(unsigned long long, mul64hi(~0ull, 2ull), 1ull);
    CHECK_EQ(int, mul24(0x00ffffff, 3), -3);
    CHECK_EQ(unsigned, umul24(0x1000002u, 3u), 6u);
    CHECK_EQ(int, float_as_int(2.0f), 0x40000000);
    CHECK_EQ(float, uint_as_float(0x3f800000u), 1.0f);
    CHECK_EQ(int, float2int(-2.5f, cudaRoundNearest), -2);
    CHECK_EQ(int, float2int(-2.5f, cudaRoundZero), -2);
    CHECK_EQ(int, float2int(-2.5f, cudaRoundMinInf), -3);
    CHECK_EQ(unsigned, float2uint(2.5f, cudaRoundPosInf), 3u);
    CHECK_EQ(float, int2float(16777217, cudaRoundPosInf), 16777218.0f);
    CHECK_EQ(float, uint2float(16777217u, cudaRoundZero), 16777216.0f);
    CHECK_EQ(float, saturate(1.5f), 1.0f);

    long long t0 = clock64(), t1 = clock64();
    CHECK(t1 >= t0 && t0 > 0);
    clock_t ct = clock();
    CHECK(ct >= 0);
}

// ---- atomics, one thread: values and return values ---------------------------

static void test_atomics_semantics()
{
    unsigned int u = 5;
    CHECK_EQ(unsigned, atomicInc(&u, 5u), 5u); // old >= val: wraps to 0
    CHECK_EQ(unsigned, u, 0u);
    u = 3;
    CHECK_EQ(unsigned, atomicInc(&u, 5u), 3u);
    CHECK_EQ(unsigned, u, 4u);
    u = 7;
    atomicInc(&u, 5u);
    CHECK_EQ(unsigned, u, 0u);
    u = 0xffffffffu;
    atomicInc(&u, 0xffffffffu);
    CHECK_EQ(unsigned, u, 0u);
    u = 0;
    CHECK_EQ(unsigned, atomicDec(&u, 5u), 0u); // old == 0: wraps to val
    CHECK_EQ(unsigned, u, 5u);
    u = 7;
    atomicDec(&u, 5u); // old > val: val
    CHECK_EQ(unsigned, u, 5u);
    u = 3;
    CHECK_EQ(unsigned, atomicDec(&u, 5u), 3u);
    CHECK_EQ(unsigned, u, 2u);

    int i = 10;
    CHECK_EQ(int, atomicAdd(&i, 5), 10);
    CHECK_EQ(int, atomicSub(&i, 20), 15);
    CHECK_EQ(int, i, -5);
    CHECK_EQ(int, atomicExch(&i, 42), -5);
    CHECK_EQ(int, atomicCAS(&i, 41, 0), 42); // fails: unchanged
    CHECK_EQ(int, i, 42);
    CHECK_EQ(int, atomicCAS(&i, 42, 7), 42); // succeeds
    CHECK_EQ(int, i, 7);
    CHECK_EQ(int, atomicMin(&i, -3), 7);
    CHECK_EQ(int, atomicMax(&i, 2), -3);
    CHECK_EQ(int, i, 2);
    CHECK_EQ(int, atomicAnd(&i, 3), 2);
    CHECK_EQ(int, atomicOr(&i, 12), 2);
    CHECK_EQ(int, atomicXor(&i, 5), 14);
    CHECK_EQ(int, i, 11);

    unsigned int v = 1;
    CHECK_EQ(unsigned, atomicSub(&v, 2u), 1u);
    CHECK_EQ(unsigned, v, 0xffffffffu);
    CHECK_EQ(unsigned, atomicMin(&v, 9u), 0xffffffffu);
    CHECK_EQ(unsigned, atomicMax(&v, 3u), 9u);
    CHECK_EQ(unsigned, atomicCAS(&v, 9u, 1u), 9u);
    CHECK_EQ(unsigned, v, 1u);

    unsigned long long q = 1ull << 40;
    CHECK_EQ(unsigned long long, atomicAdd(&q, 1ull << 40), 1ull << 40);
    CHECK_EQ(unsigned long long, atomicCAS(&q, 1ull << 41, 3ull), 1ull << 41);
    CHECK_EQ(unsigned long long, atomicExch(&q, ~0ull), 3ull);
    CHECK_EQ(unsigned long long, atomicAnd(&q, 0xf0ull), ~0ull);
    CHECK_EQ(unsigned long long, atomicMin(&q, 0x10ull), 0xf0ull);
    CHECK_EQ(unsigned long long, atomicMax(&q, 0x20ull), 0x10ull);
    CHECK_EQ(unsigned long long, atomicXor(&q, 0x21ull), 0x20ull);
    CHECK_EQ(unsigned long long, atomicOr(&q, 0x2ull), 0x1ull);
    CHECK_EQ(unsigned long long, q, 0x3ull);

    long long l = -1;
    CHECK_EQ(long long, atomicMin(&l, -5LL), -1LL);
    CHECK_EQ(long long, atomicMax(&l, 5LL), -5LL);
    CHECK_EQ(long long, l, 5LL);

    unsigned short h = 7;
    CHECK_EQ(unsigned, atomicCAS(&h, (unsigned short)7, (unsigned short)9), 7u);
    CHECK_EQ(unsigned, atomicCAS(&h, (unsigned short)7, (unsigned short)1), 9u);
    CHECK_EQ(unsigned, h, 9u);

    float f = 1.5f;
    CHECK_EQ(float, atomicAdd(&f, 2.25f), 1.5f);
    CHECK_EQ(float, atomicExch(&f, -1.0f), 3.75f);
    CHECK_EQ(float, f, -1.0f);
    double d = 0.5;
    CHECK_EQ(double, atomicAdd(&d, 0.25), 0.5);
    CHECK_EQ(double, d, 0.75);
    float2 f2 = make_float2(1, 2);
    float2 o2 = atomicAdd(&f2, make_float2(10, 20));
    CHECK(o2.x == 1 && o2.y == 2 && f2.x == 11 && f2.y == 22);
    float4 f4 = make_float4(1, 2, 3, 4);
    float4 o4 = atomicAdd(&f4, make_float4(1, 1, 1, 1));
    CHECK(o4.w == 4 && f4.x == 2 && f4.w == 5);

    // scoped forms
    int s = 0;
    CHECK_EQ(int, atomicAdd_block(&s, 3), 0);
    CHECK_EQ(int, atomicAdd_system(&s, 4), 3);
    CHECK_EQ(int, atomicCAS_block(&s, 7, 1), 7);
    CHECK_EQ(int, atomicExch_system(&s, 2), 1);
    CHECK_EQ(int, atomicMax_block(&s, 9), 2);
    CHECK_EQ(float, atomicAdd_block(&f, 1), -1.0f); // int converts to float
    unsigned sc = 0;
    CHECK_EQ(unsigned, atomicInc_system(&sc, 0u), 0u);
    CHECK_EQ(unsigned, atomicDec_block(&sc, 4u), 0u);
    CHECK_EQ(unsigned, sc, 4u);

    // __shared__ memory (static __thread)
    shared_counter = 0;
    atomicAdd(&shared_counter, 2u);
    atomicInc(&shared_counter, 100u);
    CHECK_EQ(unsigned, shared_counter, 3u);
}

// ---- atomics under contention: exact totals ---------------------------------

static void test_atomics_contention()
{
    const int nthreads = 8, iters = 100000;
    int isum = 0;
    unsigned int usum = 0, wrap = 0, bits = 0;
    unsigned long long big = 0, viacas = 0;
    float fsum = 0.0f;
    double dsum = 0.0;
    int imax = INT_MIN, imin = INT_MAX;
    int lock = 0;
    long long locked_counter = 0; // only touched under the atomicCAS spin lock
    std::atomic<int> start{0};

    auto worker = [&](int id) {
        start.fetch_add(1);
        while (start.load() < nthreads) {
        }
        for (int k = 0; k < iters; k++) {
            atomicAdd(&isum, 1);
            atomicAdd(&usum, 3u);
            atomicAdd(&big, 1ull << 33);
            atomicAdd(&fsum, 1.0f);        // exact while below 2^24
            atomicAdd(&dsum, 0.5);
            atomicSub(&isum, 2);
            atomicInc(&wrap, 999u);        // counts modulo 1000
            int val = id * iters + k;
            atomicMax(&imax, val);
            atomicMin(&imin, -val);
            unsigned long long old = viacas, seen;
            while ((seen = atomicCAS(&viacas, old, old + 7)) != old)
                old = seen;
            if (k % 64 == 0) {
                while (atomicCAS(&lock, 0, 1) != 0) {
                }
                locked_counter = locked_counter + 1;
                atomicExch(&lock, 0);
            }
        }
        atomicOr(&bits, 1u << id);
    };
    std::vector<std::thread> pool;
    for (int t = 0; t < nthreads; t++)
        pool.emplace_back(worker, t);
    for (auto &th : pool)
        th.join();

    const long long n = (long long)nthreads * iters;
    CHECK_EQ(long long, isum, -n);
    CHECK_EQ(unsigned, usum, (unsigned)(3 * n));
    CHECK_EQ(unsigned long long, big, (unsigned long long)n << 33);
    CHECK_EQ(float, fsum, (float)n);
    CHECK_EQ(double, dsum, 0.5 * n);
    CHECK_EQ(unsigned, wrap, (unsigned)(n % 1000));
    CHECK_EQ(int, imax, (int)n - 1);
    CHECK_EQ(int, imin, -((int)n - 1));
    CHECK_EQ(unsigned long long, viacas, 7ull * n);
    CHECK_EQ(long long, locked_counter, nthreads * ((iters + 63) / 64));
    CHECK_EQ(unsigned, bits, (1u << nthreads) - 1);
}

// ---- device assert -------------------------------------------------------------

static int assert_fires(int value)
{
    try {
        assert(value == 1);
    } catch (const device_assert &a) {
        return a.expr == "value == 1" ? 1 : -1;
    }
    return 0;
}
#define NDEBUG
#include <assert.h>
static int assert_fires_ndebug(int value)
{
    (void)value; // assert(...) expands to nothing
    try {
        assert(value == 1);
    } catch (const device_assert &) {
        return 1;
    }
    return 0;
}
#undef NDEBUG
#include <cassert>
static int assert_fires_again(int value)
{
    try {
        assert(value == 1);
    } catch (const device_assert &) {
        return 1;
    }
    return 0;
}

static void test_assert()
{
    CHECK_EQ(int, assert_fires(1), 0);
    CHECK_EQ(int, assert_fires(2), 1);   // pyemu_assert_fail, not glibc's abort
    CHECK_EQ(int, assert_fires_ndebug(2), 0);
    CHECK_EQ(int, assert_fires_again(2), 1);
    bool trapped = false;
    try {
        __trap();
    } catch (const std::runtime_error &) {
        trapped = true;
    }
    CHECK(trapped);
}

int main()
{
    CHECK(core_bound == 1);
    test_vector_types();
    test_math();
    test_intrinsics();
    test_integer();
    test_atomics_semantics();
    test_atomics_contention();
    test_assert();
    printf("harness: %d checks, %d failed\n", checks, failures);
    return failures != 0;
}
