/* CUDA's math library and intrinsics that <math.h> lacks: rsqrtf, sincospif, erfinvf, __sinf, __fadd_rz, __popc, min/max, clock64, ... */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/cuda_device.h>, not this file"
#endif

/* <math.h> is in, in C++ mode: sqrt(float), fminf, sincos, exp10 (glibc's
 * GNU extensions), ... exist already.  Functions here compute at least as
 * accurately as CUDA's: "fast" intrinsics such as __sinf are the accurate
 * functions, float functions missing from glibc are computed in double. */
#include <fenv.h>
#include <time.h>   /* clock(): CUDA's clock() returns clock_t, like glibc's */

/* glibc 2.41 brought the C23 functions sinpi, cospi (and their float forms). */
#if defined(__GLIBC__) && defined(__GLIBC_PREREQ)
#if __GLIBC_PREREQ(2, 41) && defined(__USE_GNU)
#define PYEMU_LIBC_HAS_SINPI 1
#endif
#endif

/* ---- single and double precision functions of CUDA's math API ---------- */

static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float rsqrtf(float x) { return (float)(1.0 / sqrt((double)x)); }
static inline float rsqrt(float x) { return rsqrtf(x); }
static inline double rcbrt(double x) { return (double)(1.0L / cbrtl(x)); } /* glibc's cbrt errs by 4 ulp */
static inline float rcbrtf(float x) { return (float)(1.0 / cbrt((double)x)); }
static inline float rcbrt(float x) { return rcbrtf(x); }

#ifndef __USE_GNU /* else glibc has them */
static inline void sincos(double x, double *s, double *c) { *s = sin(x); *c = cos(x); }
static inline void sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
static inline double exp10(double x) { return pow(10.0, x); }
static inline float exp10f(float x) { return (float)pow(10.0, (double)x); }
#endif
static inline void sincos(float x, float *s, float *c) { sincosf(x, s, c); }
static inline float exp10(float x) { return exp10f(x); }

#ifndef PYEMU_LIBC_HAS_SINPI
/* sin(pi x): x is reduced exactly to r in [-1/2, 1/2], then pi r is formed
 * to twice double precision (pi = pi_hi + pi_lo). */
static inline double sinpi(double x)
{
    if (!isfinite(x))
        return x - x; /* NaN */
    double r = remainder(x, 2.0); /* exact, in [-1, 1] */
    if (r > 0.5)
        r = 1.0 - r;
    else if (r < -0.5)
        r = -1.0 - r;
    if (r == 0.0)
        return copysign(0.0, x);
    const double pi_lo = 1.2246467991473532e-16;
    double h = M_PI * r, l = fma(M_PI, r, -h) + pi_lo * r;
    return sin(h) + l * cos(h);
}
static inline double cospi(double x)
{
    if (!isfinite(x))
        return x - x;
    return sinpi(0.5 - fabs(remainder(x, 2.0))); /* cospi(1/2) is +0 */
}
static inline float sinpif(float x) { return (float)sinpi((double)x); }
static inline float cospif(float x) { return (float)cospi((double)x); }
#endif
static inline float sinpi(float x) { return sinpif(x); }
static inline float cospi(float x) { return cospif(x); }
static inline void sincospi(double x, double *s, double *c) { *s = sinpi(x); *c = cospi(x); }
static inline void sincospif(float x, float *s, float *c) { *s = sinpif(x); *c = cospif(x); }
static inline void sincospi(float x, float *s, float *c) { sincospif(x, s, c); }

/* Euclidean norms, without overflow in the sum of squares. */
static inline double norm(int dim, const double *p)
{
    double m = 0.0, s = 0.0;
    for (int i = 0; i < dim; i++) {
        if (isinf(p[i]))
            return INFINITY;
        m = fmax(m, fabs(p[i]));
    }
    if (m == 0.0)
        return 0.0;
    for (int i = 0; i < dim; i++) {
        double q = p[i] / m;
        s += q * q;
    }
    return m * sqrt(s);
}
static inline double rnorm(int dim, const double *p) { return 1.0 / norm(dim, p); }
static inline double norm3d(double a, double b, double c) { return hypot(hypot(a, b), c); }
static inline double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }
static inline double norm4d(double a, double b, double c, double d) { return hypot(hypot(a, b), hypot(c, d)); }
static inline double rnorm4d(double a, double b, double c, double d) { return 1.0 / norm4d(a, b, c, d); }
static inline double rhypot(double a, double b) { return 1.0 / hypot(a, b); }

static inline float normf(int dim, const float *p)
{
    double s = 0.0; /* floats squared cannot overflow a double */
    for (int i = 0; i < dim; i++)
        s += (double)p[i] * p[i];
    return (float)sqrt(s);
}
static inline float rnormf(int dim, const float *p) { return (float)(1.0 / (double)normf(dim, p)); }
static inline float norm3df(float a, float b, float c)
{
    return (float)sqrt((double)a * a + (double)b * b + (double)c * c);
}
static inline float rnorm3df(float a, float b, float c)
{
    return (float)(1.0 / sqrt((double)a * a + (double)b * b + (double)c * c));
}
static inline float norm4df(float a, float b, float c, float d)
{
    return (float)sqrt((double)a * a + (double)b * b + (double)c * c + (double)d * d);
}
static inline float rnorm4df(float a, float b, float c, float d)
{
    return (float)(1.0 / sqrt((double)a * a + (double)b * b + (double)c * c + (double)d * d));
}
static inline float rhypotf(float a, float b) { return (float)(1.0 / hypot((double)a, (double)b)); }

static inline float fdividef(float x, float y) { return x / y; }

/* Inverse error functions: a first guess refined by Halley steps on erfc
 * (on erf near 0), so the tails keep their relative accuracy. */
static inline double pyemu_erfcinv_tail(double y) /* y in (0, 1], result >= 0 */
{
    double t;
    if (y > 1e-12) { /* Giles (2010), "Approximating the erfinv function" */
        double w = -log(y * (2.0 - y)), p;
        if (w < 5.0) {
            w -= 2.5;
            p = 2.81022636e-08;
            p = 3.43273939e-07 + p * w;  p = -3.5233877e-06 + p * w;
            p = -4.39150654e-06 + p * w; p = 0.00021858087 + p * w;
            p = -0.00125372503 + p * w;  p = -0.00417768164 + p * w;
            p = 0.246640727 + p * w;     p = 1.50140941 + p * w;
        } else {
            w = sqrt(w) - 3.0;
            p = -0.000200214257;
            p = 0.000100950558 + p * w;  p = 0.00134934322 + p * w;
            p = -0.00367342844 + p * w;  p = 0.00573950773 + p * w;
            p = -0.0076224613 + p * w;   p = 0.00943887047 + p * w;
            p = 1.00167406 + p * w;      p = 2.83297682 + p * w;
        }
        t = p * (1.0 - y);
    } else { /* erfc(t) ~ exp(-t^2) / (t sqrt(pi)) */
        t = sqrt(-log(y));
        t = sqrt(-log(y) - log(t * 1.7724538509055160273));
    }
    for (int i = 0; i < 4 && t > 0.0; i++) {
        double u = (erfc(t) - y) / (-1.1283791670955125739 * exp(-t * t));
        t -= u / (1.0 + t * u);
    }
    return t;
}
static inline double erfinv(double x)
{
    double a = fabs(x);
    if (!(a < 1.0))
        return a == 1.0 ? copysign(INFINITY, x) : NAN;
    if (a >= 0.5)
        return copysign(pyemu_erfcinv_tail(1.0 - a), x); /* 1 - a is exact */
    if (a == 0.0)
        return x;
    double t = pyemu_erfcinv_tail(1.0 - a); /* a first guess */
    for (int i = 0; i < 3; i++) {
        double u = (erf(t) - a) / (1.1283791670955125739 * exp(-t * t));
        t -= u / (1.0 + t * u);
    }
    return copysign(t, x);
}
static inline double erfcinv(double y)
{
    if (!(y > 0.0 && y < 2.0))
        return y == 0.0 ? INFINITY : y == 2.0 ? -INFINITY : NAN;
    if (y >= 0.5 && y <= 1.5)
        return erfinv(1.0 - y); /* exact argument; erf is accurate near 0 */
    if (y > 1.0)
        return -pyemu_erfcinv_tail(2.0 - y); /* 2 - y is exact */
    return pyemu_erfcinv_tail(y);
}
/* Scaled complementary error function exp(x^2) erfc(x). */
static inline double erfcx(double x)
{
    if (x < 25.0) {
        double h = x * x, l = fma(x, x, -h); /* x^2 = h + l exactly */
        return exp(h) * (1.0 + l) * erfc(x);
    }
    if (isinf(x))
        return 0.0;
    /* asymptotic series: 1/(x sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2x^2)^k */
    double z = 1.0 / (2.0 * x * x), term = 1.0, sum = 1.0;
    for (int k = 1; k <= 8; k++) {
        term *= -(2 * k - 1) * z;
        sum += term;
    }
    return sum / (x * 1.7724538509055160273);
}
/* Standard normal distribution function and its inverse. */
static inline double normcdf(double x)
{
    /* x / sqrt(2) = h + l, to keep the relative accuracy of the tails */
    const double s = 0.70710678118654757, s_lo = -4.8336466567264567e-17;
    double h = x * s, l = fma(x, s, -h) + x * s_lo;
    return 0.5 * (erfc(-h) + 1.1283791670955125739 * exp(-h * h) * l);
}
static inline double normcdfinv(double p) { return -1.4142135623730951 * erfcinv(2.0 * p); }
/* Modified Bessel functions of the first kind, orders 0 and 1, in long
 * double: the power series up to |x| = 25, the asymptotic series beyond. */
static inline double pyemu_bessel_i(int nu, double x) /* x >= 0 */
{
    long double sum = 1.0L, t = 1.0L;
    if (isinf(x))
        return x;
    if (x <= 25.0) { /* sum_k (x^2/4)^k / (k! (k + nu)!) */
        long double q = 0.25L * x * x;
        for (int k = 1; k < 200 && t > 1e-21L * sum; k++) {
            t *= q / ((long double)k * (k + nu));
            sum += t;
        }
        return (double)(nu == 0 ? sum : 0.5L * x * sum);
    }
    /* e^x / sqrt(2 pi x) sum_k t_k, t_k = -t_(k-1) (4 nu^2 - (2k-1)^2) / (8 k x) */
    for (int k = 1; k < 100; k++) {
        long double next = -t * (4.0L * nu * nu - (2.0L * k - 1) * (2.0L * k - 1)) / (8.0L * k * x);
        if (fabsl(next) >= fabsl(t))
            break;
        t = next;
        sum += t;
    }
    return (double)(expl(x) * sum / sqrtl(2.0L * 3.14159265358979323846264338327950288L * x));
}
static inline double cyl_bessel_i0(double x) { return pyemu_bessel_i(0, fabs(x)); }
static inline double cyl_bessel_i1(double x) { return copysign(pyemu_bessel_i(1, fabs(x)), x); }

static inline float erfinvf(float x) { return (float)erfinv((double)x); }
static inline float erfcinvf(float x) { return (float)erfcinv((double)x); }
static inline float erfcxf(float x) { return (float)erfcx((double)x); }
static inline float normcdff(float x) { return (float)normcdf((double)x); }
static inline float normcdfinvf(float x) { return (float)normcdfinv((double)x); }
static inline float cyl_bessel_i0f(float x) { return (float)cyl_bessel_i0((double)x); }
static inline float cyl_bessel_i1f(float x) { return (float)cyl_bessel_i1((double)x); }
static inline float erfinv(float x) { return erfinvf(x); }
static inline float erfcinv(float x) { return erfcinvf(x); }
static inline float erfcx(float x) { return erfcxf(x); }
static inline float normcdf(float x) { return normcdff(x); }
static inline float normcdfinv(float x) { return normcdfinvf(x); }

/* ---- min and max: the overloads of CUDA's math_functions.hpp ---------- */

static inline int min(int a, int b) { return a < b ? a : b; }
static inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
static inline long long llmin(long long a, long long b) { return a < b ? a : b; }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
static inline long long llmax(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

/* A signed and an unsigned operand compare as unsigned, as in CUDA. */
#define PYEMU_MINMAX(S, U)                                                       \
    static inline U min(U a, U b) { return a < b ? a : b; }                     \
    static inline U min(S a, U b) { return min((U)a, b); }                      \
    static inline U min(U a, S b) { return min(a, (U)b); }                      \
    static inline U max(U a, U b) { return a > b ? a : b; }                     \
    static inline U max(S a, U b) { return max((U)a, b); }                     \
    static inline U max(U a, S b) { return max(a, (U)b); }
PYEMU_MINMAX(int, unsigned int)
static inline long min(long a, long b) { return a < b ? a : b; }
static inline long max(long a, long b) { return a > b ? a : b; }
PYEMU_MINMAX(long, unsigned long)
static inline long long min(long long a, long long b) { return a < b ? a : b; }
static inline long long max(long long a, long long b) { return a > b ? a : b; }
PYEMU_MINMAX(long long, unsigned long long)
#undef PYEMU_MINMAX

static inline float min(float a, float b) { return fminf(a, b); }
static inline double min(double a, double b) { return fmin(a, b); }
static inline double min(float a, double b) { return fmin(a, b); }
static inline double min(double a, float b) { return fmin(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }
static inline double max(double a, double b) { return fmax(a, b); }
static inline double max(float a, double b) { return fmax(a, b); }
static inline double max(double a, float b) { return fmax(a, b); }

/* ---- fast-math intrinsics: here as accurate as the functions ---------- */

/* glibc declares these names itself (extern "C", never defined in libm.so),
 * so they are defined with that linkage here. */
#define PYEMU_LIBM_NAME extern "C" inline __attribute__((always_inline))
PYEMU_LIBM_NAME float __sinf(float x) noexcept { return sinf(x); }
PYEMU_LIBM_NAME float __cosf(float x) noexcept { return cosf(x); }
PYEMU_LIBM_NAME float __tanf(float x) noexcept { return tanf(x); }
PYEMU_LIBM_NAME void __sincosf(float x, float *s, float *c) noexcept { sincosf(x, s, c); }
PYEMU_LIBM_NAME float __expf(float x) noexcept { return expf(x); }
PYEMU_LIBM_NAME float __exp10f(float x) noexcept { return exp10f(x); }
PYEMU_LIBM_NAME float __logf(float x) noexcept { return logf(x); }
PYEMU_LIBM_NAME float __log2f(float x) noexcept { return log2f(x); }
PYEMU_LIBM_NAME float __log10f(float x) noexcept { return log10f(x); }
PYEMU_LIBM_NAME float __powf(float x, float y) noexcept { return powf(x, y); }
#undef PYEMU_LIBM_NAME
static inline float __fdividef(float x, float y) { return x / y; }
/* Clamps to [0, 1]; NaN gives 0. */
static inline float __saturatef(float x) { return x >= 1.0f ? 1.0f : x > 0.0f ? x : 0.0f; }
static inline float saturate(float x) { return __saturatef(x); }

/* ---- arithmetic in a given rounding mode: _rn nearest even, _rz toward
 * zero, _ru up, _rd down.  The _rn forms are never contracted into an fma. */

/* Runs one operation under another rounding mode.  The operands go through
 * volatile variables so the compiler neither folds the operation nor moves
 * it out from between the two fesetround calls. */
#define PYEMU_ROUNDED(T, MODE, EXPR)                                          \
    do {                                                                      \
        int pyemu_old_mode = fegetround();                                    \
        fesetround(MODE);                                                     \
        volatile T pyemu_result = (EXPR);                                     \
        fesetround(pyemu_old_mode);                                           \
        return pyemu_result;                                                  \
    } while (0)

#define PYEMU_ROUNDED_OPS(SUFFIX, MODE)                                                    \
    static inline float __fadd_##SUFFIX(float a, float b)                                  \
    { volatile float x = a, y = b; PYEMU_ROUNDED(float, MODE, x + y); }                     \
    static inline float __fsub_##SUFFIX(float a, float b)                                  \
    { volatile float x = a, y = b; PYEMU_ROUNDED(float, MODE, x - y); }                     \
    static inline float __fmul_##SUFFIX(float a, float b)                                  \
    { volatile float x = a, y = b; PYEMU_ROUNDED(float, MODE, x * y); }                     \
    static inline float __fdiv_##SUFFIX(float a, float b)                                  \
    { volatile float x = a, y = b; PYEMU_ROUNDED(float, MODE, x / y); }                     \
    static inline float __fmaf_##SUFFIX(float a, float b, float c)                         \
    { volatile float x = a, y = b, z = c; PYEMU_ROUNDED(float, MODE, fmaf(x, y, z)); }      \
    static inline float __frcp_##SUFFIX(float a)                                           \
    { volatile float x = a; PYEMU_ROUNDED(float, MODE, 1.0f / x); }                         \
    static inline float __fsqrt_##SUFFIX(float a)                                          \
    { volatile float x = a; PYEMU_ROUNDED(float, MODE, sqrtf(x)); }                         \
    static inline double __dadd_##SUFFIX(double a, double b)                               \
    { volatile double x = a, y = b; PYEMU_ROUNDED(double, MODE, x + y); }                   \
    static inline double __dsub_##SUFFIX(double a, double b)                               \
    { volatile double x = a, y = b; PYEMU_ROUNDED(double, MODE, x - y); }                   \
    static inline double __dmul_##SUFFIX(double a, double b)                               \
    { volatile double x = a, y = b; PYEMU_ROUNDED(double, MODE, x * y); }                   \
    static inline double __ddiv_##SUFFIX(double a, double b)                               \
    { volatile double x = a, y = b; PYEMU_ROUNDED(double, MODE, x / y); }                   \
    static inline double __fma_##SUFFIX(double a, double b, double c)                      \
    { volatile double x = a, y = b, z = c; PYEMU_ROUNDED(double, MODE, fma(x, y, z)); }     \
    static inline double __drcp_##SUFFIX(double a)                                         \
    { volatile double x = a; PYEMU_ROUNDED(double, MODE, 1.0 / x); }                        \
    static inline double __dsqrt_##SUFFIX(double a)                                        \
    { volatile double x = a; PYEMU_ROUNDED(double, MODE, sqrt(x)); }
PYEMU_ROUNDED_OPS(rz, FE_TOWARDZERO)
PYEMU_ROUNDED_OPS(ru, FE_UPWARD)
PYEMU_ROUNDED_OPS(rd, FE_DOWNWARD)
#undef PYEMU_ROUNDED_OPS

static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __fmaf_ieee_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __frcp_rn(float a) { return 1.0f / a; }
static inline float __fsqrt_rn(float a) { return sqrtf(a); }
static inline float __frsqrt_rn(float a) { return (float)(1.0 / sqrt((double)a)); }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline double __drcp_rn(double a) { return 1.0 / a; }
static inline double __dsqrt_rn(double a) { return sqrt(a); }

/* ---- conversions ------------------------------------------------------- */

/* Float to integer saturates to the integer's range; NaN gives 0 (PTX cvt). */
static inline int pyemu_sat_i32(double r)
{
    return r != r ? 0 : r <= -2147483648.0 ? INT_MIN : r >= 2147483648.0 ? INT_MAX : (int)r;
}
static inline unsigned int pyemu_sat_u32(double r)
{
    return r != r || r <= 0.0 ? 0u : r >= 4294967296.0 ? UINT_MAX : (unsigned int)r;
}
static inline long long pyemu_sat_i64(double r)
{
    return r != r ? 0 : r <= -9223372036854775808.0 ? LLONG_MIN
         : r >= 9223372036854775808.0 ? LLONG_MAX : (long long)r;
}
static inline unsigned long long pyemu_sat_u64(double r)
{
    return r != r || r <= 0.0 ? 0ull : r >= 18446744073709551616.0 ? ULLONG_MAX : (unsigned long long)r;
}

/* Rounds to the nearest integral value, ties to even, whatever the rounding mode. */
static inline double pyemu_roundeven(double x)
{
    if (fabs(x - trunc(x)) == 0.5)
        return 2.0 * round(0.5 * x);
    return round(x);
}

/* __float2int_rn, __double2ull_rd, ...: round to an integral value first. */
#define PYEMU_TO_INT(FROM, F, TO, T, SAT)                                         \
    static inline T __##FROM##2##TO##_rn(F x) { return SAT(pyemu_roundeven(x)); }     \
    static inline T __##FROM##2##TO##_rz(F x) { return SAT(trunc(x)); }          \
    static inline T __##FROM##2##TO##_ru(F x) { return SAT(ceil(x)); }           \
    static inline T __##FROM##2##TO##_rd(F x) { return SAT(floor(x)); }
PYEMU_TO_INT(float, float, int, int, pyemu_sat_i32)
PYEMU_TO_INT(float, float, uint, unsigned int, pyemu_sat_u32)
PYEMU_TO_INT(float, float, ll, long long, pyemu_sat_i64)
PYEMU_TO_INT(float, float, ull, unsigned long long, pyemu_sat_u64)
PYEMU_TO_INT(double, double, int, int, pyemu_sat_i32)
PYEMU_TO_INT(double, double, uint, unsigned int, pyemu_sat_u32)
PYEMU_TO_INT(double, double, ll, long long, pyemu_sat_i64)
PYEMU_TO_INT(double, double, ull, unsigned long long, pyemu_sat_u64)
#undef PYEMU_TO_INT

/* __int2float_rn, __ull2double_rz, __double2float_ru, ...: inexact for large values. */
#define PYEMU_CONVERT(FROM, F, TO, T)                                                          \
    static inline T __##FROM##2##TO##_rn(F x) { return (T)x; }                                \
    static inline T __##FROM##2##TO##_rz(F a) { volatile F x = a; PYEMU_ROUNDED(T, FE_TOWARDZERO, (T)x); } \
    static inline T __##FROM##2##TO##_ru(F a) { volatile F x = a; PYEMU_ROUNDED(T, FE_UPWARD, (T)x); } \
    static inline T __##FROM##2##TO##_rd(F a) { volatile F x = a; PYEMU_ROUNDED(T, FE_DOWNWARD, (T)x); }
PYEMU_CONVERT(int, int, float, float)
PYEMU_CONVERT(uint, unsigned int, float, float)
PYEMU_CONVERT(ll, long long, float, float)
PYEMU_CONVERT(ull, unsigned long long, float, float)
PYEMU_CONVERT(ll, long long, double, double)
PYEMU_CONVERT(ull, unsigned long long, double, double)
PYEMU_CONVERT(double, double, float, float)
#undef PYEMU_CONVERT
#undef PYEMU_ROUNDED
static inline double __int2double_rn(int x) { return (double)x; }
static inline double __uint2double_rn(unsigned int x) { return (double)x; }

/* Reinterpreting the bits. */
static inline constexpr int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
static inline constexpr float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
static inline constexpr unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
static inline constexpr float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
static inline constexpr long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
static inline constexpr double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
static inline constexpr int __double2hiint(double x) { return (int)(__double_as_longlong(x) >> 32); }
static inline constexpr int __double2loint(double x) { return (int)__double_as_longlong(x); }
static inline constexpr double __hiloint2double(int hi, int lo)
{
    return __longlong_as_double((long long)((unsigned long long)(unsigned int)hi << 32 | (unsigned int)lo));
}

/* ---- integer intrinsics ------------------------------------------------ */

static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
/* Position of the lowest set bit, counting from 1; 0 when there is none. */
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
/* Reverses the order of the bits. */
static inline unsigned int __brev(unsigned int x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}
static inline unsigned long long __brevll(unsigned long long x)
{
    return (unsigned long long)__brev((unsigned int)x) << 32 | __brev((unsigned int)(x >> 32));
}
/* Products of the low 24 bits (sign-extended for __mul24); low 32 bits of the result. */
static inline int __mul24(int x, int y)
{
    int a = (int)((unsigned int)x << 8) >> 8, b = (int)((unsigned int)y << 8) >> 8;
    return (int)((unsigned int)a * (unsigned int)b);
}
static inline unsigned int __umul24(unsigned int x, unsigned int y) { return (x & 0xffffffu) * (y & 0xffffffu); }
/* The high half of the double-width product. */
static inline int __mulhi(int x, int y) { return (int)(((long long)x * y) >> 32); }
static inline unsigned int __umulhi(unsigned int x, unsigned int y)
{
    return (unsigned int)(((unsigned long long)x * y) >> 32);
}
static inline long long __mul64hi(long long x, long long y) { return (long long)(((__int128)x * y) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y)
{
    return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}
/* |x - y| + z */
static inline unsigned int __sad(int x, int y, unsigned int z)
{
    return (x > y ? (unsigned int)x - (unsigned int)y : (unsigned int)y - (unsigned int)x) + z;
}
static inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z)
{
    return (x > y ? x - y : y - x) + z;
}
/* Averages without overflow: (x + y) >> 1 and the rounded (x + y + 1) >> 1. */
static inline int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
static inline int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
static inline unsigned int __uhadd(unsigned int x, unsigned int y) { return (unsigned int)(((unsigned long long)x + y) >> 1); }
static inline unsigned int __urhadd(unsigned int x, unsigned int y)
{
    return (unsigned int)(((unsigned long long)x + y + 1) >> 1);
}
/* Byte n of the result is byte (s >> 4n) & 7 of the 8 bytes y:x (x is bytes 0-3). */
static inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s)
{
    unsigned long long bytes = (unsigned long long)y << 32 | x;
    unsigned int r = 0;
    for (int n = 0; n < 4; n++)
        r |= (unsigned int)(bytes >> (8 * ((s >> (4 * n)) & 7)) & 0xffu) << (8 * n);
    return r;
}
/* The 64 bits hi:lo shifted; the shift is taken mod 32 (l, r) or clamped to 32 (lc, rc). */
static inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift)
{
    return (unsigned int)((((unsigned long long)hi << 32 | lo) << (shift & 31)) >> 32);
}
static inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift)
{
    return (unsigned int)((((unsigned long long)hi << 32 | lo) << (shift < 32 ? shift : 32)) >> 32);
}
static inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift)
{
    return (unsigned int)(((unsigned long long)hi << 32 | lo) >> (shift & 31));
}
static inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift)
{
    return (unsigned int)(((unsigned long long)hi << 32 | lo) >> (shift < 32 ? shift : 32));
}

/* ---- the older spellings without underscores (CUDA's device_functions.h) */

enum cudaRoundMode { cudaRoundNearest, cudaRoundZero, cudaRoundPosInf, cudaRoundMinInf };

static inline int mulhi(int a, int b) { return __mulhi(a, b); }
static inline unsigned int mulhi(unsigned int a, unsigned int b) { return __umulhi(a, b); }
static inline unsigned int mulhi(int a, unsigned int b) { return __umulhi((unsigned int)a, b); }
static inline unsigned int mulhi(unsigned int a, int b) { return __umulhi(a, (unsigned int)b); }
static inline long long mul64hi(long long a, long long b) { return __mul64hi(a, b); }
static inline unsigned long long mul64hi(unsigned long long a, unsigned long long b) { return __umul64hi(a, b); }
static inline unsigned long long mul64hi(long long a, unsigned long long b) { return __umul64hi((unsigned long long)a, b); }
static inline unsigned long long mul64hi(unsigned long long a, long long b) { return __umul64hi(a, (unsigned long long)b); }
static inline int mul24(int a, int b) { return __mul24(a, b); }
static inline unsigned int umul24(unsigned int a, unsigned int b) { return __umul24(a, b); }
static inline int float_as_int(float a) { return __float_as_int(a); }
static inline float int_as_float(int a) { return __int_as_float(a); }
static inline unsigned int float_as_uint(float a) { return __float_as_uint(a); }
static inline float uint_as_float(unsigned int a) { return __uint_as_float(a); }
static inline int float2int(float a, enum cudaRoundMode mode)
{
    return mode == cudaRoundNearest ? __float2int_rn(a) : mode == cudaRoundPosInf ? __float2int_ru(a)
         : mode == cudaRoundMinInf ? __float2int_rd(a) : __float2int_rz(a);
}
static inline unsigned int float2uint(float a, enum cudaRoundMode mode)
{
    return mode == cudaRoundNearest ? __float2uint_rn(a) : mode == cudaRoundPosInf ? __float2uint_ru(a)
         : mode == cudaRoundMinInf ? __float2uint_rd(a) : __float2uint_rz(a);
}
static inline float int2float(int a, enum cudaRoundMode mode)
{
    return mode == cudaRoundZero ? __int2float_rz(a) : mode == cudaRoundPosInf ? __int2float_ru(a)
         : mode == cudaRoundMinInf ? __int2float_rd(a) : __int2float_rn(a);
}
static inline float uint2float(unsigned int a, enum cudaRoundMode mode)
{
    return mode == cudaRoundZero ? __uint2float_rz(a) : mode == cudaRoundPosInf ? __uint2float_ru(a)
         : mode == cudaRoundMinInf ? __uint2float_rd(a) : __uint2float_rn(a);
}

/* ---- time -------------------------------------------------------------- */

/* The device clock: clock64() and clock() count cycles of a 1 GHz clock
 * (CLOCK_MONOTONIC nanoseconds), the rate cudaDevAttrClockRate reports
 * (1000000 kHz), so `while (clock() - start < ms * clockRate)` spins for
 * ms milliseconds as on a GPU.  clock() is CUDA's, not glibc's CPU time. */
static inline long long clock64(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
static inline clock_t pyemu_device_clock(void) { return (clock_t)clock64(); }
#define clock() pyemu_device_clock()
