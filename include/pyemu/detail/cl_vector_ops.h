/* OpenCL C vector types: the machinery behind float4 and friends (6.1.2, 6.3).
 *
 * pyemu_vec<T, N> (N = 2, 3, 4, 8, 16) holds N components of T, laid out
 * and aligned as OpenCL does (a 3-vector takes the room of a 4-vector, a
 * vector is aligned to its size).  Its classes are written by gen_cl.py
 * (cl_vectors_gen.h): each declares its components (.x, .s0, .sA, ...) and
 * its swizzles (.xy, .s10, .even, ...) as members of one union over the
 * same storage.  A swizzle that is an aligned run (.lo, .hi, .zw, .s4567)
 * is a vector itself, so `v.lo.hi` and `v.hi.x` work.
 *
 * Here: the traits that say what a type is (scalar, vector, swizzle), the
 * swizzle view, and the component-wise operators, found through the
 * vector's base class pyemu_vops (so a swizzle converts to its vector in
 * `a.xy + b.zw`, and a scalar broadcasts in `v * 2.0f` and `2.0f * v`).
 *
 * Every identifier here starts with pyemu_ (template parameters and local
 * names too): this header is read after the user's -D macros.
 */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/opencl_device.h>, not this file"
#endif

template <class pyemu_T, int pyemu_N> struct pyemu_vec;
template <class pyemu_V, class pyemu_T, int pyemu_NS, int... pyemu_I> struct pyemu_swz;

/* ---- traits ------------------------------------------------------------- */

/* pyemu_vt<X>: pyemu_n (0 for a scalar), pyemu_elem, pyemu_type (the value
 * type: the vector a swizzle reads as; an enumerator's integer type). */
template <class pyemu_X, bool pyemu_Enum = __is_enum(pyemu_X)> struct pyemu_vt_scalar {
    enum { pyemu_n = 0 };
    typedef pyemu_X pyemu_elem;
    typedef pyemu_X pyemu_type;
};
template <class pyemu_X> struct pyemu_vt_scalar<pyemu_X, true> {
    enum { pyemu_n = 0 };
    typedef decltype(+pyemu_X()) pyemu_elem;
    typedef pyemu_elem pyemu_type;
};
template <class pyemu_X> struct pyemu_vt : pyemu_vt_scalar<pyemu_X> {};
template <class pyemu_X> struct pyemu_vt<const pyemu_X> : pyemu_vt<pyemu_X> {};
template <class pyemu_X> struct pyemu_vt<volatile pyemu_X> : pyemu_vt<pyemu_X> {};
template <class pyemu_X> struct pyemu_vt<const volatile pyemu_X> : pyemu_vt<pyemu_X> {};
template <class pyemu_T, int pyemu_N> struct pyemu_vt<pyemu_vec<pyemu_T, pyemu_N> > {
    enum { pyemu_n = pyemu_N };
    typedef pyemu_T pyemu_elem;
    typedef pyemu_vec<pyemu_T, pyemu_N> pyemu_type;
};
template <class pyemu_V, class pyemu_T, int pyemu_NS, int... pyemu_I>
struct pyemu_vt<pyemu_swz<pyemu_V, pyemu_T, pyemu_NS, pyemu_I...> > : pyemu_vt<pyemu_V> {};

/* Element kinds: floating, integer (the OpenCL integer types; bool is not one). */
template <class pyemu_T> struct pyemu_is_fp { enum { pyemu_v = 0 }; };
template <> struct pyemu_is_fp<float> { enum { pyemu_v = 1 }; };
template <> struct pyemu_is_fp<double> { enum { pyemu_v = 1 }; };
template <class pyemu_T> struct pyemu_is_int { enum { pyemu_v = 0 }; };
#define PYEMU_CL_INT_TYPE(t) template <> struct pyemu_is_int<t> { enum { pyemu_v = 1 }; };
PYEMU_CL_INT_TYPE(char) PYEMU_CL_INT_TYPE(signed char) PYEMU_CL_INT_TYPE(unsigned char)
PYEMU_CL_INT_TYPE(short) PYEMU_CL_INT_TYPE(unsigned short) PYEMU_CL_INT_TYPE(int)
PYEMU_CL_INT_TYPE(unsigned int) PYEMU_CL_INT_TYPE(long) PYEMU_CL_INT_TYPE(unsigned long)
PYEMU_CL_INT_TYPE(long long) PYEMU_CL_INT_TYPE(unsigned long long)
#undef PYEMU_CL_INT_TYPE
template <class pyemu_T> struct pyemu_is_signed { enum { pyemu_v = pyemu_T(-1) < pyemu_T(0) }; };

/* The signed / unsigned integer of T's size: comparisons of T vectors yield
 * the signed one (char for char and uchar: OpenCL's char is signed). */
template <int pyemu_S> struct pyemu_sint_of;
template <> struct pyemu_sint_of<1> { typedef char pyemu_t; };
template <> struct pyemu_sint_of<2> { typedef short pyemu_t; };
template <> struct pyemu_sint_of<4> { typedef int pyemu_t; };
template <> struct pyemu_sint_of<8> { typedef long pyemu_t; };
template <int pyemu_S> struct pyemu_uint_of;
template <> struct pyemu_uint_of<1> { typedef unsigned char pyemu_t; };
template <> struct pyemu_uint_of<2> { typedef unsigned short pyemu_t; };
template <> struct pyemu_uint_of<4> { typedef unsigned int pyemu_t; };
template <> struct pyemu_uint_of<8> { typedef unsigned long pyemu_t; };
template <class pyemu_T> struct pyemu_sint { typedef typename pyemu_sint_of<sizeof(pyemu_T)>::pyemu_t pyemu_t; };
template <class pyemu_T> struct pyemu_uint { typedef typename pyemu_uint_of<sizeof(pyemu_T)>::pyemu_t pyemu_t; };

/* Same shape as X (scalar or N-vector), elements of type E. */
template <class pyemu_X, class pyemu_E, int pyemu_N = pyemu_vt<pyemu_X>::pyemu_n>
struct pyemu_like { typedef pyemu_vec<pyemu_E, pyemu_N> pyemu_t; };
template <class pyemu_X, class pyemu_E> struct pyemu_like<pyemu_X, pyemu_E, 0> { typedef pyemu_E pyemu_t; };

template <bool pyemu_B, class pyemu_T = void> struct pyemu_if {};
template <class pyemu_T> struct pyemu_if<true, pyemu_T> { typedef pyemu_T pyemu_t; };

template <class pyemu_T> struct pyemu_remove_cvq { typedef pyemu_T pyemu_t; };
template <class pyemu_T> struct pyemu_remove_cvq<const pyemu_T> { typedef pyemu_T pyemu_t; };
template <class pyemu_T> struct pyemu_remove_cvq<volatile pyemu_T> { typedef pyemu_T pyemu_t; };
template <class pyemu_T> struct pyemu_remove_cvq<const volatile pyemu_T> { typedef pyemu_T pyemu_t; };

/* Component i of a scalar (itself) or of a vector. */
template <class pyemu_X>
inline typename pyemu_vt<pyemu_X>::pyemu_elem pyemu_el(const pyemu_X &pyemu_x, int pyemu_i)
{
    if constexpr (pyemu_vt<pyemu_X>::pyemu_n == 0) {
        (void)pyemu_i;
        return pyemu_x;
    } else {
        return pyemu_x.pyemu_s[pyemu_i];
    }
}

/* ---- a swizzle: a view of some components of a vector ----------------- */

/* A member of the vector's union, so its storage is the vector's: reads as
 * V (I... index the storage), assigns component by component. */
template <class pyemu_V, class pyemu_T, int pyemu_NS, int... pyemu_I> struct pyemu_swz {
    pyemu_T pyemu_s[pyemu_NS];
    operator pyemu_V() const { return pyemu_V(pyemu_s[pyemu_I]...); }
    pyemu_swz &operator=(const pyemu_V &pyemu_v)
    {
        const int pyemu_idx[] = {pyemu_I...};
        for (int pyemu_k = 0; pyemu_k < int(sizeof...(pyemu_I)); ++pyemu_k)
            pyemu_s[pyemu_idx[pyemu_k]] = pyemu_v.pyemu_s[pyemu_k];
        return *this;
    }
    pyemu_swz &operator=(const pyemu_swz &pyemu_o) { return *this = pyemu_V(pyemu_o); }
#define PYEMU_SWZ_OP(op)                                                       \
    pyemu_swz &operator op##=(const pyemu_V &pyemu_v) { return *this = pyemu_V(*this) op pyemu_v; }
    PYEMU_SWZ_OP(+) PYEMU_SWZ_OP(-) PYEMU_SWZ_OP(*) PYEMU_SWZ_OP(/) PYEMU_SWZ_OP(%)
    PYEMU_SWZ_OP(&) PYEMU_SWZ_OP(|) PYEMU_SWZ_OP(^) PYEMU_SWZ_OP(<<) PYEMU_SWZ_OP(>>)
#undef PYEMU_SWZ_OP
};

/* ---- component-wise operators ------------------------------------------ */

/* Base of pyemu_vec<T, N>: its operators, found by argument-dependent lookup
 * (for swizzles too, whose template argument V has this base).  As hidden
 * friends they are not templates, so a scalar operand converts to V
 * (broadcasts).  Comparisons and logical operators give -1 (true) or 0 per
 * component, as a vector of the signed integer of T's size; shift counts
 * are taken modulo the bit width (6.3). */
template <class pyemu_V, class pyemu_T, int pyemu_N> struct pyemu_vops {
    typedef pyemu_vec<typename pyemu_sint<pyemu_T>::pyemu_t, pyemu_N> pyemu_mask;

#define PYEMU_VOP(op)                                                          \
    friend pyemu_V operator op(const pyemu_V &pyemu_a, const pyemu_V &pyemu_b) \
    {                                                                          \
        pyemu_V pyemu_r;                                                       \
        for (int pyemu_i = 0; pyemu_i < pyemu_N; ++pyemu_i)                    \
            pyemu_r.pyemu_s[pyemu_i] = pyemu_T(pyemu_a.pyemu_s[pyemu_i] op pyemu_b.pyemu_s[pyemu_i]); \
        pyemu_r.pyemu_pad();                                                   \
        return pyemu_r;                                                        \
    }                                                                          \
    friend pyemu_V &operator op##=(pyemu_V &pyemu_a, const pyemu_V &pyemu_b)   \
    {                                                                          \
        return pyemu_a = pyemu_a op pyemu_b;                                   \
    }
    PYEMU_VOP(+) PYEMU_VOP(-) PYEMU_VOP(*) PYEMU_VOP(/) PYEMU_VOP(%)
    PYEMU_VOP(&) PYEMU_VOP(|) PYEMU_VOP(^)
#undef PYEMU_VOP
#define PYEMU_VSHIFT(op)                                                       \
    friend pyemu_V operator op(const pyemu_V &pyemu_a, const pyemu_V &pyemu_b) \
    {                                                                          \
        pyemu_V pyemu_r;                                                       \
        for (int pyemu_i = 0; pyemu_i < pyemu_N; ++pyemu_i)                    \
            pyemu_r.pyemu_s[pyemu_i] = pyemu_T(pyemu_a.pyemu_s[pyemu_i] op     \
                (pyemu_b.pyemu_s[pyemu_i] & pyemu_T(8 * sizeof(pyemu_T) - 1))); \
        pyemu_r.pyemu_pad();                                                   \
        return pyemu_r;                                                        \
    }                                                                          \
    friend pyemu_V &operator op##=(pyemu_V &pyemu_a, const pyemu_V &pyemu_b)   \
    {                                                                          \
        return pyemu_a = pyemu_a op pyemu_b;                                   \
    }
    PYEMU_VSHIFT(<<) PYEMU_VSHIFT(>>)
#undef PYEMU_VSHIFT
#define PYEMU_VCMP(op)                                                         \
    friend pyemu_mask operator op(const pyemu_V &pyemu_a, const pyemu_V &pyemu_b) \
    {                                                                          \
        pyemu_mask pyemu_r;                                                    \
        for (int pyemu_i = 0; pyemu_i < pyemu_N; ++pyemu_i)                    \
            pyemu_r.pyemu_s[pyemu_i] = (pyemu_a.pyemu_s[pyemu_i] op pyemu_b.pyemu_s[pyemu_i]) ? -1 : 0; \
        pyemu_r.pyemu_pad();                                                   \
        return pyemu_r;                                                        \
    }
    PYEMU_VCMP(==) PYEMU_VCMP(!=) PYEMU_VCMP(<) PYEMU_VCMP(>) PYEMU_VCMP(<=) PYEMU_VCMP(>=)
    PYEMU_VCMP(&&) PYEMU_VCMP(||)
#undef PYEMU_VCMP
    friend pyemu_mask operator!(const pyemu_V &pyemu_a)
    {
        pyemu_mask pyemu_r;
        for (int pyemu_i = 0; pyemu_i < pyemu_N; ++pyemu_i)
            pyemu_r.pyemu_s[pyemu_i] = pyemu_a.pyemu_s[pyemu_i] ? 0 : -1;
        pyemu_r.pyemu_pad();
        return pyemu_r;
    }
    friend pyemu_V operator-(const pyemu_V &pyemu_a)
    {
        pyemu_V pyemu_r;
        for (int pyemu_i = 0; pyemu_i < pyemu_N; ++pyemu_i)
            pyemu_r.pyemu_s[pyemu_i] = pyemu_T(-pyemu_a.pyemu_s[pyemu_i]);
        pyemu_r.pyemu_pad();
        return pyemu_r;
    }
    friend pyemu_V operator+(const pyemu_V &pyemu_a) { return pyemu_a; }
    friend pyemu_V operator~(const pyemu_V &pyemu_a)
    {
        pyemu_V pyemu_r;
        for (int pyemu_i = 0; pyemu_i < pyemu_N; ++pyemu_i)
            pyemu_r.pyemu_s[pyemu_i] = pyemu_T(~pyemu_a.pyemu_s[pyemu_i]);
        pyemu_r.pyemu_pad();
        return pyemu_r;
    }
    friend pyemu_V &operator++(pyemu_V &pyemu_a) { return pyemu_a += pyemu_V(pyemu_T(1)); }
    friend pyemu_V &operator--(pyemu_V &pyemu_a) { return pyemu_a -= pyemu_V(pyemu_T(1)); }
    friend pyemu_V operator++(pyemu_V &pyemu_a, int)
    {
        pyemu_V pyemu_o = pyemu_a;
        pyemu_a += pyemu_V(pyemu_T(1));
        return pyemu_o;
    }
    friend pyemu_V operator--(pyemu_V &pyemu_a, int)
    {
        pyemu_V pyemu_o = pyemu_a;
        pyemu_a -= pyemu_V(pyemu_T(1));
        return pyemu_o;
    }
};

/* ---- construction from a mix of scalars and vectors -------------------- */

/* Total number of components of the arguments of (float4)(a, b.xy, c). */
template <class... pyemu_A> struct pyemu_ncomp { enum { pyemu_v = 0 }; };
template <class pyemu_A, class... pyemu_R> struct pyemu_ncomp<pyemu_A, pyemu_R...> {
    enum {
        pyemu_v = (pyemu_vt<pyemu_A>::pyemu_n ? int(pyemu_vt<pyemu_A>::pyemu_n) : 1) +
                  int(pyemu_ncomp<pyemu_R...>::pyemu_v)
    };
};

/* Appends the components of x at d[k]. */
template <class pyemu_T, class pyemu_X> inline void pyemu_put(pyemu_T *pyemu_d, int &pyemu_k, const pyemu_X &pyemu_x)
{
    if constexpr (pyemu_vt<pyemu_X>::pyemu_n == 0) {
        pyemu_d[pyemu_k++] = pyemu_T(pyemu_x);
    } else {
        typename pyemu_vt<pyemu_X>::pyemu_type pyemu_v = pyemu_x;
        for (int pyemu_i = 0; pyemu_i < int(pyemu_vt<pyemu_X>::pyemu_n); ++pyemu_i)
            pyemu_d[pyemu_k++] = pyemu_T(pyemu_v.pyemu_s[pyemu_i]);
    }
}
