/* OpenCL C math, common and geometric built-ins (OpenCL 1.2, 6.12.2, 6.12.4,
 * 6.12.5).
 *
 * Scalars: <math.h> has most (sin(float), fma, ...); the others are here.
 * Vectors: every function applies component by component.  native_ and
 * half_ forms are the full-precision functions.  Results are within the
 * specification's ulp bounds: glibc's functions are, and the float
 * functions glibc lacks are computed in double and rounded once.
 */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/opencl_device.h>, not this file"
#endif

/* ---- vector forms of the functions <math.h> has ------------------------- */

#define PYEMU_CL_STD1(name) PYEMU_CL_FN1(name, pyemu_fvec_t, name(pyemu_x))
#define PYEMU_CL_STD2(name) PYEMU_CL_FN2(name, pyemu_fvec_t, name(pyemu_x, pyemu_y))
PYEMU_CL_STD1(acos) PYEMU_CL_STD1(acosh) PYEMU_CL_STD1(asin) PYEMU_CL_STD1(asinh)
PYEMU_CL_STD1(atan) PYEMU_CL_STD1(atanh) PYEMU_CL_STD1(cbrt) PYEMU_CL_STD1(ceil)
PYEMU_CL_STD1(cos) PYEMU_CL_STD1(cosh) PYEMU_CL_STD1(erfc) PYEMU_CL_STD1(erf)
PYEMU_CL_STD1(exp) PYEMU_CL_STD1(exp2) PYEMU_CL_STD1(expm1) PYEMU_CL_STD1(fabs)
PYEMU_CL_STD1(floor) PYEMU_CL_STD1(lgamma) PYEMU_CL_STD1(log) PYEMU_CL_STD1(log2)
PYEMU_CL_STD1(log10) PYEMU_CL_STD1(log1p) PYEMU_CL_STD1(logb) PYEMU_CL_STD1(rint)
PYEMU_CL_STD1(round) PYEMU_CL_STD1(sin) PYEMU_CL_STD1(sinh) PYEMU_CL_STD1(sqrt)
PYEMU_CL_STD1(tan) PYEMU_CL_STD1(tanh) PYEMU_CL_STD1(tgamma) PYEMU_CL_STD1(trunc)
PYEMU_CL_STD2(atan2) PYEMU_CL_STD2(copysign) PYEMU_CL_STD2(fdim) PYEMU_CL_STD2(fmax)
PYEMU_CL_STD2(fmin) PYEMU_CL_STD2(fmod) PYEMU_CL_STD2(hypot) PYEMU_CL_STD2(nextafter)
PYEMU_CL_STD2(pow) PYEMU_CL_STD2(remainder)
PYEMU_CL_FN3(fma, pyemu_fvec_t, fma(pyemu_x, pyemu_y, pyemu_z))
#undef PYEMU_CL_STD1
#undef PYEMU_CL_STD2

/* ---- functions <math.h> lacks ------------------------------------------- */

static inline float exp10(float pyemu_x) { return (float)exp10((double)pyemu_x); }
PYEMU_CL_FN1(exp10, pyemu_fvec_t, exp10(pyemu_x))

/* sin(pi x), cos(pi x), tan(pi x): x is reduced exactly to [-1, 1] first,
 * so large arguments and exact zeros come out right. */
static inline double pyemu_sinpi(double pyemu_x)
{
    if (!__builtin_isfinite(pyemu_x))
        return pyemu_x - pyemu_x;
    double pyemu_r = remainder(pyemu_x, 2.0);
    if (pyemu_r > 0.5)
        pyemu_r = 1.0 - pyemu_r;
    else if (pyemu_r < -0.5)
        pyemu_r = -1.0 - pyemu_r;
    return pyemu_r == 0.0 ? copysign(0.0, pyemu_x) : sin(M_PI * pyemu_r);
}
static inline double pyemu_cospi(double pyemu_x)
{
    if (!__builtin_isfinite(pyemu_x))
        return pyemu_x - pyemu_x;
    return pyemu_sinpi(0.5 - fabs(remainder(pyemu_x, 2.0)));
}
/* tan has period pi: r in [-1/2, 1/2]; beyond 1/4 as 1 / tan(pi (1/2 - |r|)),
 * whose argument is exact, so the poles come out right.  tanpi(n + 1/2) is
 * +inf for even n, -inf for odd n; tanpi(n) is copysign(0, n) for even n,
 * copysign(0, -n) for odd n (7.5.1). */
static inline double pyemu_tanpi(double pyemu_x)
{
    if (!__builtin_isfinite(pyemu_x))
        return pyemu_x - pyemu_x;
    double pyemu_r = remainder(pyemu_x, 1.0), pyemu_r2 = remainder(pyemu_x, 2.0);
    if (pyemu_r == 0.0)
        return fabs(pyemu_r2) == 1.0 ? copysign(0.0, -pyemu_x) : copysign(0.0, pyemu_x);
    if (fabs(pyemu_r) == 0.5)
        return pyemu_r2 > 0 ? __builtin_inf() : -__builtin_inf();
    if (fabs(pyemu_r) > 0.25)
        return copysign(1.0, pyemu_r) / tan(M_PI * (0.5 - fabs(pyemu_r)));
    return tan(M_PI * pyemu_r);
}

PYEMU_CL_FN1(sinpi, pyemu_fp_t, pyemu_E(pyemu_sinpi(pyemu_x)))
PYEMU_CL_FN1(cospi, pyemu_fp_t, pyemu_E(pyemu_cospi(pyemu_x)))
PYEMU_CL_FN1(tanpi, pyemu_fp_t, pyemu_E(pyemu_tanpi(pyemu_x)))
PYEMU_CL_FN1(acospi, pyemu_fp_t, pyemu_E(acos((double)pyemu_x) / M_PI))
PYEMU_CL_FN1(asinpi, pyemu_fp_t, pyemu_E(asin((double)pyemu_x) / M_PI))
PYEMU_CL_FN1(atanpi, pyemu_fp_t, pyemu_E(atan((double)pyemu_x) / M_PI))
PYEMU_CL_FN2(atan2pi, pyemu_fp_t, pyemu_E(atan2((double)pyemu_x, (double)pyemu_y) / M_PI))
PYEMU_CL_FN1(rsqrt, pyemu_fp_t,
             sizeof(pyemu_E) == 4 ? pyemu_E(1.0 / sqrt((double)pyemu_x)) : pyemu_E(1.0L / sqrtl((long double)pyemu_x)))
PYEMU_CL_FN3(mad, pyemu_fp_t, pyemu_x * pyemu_y + pyemu_z)
PYEMU_CL_FN2(maxmag, pyemu_fp_t,
             fabs(pyemu_x) > fabs(pyemu_y) ? pyemu_x : fabs(pyemu_y) > fabs(pyemu_x) ? pyemu_y : fmax(pyemu_x, pyemu_y))
PYEMU_CL_FN2(minmag, pyemu_fp_t,
             fabs(pyemu_x) < fabs(pyemu_y) ? pyemu_x : fabs(pyemu_y) < fabs(pyemu_x) ? pyemu_y : fmin(pyemu_x, pyemu_y))
/* powr: x >= 0 only (pow of exp(y log x)); NaN below 0, and for 0^0, inf^0, 1^inf */
PYEMU_CL_FN2(powr, pyemu_fp_t,
             pyemu_x < pyemu_E(0) || pyemu_x != pyemu_x || pyemu_y != pyemu_y
                 || (pyemu_x == pyemu_E(0) && pyemu_y == pyemu_E(0))
                 || (__builtin_isinf(pyemu_x) && pyemu_y == pyemu_E(0))
                 || (pyemu_x == pyemu_E(1) && __builtin_isinf(pyemu_y))
                 ? pyemu_E(__builtin_nan(""))
                 : pyemu_E(pow(pyemu_x, pyemu_y)))

/* pown(x, n) and rootn(x, n): n is an int (or an int vector). */
template <class pyemu_A, class pyemu_B, class pyemu_R = pyemu_fp_t<pyemu_A> >
inline pyemu_R pown(const pyemu_A &pyemu_a, const pyemu_B &pyemu_n)
{
    typedef typename pyemu_like<pyemu_R, int>::pyemu_t pyemu_I;
    typedef typename pyemu_vt<pyemu_R>::pyemu_elem pyemu_E;
    return pyemu_map<pyemu_R>([](pyemu_E pyemu_x, int pyemu_k) -> pyemu_E {
        return pyemu_E(pow((double)pyemu_x, (double)pyemu_k));
    }, pyemu_R(pyemu_a), pyemu_I(pyemu_n));
}
template <class pyemu_A, class pyemu_B, class pyemu_R = pyemu_fp_t<pyemu_A> >
inline pyemu_R rootn(const pyemu_A &pyemu_a, const pyemu_B &pyemu_n)
{
    typedef typename pyemu_like<pyemu_R, int>::pyemu_t pyemu_I;
    typedef typename pyemu_vt<pyemu_R>::pyemu_elem pyemu_E;
    return pyemu_map<pyemu_R>([](pyemu_E pyemu_x, int pyemu_k) -> pyemu_E {
        if (pyemu_k == 0)
            return pyemu_E(__builtin_nan(""));
        if (pyemu_x == pyemu_E(0))   /* +-0: +-inf for n < 0 (odd keeps the sign), +-0 / +0 above */
            return pyemu_k < 0 ? pyemu_E((pyemu_k & 1) ? copysign(__builtin_inf(), (double)pyemu_x) : __builtin_inf())
                               : pyemu_E((pyemu_k & 1) ? pyemu_x : pyemu_E(0));
        if (pyemu_x < pyemu_E(0))
            return (pyemu_k & 1) ? pyemu_E(-pow(-(double)pyemu_x, 1.0 / pyemu_k)) : pyemu_E(__builtin_nan(""));
        return pyemu_E(pow((double)pyemu_x, 1.0 / pyemu_k));
    }, pyemu_R(pyemu_a), pyemu_I(pyemu_n));
}
template <class pyemu_A, class pyemu_B, class pyemu_R = pyemu_fvec_t<pyemu_A> >
inline pyemu_R ldexp(const pyemu_A &pyemu_a, const pyemu_B &pyemu_n)
{
    typedef typename pyemu_like<pyemu_R, int>::pyemu_t pyemu_I;
    typedef typename pyemu_vt<pyemu_R>::pyemu_elem pyemu_E;
    return pyemu_map<pyemu_R>([](pyemu_E pyemu_x, int pyemu_k) -> pyemu_E { return ldexp(pyemu_x, pyemu_k); },
                              pyemu_R(pyemu_a), pyemu_I(pyemu_n));
}
template <class pyemu_A, class pyemu_R = pyemu_fvec_t<pyemu_A> >
inline typename pyemu_like<pyemu_R, int>::pyemu_t ilogb(const pyemu_A &pyemu_a)
{
    typename pyemu_like<pyemu_R, int>::pyemu_t pyemu_r;
    pyemu_R pyemu_x = pyemu_a;
    for (int pyemu_i = 0; pyemu_i < int(pyemu_vt<pyemu_R>::pyemu_n); ++pyemu_i)
        pyemu_r.pyemu_s[pyemu_i] = ilogb(pyemu_x.pyemu_s[pyemu_i]);
    pyemu_r.pyemu_pad();
    return pyemu_r;
}

/* nan(code): a quiet NaN whose payload holds the code (nan(const char *)
 * of <math.h> stays). */
static inline float nan(uint pyemu_c)
{
    return __builtin_bit_cast(float, 0x7fc00000u | (pyemu_c & 0x3fffffu));
}
static inline float nan(int pyemu_c) { return nan((uint)pyemu_c); }   /* nan(0) */
static inline double nan(ulong pyemu_c)
{
    return __builtin_bit_cast(double, 0x7ff8000000000000ul | (pyemu_c & 0x7fffffffffffful));
}
template <class pyemu_A, class pyemu_R = pyemu_ivec_t<pyemu_A> >
inline typename pyemu_like<pyemu_R, typename pyemu_cond<sizeof(typename pyemu_vt<pyemu_R>::pyemu_elem) == 8, double, float>::pyemu_t>::pyemu_t
nan(const pyemu_A &pyemu_a)
{
    typedef typename pyemu_cond<sizeof(typename pyemu_vt<pyemu_R>::pyemu_elem) == 8, ulong, uint>::pyemu_t pyemu_U;
    typename pyemu_like<pyemu_R, decltype(nan(pyemu_U()))>::pyemu_t pyemu_r;
    pyemu_R pyemu_c = pyemu_a;
    for (int pyemu_i = 0; pyemu_i < int(pyemu_vt<pyemu_R>::pyemu_n); ++pyemu_i)
        pyemu_r.pyemu_s[pyemu_i] = nan((pyemu_U)pyemu_c.pyemu_s[pyemu_i]);
    pyemu_r.pyemu_pad();
    return pyemu_r;
}

/* Functions that also store through a pointer: the pointee is of the
 * result's shape (fract, modf, sincos) or an int of that shape (frexp,
 * lgamma_r, remquo). */
template <class pyemu_A, class pyemu_R = pyemu_fp_t<pyemu_A> >
inline pyemu_R fract(const pyemu_A &pyemu_a, pyemu_R *pyemu_iptr)
{
    typedef typename pyemu_vt<pyemu_R>::pyemu_elem pyemu_E;
    pyemu_R pyemu_x = pyemu_a, pyemu_fl = floor(pyemu_x);
    *pyemu_iptr = pyemu_fl;
    return pyemu_map<pyemu_R>([](pyemu_E pyemu_v, pyemu_E pyemu_f) -> pyemu_E {
        if (pyemu_v != pyemu_v || pyemu_v == pyemu_E(0))
            return pyemu_v;
        if (__builtin_isinf(pyemu_v))
            return copysign(pyemu_E(0), pyemu_v);
        return fmin(pyemu_v - pyemu_f, pyemu_E(sizeof(pyemu_E) == 4 ? 0x1.fffffep-1 : 0x1.fffffffffffffp-1));
    }, pyemu_x, pyemu_fl);
}
template <class pyemu_A, class pyemu_R = pyemu_fvec_t<pyemu_A> >
inline pyemu_R modf(const pyemu_A &pyemu_a, pyemu_R *pyemu_iptr)
{
    typedef typename pyemu_vt<pyemu_R>::pyemu_elem pyemu_E;
    pyemu_R pyemu_x = pyemu_a, pyemu_w = trunc(pyemu_x);
    *pyemu_iptr = pyemu_w;
    return pyemu_map<pyemu_R>([](pyemu_E pyemu_v, pyemu_E pyemu_t) -> pyemu_E {
        return __builtin_isinf(pyemu_v) ? copysign(pyemu_E(0), pyemu_v) : copysign(pyemu_v - pyemu_t, pyemu_v);
    }, pyemu_x, pyemu_w);
}
template <class pyemu_A, class pyemu_R = pyemu_fp_t<pyemu_A> >
inline pyemu_R sincos(const pyemu_A &pyemu_a, pyemu_R *pyemu_cosval)
{
    pyemu_R pyemu_x = pyemu_a;
    *pyemu_cosval = cos(pyemu_x);
    return sin(pyemu_x);
}
template <class pyemu_A, class pyemu_R = pyemu_fvec_t<pyemu_A>, class pyemu_I = typename pyemu_like<pyemu_R, int>::pyemu_t>
inline pyemu_R frexp(const pyemu_A &pyemu_a, pyemu_I *pyemu_e)
{
    pyemu_R pyemu_x = pyemu_a, pyemu_r;
    pyemu_I pyemu_k;
    for (int pyemu_i = 0; pyemu_i < int(pyemu_vt<pyemu_R>::pyemu_n); ++pyemu_i)
        pyemu_r.pyemu_s[pyemu_i] = frexp(pyemu_x.pyemu_s[pyemu_i], &pyemu_k.pyemu_s[pyemu_i]);
    pyemu_r.pyemu_pad();
    pyemu_k.pyemu_pad();
    *pyemu_e = pyemu_k;
    return pyemu_r;
}
template <class pyemu_A, class pyemu_R = pyemu_fp_t<pyemu_A>, class pyemu_I = typename pyemu_like<pyemu_R, int>::pyemu_t>
inline pyemu_R lgamma_r(const pyemu_A &pyemu_a, pyemu_I *pyemu_sign)
{
    pyemu_R pyemu_x = pyemu_a;
    if constexpr (pyemu_vt<pyemu_R>::pyemu_n == 0) {
        int pyemu_sg = 1;   /* float through glibc's double lgamma_r: the sign is gamma's */
        pyemu_R pyemu_r = (pyemu_R)lgamma_r((double)pyemu_x, &pyemu_sg);
        *pyemu_sign = pyemu_sg;
        return pyemu_r;
    } else {
        pyemu_R pyemu_r;
        pyemu_I pyemu_k;
        for (int pyemu_i = 0; pyemu_i < int(pyemu_vt<pyemu_R>::pyemu_n); ++pyemu_i)
            pyemu_r.pyemu_s[pyemu_i] = lgamma_r(pyemu_x.pyemu_s[pyemu_i], &pyemu_k.pyemu_s[pyemu_i]);
        pyemu_r.pyemu_pad();
        pyemu_k.pyemu_pad();
        *pyemu_sign = pyemu_k;
        return pyemu_r;
    }
}
/* remquo: the remainder of remainder(), and in *q the sign and the low 7
 * bits of the quotient rounded to nearest even (OpenCL asks for 7 bits;
 * glibc's remquo gives 3).  x mod 128y is exact (fmod), then the quotient
 * below 128 and the remainder are found exactly with fma. */
template <class pyemu_E> inline pyemu_E pyemu_remquo1(pyemu_E pyemu_x, pyemu_E pyemu_y, int *pyemu_q)
{
    *pyemu_q = 0;
    if (pyemu_x != pyemu_x || pyemu_y != pyemu_y || __builtin_isinf(pyemu_x) || pyemu_y == pyemu_E(0))
        return pyemu_E(__builtin_nan(""));
    if (__builtin_isinf(pyemu_y) || pyemu_x == pyemu_E(0))
        return pyemu_x;
    double pyemu_ax = fabs((double)pyemu_x), pyemu_ay = fabs((double)pyemu_y);
    double pyemu_a = fmod(pyemu_ax, 128.0 * pyemu_ay);   /* 128 y may be inf: then ax itself */
    double pyemu_k = __builtin_floor(pyemu_a / pyemu_ay);
    double pyemu_r = fma(-pyemu_k, pyemu_ay, pyemu_a);
    if (pyemu_r < 0) {
        pyemu_k -= 1;
        pyemu_r += pyemu_ay;
    } else if (pyemu_r >= pyemu_ay) {
        pyemu_k += 1;
        pyemu_r -= pyemu_ay;
    }
    double pyemu_h = pyemu_ay - pyemu_r;   /* exact: the distance to the next multiple */
    if (pyemu_h < pyemu_r || (pyemu_h == pyemu_r && fmod(pyemu_k, 2.0) == 1.0)) {
        pyemu_k += 1;
        pyemu_r = -pyemu_h;
    }
    int pyemu_n = (int)pyemu_k & 127;
    *pyemu_q = __builtin_signbit(pyemu_x) != __builtin_signbit(pyemu_y) ? -pyemu_n : pyemu_n;
    return pyemu_E(copysign(fabs(pyemu_r), pyemu_r) * (__builtin_signbit(pyemu_x) ? -1.0 : 1.0));
}
/* <math.h> has remquo(float, float, int *) with 3 bits: `remquo` is a macro
 * for pyemu_cl_remquo, as `abs` is for pyemu_cl_abs. */
template <class pyemu_A, class pyemu_B, class pyemu_R = pyemu_fp_t<pyemu_A, pyemu_B>,
          class pyemu_I = typename pyemu_like<pyemu_R, int>::pyemu_t>
inline pyemu_R pyemu_cl_remquo(const pyemu_A &pyemu_a, const pyemu_B &pyemu_b, pyemu_I *pyemu_q)
{
    pyemu_R pyemu_x = pyemu_a, pyemu_y = pyemu_b;
    if constexpr (pyemu_vt<pyemu_R>::pyemu_n == 0) {
        return pyemu_remquo1(pyemu_x, pyemu_y, pyemu_q);
    } else {
        pyemu_R pyemu_r;
        pyemu_I pyemu_k;
        for (int pyemu_i = 0; pyemu_i < int(pyemu_vt<pyemu_R>::pyemu_n); ++pyemu_i)
            pyemu_r.pyemu_s[pyemu_i] = pyemu_remquo1(pyemu_x.pyemu_s[pyemu_i], pyemu_y.pyemu_s[pyemu_i], &pyemu_k.pyemu_s[pyemu_i]);
        pyemu_r.pyemu_pad();
        pyemu_k.pyemu_pad();
        *pyemu_q = pyemu_k;
        return pyemu_r;
    }
}
#undef remquo
#define remquo pyemu_cl_remquo

/* native_ and half_ forms: the full-precision functions (the specification
 * lets them be more accurate than it asks). */
#define native_cos(...) cos(__VA_ARGS__)
#define native_exp(...) exp(__VA_ARGS__)
#define native_exp2(...) exp2(__VA_ARGS__)
#define native_exp10(...) exp10(__VA_ARGS__)
#define native_log(...) log(__VA_ARGS__)
#define native_log2(...) log2(__VA_ARGS__)
#define native_log10(...) log10(__VA_ARGS__)
#define native_powr(...) powr(__VA_ARGS__)
#define native_rsqrt(...) rsqrt(__VA_ARGS__)
#define native_sin(...) sin(__VA_ARGS__)
#define native_sqrt(...) sqrt(__VA_ARGS__)
#define native_tan(...) tan(__VA_ARGS__)
#define native_divide(pyemu_x, pyemu_y) ((pyemu_x) / (pyemu_y))
#define native_recip(pyemu_x) (1.0f / (pyemu_x))
#define half_cos(...) cos(__VA_ARGS__)
#define half_exp(...) exp(__VA_ARGS__)
#define half_exp2(...) exp2(__VA_ARGS__)
#define half_exp10(...) exp10(__VA_ARGS__)
#define half_log(...) log(__VA_ARGS__)
#define half_log2(...) log2(__VA_ARGS__)
#define half_log10(...) log10(__VA_ARGS__)
#define half_powr(...) powr(__VA_ARGS__)
#define half_rsqrt(...) rsqrt(__VA_ARGS__)
#define half_sin(...) sin(__VA_ARGS__)
#define half_sqrt(...) sqrt(__VA_ARGS__)
#define half_tan(...) tan(__VA_ARGS__)
#define half_divide(pyemu_x, pyemu_y) ((pyemu_x) / (pyemu_y))
#define half_recip(pyemu_x) (1.0f / (pyemu_x))

/* ---- common functions (6.12.4) ------------------------------------------ */

PYEMU_CL_FN1(degrees, pyemu_fp_t, pyemu_x * pyemu_E(180.0 / M_PI))
PYEMU_CL_FN1(radians, pyemu_fp_t, pyemu_x * pyemu_E(M_PI / 180.0))
PYEMU_CL_FN3(mix, pyemu_fp_t, pyemu_x + (pyemu_y - pyemu_x) * pyemu_z)
PYEMU_CL_FN2(step, pyemu_fp_t, pyemu_y < pyemu_x ? pyemu_E(0) : pyemu_E(1))
static inline double pyemu_smoothstep(double pyemu_e0, double pyemu_e1, double pyemu_x)
{
    double pyemu_t = fmin(fmax((pyemu_x - pyemu_e0) / (pyemu_e1 - pyemu_e0), 0.0), 1.0);
    return pyemu_t * pyemu_t * (3.0 - 2.0 * pyemu_t);
}
PYEMU_CL_FN3(smoothstep, pyemu_fp_t, pyemu_E(pyemu_smoothstep(pyemu_x, pyemu_y, pyemu_z)))
PYEMU_CL_FN1(sign, pyemu_fp_t,
             pyemu_x != pyemu_x ? pyemu_E(0) : pyemu_x > pyemu_E(0) ? pyemu_E(1) : pyemu_x < pyemu_E(0) ? pyemu_E(-1) : pyemu_x)
/* max, min and clamp serve integers too (6.12.3) */
PYEMU_CL_FN2(max, pyemu_num_t,
             pyemu_is_fp<pyemu_E>::pyemu_v ? pyemu_E(fmax(pyemu_x, pyemu_y)) : (pyemu_x < pyemu_y ? pyemu_y : pyemu_x))
PYEMU_CL_FN2(min, pyemu_num_t,
             pyemu_is_fp<pyemu_E>::pyemu_v ? pyemu_E(fmin(pyemu_x, pyemu_y)) : (pyemu_y < pyemu_x ? pyemu_y : pyemu_x))
PYEMU_CL_FN3(clamp, pyemu_num_t,
             pyemu_is_fp<pyemu_E>::pyemu_v ? pyemu_E(fmin(fmax(pyemu_x, pyemu_y), pyemu_z))
                                           : (pyemu_x < pyemu_y ? pyemu_y : pyemu_z < pyemu_x ? pyemu_z : pyemu_x))

/* ---- geometric functions (6.12.5) --------------------------------------- */

template <class pyemu_A, class pyemu_B, class pyemu_R = pyemu_fp_t<pyemu_A, pyemu_B> >
inline typename pyemu_vt<pyemu_R>::pyemu_elem dot(const pyemu_A &pyemu_a, const pyemu_B &pyemu_b)
{
    pyemu_R pyemu_x = pyemu_a, pyemu_y = pyemu_b;
    typename pyemu_vt<pyemu_R>::pyemu_elem pyemu_s = 0;
    for (int pyemu_i = 0; pyemu_i < pyemu_len<pyemu_R>::pyemu_v; ++pyemu_i)
        pyemu_s += pyemu_el(pyemu_x, pyemu_i) * pyemu_el(pyemu_y, pyemu_i);
    return pyemu_s;
}
template <class pyemu_A, class pyemu_B, class pyemu_R = pyemu_fvec_t<pyemu_A, pyemu_B> >
inline pyemu_R cross(const pyemu_A &pyemu_a, const pyemu_B &pyemu_b)
{
    static_assert(pyemu_vt<pyemu_R>::pyemu_n == 3 || pyemu_vt<pyemu_R>::pyemu_n == 4, "cross takes 3- or 4-vectors");
    pyemu_R pyemu_x = pyemu_a, pyemu_y = pyemu_b, pyemu_r = pyemu_R(0);
    pyemu_r.pyemu_s[0] = pyemu_x.pyemu_s[1] * pyemu_y.pyemu_s[2] - pyemu_x.pyemu_s[2] * pyemu_y.pyemu_s[1];
    pyemu_r.pyemu_s[1] = pyemu_x.pyemu_s[2] * pyemu_y.pyemu_s[0] - pyemu_x.pyemu_s[0] * pyemu_y.pyemu_s[2];
    pyemu_r.pyemu_s[2] = pyemu_x.pyemu_s[0] * pyemu_y.pyemu_s[1] - pyemu_x.pyemu_s[1] * pyemu_y.pyemu_s[0];
    return pyemu_r;
}
/* The sum of squares and the scale it was taken at: float components are
 * squared in double (no overflow, no underflow), double ones after division
 * by the largest magnitude. */
template <class pyemu_R> inline double pyemu_sumsq(const pyemu_R &pyemu_x, double *pyemu_scale)
{
    typedef typename pyemu_vt<pyemu_R>::pyemu_elem pyemu_E;
    double pyemu_m = 1, pyemu_s = 0;
    if constexpr (sizeof(pyemu_E) == 8) {
        pyemu_m = 0;
        for (int pyemu_i = 0; pyemu_i < pyemu_len<pyemu_R>::pyemu_v; ++pyemu_i)
            pyemu_m = fmax(pyemu_m, fabs((double)pyemu_el(pyemu_x, pyemu_i)));
        if (pyemu_m == 0 || __builtin_isinf(pyemu_m)) {
            *pyemu_scale = pyemu_m;
            return pyemu_m == 0 ? 0 : 1;
        }
    }
    for (int pyemu_i = 0; pyemu_i < pyemu_len<pyemu_R>::pyemu_v; ++pyemu_i) {
        double pyemu_t = (double)pyemu_el(pyemu_x, pyemu_i) / pyemu_m;
        pyemu_s += pyemu_t * pyemu_t;
    }
    *pyemu_scale = pyemu_m;
    return pyemu_s;
}
template <class pyemu_A, class pyemu_R = pyemu_fp_t<pyemu_A> >
inline typename pyemu_vt<pyemu_R>::pyemu_elem length(const pyemu_A &pyemu_a)
{
    typedef typename pyemu_vt<pyemu_R>::pyemu_elem pyemu_E;
    double pyemu_m;
    double pyemu_s = pyemu_sumsq(pyemu_R(pyemu_a), &pyemu_m);
    return pyemu_E(sqrt(pyemu_s) * pyemu_m);
}
template <class pyemu_A, class pyemu_B, class pyemu_R = pyemu_fp_t<pyemu_A, pyemu_B> >
inline typename pyemu_vt<pyemu_R>::pyemu_elem distance(const pyemu_A &pyemu_a, const pyemu_B &pyemu_b)
{
    return length(pyemu_R(pyemu_a) - pyemu_R(pyemu_b));
}
/* normalize: v itself when all zero; NaNs if any is NaN; with infinities,
 * as if those were +-1 and the rest 0 (6.12.5). */
template <class pyemu_A, class pyemu_R = pyemu_fp_t<pyemu_A> >
inline pyemu_R normalize(const pyemu_A &pyemu_a)
{
    typedef typename pyemu_vt<pyemu_R>::pyemu_elem pyemu_E;
    pyemu_R pyemu_x = pyemu_a;
    bool pyemu_inf = false, pyemu_zero = true;
    for (int pyemu_i = 0; pyemu_i < pyemu_len<pyemu_R>::pyemu_v; ++pyemu_i) {
        pyemu_E pyemu_c = pyemu_el(pyemu_x, pyemu_i);
        if (pyemu_c != pyemu_c)
            return pyemu_R(pyemu_E(__builtin_nan("")));
        pyemu_inf = pyemu_inf || __builtin_isinf(pyemu_c);
        pyemu_zero = pyemu_zero && pyemu_c == 0;
    }
    if (pyemu_zero)
        return pyemu_x;
    if (pyemu_inf)
        pyemu_x = pyemu_map<pyemu_R>([](pyemu_E pyemu_c) -> pyemu_E {
            return __builtin_isinf(pyemu_c) ? copysign(pyemu_E(1), pyemu_c) : pyemu_E(0) * pyemu_c;
        }, pyemu_x);
    double pyemu_m;
    double pyemu_l = sqrt(pyemu_sumsq(pyemu_x, &pyemu_m));
    return pyemu_map<pyemu_R>([pyemu_m, pyemu_l](pyemu_E pyemu_c) -> pyemu_E {
        return pyemu_E((double)pyemu_c / pyemu_m / pyemu_l);
    }, pyemu_x);
}
#define fast_length(...) length(__VA_ARGS__)
#define fast_distance(...) distance(__VA_ARGS__)
#define fast_normalize(...) normalize(__VA_ARGS__)
