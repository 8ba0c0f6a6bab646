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
    static constexpr int pyemu_n = 0;
    typedef pyemu_X pyemu_elem;
    typedef pyemu_X pyemu_type;
};
template <class pyemu_X> struct pyemu_vt_scalar<pyemu_X, true> {
    static constexpr int pyemu_n = 0;
    typedef decltype(+pyemu_X()) pyemu_elem;
    typedef pyemu_elem pyemu_type;
};
template <class pyemu_X> struct pyemu_vt : pyemu_vt_scalar<pyemu_X> {};
template <class pyemu_X> struct pyemu_vt<const pyemu_X> : pyemu_vt<pyemu_X> {};
template <class pyemu_X> struct pyemu_vt<volatile pyemu_X> : pyemu_vt<pyemu_X> {};
template <class pyemu_X> struct pyemu_vt<const volatile pyemu_X> : pyemu_vt<pyemu_X> {};
template <class pyemu_T, int pyemu_N> struct pyemu_vt<pyemu_vec<pyemu_T, pyemu_N> > {
    static constexpr int pyemu_n = pyemu_N;
    typedef pyemu_T pyemu_elem;
    typedef pyemu_vec<pyemu_T, pyemu_N> pyemu_type;
};
template <class pyemu_V, class pyemu_T, int pyemu_NS, int... pyemu_I>
struct pyemu_vt<pyemu_swz<pyemu_V, pyemu_T, pyemu_NS, pyemu_I...> > : pyemu_vt<pyemu_V> {};

/* Element kinds: floating, integer (the OpenCL integer types; bool is not one). */
template <class pyemu_T> struct pyemu_is_fp { static constexpr int pyemu_v = 0; };
template <> struct pyemu_is_fp<float> { static constexpr int pyemu_v = 1; };
template <> struct pyemu_is_fp<double> { static constexpr int pyemu_v = 1; };
template <class pyemu_T> struct pyemu_is_int { static constexpr int pyemu_v = 0; };
#define PYEMU_CL_INT_TYPE(t) template <> struct pyemu_is_int<t> { static constexpr int pyemu_v = 1; };
PYEMU_CL_INT_TYPE(char) PYEMU_CL_INT_TYPE(signed char) PYEMU_CL_INT_TYPE(unsigned char)
PYEMU_CL_INT_TYPE(short) PYEMU_CL_INT_TYPE(unsigned short) PYEMU_CL_INT_TYPE(int)
PYEMU_CL_INT_TYPE(unsigned int) PYEMU_CL_INT_TYPE(long) PYEMU_CL_INT_TYPE(unsigned long)
PYEMU_CL_INT_TYPE(long long) PYEMU_CL_INT_TYPE(unsigned long long)
#undef PYEMU_CL_INT_TYPE
template <class pyemu_T> struct pyemu_is_signed { static constexpr int pyemu_v = pyemu_T(-1) < pyemu_T(0); };

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

/* ---- any swizzle, by its indices --------------------------------------- */

/* v.pyemu_sw<I...>() on a vector, a swizzle or a pyemu_sref: the
 * components I... of the vector it views (for a swizzle, its own I-th
 * components).  One index gives a T& (a T for a const vector), several a
 * pyemu_sref: a view that reads as pyemu_vec<T, n> and assigns through.
 * pyemu's compiler spells the swizzles no member names this way (.sAbC,
 * .s0a1b, and a swizzle of a swizzle: v.odd.lo). */
template <class pyemu_V, class pyemu_T, int... pyemu_I> struct pyemu_sref;
template <class pyemu_T, int... pyemu_J> struct pyemu_sw_of {
    typedef pyemu_sref<pyemu_vec<pyemu_T, int(sizeof...(pyemu_J))>, pyemu_T, pyemu_J...> pyemu_t;
    static pyemu_t pyemu_make(pyemu_T *pyemu_p) { return pyemu_t{pyemu_p}; }
};
template <class pyemu_T, int... pyemu_J> struct pyemu_sw_of<const pyemu_T, pyemu_J...> {
    typedef pyemu_vec<pyemu_T, int(sizeof...(pyemu_J))> pyemu_t;
    static pyemu_t pyemu_make(const pyemu_T *pyemu_p) { return pyemu_t(pyemu_p[pyemu_J]...); }
};
template <class pyemu_T, int pyemu_J> struct pyemu_sw_of<pyemu_T, pyemu_J> {
    typedef pyemu_T &pyemu_t;
    static pyemu_t pyemu_make(pyemu_T *pyemu_p) { return pyemu_p[pyemu_J]; }
};
template <class pyemu_T, int pyemu_J> struct pyemu_sw_of<const pyemu_T, pyemu_J> {
    typedef pyemu_T pyemu_t;
    static pyemu_t pyemu_make(const pyemu_T *pyemu_p) { return pyemu_p[pyemu_J]; }
};

/* The same by name, for the compiler's rewrite (no commas, so it survives
 * macro arguments): v.pyemu_sw3<0x3c5>() is v.s3c5, hex digits in order;
 * pyemu_lo() .. pyemu_odd() are .lo .. .odd of a view of n components
 * (a 3-component view's .hi is (s2, s2): its fourth component is undefined). */
template <int... pyemu_P> struct pyemu_seq {};
template <unsigned long long pyemu_K, int pyemu_N, class pyemu_X, int... pyemu_P>
inline decltype(auto) pyemu_swk(pyemu_X &pyemu_x, pyemu_seq<pyemu_P...>)
{
    return pyemu_x.template pyemu_sw<int((pyemu_K >> (4 * (pyemu_N - 1 - pyemu_P))) & 15u)...>();
}
/* pyemu_F: 0 lo, 1 hi, 2 even, 3 odd of a view of pyemu_N components whose
 * storage has pyemu_L (>= pyemu_N) */
template <int pyemu_F, int pyemu_N, int pyemu_L, class pyemu_X, int... pyemu_P>
inline decltype(auto) pyemu_swf(pyemu_X &pyemu_x, pyemu_seq<pyemu_P...>)
{
    constexpr int pyemu_m = pyemu_N == 3 ? 4 : pyemu_N;
    return pyemu_x.template pyemu_sw<(pyemu_F == 0 ? pyemu_P : pyemu_F == 1 ? pyemu_m / 2 + pyemu_P
                                      : pyemu_F == 2 ? 2 * pyemu_P : 2 * pyemu_P + 1) < pyemu_L
                                     ? (pyemu_F == 0 ? pyemu_P : pyemu_F == 1 ? pyemu_m / 2 + pyemu_P
                                        : pyemu_F == 2 ? 2 * pyemu_P : 2 * pyemu_P + 1)
                                     : pyemu_L - 1 ...>();
}
#define PYEMU_SW_NAMED1(k, CONST)                                              \
    template <unsigned long long pyemu_K> decltype(auto) pyemu_sw##k() CONST   \
    {                                                                          \
        return pyemu_swk<pyemu_K, k>(*this, pyemu_seq<__integer_pack(k)...>()); \
    }
#define PYEMU_SW_PART(name, f, CONST, N, L)                                    \
    decltype(auto) pyemu_##name() CONST                                        \
    {                                                                          \
        return pyemu_swf<f, N, L>(*this, pyemu_seq<__integer_pack(((N) == 3 ? 4 : (N)) / 2)...>()); \
    }
/* the named forms for a view of N components over storage of L */
#define PYEMU_SW_NAMED(CONST, N, L)                                            \
    PYEMU_SW_NAMED1(1, CONST) PYEMU_SW_NAMED1(2, CONST) PYEMU_SW_NAMED1(3, CONST) \
    PYEMU_SW_NAMED1(4, CONST) PYEMU_SW_NAMED1(8, CONST) PYEMU_SW_NAMED1(16, CONST) \
    PYEMU_SW_PART(lo, 0, CONST, N, L) PYEMU_SW_PART(hi, 1, CONST, N, L)          \
    PYEMU_SW_PART(even, 2, CONST, N, L) PYEMU_SW_PART(odd, 3, CONST, N, L)

template <class pyemu_V, class pyemu_T, int... pyemu_I> struct pyemu_sref {
    pyemu_T *pyemu_p;   /* the viewed vector's storage */
    static constexpr int pyemu_ix[] = {pyemu_I...};
    operator pyemu_V() const { return pyemu_V(pyemu_p[pyemu_I]...); }
    const pyemu_sref &operator=(const pyemu_V &pyemu_v) const
    {
        for (int pyemu_k = 0; pyemu_k < int(sizeof...(pyemu_I)); ++pyemu_k)
            pyemu_p[pyemu_ix[pyemu_k]] = pyemu_v.pyemu_s[pyemu_k];
        return *this;
    }
    const pyemu_sref &operator=(const pyemu_sref &pyemu_o) const { return *this = pyemu_V(pyemu_o); }
#define PYEMU_SREF_OP(op)                                                      \
    const pyemu_sref &operator op##=(const pyemu_V &pyemu_v) const { return *this = pyemu_V(*this) op pyemu_v; }
    PYEMU_SREF_OP(+) PYEMU_SREF_OP(-) PYEMU_SREF_OP(*) PYEMU_SREF_OP(/) PYEMU_SREF_OP(%)
    PYEMU_SREF_OP(&) PYEMU_SREF_OP(|) PYEMU_SREF_OP(^) PYEMU_SREF_OP(<<) PYEMU_SREF_OP(>>)
#undef PYEMU_SREF_OP
    template <int... pyemu_J> typename pyemu_sw_of<pyemu_T, pyemu_ix[pyemu_J]...>::pyemu_t pyemu_sw() const
    {
        return pyemu_sw_of<pyemu_T, pyemu_ix[pyemu_J]...>::pyemu_make(pyemu_p);
    }
    PYEMU_SW_NAMED(const, int(sizeof...(pyemu_I)), int(sizeof...(pyemu_I)))
};
template <class pyemu_V, class pyemu_T, int... pyemu_I>
struct pyemu_vt<pyemu_sref<pyemu_V, pyemu_T, pyemu_I...> > : pyemu_vt<pyemu_V> {};

/* ---- a swizzle: a view of some components of a vector ----------------- */

/* A member of the vector's union, so its storage is the vector's: reads as
 * V (I... index the storage), assigns component by component. */
template <class pyemu_V, class pyemu_T, int pyemu_NS, int... pyemu_I> struct pyemu_swz {
    pyemu_T pyemu_s[pyemu_NS];
    pyemu_swz() = default;
    pyemu_swz(const pyemu_swz &) = default;
    operator pyemu_V() const { return pyemu_V(pyemu_s[pyemu_I]...); }
    pyemu_swz &operator=(const pyemu_V &pyemu_v)
    {
        const int pyemu_idx[] = {pyemu_I...};
        for (int pyemu_k = 0; pyemu_k < int(sizeof...(pyemu_I)); ++pyemu_k)
            pyemu_s[pyemu_idx[pyemu_k]] = pyemu_v.pyemu_s[pyemu_k];
        return *this;
    }
    pyemu_swz &operator=(const pyemu_swz &pyemu_o) { return *this = pyemu_V(pyemu_o); }
    static constexpr int pyemu_ix[] = {pyemu_I...};
    template <int... pyemu_J> typename pyemu_sw_of<pyemu_T, pyemu_ix[pyemu_J]...>::pyemu_t pyemu_sw()
    {
        return pyemu_sw_of<pyemu_T, pyemu_ix[pyemu_J]...>::pyemu_make(pyemu_s);
    }
    template <int... pyemu_J> typename pyemu_sw_of<const pyemu_T, pyemu_ix[pyemu_J]...>::pyemu_t pyemu_sw() const
    {
        return pyemu_sw_of<const pyemu_T, pyemu_ix[pyemu_J]...>::pyemu_make(pyemu_s);
    }
    PYEMU_SW_NAMED(, int(sizeof...(pyemu_I)), int(sizeof...(pyemu_I)))
    PYEMU_SW_NAMED(const, int(sizeof...(pyemu_I)), int(sizeof...(pyemu_I)))
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
template <class... pyemu_A> struct pyemu_ncomp { static constexpr int pyemu_v = 0; };
template <class pyemu_A, class... pyemu_R> struct pyemu_ncomp<pyemu_A, pyemu_R...> {
    static constexpr int pyemu_v = (pyemu_vt<pyemu_A>::pyemu_n != 0 ? pyemu_vt<pyemu_A>::pyemu_n : 1) +
                                   pyemu_ncomp<pyemu_R...>::pyemu_v;
};

/* Appends the components of x at d[k]. */
template <class pyemu_T, class pyemu_X> constexpr void pyemu_put(pyemu_T *pyemu_d, int &pyemu_k, const pyemu_X &pyemu_x)
{
    if constexpr (pyemu_vt<pyemu_X>::pyemu_n == 0) {
        pyemu_d[pyemu_k++] = pyemu_T(pyemu_x);
    } else {
        typename pyemu_vt<pyemu_X>::pyemu_type pyemu_v = pyemu_x;
        for (int pyemu_i = 0; pyemu_i < int(pyemu_vt<pyemu_X>::pyemu_n); ++pyemu_i)
            pyemu_d[pyemu_k++] = pyemu_T(pyemu_v.pyemu_s[pyemu_i]);
    }
}
