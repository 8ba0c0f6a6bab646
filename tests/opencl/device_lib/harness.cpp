// Standalone checks of pyemu's OpenCL C device header (include/pyemu/opencl_device.h):
// vector types and swizzles, conversions, the built-in functions, atomics under
// contention, async copies and printf, against known values, without the core.
//
// Build: g++ -std=c++17 -O3 -march=native -pthread -Iinclude tests/opencl/device_lib/harness.cpp
// Prints one line per failed check and "harness: N checks, 0 failed" at the end;
// exits 1 if any check failed.
//
// The C++ headers come first: the device header defines `local`, `global`,
// `private`, `abs` and `printf`, as an OpenCL C source expects.
#include <atomic>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <pyemu/opencl_device.h>

// ---- stubs of what the core provides (abi.h) --------------------------------

static std::string printed;   // what device printf sent to the core
static int barriers;          // how many barriers were reached
static void stub_barrier(const char *) { barriers++; }
static int stub_barrier_reduce(const char *, int pred, int) { return pred; }
static int stub_first_thread_done(void) { return 1; }
static int stub_printf(const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    printed += buf;
    return n;
}
[[noreturn]] static void stub_assert_fail(const char *, const char *, unsigned int, const char *) { abort(); }
[[noreturn]] static void stub_trap(void) { abort(); }
[[noreturn]] static void stub_barrier_diverged(const char *, unsigned int, unsigned int) { abort(); }

PYEMU_MODULE_BINDING
static __thread pyemu_thread_ctx harness_tctx;
#pragma push_macro("printf")   // the table's member, not OpenCL's printf
#undef printf
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
#pragma pop_macro("printf")
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

// Exact equality of value (and bits, for floats: -0 is not +0, NaN is NaN) after conversion to T.
template <class T> static bool same(T a, T b)
{
    if constexpr (std::is_floating_point<T>::value)
        return (a != a && b != b) || (a == b && std::signbit(a) == std::signbit(b));
    else
        return a == b;
}
#define CHECK_EQ(T, got, want)                                                   \
    do {                                                                         \
        checks++;                                                                \
        T g_ = (got), w_ = (want);                                               \
        if (!same<T>(g_, w_)) {                                                  \
            failures++;                                                          \
            fprintf(stdout, "FAIL %s:%d: %s == %s (got %.17g, want %.17g)\n",  \
                    __FILE__, __LINE__, #got, #want, (double)g_, (double)w_);    \
        }                                                                        \
    } while (0)
// Every component of a vector.
#define CHECK_VEC(V, got, ...)                                                   \
    do {                                                                         \
        checks++;                                                                \
        V g_ = (got), w_ = V(__VA_ARGS__);                                       \
        for (int i_ = 0; i_ < vec_step(V) && i_ < int(sizeof(V) / sizeof(g_.s0)); ++i_) \
            if (i_ < (int)pyemu_vt<V>::pyemu_n && !same(g_[i_], w_[i_])) {      \
                failures++;                                                      \
                fprintf(stdout, "FAIL %s:%d: %s component %d (got %.17g, want %.17g)\n", \
                        __FILE__, __LINE__, #got, i_, (double)g_[i_], (double)w_[i_]); \
                break;                                                           \
            }                                                                    \
    } while (0)
#define CHECK_NEAR(got, want, tol)                                               \
    do {                                                                         \
        checks++;                                                                \
        double g_ = (got), w_ = (want);                                          \
        if (!(std::fabs(g_ - w_) <= (tol))) {                                    \
            failures++;                                                          \
            fprintf(stdout, "FAIL %s:%d: %s ~ %s (got %.17g, want %.17g)\n",   \
                    __FILE__, __LINE__, #got, #want, g_, w_);                    \
        }                                                                        \
    } while (0)
#define CHECK_STR(got, want)                                                     \
    do {                                                                         \
        checks++;                                                                \
        std::string g_ = (got), w_ = (want);                                     \
        if (g_ != w_) {                                                          \
            failures++;                                                          \
            fprintf(stdout, "FAIL %s:%d: %s\n  got  \"%s\"\n  want \"%s\"\n",  \
                    __FILE__, __LINE__, #got, g_.c_str(), w_.c_str());           \
        }                                                                        \
    } while (0)

#define SAME_TYPE(a, b) static_assert(std::is_same<a, b>::value, #a " is " #b)

// ---- types (6.1) ------------------------------------------------------------

template <class V, size_t Size> constexpr bool layout_is()
{
    return sizeof(V) == Size && alignof(V) == Size && std::is_standard_layout<V>::value &&
           std::is_trivially_destructible<V>::value && std::is_trivially_copy_constructible<V>::value;
}
static_assert(layout_is<char2, 2>() && layout_is<char3, 4>() && layout_is<char16, 16>(), "");
static_assert(layout_is<uchar4, 4>() && layout_is<short8, 16>() && layout_is<ushort3, 8>(), "");
static_assert(layout_is<int3, 16>() && layout_is<int4, 16>() && layout_is<uint16, 64>(), "");
static_assert(layout_is<long2, 16>() && layout_is<ulong3, 32>() && layout_is<long16, 128>(), "");
static_assert(layout_is<float2, 8>() && layout_is<float3, 16>() && layout_is<float4, 16>(), "");
static_assert(layout_is<float8, 32>() && layout_is<float16, 64>(), "");
static_assert(layout_is<double3, 32>() && layout_is<double16, 128>(), "");
static_assert(sizeof(half) == 2 && sizeof(uchar) == 1 && sizeof(ushort) == 2 && sizeof(uint) == 4 &&
              sizeof(ulong) == 8 && sizeof(long) == 8, "OpenCL's scalar sizes");
SAME_TYPE(decltype(float4().x), float);
SAME_TYPE(decltype(float8().lo), float4);
SAME_TYPE(decltype(float16().hi.lo), float4);
SAME_TYPE(decltype(float4() < float4()), int4);
SAME_TYPE(decltype(double2() == double2()), long2);
SAME_TYPE(decltype(uchar4() > uchar4()), char4);
SAME_TYPE(decltype(!ushort8()), short8);
SAME_TYPE(decltype(float4() * 2.0f), float4);
SAME_TYPE(decltype(2 * int3()), int3);
SAME_TYPE(decltype(float4().xy + float4().zw), float2);
SAME_TYPE(decltype(convert_float4(int4())), float4);
SAME_TYPE(decltype(convert_uchar3_sat_rte(float3())), uchar3);
SAME_TYPE(decltype(as_int4(float4())), int4);
SAME_TYPE(decltype(vload4(0, (const float *)0)), float4);
SAME_TYPE(decltype(vload_half(0, (const half *)0)), float);
SAME_TYPE(decltype(vload_half8(0, (const half *)0)), float8);
SAME_TYPE(decltype(max((char)1, (char)2)), char);
SAME_TYPE(decltype(max(float4(), 1.0f)), float4);
SAME_TYPE(decltype(clamp(int2(), 0, 1)), int2);
SAME_TYPE(decltype(abs(-1)), uint);
SAME_TYPE(decltype(abs(char4())), uchar4);
SAME_TYPE(decltype(abs_diff(short2(), short2())), ushort2);
SAME_TYPE(decltype(upsample((short)1, (ushort)1)), int);
SAME_TYPE(decltype(upsample(char2(), uchar2())), short2);
SAME_TYPE(decltype(upsample(1, 1u)), long);
SAME_TYPE(decltype(isnan(float4())), int4);
SAME_TYPE(decltype(isequal(1.0f, 2.0f)), int);
SAME_TYPE(decltype(isequal(double3(), double3())), long3);
SAME_TYPE(decltype(dot(float4(), float4())), float);
SAME_TYPE(decltype(length(double3())), double);
SAME_TYPE(decltype(sin(float4())), float4);
SAME_TYPE(decltype(sin(1.0f)), float);
SAME_TYPE(decltype(ilogb(float2())), int2);
SAME_TYPE(decltype(nan(uint4())), float4);
SAME_TYPE(decltype(nan(0u)), float);
SAME_TYPE(decltype(nan(ulong2())), double2);
SAME_TYPE(decltype(shuffle(float4(), uint8())), float8);
SAME_TYPE(decltype(shuffle2(int2(), int2(), uint4())), int4);
SAME_TYPE(decltype(mul_hi(uchar16(), uchar16())), uchar16);
SAME_TYPE(decltype(popcount(long2())), long2);
static_assert(vec_step(float3) == 4 && vec_step(int16) == 16 && vec_step(double) == 1, "");
static_assert(MAXFLOAT == FLT_MAX && M_PI_F == 3.14159265358979323846f, "");

// __local arrays are static __thread (the compiler's rewrite); vectors must allow that.
static __thread float4 local_f4[16];
static __thread int local_ints[64];

static void test_vectors()
{
    // literals, components, swizzle reads
    float4 f = float4(1.0f, 2.0f, 3.0f, 4.0f);
    CHECK(f.x == 1.0f && f.y == 2.0f && f.z == 3.0f && f.w == 4.0f);
    CHECK(f.s0 == 1.0f && f.s3 == 4.0f && f[2] == 3.0f);
    CHECK_VEC(float4, float4(f.xy, 7.0f, 8.0f), 1.0f, 2.0f, 7.0f, 8.0f);
    CHECK_VEC(float4, float4(0.5f, f.zyx), 0.5f, 3.0f, 2.0f, 1.0f);
    CHECK_VEC(float4, float4(2), 2.0f, 2.0f, 2.0f, 2.0f);
    CHECK_VEC(float2, f.wx, 4.0f, 1.0f);
    CHECK_VEC(float3, f.s301, 4.0f, 1.0f, 2.0f);
    CHECK_VEC(float2, f.lo, 1.0f, 2.0f);
    CHECK_VEC(float2, f.hi, 3.0f, 4.0f);
    CHECK_VEC(float2, f.even, 1.0f, 3.0f);
    CHECK_VEC(float2, f.odd, 2.0f, 4.0f);
    CHECK_VEC(float4, f.xxyy, 1.0f, 1.0f, 2.0f, 2.0f);
    CHECK(f.hi.x == 3.0f && f.lo.y == 2.0f);   // a swizzle of a swizzle
    float3 t = float3(1, 2, 3);
    CHECK_VEC(float2, t.hi, 3.0f, 0.0f);      // a 3-vector's .hi: s2 and an undefined one (0 here)
    CHECK_VEC(float2, t.odd, 2.0f, 0.0f);
    // swizzle writes
    float4 g = float4(0.0f);
    g.xy = f.zw;
    CHECK_VEC(float4, g, 3.0f, 4.0f, 0.0f, 0.0f);
    g.s13 = float2(9, 8);
    CHECK_VEC(float4, g, 3.0f, 9.0f, 0.0f, 8.0f);
    g.wz = g.xy;
    CHECK_VEC(float4, g, 3.0f, 9.0f, 9.0f, 3.0f);
    g.hi = float2(5, 6);
    g.lo.y = -1.0f;
    CHECK_VEC(float4, g, 3.0f, -1.0f, 5.0f, 6.0f);
    g.odd += 1.0f;
    CHECK_VEC(float4, g, 3.0f, 0.0f, 5.0f, 7.0f);
    g.xyz *= 2.0f;
    CHECK_VEC(float4, g, 6.0f, 0.0f, 10.0f, 7.0f);
    g.even = g.odd;
    CHECK_VEC(float4, g, 0.0f, 0.0f, 7.0f, 7.0f);
    // 8- and 16-vectors
    int8 e = int8(0, 1, 2, 3, 4, 5, 6, 7);
    CHECK_VEC(int2, e.s73, 7, 3);
    CHECK_VEC(int4, e.s4567, 4, 5, 6, 7);
    CHECK_VEC(int4, e.s3210, 3, 2, 1, 0);
    CHECK_VEC(int4, e.s0246, 0, 2, 4, 6);
    CHECK_VEC(int8, e.s76543210, 7, 6, 5, 4, 3, 2, 1, 0);
    CHECK_VEC(int4, e.hi, 4, 5, 6, 7);
    CHECK_VEC(int2, e.hi.hi, 6, 7);
    CHECK(e.s7 == 7 && e.hi.lo.x == 4);
    e.odd = int4(-1);
    CHECK_VEC(int8, e, 0, -1, 2, -1, 4, -1, 6, -1);
    e.s62 = int2(60, 20);
    CHECK(e.s6 == 60 && e.s2 == 20);
    uchar16 u = uchar16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    CHECK(u.sA == 10 && u.sf == 15 && u.sF == 15 && u.s9 == 9);
    CHECK_VEC(uchar2, u.sAF, 10, 15);
    CHECK_VEC(uchar4, u.sCDEF, 12, 13, 14, 15);
    CHECK_VEC(uchar8, u.even, 0, 2, 4, 6, 8, 10, 12, 14);
    CHECK_VEC(uchar4, u.hi.hi, 12, 13, 14, 15);
    u.lo = u.hi;
    CHECK(u.s0 == 8 && u.s7 == 15);
    CHECK(u.SA == 10 && u.S0 == 8);
    CHECK_VEC(uchar2, u.SAF, 10, 15);
    float4 fS = f;
    fS.S31 = float2(0.5f, 0.25f);
    CHECK_VEC(float4, fS, 1.0f, 0.25f, 3.0f, 0.5f);
    // any swizzle through the named forms, as the compiler spells .s3c5 or v.odd.lo
    float16 sx = float16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    CHECK_VEC(float3, sx.pyemu_sw3<0x3c5>(), 3.0f, 12.0f, 5.0f);
    CHECK_VEC(float4, (sx.pyemu_sw<3, 2, 1, 0>()), 3.0f, 2.0f, 1.0f, 0.0f);
    CHECK_VEC(float4, sx.odd.pyemu_lo(), 1.0f, 3.0f, 5.0f, 7.0f);
    CHECK_VEC(float2, sx.odd.pyemu_lo().pyemu_lo(), 1.0f, 3.0f);
    CHECK_VEC(float2, sx.odd.pyemu_hi().pyemu_odd(), 11.0f, 15.0f);
    CHECK(sx.odd.pyemu_sw1<2>() == 5.0f && sx.even.pyemu_sw1<7>() == 14.0f);
    CHECK(sx.odd.pyemu_lo().pyemu_lo().pyemu_hi() == 3.0f);
    sx.odd.pyemu_lo().pyemu_lo() = float2(-1, -3);
    CHECK(sx.s1 == -1.0f && sx.s3 == -3.0f && sx.s5 == 5.0f);
    sx.pyemu_sw4<0xcdef>() = sx.pyemu_sw4<0x0123>() * 2.0f;
    CHECK_VEC(float4, sx.hi.hi, 0.0f, -2.0f, 4.0f, -6.0f);
    sx.pyemu_sw2<0x0f>() += 1.0f;
    CHECK(sx.s0 == 1.0f && sx.sF == -5.0f);
    sx.odd.pyemu_sw1<0>() = 42.0f;
    CHECK(sx.s1 == 42.0f);
    CHECK_EQ(float, dot(sx.pyemu_sw2<0x01>(), float2(1, 1)), 43.0f);
    CHECK_VEC(float8, sx.pyemu_sw16<0xfedcba9876543210>().pyemu_even(), -5.0f, -2.0f, 11.0f, 9.0f, 7.0f, 5.0f, -3.0f, 42.0f);
    const float4 cf = float4(1, 2, 3, 4);
    CHECK_VEC(float2, cf.pyemu_sw2<0x33>(), 4.0f, 4.0f);
    CHECK(cf.pyemu_sw1<1>() == 2.0f && cf.pyemu_hi().y == 4.0f);
    float3 f3 = float3(1, 2, 3);
    CHECK_VEC(float2, f3.pyemu_hi(), 3.0f, 0.0f);
    CHECK_VEC(float2, f3.pyemu_sw3<0x210>().pyemu_hi(), 1.0f, 1.0f);
    // arithmetic, broadcast, wrap, shifts modulo the width
    CHECK_VEC(float4, f * 2.0f, 2.0f, 4.0f, 6.0f, 8.0f);
    CHECK_VEC(float4, 2.0f * f, 2.0f, 4.0f, 6.0f, 8.0f);
    CHECK_VEC(float4, 1.0f / f.s0123, 1.0f, 0.5f, 1.0f / 3.0f, 0.25f);
    CHECK_VEC(float2, f.xy + f.zw, 4.0f, 6.0f);
    CHECK_VEC(float4, -f, -1.0f, -2.0f, -3.0f, -4.0f);
    int4 i = int4(1, -2, 3, 100);
    CHECK_VEC(int4, i + 1, 2, -1, 4, 101);
    CHECK_VEC(int4, 10 - i, 9, 12, 7, -90);
    CHECK_VEC(int4, i % 3, 1, -2, 0, 1);
    CHECK_VEC(int4, i << 33, 2, -4, 6, 200);
    CHECK_VEC(int4, i >> int4(1, 1, 32, 2), 0, -1, 3, 25);
    CHECK_VEC(int4, ~i & 0xff, 0xfe, 1, 0xfc, 0x9b);
    CHECK_VEC(uchar4, uchar4(250, 1, 2, 3) + uchar4(10), 4, 11, 12, 13);
    CHECK_VEC(char2, char2(1, 2) << char2(9, 7), 2, 0);
    int4 j = i;
    j += int4(1);
    j *= 2;
    ++j;
    j--;
    CHECK_VEC(int4, j, 4, -2, 8, 202);
    // comparisons: -1 / 0 per component
    CHECK_VEC(int4, f < float4(2.0f), -1, 0, 0, 0);
    CHECK_VEC(int4, f >= 3.0f, 0, 0, -1, -1);
    CHECK_VEC(int4, f == f.wzyx, 0, 0, 0, 0);
    CHECK_VEC(long2, double2(1.0, NAN) != double2(1.0, NAN), 0, -1);
    CHECK_VEC(char4, uchar4(200, 1, 2, 3) > uchar4(100), -1, 0, 0, 0);
    CHECK_VEC(int4, !int4(0, 1, -1, 0), -1, 0, 0, -1);
    CHECK_VEC(int4, int4(0, 1, 1, 0) && int4(1, 1, 0, 0), 0, -1, 0, 0);
    CHECK_VEC(int4, int4(0, 1, 1, 0) || int4(1, 1, 0, 0), -1, -1, -1, 0);
    // __local-style storage
    local_f4[3] = f;
    CHECK(((uintptr_t)&local_f4[1] & 15) == 0 && local_f4[3].w == 4.0f);
    double16 d = double16(1.0);
    CHECK(((uintptr_t)&d & 127) == 0 && d.sF == 1.0);
}

// ---- conversions (6.2.3, 6.2.4) ----------------------------------------------

static void test_conversions()
{
    CHECK_EQ(int, convert_int_sat(1e10f), INT_MAX);
    CHECK_EQ(int, convert_int_sat(-1e10f), INT_MIN);
    CHECK_EQ(int, convert_int_sat(NAN), 0);
    CHECK_EQ(int, convert_int_sat(2147483520.0f), 2147483520);
    CHECK_EQ(uchar, convert_uchar_sat(-5), 0);
    CHECK_EQ(uchar, convert_uchar_sat(300), 255);
    CHECK_EQ(uchar, convert_uchar(300), 44);
    CHECK_EQ(char, convert_char_sat(200u), 127);
    CHECK_EQ(char, convert_char_sat(-200L), -128);
    CHECK_EQ(ushort, convert_ushort_sat(-1.5f), 0);
    CHECK_EQ(uint, convert_uint_sat(-1), 0u);
    CHECK_EQ(uint, convert_uint_sat(5000000000L), UINT_MAX);
    CHECK_EQ(long, convert_long_sat(ULONG_MAX), LONG_MAX);
    CHECK_EQ(ulong, convert_ulong_sat(LONG_MIN), 0ul);
    CHECK_EQ(long, convert_long_sat(1e19f), LONG_MAX);
    CHECK_EQ(ulong, convert_ulong_sat(1e20), ULONG_MAX);
    CHECK_EQ(ulong, convert_ulong_sat(-1.0f), 0ul);
    CHECK_EQ(int, convert_int(-1.7f), -1);
    CHECK_EQ(int, convert_int_rtn(-1.5f), -2);
    CHECK_EQ(int, convert_int_rtp(-1.5f), -1);
    CHECK_EQ(int, convert_int_rte(2.5f), 2);
    CHECK_EQ(int, convert_int_rte(3.5f), 4);
    CHECK_EQ(int, convert_int_rtz(-2.9f), -2);
    CHECK_EQ(short, convert_short_sat_rtp(32766.5f), 32767);
    CHECK_EQ(float, convert_float(16777217), 16777216.0f);
    CHECK_EQ(float, convert_float_rtz(16777217), 16777216.0f);
    CHECK_EQ(float, convert_float_rtp(16777217), 16777218.0f);
    CHECK_EQ(float, convert_float_rtn(-16777217), -16777218.0f);
    CHECK_EQ(float, convert_float_rtz(-16777217), -16777216.0f);
    CHECK_EQ(float, convert_float_rtp(ULONG_MAX), 18446744073709551616.0f);
    CHECK_EQ(float, convert_float_rtz(ULONG_MAX), 18446742974197923840.0f);
    CHECK_EQ(float, convert_float_rtz(1e300), FLT_MAX);
    CHECK_EQ(float, convert_float(1e300), INFINITY);
    CHECK_EQ(float, convert_float_rtn(-1e300), -INFINITY);
    CHECK_EQ(float, convert_float_rtp(0.1), 0.1f);             // 0.1f is above 0.1
    CHECK_EQ(float, convert_float_rtz(0.1), 0.099999994f);
    CHECK_EQ(float, convert_float_rtp(0.3), 0.300000012f);
    CHECK_EQ(float, convert_float_rtn(0.1), 0.099999994f);
    CHECK_EQ(float, convert_float_rte(0.1), 0.1f);
    CHECK_EQ(double, convert_double_rtz(LONG_MAX), 9223372036854774784.0);
    CHECK_VEC(int4, convert_int4_sat(float4(1e10f, -1e10f, NAN, -3.5f)), INT_MAX, INT_MIN, 0, -3);
    CHECK_VEC(int4, convert_int4_rte(float4(0.5f, 1.5f, -0.5f, -2.5f)), 0, 2, 0, -2);
    CHECK_VEC(uchar4, convert_uchar4_sat(int4(-1, 0, 255, 256)), 0, 0, 255, 255);
    CHECK_VEC(float2, convert_float2(int4(1, 2, 3, 4).zw), 3.0f, 4.0f);
    CHECK_VEC(short3, convert_short3(int3(65537, -1, 32768)), 1, -1, -32768);
    CHECK_EQ(uint, as_uint(1.0f), 0x3f800000u);
    CHECK_EQ(float, as_float(0xbf800000u), -1.0f);
    CHECK_EQ(ulong, as_ulong(-0.0), 0x8000000000000000ul);
    CHECK_VEC(int4, as_int4(float4(1.0f, -2.0f, 0.0f, -0.0f)), 0x3f800000, (int)0xc0000000, 0, INT_MIN);
    CHECK_VEC(uchar4, as_uchar4(0x04030201), 1, 2, 3, 4);
    CHECK_VEC(float3, as_float4(float3(1, 2, 3)).xyz, 1.0f, 2.0f, 3.0f);   // 3 and 4 share a size
    CHECK_VEC(short2, as_short2(1.0f), 0, 0x3f80);
}

// ---- vload / vstore (6.12.7) ------------------------------------------------

static void test_loads_stores()
{
    float a[16];
    for (int k = 0; k < 16; k++)
        a[k] = (float)k;
    CHECK_VEC(float4, vload4(1, a), 4.0f, 5.0f, 6.0f, 7.0f);
    CHECK_VEC(float3, vload3(1, a), 3.0f, 4.0f, 5.0f);     // offset * 3
    CHECK_VEC(float2, vload2(3, a + 1), 7.0f, 8.0f);
    const float *ca = a;
    CHECK_VEC(float8, vload8(1, ca), 8, 9, 10, 11, 12, 13, 14, 15);
    vstore3(float3(-1, -2, -3), 2, a);                     // a[6..8]
    CHECK(a[5] == 5.0f && a[6] == -1.0f && a[8] == -3.0f && a[9] == 9.0f);
    vstore2(float4(7, 8, 9, 10).hi, 0, a);
    CHECK(a[0] == 9.0f && a[1] == 10.0f && a[2] == 2.0f);
    for (int k = 0; k < 64; k++)
        local_ints[k] = k;
    CHECK_VEC(int16, vload16(2, local_ints), 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47);
    vstore4(int4(-1), 15, local_ints);
    CHECK(local_ints[59] == 59 && local_ints[60] == -1 && local_ints[63] == -1);
    volatile int vi[4] = {1, 2, 3, 4};
    CHECK_VEC(int2, vload2(1, vi), 3, 4);

    // half: exact loads, rounding stores
    half h[8];
    ushort *hb = (ushort *)h;
    vstore_half(1.0f, 0, h);
    CHECK_EQ(ushort, hb[0], 0x3c00);
    vstore_half(65504.0f, 1, h);
    CHECK_EQ(ushort, hb[1], 0x7bff);
    vstore_half(65520.0f, 1, h);
    CHECK_EQ(ushort, hb[1], 0x7c00);          // rounds to inf
    vstore_half_rtz(65520.0f, 1, h);
    CHECK_EQ(ushort, hb[1], 0x7bff);
    vstore_half_rtz(1e10f, 1, h);
    CHECK_EQ(ushort, hb[1], 0x7bff);
    vstore_half_rtn(1e10f, 1, h);
    CHECK_EQ(ushort, hb[1], 0x7bff);
    vstore_half_rtn(-1e10f, 1, h);
    CHECK_EQ(ushort, hb[1], 0xfc00);
    vstore_half(-0.0f, 2, h);
    CHECK_EQ(ushort, hb[2], 0x8000);
    vstore_half(5.9604645e-8f, 2, h);          // 2^-24: the smallest subnormal
    CHECK_EQ(ushort, hb[2], 0x0001);
    vstore_half(2.9802322e-8f, 2, h);          // 2^-25: a tie, to even (0)
    CHECK_EQ(ushort, hb[2], 0x0000);
    vstore_half_rtp(1e-30f, 2, h);
    CHECK_EQ(ushort, hb[2], 0x0001);
    vstore_half(1.0f + 0x1p-11f, 3, h);        // a tie between 1 and 1 + 2^-10: even
    CHECK_EQ(ushort, hb[3], 0x3c00);
    vstore_half(1.0f + 0x1p-11f + 0x1p-20f, 3, h);
    CHECK_EQ(ushort, hb[3], 0x3c01);
    vstore_half_rtp(1.0f + 0x1p-20f, 3, h);
    CHECK_EQ(ushort, hb[3], 0x3c01);
    vstore_half_rtn(-1.0f - 0x1p-20f, 3, h);
    CHECK_EQ(ushort, hb[3], 0xbc01);
    vstore_half_rtz(-1.0f - 0x1p-20f, 3, h);
    CHECK_EQ(ushort, hb[3], 0xbc00);
    vstore_half(1.0 + 0x1p-11 + 0x1p-40, 3, h);   // from double: rounded once
    CHECK_EQ(ushort, hb[3], 0x3c01);
    vstore_half(NAN, 4, h);
    CHECK((hb[4] & 0x7c00) == 0x7c00 && (hb[4] & 0x3ff) != 0);
    hb[5] = 0x3555;
    CHECK_EQ(float, vload_half(5, h), 0.333251953125f);
    hb[6] = 0x0001;
    CHECK_EQ(float, vload_half(6, h), 5.9604645e-8f);
    hb[7] = 0xfc00;
    CHECK_EQ(float, vload_half(7, h), -INFINITY);
    vstore_half4(float4(1, 2, -2, 0.5f), 1, h);   // h[4..7]
    CHECK(hb[4] == 0x3c00 && hb[5] == 0x4000 && hb[6] == 0xc000 && hb[7] == 0x3800);
    CHECK_VEC(float4, vload_half4(1, h), 1.0f, 2.0f, -2.0f, 0.5f);
    CHECK_VEC(float2, vload_half2(3, h), -2.0f, 0.5f);
    vstorea_half3(float3(4, 8, 16), 1, h);         // aligned: at 4 * offset
    CHECK(hb[4] == 0x4400 && hb[5] == 0x4800 && hb[6] == 0x4c00);
    CHECK_VEC(float3, vloada_half3(1, h), 4.0f, 8.0f, 16.0f);
    CHECK_VEC(float3, vload_half3(1, h), 1.0009765625f, 4.0f, 8.0f);   // unaligned: at 3 * offset
}

// ---- math, common, geometric (6.12.2, 6.12.4, 6.12.5) ------------------------

static void test_math()
{
    CHECK_EQ(float, sinpi(1.0f), 0.0f);
    CHECK_EQ(float, sinpi(-1.0f), -0.0f);
    CHECK_EQ(float, sinpi(0.5f), 1.0f);
    CHECK_EQ(float, sinpi(1e8f), 0.0f);
    CHECK_EQ(float, cospi(0.5f), 0.0f);
    CHECK_EQ(float, cospi(1.0f), -1.0f);
    CHECK_EQ(float, tanpi(0.25f), 1.0f);
    CHECK_EQ(float, tanpi(-0.75f), 1.0f);
    CHECK_EQ(float, tanpi(0.5f), INFINITY);
    CHECK_EQ(float, tanpi(1.5f), -INFINITY);
    CHECK_EQ(float, tanpi(1.0f), -0.0f);
    CHECK_EQ(float, tanpi(2.0f), 0.0f);
    CHECK_NEAR(tanpi(0.4999), 3183.0988, 1e-3);
    CHECK_EQ(float, acospi(-1.0f), 1.0f);
    CHECK_EQ(float, asinpi(0.5f), 1.0f / 6.0f);
    CHECK_EQ(float, atan2pi(1.0f, -1.0f), 0.75f);
    CHECK_EQ(float, exp10(2.0f), 100.0f);
    CHECK_EQ(float, rsqrt(4.0f), 0.5f);
    CHECK_EQ(double, rsqrt(0.25), 2.0);
    CHECK_EQ(float, rootn(-8.0f, 3), -2.0f);
    CHECK_EQ(float, rootn(-8.0f, 2), NAN);
    CHECK_EQ(float, rootn(-0.0f, -3), -INFINITY);
    CHECK_EQ(float, pown(2.0f, -2), 0.25f);
    CHECK_EQ(float, pown(-2.0f, 3), -8.0f);
    CHECK_EQ(float, powr(-1.0f, 2.0f), NAN);
    CHECK_EQ(float, powr(2.0f, 10.0f), 1024.0f);
    CHECK_EQ(float, maxmag(-3.0f, 2.0f), -3.0f);
    CHECK_EQ(float, minmag(-3.0f, 2.0f), 2.0f);
    CHECK_EQ(float, mad(2.0f, 3.0f, 1.0f), 7.0f);
    float ip;
    CHECK_EQ(float, fract(-1.25f, &ip), 0.75f);
    CHECK_EQ(float, ip, -2.0f);
    CHECK_EQ(float, fract(-1e-10f, &ip), 0x1.fffffep-1f);
    CHECK_EQ(float, fract(INFINITY, &ip), 0.0f);
    float4 ip4;
    CHECK_VEC(float4, fract(float4(1.5f, -0.5f, 2.0f, 3.25f), &ip4), 0.5f, 0.5f, 0.0f, 0.25f);
    CHECK_VEC(float4, ip4, 1.0f, -1.0f, 2.0f, 3.0f);
    float2 w2;
    CHECK_VEC(float2, modf(float2(2.5f, -3.75f), &w2), 0.5f, -0.75f);
    CHECK_VEC(float2, w2, 2.0f, -3.0f);
    int4 e4;
    CHECK_VEC(float4, frexp(float4(8.0f, 0.75f, -3.0f, 0.0f), &e4), 0.5f, 0.75f, -0.75f, 0.0f);
    CHECK_VEC(int4, e4, 4, 0, 2, 0);
    float c;
    CHECK_EQ(float, sincos(0.0f, &c), 0.0f);
    CHECK_EQ(float, c, 1.0f);
    float2 c2;
    CHECK_VEC(float2, sincos(float2(0.0f, 0.0f), &c2), 0.0f, 0.0f);
    CHECK_VEC(float2, c2, 1.0f, 1.0f);
    int q;
    CHECK_EQ(float, remquo(7.0f, 2.0f, &q), -1.0f);
    CHECK_EQ(int, q & 7, 4);
    int2 q2;
    CHECK_VEC(float2, remquo(float2(7.0f, 10.0f), float2(2.0f, 3.0f), &q2), -1.0f, 1.0f);
    CHECK_VEC(int2, q2, 4, 3);
    int sg;
    CHECK_NEAR(lgamma_r(-0.5f, &sg), 1.2655121, 1e-6);
    CHECK_EQ(int, sg, -1);
    int2 sg2;
    CHECK_NEAR(lgamma_r(float2(3.0f, -2.5f), &sg2).x, 0.6931472, 1e-6);
    CHECK_EQ(int, sg2.y, -1);
    CHECK(isnan(nan(0u)) && isnan(nan(0)) && isnan(nan(7ul)) && as_uint(nan(5u)) == 0x7fc00005u);
    CHECK_EQ(float, ldexp(float2(1.5f, 1.0f), int2(2, -1)).x, 6.0f);
    CHECK_VEC(float2, ldexp(float2(1.5f, 1.0f), 3), 12.0f, 8.0f);
    CHECK_VEC(int2, ilogb(float2(8.0f, 0.3f)), 3, -2);
    CHECK_VEC(float4, sqrt(float4(4, 9, 16, 25)), 2.0f, 3.0f, 4.0f, 5.0f);
    CHECK_VEC(float2, fmax(float2(1, NAN), 2.0f), 2.0f, 2.0f);
    CHECK_VEC(float2, pow(float2(2, 3), float2(3, 2)), 8.0f, 9.0f);
    CHECK_VEC(float3, floor(float3(-0.5f, 1.5f, 2.0f)), -1.0f, 1.0f, 2.0f);
    CHECK_VEC(float2, fma(float2(2), float2(3), 1.0f), 7.0f, 7.0f);
    CHECK_VEC(double2, exp(double2(0.0, 1.0)), 1.0, M_E);
    CHECK_VEC(float4, native_sqrt(float4(4.0f)), 2.0f, 2.0f, 2.0f, 2.0f);
    CHECK_EQ(float, half_divide(1.0f, 4.0f), 0.25f);
    CHECK_EQ(float, native_recip(4.0f), 0.25f);
    CHECK_VEC(float2, native_exp(float2(0.0f)), 1.0f, 1.0f);
    CHECK_EQ(float, half_rsqrt(16.0f), 0.25f);
    CHECK_EQ(float, native_powr(2.0f, 3.0f), 8.0f);
    // common
    CHECK_VEC(float3, clamp(float4(-1, 0.5f, 2, NAN), 0.0f, 1.0f).xyz, 0.0f, 0.5f, 1.0f);
    CHECK_EQ(float, degrees(M_PI_F), 180.0f);
    CHECK_EQ(float, radians(180.0f), M_PI_F);
    CHECK_VEC(float2, mix(float2(0, 10), float2(10, 20), 0.25f), 2.5f, 12.5f);
    CHECK_VEC(float4, step(0.5f, float4(0, 0.5f, 1, -1)), 0.0f, 1.0f, 1.0f, 0.0f);
    CHECK_VEC(float3, smoothstep(0.0f, 1.0f, float3(-1, 0.5f, 2)), 0.0f, 0.5f, 1.0f);
    CHECK_VEC(float4, sign(float4(-2, 0, -0.0f, 3)), -1.0f, 0.0f, -0.0f, 1.0f);
    CHECK_EQ(float, sign(NAN), 0.0f);
    CHECK_EQ(float, max(1.0f, 2), 2.0f);
    CHECK_VEC(float2, min(float2(1, 5), 3.0f), 1.0f, 3.0f);
    // geometric
    CHECK_EQ(float, dot(float4(1, 2, 3, 4), float4(5, 6, 7, 8)), 70.0f);
    CHECK_EQ(float, dot(3.0f, 2.0f), 6.0f);
    CHECK_VEC(float3, cross(float3(1, 0, 0), float3(0, 1, 0)), 0.0f, 0.0f, 1.0f);
    CHECK_VEC(float4, cross(float4(0, 1, 0, 5), float4(0, 0, 1, 7)), 1.0f, 0.0f, 0.0f, 0.0f);
    CHECK_EQ(float, length(float4(3, 4, 0, 0)), 5.0f);
    CHECK_EQ(float, length(float2(3e30f, 4e30f)), 5e30f);   // no overflow
    CHECK_EQ(float, length(float2(3e-30f, 4e-30f)), 5e-30f); // no underflow
    CHECK_EQ(double, length(double2(3e300, 4e300)), 5e300);
    CHECK_EQ(float, length(-2.0f), 2.0f);
    CHECK_EQ(float, distance(float2(1, 1), float2(4, 5)), 5.0f);
    CHECK_VEC(float2, normalize(float2(3, 4)), 0.6f, 0.8f);
    CHECK_VEC(float2, normalize(float2(0, 0)), 0.0f, 0.0f);
    CHECK_VEC(float3, normalize(float3(INFINITY, 1, -INFINITY)), 0.70710678f, 0.0f, -0.70710678f);
    CHECK(isnan(normalize(float2(NAN, 1)).y));
    CHECK_VEC(float2, normalize(float2(1e-40f, 0)), 1.0f, 0.0f);
    CHECK_EQ(float, fast_length(float2(3, 4)), 5.0f);
    CHECK_VEC(float2, fast_normalize(float2(0, 2)), 0.0f, 1.0f);
    CHECK_EQ(float, fast_distance(float2(0), float2(3, 4)), 5.0f);
}

// ---- integer (6.12.3) ---------------------------------------------------------

static void test_integer()
{
    CHECK_EQ(uint, abs(INT_MIN), 2147483648u);
    CHECK_EQ(uint, abs(-5), 5u);
    CHECK_VEC(uchar4, abs(char4(-128, -1, 0, 127)), 128, 1, 0, 127);
    CHECK_EQ(ulong, abs(LONG_MIN), 9223372036854775808ul);
    CHECK_EQ(uint, abs(7u), 7u);
    CHECK_EQ(float, abs(-2.5f), 2.5f);
    CHECK_EQ(uint, abs_diff(INT_MAX, INT_MIN), UINT_MAX);
    CHECK_EQ(uchar, abs_diff((uchar)3, (uchar)250), 247);
    CHECK_VEC(ushort2, abs_diff(short2(-32768, 5), short2(32767, 7)), 65535, 2);
    CHECK_EQ(int, add_sat(INT_MAX, 1), INT_MAX);
    CHECK_EQ(int, add_sat(INT_MIN, -1), INT_MIN);
    CHECK_EQ(uchar, add_sat((uchar)250, (uchar)10), 255);
    CHECK_EQ(uint, sub_sat(3u, 5u), 0u);
    CHECK_EQ(int, sub_sat(INT_MIN, 1), INT_MIN);
    CHECK_EQ(int, sub_sat(INT_MAX, -1), INT_MAX);
    CHECK_EQ(long, add_sat(LONG_MAX, 2L), LONG_MAX);
    CHECK_VEC(char4, add_sat(char4(100, -100, 1, 0), char4(100, -100, 1, 0)), 127, -128, 2, 0);
    CHECK_EQ(int, hadd(INT_MAX, INT_MAX), INT_MAX);
    CHECK_EQ(int, hadd(-1, -2), -2);
    CHECK_EQ(int, rhadd(1, 2), 2);
    CHECK_EQ(uint, rhadd(UINT_MAX, UINT_MAX), UINT_MAX);
    CHECK_EQ(uint, clz(0u), 32u);
    CHECK_EQ(uint, clz(1u), 31u);
    CHECK_EQ(int, clz(-1), 0);
    CHECK_EQ(uchar, clz((uchar)1), 7);
    CHECK_EQ(short, clz((short)0), 16);
    CHECK_EQ(long, clz(1L), 63);
    CHECK_VEC(uint4, clz(uint4(0, 1, 0x80000000u, 0xffff)), 32, 31, 0, 16);
    CHECK_EQ(int, ctz(8), 3);
    CHECK_EQ(int, popcount(-1), 32);
    CHECK_EQ(uchar, popcount((uchar)0xf0), 4);
    CHECK_EQ(char, popcount((char)-1), 8);
    CHECK_EQ(ulong, popcount(~0ul), 64ul);
    CHECK_EQ(uint, rotate(0x80000001u, 1u), 3u);
    CHECK_EQ(uint, rotate(0x80000001u, 33u), 3u);
    CHECK_EQ(int, rotate(1, -1), INT_MIN);
    CHECK_EQ(uchar, rotate((uchar)0x81, (uchar)4), 0x18);
    CHECK_EQ(char, rotate((char)0x81, (char)1), 3);
    CHECK_VEC(ushort2, rotate(ushort2(0x8000, 1), ushort2(1, 15)), 1, 0x8000);
    CHECK_EQ(ulong, rotate(1ul, 65ul), 2ul);
    CHECK_EQ(uint, mul_hi(0x80000000u, 4u), 2u);
    CHECK_EQ(int, mul_hi(-1, -1), 0);
    CHECK_EQ(int, mul_hi(-2, 3), -1);
    CHECK_EQ(int, mul_hi(INT_MIN, INT_MIN), 0x40000000);
    CHECK_EQ(ulong, mul_hi(ULONG_MAX, ULONG_MAX), ULONG_MAX - 1);
    CHECK_EQ(long, mul_hi(LONG_MIN, 2L), -1L);
    CHECK_EQ(uchar, mul_hi((uchar)200, (uchar)200), 156);
    CHECK_EQ(uint, mad_hi(0x80000000u, 4u, 5u), 7u);
    CHECK_EQ(int, mad_hi(INT_MAX, 4, INT_MAX), INT_MIN);   // 1 + INT_MAX wraps
    CHECK_EQ(int, mad_sat(INT_MAX, 2, 0), INT_MAX);
    CHECK_EQ(int, mad_sat(INT_MAX, -2, 0), INT_MIN);
    CHECK_EQ(int, mad_sat(INT_MAX, 2, INT_MIN), INT_MAX - 1);
    CHECK_EQ(uint, mad_sat(0x10000u, 0x10000u, 0u), UINT_MAX);
    CHECK_EQ(uchar, mad_sat((uchar)16, (uchar)16, (uchar)0), 255);
    CHECK_EQ(ulong, mad_sat(ULONG_MAX, ULONG_MAX, ULONG_MAX), ULONG_MAX);
    CHECK_EQ(ulong, mad_sat(2ul, 3ul, 4ul), 10ul);
    CHECK_EQ(long, mad_sat(LONG_MIN, 2L, 5L), LONG_MIN);
    CHECK_EQ(long, mad_sat(LONG_MAX, 1L, -1L), LONG_MAX - 1);
    CHECK_EQ(int, mul24(-3, 1000), -3000);
    CHECK_EQ(uint, mul24(0xffffffu, 2u), 0x1fffffeu);
    CHECK_EQ(int, mad24(-3, 1000, 5), -2995);
    CHECK_VEC(int2, mad24(int2(2, 3), int2(4, 5), 1), 9, 16);
    CHECK_EQ(int, upsample((short)-1, (ushort)0xFFFF), -1);
    CHECK_EQ(int, upsample((short)1, (ushort)2), 0x10002);
    CHECK_EQ(ushort, upsample((uchar)0x12, (uchar)0x34), 0x1234);
    CHECK_EQ(short, upsample((char)-128, (uchar)0), -32768);
    CHECK_EQ(long, upsample(-2, 5u), (long)0xfffffffe00000005ul);
    CHECK_EQ(ulong, upsample(1u, 2u), 0x100000002ul);
    CHECK_VEC(short2, upsample(char2(1, -1), uchar2(2, 0xff)), 0x102, -1);
    CHECK_EQ(int, clamp(300, 0, 255), 255);
    CHECK_VEC(int4, clamp(int4(-5, 5, 50, 500), 0, 100), 0, 5, 50, 100);
    CHECK_VEC(uint2, max(uint2(1, 9), 5u), 5, 9);
    CHECK_EQ(char, min((char)-3, (char)2), -3);
    CHECK_EQ(ulong, max(5ul, 3ul), 5ul);
    enum { BLOCK = 16 };
    CHECK_EQ(int, min(20, BLOCK), 16);
}

// ---- relational (6.12.6) and misc (6.12.12) -----------------------------------

static void test_relational()
{
    CHECK_EQ(int, isnan(NAN), 1);
    CHECK_EQ(int, isnan(1.0f), 0);
    CHECK_VEC(int4, isnan(float4(NAN, 1, INFINITY, -NAN)), -1, 0, 0, -1);
    CHECK_VEC(long2, isnan(double2(NAN, 0)), -1, 0);
    CHECK_VEC(int4, isinf(float4(INFINITY, -INFINITY, NAN, 1)), -1, -1, 0, 0);
    CHECK_VEC(int4, isfinite(float4(INFINITY, 0, NAN, 1e30f)), 0, -1, 0, -1);
    CHECK_VEC(int4, isnormal(float4(1, 0, 1e-40f, INFINITY)), -1, 0, 0, 0);
    CHECK_VEC(int4, signbit(float4(-0.0f, 0.0f, -1, NAN)), -1, 0, -1, 0);
    CHECK_EQ(int, isequal(NAN, NAN), 0);
    CHECK_EQ(int, isequal(1.0f, 1.0f), 1);
    CHECK_EQ(int, isnotequal(NAN, NAN), 1);
    CHECK_EQ(int, isordered(1.0f, NAN), 0);
    CHECK_EQ(int, isunordered(1.0f, NAN), 1);
    CHECK_VEC(int4, isgreater(float4(1, 2, NAN, 4), 2.0f), 0, 0, 0, -1);
    CHECK_VEC(int4, isgreaterequal(float4(1, 2, NAN, 4), 2.0f), 0, -1, 0, -1);
    CHECK_VEC(int4, isless(float4(1, 2, NAN, 4), 2.0f), -1, 0, 0, 0);
    CHECK_VEC(int4, islessequal(float4(1, 2, NAN, 4), 2.0f), -1, -1, 0, 0);
    CHECK_VEC(int4, islessgreater(float4(1, 2, NAN, 4), 2.0f), -1, 0, 0, -1);
    CHECK_VEC(int2, isunordered(float2(1, NAN), float2(NAN, 1)), -1, -1);
    CHECK_VEC(int2, isordered(float2(1, NAN), float2(2, 1)), -1, 0);
    CHECK_VEC(long2, isequal(double2(1, 2), double2(1, 3)), -1, 0);
    CHECK_EQ(int, any(int4(0, 0, -1, 0)), 1);
    CHECK_EQ(int, any(int4(1, 2, 3, 0x7fffffff)), 0);   // only the sign bit counts
    CHECK_EQ(int, all(int4(-1, INT_MIN, -5, -1)), 1);
    CHECK_EQ(int, all(int4(-1, -1, 0, -1)), 0);
    CHECK_EQ(int, any(-1), 1);
    CHECK_EQ(int, any(1), 0);
    CHECK_EQ(int, all(char2(-128, -1)), 1);
    CHECK_EQ(int, any(float4(1, 2, 3, 4) > 3.0f), 1);
    CHECK_EQ(int, all(float4(1, 2, 3, 4) > 3.0f), 0);
    CHECK_EQ(int, any(5 > 3), 0);   // a scalar comparison is 1, whose sign bit is clear
    // select: the MSB of a vector condition, != 0 for a scalar one
    CHECK_VEC(int4, select(int4(1, 2, 3, 4), int4(10, 20, 30, 40), int4(-1, 0, INT_MIN, 1)), 10, 2, 30, 4);
    CHECK_VEC(float4, select(float4(1), float4(2), uint4(0x80000000u, 0x7fffffffu, 0, ~0u)), 2.0f, 1.0f, 1.0f, 2.0f);
    CHECK_VEC(float2, select(float2(1, 2), float2(3, 4), float2(1, 2) > 1.5f), 1.0f, 4.0f);
    CHECK_VEC(double2, select(double2(1), double2(2), long2(-1, 0)), 2.0, 1.0);
    CHECK_VEC(char4, select(char4(1), char4(2), uchar4(0x80, 0x7f, 0xff, 0)), 2, 1, 2, 1);
    float4 tx = float4(1, 5, 3, 7), ty = float4(4, 2, 6, 0);
    CHECK_VEC(float4, pyemu_vternary(tx > ty, tx, ty + 1.0f), 5.0f, 5.0f, 7.0f, 7.0f);   // tx > ty ? tx : ty + 1
    CHECK_VEC(int2, pyemu_vternary(int2(-1, 0), 3, int2(8, 9)), 3, 9);
    CHECK_EQ(int, select(1, 2, 5), 2);
    CHECK_EQ(int, select(1, 2, 0), 1);
    CHECK_EQ(float, select(1.0f, 2.0f, 1 < 2), 2.0f);
    CHECK_EQ(uint, bitselect(0xff00ff00u, 0x0f0f0f0fu, 0xffff0000u), 0x0f0fff00u);
    CHECK_EQ(float, bitselect(1.0f, -1.0f, as_float(0x80000000u)), -1.0f);
    CHECK_VEC(int2, bitselect(int2(0), int2(-1), int2(0xf, 0xf0)), 0xf, 0xf0);
    // shuffle
    CHECK_VEC(float4, shuffle(float4(1, 2, 3, 4), uint4(3, 2, 1, 0)), 4.0f, 3.0f, 2.0f, 1.0f);
    CHECK_VEC(int2, shuffle(int4(1, 2, 3, 4), uint2(5, 6)), 2, 3);   // low bits only
    CHECK_VEC(uchar8, shuffle(uchar2(7, 9), uchar8(0, 1, 1, 0, 1, 1, 0, 0)), 7, 9, 9, 7, 9, 9, 7, 7);
    CHECK_VEC(int4, shuffle2(int2(1, 2), int2(3, 4), uint4(0, 3, 2, 5)), 1, 4, 3, 2);
}

// ---- atomics (6.12.11) ---------------------------------------------------------

static void test_atomics()
{
    int i = 5;
    CHECK_EQ(int, atomic_add(&i, 3), 5);
    CHECK_EQ(int, atomic_sub(&i, 10), 8);
    CHECK_EQ(int, i, -2);
    CHECK_EQ(int, atomic_xchg(&i, 7), -2);
    CHECK_EQ(int, atomic_inc(&i), 7);
    CHECK_EQ(int, atomic_dec(&i), 8);
    CHECK_EQ(int, atomic_cmpxchg(&i, 6, 1), 7);   // no match: unchanged
    CHECK_EQ(int, atomic_cmpxchg(&i, 7, 1), 7);
    CHECK_EQ(int, i, 1);
    CHECK_EQ(int, atomic_min(&i, -4), 1);
    CHECK_EQ(int, atomic_max(&i, 9), -4);
    CHECK_EQ(int, atomic_and(&i, 3), 9);
    CHECK_EQ(int, atomic_or(&i, 4), 1);
    CHECK_EQ(int, atomic_xor(&i, 1), 5);
    CHECK_EQ(int, i, 4);
    uint u = 0;
    CHECK_EQ(uint, atomic_dec(&u), 0u);          // wraps, unlike CUDA's atomicDec
    CHECK_EQ(uint, u, UINT_MAX);
    CHECK_EQ(uint, atomic_min(&u, 3u), UINT_MAX);  // unsigned comparison
    CHECK_EQ(uint, atomic_max(&u, 0x80000000u), 3u);
    CHECK_EQ(uint, u, 0x80000000u);
    volatile uint vu = 1;
    CHECK_EQ(uint, atomic_add(&vu, 1), 1u);
    float f = 1.5f;
    CHECK_EQ(float, atomic_xchg(&f, -2.0f), 1.5f);
    CHECK_EQ(float, atom_xchg(&f, 3.0f), -2.0f);
    CHECK_EQ(float, f, 3.0f);
    long l = LONG_MAX - 1;
    CHECK_EQ(long, atom_inc(&l), LONG_MAX - 1);
    CHECK_EQ(long, atom_add(&l, 2L), LONG_MAX);
    CHECK_EQ(long, l, LONG_MIN + 1);
    CHECK_EQ(long, atom_cmpxchg(&l, LONG_MIN + 1, 5L), LONG_MIN + 1);
    CHECK_EQ(long, atom_max(&l, -7L), 5L);
    CHECK_EQ(long, atom_min(&l, -7L), 5L);
    CHECK_EQ(long, l, -7L);
    ulong ul = 0;
    CHECK_EQ(ulong, atom_dec(&ul), 0ul);
    CHECK_EQ(ulong, atom_xor(&ul, 0xf0ul), ULONG_MAX);
    CHECK_EQ(ulong, atom_and(&ul, 0xfful), ULONG_MAX ^ 0xf0ul);
    CHECK_EQ(ulong, atom_or(&ul, 0x100ul), 0x0ful);
    CHECK_EQ(int, atom_sub(&i, 4), 4);

    // under contention: 4 threads
    const int T = 4, N = 200000;
    int counter = 0, lock = 0, guarded = 0, mn = INT_MAX, mx = INT_MIN;
    uint ucount = 0;
    long big = 0;
    float fx = 0.0f;
    std::vector<std::thread> ts;
    for (int t = 0; t < T; t++)
        ts.emplace_back([&, t] {
            for (int k = 0; k < N; k++) {
                atomic_inc(&counter);
                atomic_add(&ucount, 2u);
                atom_add(&big, 1L << 33);
                atomic_min(&mn, t * N + k);
                atomic_max(&mx, t * N + k);
                atomic_xchg(&fx, (float)t);
                if (k % 16 == 0) {   // a spin lock made of cmpxchg / xchg
                    while (atomic_cmpxchg(&lock, 0, 1) != 0) {
                    }
                    int g = guarded;
                    guarded = g + 1;
                    atomic_xchg(&lock, 0);
                }
            }
        });
    for (auto &th : ts)
        th.join();
    CHECK_EQ(int, counter, T * N);
    CHECK_EQ(uint, ucount, 2u * T * N);
    CHECK_EQ(long, big, (long)T * N << 33);
    CHECK_EQ(int, mn, 0);
    CHECK_EQ(int, mx, T * N - 1);
    CHECK_EQ(int, guarded, T * ((N + 15) / 16));
    CHECK(fx == 0.0f || fx == 1.0f || fx == 2.0f || fx == 3.0f);
}

// ---- async copies (6.12.10) ----------------------------------------------------

static __thread float local_tile[32];

static void as_work_item(unsigned lid)
{
    pyemu_tctx.threadIdx.x = lid;
    pyemu_tctx.threadIdx.y = pyemu_tctx.threadIdx.z = 0;
    pyemu_tctx.blockDim.x = 4;
    pyemu_tctx.blockDim.y = pyemu_tctx.blockDim.z = 1;
}

static void test_async()
{
    float global_buf[64];
    for (int k = 0; k < 64; k++)
        global_buf[k] = (float)k;
    // every work-item calls; only local id 0 copies, the wait is a barrier
    as_work_item(1);
    event_t ev = async_work_group_copy(local_tile, global_buf, 32, 0);
    CHECK(local_tile[5] == 0.0f);
    as_work_item(0);
    event_t ev0 = async_work_group_copy(local_tile, global_buf, 32, 0);
    CHECK(local_tile[5] == 5.0f && local_tile[31] == 31.0f);
    int before = barriers;
    wait_group_events(1, &ev0);
    CHECK(barriers == before + 1);
    event_t given = async_work_group_copy(local_tile, global_buf + 1, 8, ev);
    CHECK(given.pyemu_id == ev.pyemu_id && local_tile[0] == 1.0f);
    event_t none = 0;
    CHECK(none.pyemu_id == 0 && async_work_group_copy(local_tile, global_buf, 1, none).pyemu_id != 0);
    // strided: into local memory (a __local variable: TLS) the stride is the source's
    async_work_group_strided_copy(local_tile, global_buf, 8, 3, 0);
    CHECK(local_tile[0] == 0.0f && local_tile[1] == 3.0f && local_tile[7] == 21.0f);
    // out of it, the destination's
    float out[64] = {0};
    event_t evs[2];
    evs[0] = async_work_group_strided_copy(out, local_tile, 8, 2, 0);
    CHECK(out[0] == 0.0f && out[1] == 0.0f && out[2] == 3.0f && out[14] == 21.0f);
    // a __local pointer argument: the worker's local memory block
    static float smem[256];
    pyemu_tctx.dyn_smem_base = smem;
    async_work_group_strided_copy(smem + 16, global_buf, 4, 4, 0);
    CHECK(smem[16] == 0.0f && smem[17] == 4.0f && smem[19] == 12.0f);
    async_work_group_strided_copy(out + 32, smem + 16, 4, 5, evs[0]);
    CHECK(out[32] == 0.0f && out[37] == 4.0f && out[47] == 12.0f);
    pyemu_tctx.dyn_smem_base = nullptr;
    wait_group_events(2, evs);
    float4 v4[4];
    async_work_group_copy(v4, (const float4 *)global_buf, 4, 0);
    CHECK_VEC(float4, v4[3], 12.0f, 13.0f, 14.0f, 15.0f);
    prefetch(global_buf, 16);
}

// ---- printf (6.12.13) ------------------------------------------------------------

#define CHECK_PRINTF(ret, want, ...)                                             \
    do {                                                                         \
        printed.clear();                                                         \
        int r_ = printf(__VA_ARGS__);                                            \
        CHECK_EQ(int, r_, ret);                                                  \
        CHECK_STR(printed, want);                                                \
    } while (0)

static void test_printf()
{
    CHECK_PRINTF(0, "hello 42\n", "hello %d\n", 42);
    CHECK_PRINTF(0, "x=  3.14|-7|ff|FF|  017|c|str|%", "x=%6.2f|%i|%x|%X|%5.3o|%c|%s|%%", 3.14159, -7, 255u, 255, 15, 'c', "str");
    CHECK_PRINTF(0, "1.000000,2.000000,3.000000,4.000000", "%v4f", float4(1, 2, 3, 4));
    CHECK_PRINTF(0, "1.0,2.5", "%.1v2hlf", float2(1.0f, 2.5f));
    CHECK_PRINTF(0, "1.0,2.5", "%v2.1f", float2(1.0f, 2.5f));   // precision after the vector size
    CHECK_PRINTF(0, "a,ff", "%v2hlx", uint2(10, 255));
    CHECK_PRINTF(0, "0x0a,0xff", "%#04v2hhx", uchar2(10, 255));
    CHECK_PRINTF(0, "-1,2,-3", "%v3hd", short3(-1, 2, -3));
    CHECK_PRINTF(0, "-1,-2,-3,-4,-5,-6,-7,-8", "%v8d", int8(-1, -2, -3, -4, -5, -6, -7, -8));
    CHECK_PRINTF(0, "1,2", "%v2ld", long2(1, 2));
    CHECK_PRINTF(0, "1.5,2", "%v2g", double2(1.5, 2.0));
    CHECK_PRINTF(0, "3,4", "%v2d", int4(1, 2, 3, 4).zw);
    CHECK_PRINTF(0, "44", "%hhd", 300);
    CHECK_PRINTF(0, "-1", "%hd", 65535);
    CHECK_PRINTF(0, "4294967295", "%u", -1);
    CHECK_PRINTF(0, "-1", "%d", -1L);
    CHECK_PRINTF(0, "9223372036854775807", "%ld", LONG_MAX);
    CHECK_PRINTF(0, "18446744073709551615", "%lu", ULONG_MAX);
    CHECK_PRINTF(0, "  abc", "%5s", (const char *)"abc");
    CHECK_PRINTF(0, "[   42]", "[%*d]", 5, 42);
    CHECK_PRINTF(0, "1.50e+00", "%.2e", 1.5f);
    CHECK_PRINTF(0, "0x1p+0", "%a", 1.0);
    CHECK_PRINTF(0, "nan", "%f", NAN);
    CHECK_PRINTF(0, "no args", "no args");
    size_t gid = 3;
    CHECK_PRINTF(0, "gid 3", "gid %lu", gid);
    CHECK_PRINTF(0, "gid 3", "gid %d", (int)gid);
    bool flag = true;
    CHECK_PRINTF(0, "1", "%d", flag);
    // mismatches: what can be printed is, and printf returns -1
    CHECK_PRINTF(-1, "a ", "a %d");
    CHECK_PRINTF(-1, "1,2", "%d", int2(1, 2));
    CHECK_PRINTF(-1, "1,2", "%v4d", int2(1, 2));
    CHECK_PRINTF(-1, "%y", "%y", 1);
    char big[3000];
    memset(big, 'z', sizeof big - 1);
    big[sizeof big - 1] = 0;
    printed.clear();
    CHECK_EQ(int, printf("%s!", big), 0);
    CHECK(printed.size() == sizeof big && printed.back() == '!');
}

int main()
{
    CHECK(core_bound == 1);
    test_vectors();
    test_conversions();
    test_loads_stores();
    test_math();
    test_integer();
    test_relational();
    test_atomics();
    test_async();
    test_printf();
    fprintf(stdout, "harness: %d checks, %d failed\n", checks, failures);
    return failures != 0;
}
