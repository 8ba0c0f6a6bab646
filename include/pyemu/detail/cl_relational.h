/* OpenCL C relational built-ins (OpenCL 1.2, 6.12.6).
 *
 * A test gives int 1 / 0 for scalars and -1 / 0 per component for vectors
 * (int for float vectors, long for double vectors).  For scalars, the
 * names <math.h> has (isnan, isinf, isfinite, isnormal, signbit, isgreater,
 * isgreaterequal, isless, islessequal, islessgreater, isunordered) stay its
 * functions, which give true / false: the same 1 / 0 once used as an int.
 * any / all look at the most significant bit of each component, and so
 * does select for a vector condition; a scalar condition selects by != 0.
 */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/opencl_device.h>, not this file"
#endif

#define PYEMU_CL_TEST2(name, CHECK, expr)                                               \
    template <class pyemu_A, class pyemu_B, class pyemu_R = CHECK<pyemu_A, pyemu_B> >    \
    inline pyemu_mask_t<pyemu_R> name(const pyemu_A &pyemu_a, const pyemu_B &pyemu_b)   \
    {                                                                                   \
        typedef typename pyemu_vt<pyemu_R>::pyemu_elem pyemu_E;                         \
        return pyemu_test([](pyemu_E pyemu_x, pyemu_E pyemu_y) -> bool { return expr; }, \
                          pyemu_R(pyemu_a), pyemu_R(pyemu_b));                          \
    }
#define PYEMU_CL_TEST1(name, CHECK, expr)                                               \
    template <class pyemu_A, class pyemu_R = CHECK<pyemu_A> >                           \
    inline pyemu_mask_t<pyemu_R> name(const pyemu_A &pyemu_a)                           \
    {                                                                                   \
        typedef typename pyemu_vt<pyemu_R>::pyemu_elem pyemu_E;                         \
        return pyemu_test([](pyemu_E pyemu_x) -> bool { return expr; }, pyemu_R(pyemu_a)); \
    }

/* OpenCL's own names: scalars and vectors */
PYEMU_CL_TEST2(isequal, pyemu_fp_t, pyemu_x == pyemu_y)
PYEMU_CL_TEST2(isnotequal, pyemu_fp_t, pyemu_x != pyemu_y)
PYEMU_CL_TEST2(isordered, pyemu_fp_t, pyemu_x == pyemu_x && pyemu_y == pyemu_y)
/* names <math.h> has: vectors here */
PYEMU_CL_TEST2(isgreater, pyemu_fvec_t, __builtin_isgreater(pyemu_x, pyemu_y))
PYEMU_CL_TEST2(isgreaterequal, pyemu_fvec_t, __builtin_isgreaterequal(pyemu_x, pyemu_y))
PYEMU_CL_TEST2(isless, pyemu_fvec_t, __builtin_isless(pyemu_x, pyemu_y))
PYEMU_CL_TEST2(islessequal, pyemu_fvec_t, __builtin_islessequal(pyemu_x, pyemu_y))
PYEMU_CL_TEST2(islessgreater, pyemu_fvec_t, __builtin_islessgreater(pyemu_x, pyemu_y))
PYEMU_CL_TEST2(isunordered, pyemu_fvec_t, __builtin_isunordered(pyemu_x, pyemu_y))
PYEMU_CL_TEST1(isfinite, pyemu_fvec_t, __builtin_isfinite(pyemu_x))
PYEMU_CL_TEST1(isinf, pyemu_fvec_t, __builtin_isinf(pyemu_x))
PYEMU_CL_TEST1(isnan, pyemu_fvec_t, __builtin_isnan(pyemu_x))
PYEMU_CL_TEST1(isnormal, pyemu_fvec_t, __builtin_isnormal(pyemu_x))
PYEMU_CL_TEST1(signbit, pyemu_fvec_t, __builtin_signbit(pyemu_x))
#undef PYEMU_CL_TEST1
#undef PYEMU_CL_TEST2

/* A C++ comparison gives bool where OpenCL C gives int. */
template <class pyemu_X> using pyemu_nobool_t = typename pyemu_cond<__is_same(pyemu_X, bool), int, pyemu_X>::pyemu_t;

/* The most significant bit of an integer. */
template <class pyemu_E> inline bool pyemu_msb(pyemu_E pyemu_x)
{
    return (typename pyemu_sint<pyemu_E>::pyemu_t)pyemu_x < 0;
}

/* any / all: 1 if the most significant bit of any / every component is set. */
template <class pyemu_A, class pyemu_R = pyemu_int_t<pyemu_nobool_t<pyemu_A> > > inline int any(const pyemu_A &pyemu_a)
{
    pyemu_R pyemu_x = pyemu_a;
    for (int pyemu_i = 0; pyemu_i < pyemu_len<pyemu_R>::pyemu_v; ++pyemu_i)
        if (pyemu_msb(pyemu_el(pyemu_x, pyemu_i)))
            return 1;
    return 0;
}
template <class pyemu_A, class pyemu_R = pyemu_int_t<pyemu_nobool_t<pyemu_A> > > inline int all(const pyemu_A &pyemu_a)
{
    pyemu_R pyemu_x = pyemu_a;
    for (int pyemu_i = 0; pyemu_i < pyemu_len<pyemu_R>::pyemu_v; ++pyemu_i)
        if (!pyemu_msb(pyemu_el(pyemu_x, pyemu_i)))
            return 0;
    return 1;
}

/* The bits of a scalar of any OpenCL type, as the unsigned integer of its size. */
template <class pyemu_E> inline typename pyemu_uint<pyemu_E>::pyemu_t pyemu_bits(pyemu_E pyemu_x)
{
    typename pyemu_uint<pyemu_E>::pyemu_t pyemu_u;
    __builtin_memcpy(&pyemu_u, &pyemu_x, sizeof pyemu_u);
    return pyemu_u;
}
template <class pyemu_E> inline pyemu_E pyemu_from_bits(typename pyemu_uint<pyemu_E>::pyemu_t pyemu_u)
{
    pyemu_E pyemu_x;
    __builtin_memcpy(&pyemu_x, &pyemu_u, sizeof pyemu_u);
    return pyemu_x;
}

/* bitselect(a, b, c): each bit from b where c has a 1, else from a. */
PYEMU_CL_FN3(bitselect, pyemu_num_t,
             pyemu_from_bits<pyemu_E>((pyemu_bits(pyemu_x) & ~pyemu_bits(pyemu_z)) |
                                      (pyemu_bits(pyemu_y) & pyemu_bits(pyemu_z))))

/* select(a, b, c): for scalars c ? b : a; for vectors, per component, b
 * where the most significant bit of c is set, else a.  c is an integer
 * scalar or vector of the result's length and element size. */
template <class pyemu_A, class pyemu_B, class pyemu_C, class pyemu_R = pyemu_num_t<pyemu_A, pyemu_B>,
          class pyemu_K = pyemu_int_t<pyemu_nobool_t<pyemu_C> > >
inline pyemu_R select(const pyemu_A &pyemu_a, const pyemu_B &pyemu_b, const pyemu_C &pyemu_c)
{
    static_assert(pyemu_vt<pyemu_K>::pyemu_n == pyemu_vt<pyemu_R>::pyemu_n,
                  "select: the condition needs as many components as the result");
    pyemu_R pyemu_x = pyemu_a, pyemu_y = pyemu_b;
    pyemu_K pyemu_k = pyemu_c;
    if constexpr (pyemu_vt<pyemu_R>::pyemu_n == 0) {
        return pyemu_k ? pyemu_y : pyemu_x;
    } else {
        static_assert(sizeof(typename pyemu_vt<pyemu_K>::pyemu_elem) == sizeof(typename pyemu_vt<pyemu_R>::pyemu_elem),
                      "select: the condition's elements need the size of the result's");
        pyemu_R pyemu_r;
        for (int pyemu_i = 0; pyemu_i < int(pyemu_vt<pyemu_R>::pyemu_n); ++pyemu_i)
            pyemu_r.pyemu_s[pyemu_i] = pyemu_msb(pyemu_k.pyemu_s[pyemu_i]) ? pyemu_y.pyemu_s[pyemu_i] : pyemu_x.pyemu_s[pyemu_i];
        pyemu_r.pyemu_pad();
        return pyemu_r;
    }
}

/* `c ? a : b` with a vector c (6.3.i) is select(b, a, c), component by
 * component; C++ cannot overload ?:, so pyemu's compiler spells it
 * pyemu_vternary(c, a, b) where it knows c is a vector.  Both a and b are
 * evaluated, as for vectors OpenCL does too. */
template <class pyemu_C, class pyemu_A, class pyemu_B>
inline pyemu_num_t<pyemu_A, pyemu_B> pyemu_vternary(const pyemu_C &pyemu_c, const pyemu_A &pyemu_a, const pyemu_B &pyemu_b)
{
    static_assert(pyemu_vt<pyemu_C>::pyemu_n != 0, "pyemu_vternary: the condition is a vector");
    return select(pyemu_b, pyemu_a, pyemu_c);
}
