/* OpenCL C integer built-ins (OpenCL 1.2, 6.12.3) for char ... ulong and
 * their vectors: abs, abs_diff, add_sat, hadd, rhadd, clz, ctz, popcount,
 * mad_hi, mad_sat, mul_hi, rotate, sub_sat, upsample, mad24, mul24.
 * (clamp, max and min serve integers and floats alike: cl_math.h.)
 *
 * Each is exact for every input, without the undefined behaviour C++ has
 * on signed overflow: sums and products are formed in a wider or unsigned
 * type.  abs and abs_diff give the unsigned type (abs(INT_MIN) is
 * 2147483648u); since <stdlib.h> has int abs(int), `abs` is a macro for
 * pyemu_cl_abs, which also takes floats (as fabs) for code that relies on
 * C++'s overloads.
 */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/opencl_device.h>, not this file"
#endif

/* The unsigned type of X's shape (uint4 for int4). */
template <class pyemu_X> using pyemu_ushape_t =
    typename pyemu_like<pyemu_X, typename pyemu_uint<typename pyemu_vt<pyemu_X>::pyemu_elem>::pyemu_t>::pyemu_t;

/* ---- abs, abs_diff ------------------------------------------------------ */

template <class pyemu_A, class pyemu_R = pyemu_num_t<pyemu_A> >
inline typename pyemu_cond<pyemu_is_int<typename pyemu_vt<pyemu_R>::pyemu_elem>::pyemu_v, pyemu_ushape_t<pyemu_R>, pyemu_R>::pyemu_t
pyemu_cl_abs(const pyemu_A &pyemu_a)
{
    typedef typename pyemu_vt<pyemu_R>::pyemu_elem pyemu_E;
    if constexpr (pyemu_is_fp<pyemu_E>::pyemu_v) {
        return fabs(pyemu_R(pyemu_a));
    } else {
        typedef typename pyemu_uint<pyemu_E>::pyemu_t pyemu_U;
        return pyemu_map<pyemu_ushape_t<pyemu_R> >([](pyemu_E pyemu_x) -> pyemu_U {
            return pyemu_x < pyemu_E(0) ? pyemu_U(0u - pyemu_U(pyemu_x)) : pyemu_U(pyemu_x);
        }, pyemu_R(pyemu_a));
    }
}
#undef abs
#define abs pyemu_cl_abs

template <class pyemu_A, class pyemu_B, class pyemu_R = pyemu_int_t<pyemu_A, pyemu_B> >
inline pyemu_ushape_t<pyemu_R> abs_diff(const pyemu_A &pyemu_a, const pyemu_B &pyemu_b)
{
    typedef typename pyemu_vt<pyemu_R>::pyemu_elem pyemu_E;
    typedef typename pyemu_uint<pyemu_E>::pyemu_t pyemu_U;
    return pyemu_map<pyemu_ushape_t<pyemu_R> >([](pyemu_E pyemu_x, pyemu_E pyemu_y) -> pyemu_U {
        return pyemu_x > pyemu_y ? pyemu_U(pyemu_U(pyemu_x) - pyemu_U(pyemu_y)) : pyemu_U(pyemu_U(pyemu_y) - pyemu_U(pyemu_x));
    }, pyemu_R(pyemu_a), pyemu_R(pyemu_b));
}

/* ---- saturating and halving arithmetic --------------------------------- */

template <class pyemu_E> inline pyemu_E pyemu_sat_add(pyemu_E pyemu_x, pyemu_E pyemu_y)
{
    pyemu_E pyemu_r;
    if (!__builtin_add_overflow(pyemu_x, pyemu_y, &pyemu_r))
        return pyemu_r;
    return pyemu_y > pyemu_E(0) ? pyemu_highest<pyemu_E>() : pyemu_lowest<pyemu_E>();
}
template <class pyemu_E> inline pyemu_E pyemu_sat_sub(pyemu_E pyemu_x, pyemu_E pyemu_y)
{
    pyemu_E pyemu_r;
    if (!__builtin_sub_overflow(pyemu_x, pyemu_y, &pyemu_r))
        return pyemu_r;
    return pyemu_y > pyemu_E(0) || !pyemu_is_signed<pyemu_E>::pyemu_v ? pyemu_lowest<pyemu_E>() : pyemu_highest<pyemu_E>();
}
PYEMU_CL_FN2(add_sat, pyemu_int_t, pyemu_sat_add(pyemu_x, pyemu_y))
PYEMU_CL_FN2(sub_sat, pyemu_int_t, pyemu_sat_sub(pyemu_x, pyemu_y))
/* (x + y) >> 1 and (x + y + 1) >> 1 without overflow */
PYEMU_CL_FN2(hadd, pyemu_int_t,
             pyemu_E((pyemu_x >> 1) + (pyemu_y >> 1) + (pyemu_x & pyemu_y & 1)))
PYEMU_CL_FN2(rhadd, pyemu_int_t,
             pyemu_E((pyemu_x >> 1) + (pyemu_y >> 1) + ((pyemu_x | pyemu_y) & 1)))

/* ---- bits --------------------------------------------------------------- */

/* Leading / trailing zeros and set bits of the value's own width
 * (clz(0) and ctz(0) are the width). */
template <class pyemu_E> inline pyemu_E pyemu_clz1(pyemu_E pyemu_x)
{
    typedef typename pyemu_uint<pyemu_E>::pyemu_t pyemu_U;
    unsigned long long pyemu_u = (pyemu_U)pyemu_x;
    const int pyemu_w = 8 * sizeof(pyemu_E);
    return pyemu_E(pyemu_u == 0 ? pyemu_w : __builtin_clzll(pyemu_u) - (64 - pyemu_w));
}
template <class pyemu_E> inline pyemu_E pyemu_ctz1(pyemu_E pyemu_x)
{
    typedef typename pyemu_uint<pyemu_E>::pyemu_t pyemu_U;
    unsigned long long pyemu_u = (pyemu_U)pyemu_x;
    return pyemu_E(pyemu_u == 0 ? int(8 * sizeof(pyemu_E)) : __builtin_ctzll(pyemu_u));
}
template <class pyemu_E> inline pyemu_E pyemu_popcount1(pyemu_E pyemu_x)
{
    typedef typename pyemu_uint<pyemu_E>::pyemu_t pyemu_U;
    return pyemu_E(__builtin_popcountll((unsigned long long)(pyemu_U)pyemu_x));
}
PYEMU_CL_FN1(clz, pyemu_int_t, pyemu_clz1(pyemu_x))
PYEMU_CL_FN1(ctz, pyemu_int_t, pyemu_ctz1(pyemu_x))   /* OpenCL 2.0 */
PYEMU_CL_FN1(popcount, pyemu_int_t, pyemu_popcount1(pyemu_x))

/* rotate(v, i): v rotated left by i modulo the width. */
template <class pyemu_E> inline pyemu_E pyemu_rotl(pyemu_E pyemu_v, pyemu_E pyemu_i)
{
    typedef typename pyemu_uint<pyemu_E>::pyemu_t pyemu_U;
    const unsigned pyemu_w = 8 * sizeof(pyemu_E);
    unsigned pyemu_k = (unsigned)((pyemu_U)pyemu_i % pyemu_w);
    pyemu_U pyemu_u = (pyemu_U)pyemu_v;
    return pyemu_k == 0 ? pyemu_v : pyemu_E(pyemu_U(pyemu_u << pyemu_k) | pyemu_U(pyemu_u >> (pyemu_w - pyemu_k)));
}
PYEMU_CL_FN2(rotate, pyemu_int_t, pyemu_rotl(pyemu_x, pyemu_y))

/* ---- products ----------------------------------------------------------- */

/* The type twice as wide as E, of E's signedness. */
template <class pyemu_E, int pyemu_S = sizeof(pyemu_E), bool pyemu_Sg = pyemu_is_signed<pyemu_E>::pyemu_v>
struct pyemu_wide;
template <class pyemu_E> struct pyemu_wide<pyemu_E, 1, true> { typedef short pyemu_t; };
template <class pyemu_E> struct pyemu_wide<pyemu_E, 1, false> { typedef unsigned short pyemu_t; };
template <class pyemu_E> struct pyemu_wide<pyemu_E, 2, true> { typedef int pyemu_t; };
template <class pyemu_E> struct pyemu_wide<pyemu_E, 2, false> { typedef unsigned int pyemu_t; };
template <class pyemu_E> struct pyemu_wide<pyemu_E, 4, true> { typedef long pyemu_t; };
template <class pyemu_E> struct pyemu_wide<pyemu_E, 4, false> { typedef unsigned long pyemu_t; };
template <class pyemu_E> struct pyemu_wide<pyemu_E, 8, true> { typedef __int128 pyemu_t; };
template <class pyemu_E> struct pyemu_wide<pyemu_E, 8, false> { typedef unsigned __int128 pyemu_t; };

template <class pyemu_E> inline pyemu_E pyemu_mulhi1(pyemu_E pyemu_x, pyemu_E pyemu_y)
{
    typedef typename pyemu_wide<pyemu_E>::pyemu_t pyemu_W;
    return pyemu_E((pyemu_W)pyemu_x * (pyemu_W)pyemu_y >> (8 * sizeof(pyemu_E)));
}
/* a * b + c clamped to E's range (exact in the wide type: even
 * (2^64 - 1)^2 + 2^64 - 1 fits in 128 unsigned bits) */
template <class pyemu_E> inline pyemu_E pyemu_madsat1(pyemu_E pyemu_x, pyemu_E pyemu_y, pyemu_E pyemu_z)
{
    typedef typename pyemu_wide<pyemu_E>::pyemu_t pyemu_W;
    pyemu_W pyemu_r = (pyemu_W)pyemu_x * (pyemu_W)pyemu_y;
    if constexpr (sizeof(pyemu_E) == 8) {
        if constexpr (pyemu_is_signed<pyemu_E>::pyemu_v) {
            pyemu_r += (pyemu_W)pyemu_z;
        } else {
            pyemu_W pyemu_s = pyemu_r + (pyemu_W)pyemu_z;
            pyemu_r = pyemu_s < pyemu_r ? ~(pyemu_W)0 : pyemu_s;
        }
    } else {
        /* 8 * sizeof(E) * 2 bits hold the product; one more bit for the sum:
         * form it in 128 bits */
        __int128 pyemu_t = (__int128)pyemu_r + (__int128)pyemu_z;
        if (pyemu_t > (__int128)pyemu_highest<pyemu_E>())
            return pyemu_highest<pyemu_E>();
        if (pyemu_t < (__int128)pyemu_lowest<pyemu_E>())
            return pyemu_lowest<pyemu_E>();
        return pyemu_E(pyemu_t);
    }
    if (pyemu_r > (pyemu_W)pyemu_highest<pyemu_E>())
        return pyemu_highest<pyemu_E>();
    if (pyemu_is_signed<pyemu_E>::pyemu_v && pyemu_r < (pyemu_W)pyemu_lowest<pyemu_E>())
        return pyemu_lowest<pyemu_E>();
    return pyemu_E(pyemu_r);
}
PYEMU_CL_FN2(mul_hi, pyemu_int_t, pyemu_mulhi1(pyemu_x, pyemu_y))
PYEMU_CL_FN3(mad_hi, pyemu_int_t,
             pyemu_E((typename pyemu_uint<pyemu_E>::pyemu_t)pyemu_mulhi1(pyemu_x, pyemu_y) +
                     (typename pyemu_uint<pyemu_E>::pyemu_t)pyemu_z))   /* wraps */
PYEMU_CL_FN3(mad_sat, pyemu_int_t, pyemu_madsat1(pyemu_x, pyemu_y, pyemu_z))

/* mul24 / mad24: int and uint whose values fit in 24 bits (else the result
 * is undefined); the product wraps like a 32-bit one. */
template <class... pyemu_A> using pyemu_int32_t =
    typename pyemu_if<sizeof(pyemu_elem_t<pyemu_A...>) == 4, pyemu_int_t<pyemu_A...> >::pyemu_t;
PYEMU_CL_FN2(mul24, pyemu_int32_t, pyemu_E((unsigned)pyemu_x * (unsigned)pyemu_y))
PYEMU_CL_FN3(mad24, pyemu_int32_t, pyemu_E((unsigned)pyemu_x * (unsigned)pyemu_y + (unsigned)pyemu_z))

/* upsample(hi, lo) = hi << width | lo: char/uchar -> short/ushort, short ->
 * int, int -> long (signedness of hi; lo is unsigned). */
template <class pyemu_A, class pyemu_B, class pyemu_R = pyemu_int_t<pyemu_A>,
          class pyemu_E = typename pyemu_vt<pyemu_R>::pyemu_elem,
          class pyemu_W = typename pyemu_if<(sizeof(pyemu_E) < 8), typename pyemu_wide<pyemu_E>::pyemu_t>::pyemu_t>
inline typename pyemu_like<pyemu_R, pyemu_W>::pyemu_t upsample(const pyemu_A &pyemu_hi, const pyemu_B &pyemu_lo)
{
    typedef typename pyemu_uint<pyemu_E>::pyemu_t pyemu_U;
    typedef typename pyemu_uint<pyemu_W>::pyemu_t pyemu_UW;
    typedef pyemu_ushape_t<pyemu_R> pyemu_L;
    return pyemu_map<typename pyemu_like<pyemu_R, pyemu_W>::pyemu_t>([](pyemu_E pyemu_h, pyemu_U pyemu_l) -> pyemu_W {
        return pyemu_W(pyemu_UW((pyemu_UW)(pyemu_U)pyemu_h << (8 * sizeof(pyemu_E))) | (pyemu_UW)pyemu_l);
    }, pyemu_R(pyemu_hi), pyemu_L(pyemu_lo));
}
