/* OpenCL C conversions (6.2.3-6.2.4, 6.12.7): what convert_T[_sat][_rte|_rtz|
 * _rtp|_rtn], as_T, vloadn/vstoren and the half loads and stores of
 * cl_vectors_gen.h call.
 *
 * Float to integer rounds toward zero unless a mode says otherwise and
 * always saturates (NaN gives 0): with _sat that is the rule, without it
 * the result is undefined and this one is as good as any.  Integer to
 * integer wraps, or clamps with _sat.  Conversions to a floating type round
 * to nearest even, or as the mode says (checked against the exact value).
 */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/opencl_device.h>, not this file"
#endif

enum { PYEMU_RND_DEFAULT = 0, PYEMU_RND_RTE = 1, PYEMU_RND_RTZ = 2, PYEMU_RND_RTP = 3, PYEMU_RND_RTN = 4 };

/* half: a storage format in OpenCL 1.2 (no arithmetic without cl_khr_fp16);
 * g++'s _Float16 where it has one, else 16 bits in a struct. */
#ifdef __FLT16_MAX__
typedef _Float16 half;
#else
typedef struct pyemu_half { unsigned short pyemu_bits; } half;
#endif

/* The range of an integer type. */
template <class pyemu_D> inline pyemu_D pyemu_lowest()
{
    return pyemu_is_signed<pyemu_D>::pyemu_v
               ? pyemu_D((typename pyemu_uint<pyemu_D>::pyemu_t)1 << (8 * sizeof(pyemu_D) - 1))
               : pyemu_D(0);
}
template <class pyemu_D> inline pyemu_D pyemu_highest() { return pyemu_D(~pyemu_lowest<pyemu_D>()); }

/* A floating value rounded as the mode says to the integer it then holds. */
template <int pyemu_Mode, class pyemu_S> inline pyemu_S pyemu_round_to_int(pyemu_S pyemu_x)
{
    return pyemu_Mode == PYEMU_RND_RTE   ? __builtin_nearbyint(pyemu_x)
           : pyemu_Mode == PYEMU_RND_RTP ? __builtin_ceil(pyemu_x)
           : pyemu_Mode == PYEMU_RND_RTN ? __builtin_floor(pyemu_x)
                                         : __builtin_trunc(pyemu_x);
}

static inline float pyemu_nextafter(float pyemu_x, float pyemu_y) { return __builtin_nextafterf(pyemu_x, pyemu_y); }
static inline double pyemu_nextafter(double pyemu_x, double pyemu_y) { return __builtin_nextafter(pyemu_x, pyemu_y); }

/* One scalar converted; Sat and Mode as the suffixes _sat and _rte.. say. */
template <class pyemu_D, int pyemu_Sat, int pyemu_Mode, class pyemu_S> inline pyemu_D pyemu_cvt1(pyemu_S pyemu_x)
{
    if constexpr (pyemu_is_fp<pyemu_D>::pyemu_v) {
        pyemu_D pyemu_r = pyemu_D(pyemu_x); /* the nearest (double -> float, integer -> floating) */
        if constexpr (pyemu_Mode >= PYEMU_RND_RTZ && sizeof(pyemu_S) >= sizeof(pyemu_D)) {
            /* may be inexact: compare with the exact value (long double
             * holds every 64-bit integer and every double) */
            long double pyemu_e = (long double)pyemu_x, pyemu_g = (long double)pyemu_r;
            const pyemu_D pyemu_inf = pyemu_D(__builtin_inf());
            if (pyemu_Mode == PYEMU_RND_RTZ && (pyemu_e < 0 ? pyemu_g < pyemu_e : pyemu_g > pyemu_e))
                pyemu_r = pyemu_nextafter(pyemu_r, pyemu_D(0));
            else if (pyemu_Mode == PYEMU_RND_RTN && pyemu_g > pyemu_e)
                pyemu_r = pyemu_nextafter(pyemu_r, -pyemu_inf);
            else if (pyemu_Mode == PYEMU_RND_RTP && pyemu_g < pyemu_e)
                pyemu_r = pyemu_nextafter(pyemu_r, pyemu_inf);
        }
        return pyemu_r;
    } else if constexpr (pyemu_is_fp<pyemu_S>::pyemu_v) {
        pyemu_S pyemu_r = pyemu_round_to_int<pyemu_Mode>(pyemu_x);
        if (pyemu_r != pyemu_r)
            return pyemu_D(0);
        if (pyemu_r >= pyemu_S(pyemu_highest<pyemu_D>()))
            return pyemu_highest<pyemu_D>();
        if (pyemu_r <= pyemu_S(pyemu_lowest<pyemu_D>()))
            return pyemu_lowest<pyemu_D>();
        return pyemu_D(pyemu_r);
    } else {
        if constexpr (pyemu_Sat != 0) {
            if (pyemu_is_signed<pyemu_S>::pyemu_v && (long long)pyemu_x < 0) {
                if (!pyemu_is_signed<pyemu_D>::pyemu_v || (long long)pyemu_x < (long long)pyemu_lowest<pyemu_D>())
                    return pyemu_lowest<pyemu_D>();
            } else if ((unsigned long long)pyemu_x > (unsigned long long)pyemu_highest<pyemu_D>()) {
                return pyemu_highest<pyemu_D>();
            }
        }
        return pyemu_D(pyemu_x);
    }
}

/* convert_T: a scalar to a scalar, or an n-vector (or swizzle) to an n-vector. */
template <class pyemu_D, int pyemu_Sat, int pyemu_Mode, class pyemu_S> inline pyemu_D pyemu_convert(const pyemu_S &pyemu_x)
{
    static_assert(int(pyemu_vt<pyemu_D>::pyemu_n) == int(pyemu_vt<pyemu_S>::pyemu_n),
                  "convert_T: source and result need the same number of components");
    typedef typename pyemu_vt<pyemu_D>::pyemu_elem pyemu_DE;
    typedef typename pyemu_vt<pyemu_S>::pyemu_elem pyemu_SE;
    static_assert(pyemu_is_fp<pyemu_SE>::pyemu_v || pyemu_is_int<pyemu_SE>::pyemu_v || sizeof(pyemu_SE) == 1,
                  "convert_T: the source is not of an OpenCL scalar or vector type");
    if constexpr (pyemu_vt<pyemu_D>::pyemu_n == 0) {
        return pyemu_cvt1<pyemu_DE, pyemu_Sat, pyemu_Mode>(pyemu_x);
    } else {
        typename pyemu_vt<pyemu_S>::pyemu_type pyemu_v = pyemu_x;
        pyemu_D pyemu_r;
        for (int pyemu_i = 0; pyemu_i < int(pyemu_vt<pyemu_D>::pyemu_n); ++pyemu_i)
            pyemu_r.pyemu_s[pyemu_i] = pyemu_cvt1<pyemu_DE, pyemu_Sat, pyemu_Mode>(pyemu_v.pyemu_s[pyemu_i]);
        pyemu_r.pyemu_pad();
        return pyemu_r;
    }
}

/* as_T: the same bits as another type of the same size (a 3-vector has the
 * size of a 4-vector). */
template <class pyemu_D, class pyemu_S> inline pyemu_D pyemu_as(const pyemu_S &pyemu_x)
{
    typename pyemu_vt<pyemu_S>::pyemu_type pyemu_v = pyemu_x;
    static_assert(sizeof(pyemu_D) == sizeof(pyemu_v), "as_T: source and result need the same size");
    pyemu_D pyemu_r;
    __builtin_memcpy((void *)&pyemu_r, (const void *)&pyemu_v, sizeof pyemu_r);
    return pyemu_r;
}

/* vloadn(off, p) reads p[off*n .. off*n+n-1]; vstoren writes them.  p may
 * point to any address space and need only be aligned to its element. */
template <int pyemu_N, class pyemu_T>
inline pyemu_vec<typename pyemu_remove_cvq<pyemu_T>::pyemu_t, pyemu_N> pyemu_vload(size_t pyemu_o, const pyemu_T *pyemu_p)
{
    pyemu_vec<typename pyemu_remove_cvq<pyemu_T>::pyemu_t, pyemu_N> pyemu_r;
    pyemu_p += pyemu_o * pyemu_N;
    for (int pyemu_i = 0; pyemu_i < pyemu_N; ++pyemu_i)
        pyemu_r.pyemu_s[pyemu_i] = pyemu_p[pyemu_i];
    pyemu_r.pyemu_pad();
    return pyemu_r;
}
template <int pyemu_N, class pyemu_V, class pyemu_T>
inline void pyemu_vstore(const pyemu_V &pyemu_v, size_t pyemu_o, pyemu_T *pyemu_p)
{
    static_assert(int(pyemu_vt<pyemu_V>::pyemu_n) == pyemu_N, "vstoren: the data needs n components");
    typename pyemu_vt<pyemu_V>::pyemu_type pyemu_x = pyemu_v;
    pyemu_p += pyemu_o * pyemu_N;
    for (int pyemu_i = 0; pyemu_i < pyemu_N; ++pyemu_i)
        pyemu_p[pyemu_i] = pyemu_x.pyemu_s[pyemu_i];
}

/* ---- half <-> float ----------------------------------------------------- */

/* The bits of a half, exactly as a float. */
static inline float pyemu_half_to_float(unsigned short pyemu_h)
{
    unsigned pyemu_sign = (unsigned)(pyemu_h & 0x8000u) << 16, pyemu_e = (pyemu_h >> 10) & 0x1fu,
             pyemu_m = pyemu_h & 0x3ffu, pyemu_bits;
    if (pyemu_e == 0x1fu) {
        pyemu_bits = pyemu_sign | 0x7f800000u | (pyemu_m << 13);   /* inf, NaN (payload kept) */
    } else if (pyemu_e != 0) {
        pyemu_bits = pyemu_sign | ((pyemu_e + 112u) << 23) | (pyemu_m << 13);
    } else {
        float pyemu_f = (float)pyemu_m * 0x1p-24f;   /* subnormal or zero: exact */
        __builtin_memcpy(&pyemu_bits, &pyemu_f, 4);
        pyemu_bits |= pyemu_sign;
    }
    float pyemu_r;
    __builtin_memcpy(&pyemu_r, &pyemu_bits, 4);
    return pyemu_r;
}

/* A float or double rounded once to half, as the mode says (default: to
 * nearest even); overflow gives inf or the largest half the mode allows. */
static inline unsigned short pyemu_float_to_half(double pyemu_x, int pyemu_mode)
{
    unsigned short pyemu_sign = __builtin_signbit(pyemu_x) ? 0x8000u : 0u;
    double pyemu_a = __builtin_fabs(pyemu_x);
    if (pyemu_a != pyemu_a)
        return (unsigned short)(pyemu_sign | 0x7e00u);
    bool pyemu_neg = pyemu_sign != 0;
    /* does the mode round this magnitude up (away from zero) when inexact? */
    bool pyemu_up = pyemu_mode == PYEMU_RND_RTP ? !pyemu_neg : pyemu_mode == PYEMU_RND_RTN ? pyemu_neg : false;
    bool pyemu_nearest = pyemu_mode == PYEMU_RND_DEFAULT || pyemu_mode == PYEMU_RND_RTE;
    int pyemu_ex = 0;
    if (pyemu_a != 0 && pyemu_a != __builtin_inf())
        __builtin_frexp(pyemu_a, &pyemu_ex);
    int pyemu_e = pyemu_ex - 1;   /* pyemu_a in [2^e, 2^(e+1)) */
    if (pyemu_a == __builtin_inf() || pyemu_e > 15) {
        bool pyemu_to_inf = pyemu_a == __builtin_inf() || pyemu_nearest || pyemu_up;
        return (unsigned short)(pyemu_sign | (pyemu_to_inf ? 0x7c00u : 0x7bffu));
    }
    if (pyemu_e < -14)
        pyemu_e = -14;   /* subnormal: the quantum is 2^-24 */
    double pyemu_n = __builtin_ldexp(pyemu_a, 10 - pyemu_e);   /* exact; < 2048 */
    double pyemu_fl = __builtin_floor(pyemu_n), pyemu_frac = pyemu_n - pyemu_fl;
    unsigned pyemu_m = (unsigned)pyemu_fl;
    if (pyemu_frac != 0) {
        if (pyemu_nearest)
            pyemu_m += pyemu_frac > 0.5 || (pyemu_frac == 0.5 && (pyemu_m & 1u));
        else
            pyemu_m += pyemu_up;
    }
    if (pyemu_m >= 2048u) {   /* rounded up to the next binade */
        pyemu_m >>= 1;
        pyemu_e += 1;
        if (pyemu_e > 15)
            return (unsigned short)(pyemu_sign | 0x7c00u);
    }
    if (pyemu_m < 1024u)   /* subnormal (pyemu_e == -14) */
        return (unsigned short)(pyemu_sign | pyemu_m);
    return (unsigned short)(pyemu_sign | ((unsigned)(pyemu_e + 15) << 10) | (pyemu_m - 1024u));
}

/* vload_half[n] / vloada_half[n]: n halves from p + at, as floats. */
template <class pyemu_R, int pyemu_N> inline pyemu_R pyemu_vload_half(size_t pyemu_at, const half *pyemu_p)
{
    unsigned short pyemu_h[pyemu_N];
    __builtin_memcpy(pyemu_h, (const void *)(pyemu_p + pyemu_at), sizeof pyemu_h);
    if constexpr (pyemu_N == 1) {
        return pyemu_half_to_float(pyemu_h[0]);
    } else {
        pyemu_R pyemu_r;
        for (int pyemu_i = 0; pyemu_i < pyemu_N; ++pyemu_i)
            pyemu_r.pyemu_s[pyemu_i] = pyemu_half_to_float(pyemu_h[pyemu_i]);
        pyemu_r.pyemu_pad();
        return pyemu_r;
    }
}
/* vstore_half[n][_mode] / vstorea_half[n][_mode]: n floats (or doubles) as halves. */
template <int pyemu_N, int pyemu_Mode, class pyemu_V> inline void pyemu_vstore_half(const pyemu_V &pyemu_v, size_t pyemu_at, half *pyemu_p)
{
    static_assert(pyemu_vt<pyemu_V>::pyemu_n == (pyemu_N == 1 ? 0 : pyemu_N) &&
                      pyemu_is_fp<typename pyemu_vt<pyemu_V>::pyemu_elem>::pyemu_v,
                  "vstore_halfn: the data is a float or double of n components");
    unsigned short pyemu_h[pyemu_N];
    for (int pyemu_i = 0; pyemu_i < pyemu_N; ++pyemu_i)
        pyemu_h[pyemu_i] = pyemu_float_to_half((double)pyemu_el(pyemu_v, pyemu_i), pyemu_Mode);
    __builtin_memcpy((void *)(pyemu_p + pyemu_at), pyemu_h, sizeof pyemu_h);
}
