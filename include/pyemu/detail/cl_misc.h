/* OpenCL C miscellaneous vector functions (OpenCL 1.2, 6.12.12): vec_step,
 * shuffle, shuffle2. */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/opencl_device.h>, not this file"
#endif

/* vec_step(type or expression): its number of components, 4 for a
 * 3-vector, 1 for a scalar (GCC's __typeof__ takes both). */
template <class pyemu_X> struct pyemu_vec_step {
    static constexpr int pyemu_v = pyemu_vt<pyemu_X>::pyemu_n == 3 ? 4 : pyemu_len<pyemu_X>::pyemu_v;
};
#define vec_step(...) ((int)pyemu_vec_step<__typeof__(__VA_ARGS__)>::pyemu_v)

/* shuffle(x, mask): r[i] = x[mask[i]]; shuffle2(x, y, mask): from x and y
 * one after the other.  Only the low bits of each mask element that can
 * index the source count; the result has the mask's length. */
template <class pyemu_X, class pyemu_K>
using pyemu_shuffled_t = typename pyemu_if<(pyemu_vt<pyemu_X>::pyemu_n != 0 && pyemu_vt<pyemu_K>::pyemu_n != 0),
    pyemu_vec<typename pyemu_vt<pyemu_X>::pyemu_elem, pyemu_vt<pyemu_K>::pyemu_n> >::pyemu_t;

template <class pyemu_A, class pyemu_M, class pyemu_K = pyemu_ivec_t<pyemu_M>,
          class pyemu_R = pyemu_shuffled_t<typename pyemu_vt<pyemu_A>::pyemu_type, pyemu_K> >
inline pyemu_R shuffle(const pyemu_A &pyemu_a, const pyemu_M &pyemu_m)
{
    typename pyemu_vt<pyemu_A>::pyemu_type pyemu_x = pyemu_a;
    pyemu_K pyemu_k = pyemu_m;
    const unsigned pyemu_n = pyemu_vt<pyemu_A>::pyemu_n;
    pyemu_R pyemu_r;
    for (int pyemu_i = 0; pyemu_i < int(pyemu_vt<pyemu_R>::pyemu_n); ++pyemu_i)
        pyemu_r.pyemu_s[pyemu_i] = pyemu_x.pyemu_s[(unsigned long)pyemu_k.pyemu_s[pyemu_i] % pyemu_n];
    pyemu_r.pyemu_pad();
    return pyemu_r;
}
template <class pyemu_A, class pyemu_B, class pyemu_M, class pyemu_K = pyemu_ivec_t<pyemu_M>,
          class pyemu_R = pyemu_shuffled_t<typename pyemu_vt<pyemu_A>::pyemu_type, pyemu_K> >
inline pyemu_R shuffle2(const pyemu_A &pyemu_a, const pyemu_B &pyemu_b, const pyemu_M &pyemu_m)
{
    typename pyemu_vt<pyemu_A>::pyemu_type pyemu_x = pyemu_a, pyemu_y = pyemu_b;
    pyemu_K pyemu_k = pyemu_m;
    const unsigned pyemu_n = pyemu_vt<pyemu_A>::pyemu_n;
    pyemu_R pyemu_r;
    for (int pyemu_i = 0; pyemu_i < int(pyemu_vt<pyemu_R>::pyemu_n); ++pyemu_i) {
        unsigned pyemu_j = (unsigned)((unsigned long)pyemu_k.pyemu_s[pyemu_i] % (2 * pyemu_n));
        pyemu_r.pyemu_s[pyemu_i] = pyemu_j < pyemu_n ? pyemu_x.pyemu_s[pyemu_j] : pyemu_y.pyemu_s[pyemu_j - pyemu_n];
    }
    pyemu_r.pyemu_pad();
    return pyemu_r;
}
