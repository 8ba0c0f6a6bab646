/* Helpers of the built-in function headers (cl_math.h, cl_integer.h, ...).
 *
 * Most built-ins take scalars or vectors ("gentype"), and some mix them:
 * clamp(float4, float, float).  A built-in here is one template:
 *   - its result type R is that of its first vector (or swizzle) argument,
 *     or the common type of its scalar arguments (pyemu_res);
 *   - a check on R's element type (floating, integer) keeps it out of
 *     overload resolution where it does not apply (pyemu_fp_t, pyemu_int_t);
 *   - every argument is converted to R (a scalar broadcasts) and a scalar
 *     function is applied component by component (pyemu_map).
 * Functions of <math.h> keep serving scalars; the templates here that share
 * their names take vectors only (pyemu_fvec_t).
 */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/opencl_device.h>, not this file"
#endif

template <bool pyemu_B, class pyemu_X, class pyemu_Y> struct pyemu_cond { typedef pyemu_X pyemu_t; };
template <class pyemu_X, class pyemu_Y> struct pyemu_cond<false, pyemu_X, pyemu_Y> { typedef pyemu_Y pyemu_t; };

/* Not an OpenCL scalar: what the checks below turn away. */
struct pyemu_not_a_number {};
template <class pyemu_X> struct pyemu_arith {
    static constexpr int pyemu_v = pyemu_is_fp<pyemu_X>::pyemu_v || pyemu_is_int<pyemu_X>::pyemu_v || __is_enum(pyemu_X);
};

/* The type of two scalars together: the same, or the usual arithmetic
 * conversions (int and float give float); of a vector and anything, the vector. */
template <class pyemu_A, class pyemu_B,
          int pyemu_K = (int(pyemu_vt<pyemu_A>::pyemu_n) != 0 ? 1 : int(pyemu_vt<pyemu_B>::pyemu_n) != 0 ? 2 : 0) +
                        (pyemu_arith<pyemu_A>::pyemu_v && pyemu_arith<pyemu_B>::pyemu_v ? 0 : 4)>
struct pyemu_res2 { typedef pyemu_not_a_number pyemu_t; };
template <class pyemu_A, class pyemu_B> struct pyemu_res2<pyemu_A, pyemu_B, 0> {
    typedef decltype(true ? typename pyemu_vt<pyemu_A>::pyemu_type() : typename pyemu_vt<pyemu_B>::pyemu_type()) pyemu_t;
};
template <class pyemu_A> struct pyemu_res2<pyemu_A, pyemu_A, 0> { typedef typename pyemu_vt<pyemu_A>::pyemu_type pyemu_t; };
template <class pyemu_A, class pyemu_B> struct pyemu_res2<pyemu_A, pyemu_B, 1> {
    typedef typename pyemu_vt<pyemu_A>::pyemu_type pyemu_t;
};
template <class pyemu_A, class pyemu_B> struct pyemu_res2<pyemu_A, pyemu_B, 5> {
    typedef typename pyemu_vt<pyemu_A>::pyemu_type pyemu_t;
};
template <class pyemu_A, class pyemu_B> struct pyemu_res2<pyemu_A, pyemu_B, 2> {
    typedef typename pyemu_vt<pyemu_B>::pyemu_type pyemu_t;
};
template <class pyemu_A, class pyemu_B> struct pyemu_res2<pyemu_A, pyemu_B, 6> {
    typedef typename pyemu_vt<pyemu_B>::pyemu_type pyemu_t;
};
template <class pyemu_A, class... pyemu_R> struct pyemu_res {
    typedef typename pyemu_cond<pyemu_vt<pyemu_A>::pyemu_n != 0 || pyemu_arith<pyemu_A>::pyemu_v,
                                typename pyemu_vt<pyemu_A>::pyemu_type, pyemu_not_a_number>::pyemu_t pyemu_t;
};
template <class pyemu_A, class pyemu_B, class... pyemu_R> struct pyemu_res<pyemu_A, pyemu_B, pyemu_R...> {
    typedef typename pyemu_res<typename pyemu_res2<pyemu_A, pyemu_B>::pyemu_t, pyemu_R...>::pyemu_t pyemu_t;
};

/* R, where its elements are floating / integers / anything arithmetic. */
template <class... pyemu_A> using pyemu_any_t = typename pyemu_res<pyemu_A...>::pyemu_t;
template <class... pyemu_A> using pyemu_elem_t = typename pyemu_vt<pyemu_any_t<pyemu_A...> >::pyemu_elem;
template <class... pyemu_A> using pyemu_fp_t =
    typename pyemu_if<pyemu_is_fp<pyemu_elem_t<pyemu_A...> >::pyemu_v, pyemu_any_t<pyemu_A...> >::pyemu_t;
template <class... pyemu_A> using pyemu_int_t =
    typename pyemu_if<pyemu_is_int<pyemu_elem_t<pyemu_A...> >::pyemu_v, pyemu_any_t<pyemu_A...> >::pyemu_t;
template <class... pyemu_A> using pyemu_num_t =
    typename pyemu_if<pyemu_arith<pyemu_elem_t<pyemu_A...> >::pyemu_v, pyemu_any_t<pyemu_A...> >::pyemu_t;
/* Vectors (and swizzles) only: for names <math.h> has for scalars. */
template <class... pyemu_A> using pyemu_fvec_t =
    typename pyemu_if<pyemu_vt<pyemu_any_t<pyemu_A...> >::pyemu_n != 0, pyemu_fp_t<pyemu_A...> >::pyemu_t;
template <class... pyemu_A> using pyemu_ivec_t =
    typename pyemu_if<pyemu_vt<pyemu_any_t<pyemu_A...> >::pyemu_n != 0, pyemu_int_t<pyemu_A...> >::pyemu_t;

/* f applied to each component of x... (all scalars, or all vectors of R's
 * length), giving an R. */
template <class pyemu_R, class pyemu_F, class pyemu_X, class... pyemu_Y>
inline pyemu_R pyemu_map(pyemu_F pyemu_f, const pyemu_X &pyemu_x, const pyemu_Y &...pyemu_y)
{
    if constexpr (pyemu_vt<pyemu_X>::pyemu_n == 0) {
        return pyemu_R(pyemu_f(pyemu_x, pyemu_y...));
    } else {
        pyemu_R pyemu_r;
        for (int pyemu_i = 0; pyemu_i < int(pyemu_vt<pyemu_X>::pyemu_n); ++pyemu_i)
            pyemu_r.pyemu_s[pyemu_i] = pyemu_f(pyemu_x.pyemu_s[pyemu_i], pyemu_y.pyemu_s[pyemu_i]...);
        pyemu_r.pyemu_pad();
        return pyemu_r;
    }
}

/* Number of components to loop over: 1 for a scalar. */
template <class pyemu_X> struct pyemu_len {
    static constexpr int pyemu_v = int(pyemu_vt<pyemu_X>::pyemu_n) != 0 ? int(pyemu_vt<pyemu_X>::pyemu_n) : 1;
};

/* The mask of a test: int 1/0 for scalars, -1/0 per component for vectors
 * (of the signed integer of the element's size: int4 for float4, long2 for
 * double2). */
template <class pyemu_X> using pyemu_mask_t =
    typename pyemu_cond<pyemu_vt<pyemu_X>::pyemu_n == 0, int,
                        typename pyemu_like<pyemu_X, typename pyemu_sint<typename pyemu_vt<pyemu_X>::pyemu_elem>::pyemu_t>::pyemu_t>::pyemu_t;
template <class pyemu_X, class pyemu_F, class... pyemu_Y>
inline pyemu_mask_t<pyemu_X> pyemu_test(pyemu_F pyemu_f, const pyemu_X &pyemu_a, const pyemu_Y &...pyemu_b)
{
    if constexpr (pyemu_vt<pyemu_X>::pyemu_n == 0) {
        return pyemu_f(pyemu_a, pyemu_b...) ? 1 : 0;
    } else {
        pyemu_mask_t<pyemu_X> pyemu_r;
        for (int pyemu_i = 0; pyemu_i < int(pyemu_vt<pyemu_X>::pyemu_n); ++pyemu_i)
            pyemu_r.pyemu_s[pyemu_i] = pyemu_f(pyemu_a.pyemu_s[pyemu_i], pyemu_b.pyemu_s[pyemu_i]...) ? -1 : 0;
        pyemu_r.pyemu_pad();
        return pyemu_r;
    }
}

/* Built-ins defined by one scalar expression of pyemu_x (and pyemu_y,
 * pyemu_z) of element type pyemu_E, as templates `name(a[, b[, c]])` over
 * scalars and vectors; CHECK is pyemu_fp_t, pyemu_fvec_t, ... */
#define PYEMU_CL_FN1(name, CHECK, expr)                                                  \
    template <class pyemu_A, class pyemu_R = CHECK<pyemu_A> >                            \
    inline pyemu_R name(const pyemu_A &pyemu_a)                                          \
    {                                                                                    \
        typedef typename pyemu_vt<pyemu_R>::pyemu_elem pyemu_E;                          \
        return pyemu_map<pyemu_R>([](pyemu_E pyemu_x) -> pyemu_E { return expr; }, pyemu_R(pyemu_a)); \
    }
#define PYEMU_CL_FN2(name, CHECK, expr)                                                  \
    template <class pyemu_A, class pyemu_B, class pyemu_R = CHECK<pyemu_A, pyemu_B> >    \
    inline pyemu_R name(const pyemu_A &pyemu_a, const pyemu_B &pyemu_b)                  \
    {                                                                                    \
        typedef typename pyemu_vt<pyemu_R>::pyemu_elem pyemu_E;                          \
        return pyemu_map<pyemu_R>([](pyemu_E pyemu_x, pyemu_E pyemu_y) -> pyemu_E { return expr; }, \
                                  pyemu_R(pyemu_a), pyemu_R(pyemu_b));                   \
    }
#define PYEMU_CL_FN3(name, CHECK, expr)                                                  \
    template <class pyemu_A, class pyemu_B, class pyemu_C, class pyemu_R = CHECK<pyemu_A, pyemu_B, pyemu_C> > \
    inline pyemu_R name(const pyemu_A &pyemu_a, const pyemu_B &pyemu_b, const pyemu_C &pyemu_c) \
    {                                                                                    \
        typedef typename pyemu_vt<pyemu_R>::pyemu_elem pyemu_E;                          \
        return pyemu_map<pyemu_R>([](pyemu_E pyemu_x, pyemu_E pyemu_y, pyemu_E pyemu_z) -> pyemu_E { return expr; }, \
                                  pyemu_R(pyemu_a), pyemu_R(pyemu_b), pyemu_R(pyemu_c)); \
    }
