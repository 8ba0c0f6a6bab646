/* Static shared memory: CUDA's __shared__ variables and OpenCL's kernel-scope
 * __local variables, in the block's shared memory arena (csrc/pool.c).
 *
 * pyemu's compiler rewrites each such declaration (pyemu/compiler/smem.py),
 *     __shared__ float tile[32][33];
 * into a reference to the running block's copy:
 *     __pyemu_smem__ auto &tile = (pyemu_smem<K, 7, float, 0, (32), (33)>());
 * (its segment, its number, the element type, the alignment asked for (0: the type's), the sizes)
 * Each variable gets its offset when the module is loaded; the core puts
 * the kernel's variables in front of the launch's dynamic shared memory,
 * flush with it, so that an index past the last variable faults (as CUDA
 * lays it out: static variables first, then the dynamic part).
 */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/cuda_device.h> or <pyemu/opencl_device.h>, not this file"
#endif
#ifndef PYEMU_DETAIL_SMEM_H
#define PYEMU_DETAIL_SMEM_H

#ifdef __PYEMU_SCAN__
#define __pyemu_smem__ __pyemu_smem__ /* the block functions' scan reads it */
#else
#define __pyemu_smem__
#endif

/* Segment pyemu_K: [0] its size, [1] its alignment.  Segment 0 holds the
 * variables of functions that are not kernels (device functions); each
 * kernel has a segment of its own (K: a number made of its name, see
 * pyemu/compiler/smem.py), and a block of that kernel gets
 * [segment 0][padding to 128][its own segment][dynamic part].  Each
 * variable's place is given when the module is loaded (pyemu_smem_slot
 * below), in whatever order, before any kernel runs. */
template <unsigned long pyemu_K> struct pyemu_smem_seg {
    static unsigned long pyemu_layout[2];
};
template <unsigned long pyemu_K> unsigned long pyemu_smem_seg<pyemu_K>::pyemu_layout[2] = {0, 16};

static inline unsigned long pyemu_smem_place(unsigned long *pyemu_l, unsigned long pyemu_size,
                                             unsigned long pyemu_align)
{
    unsigned long pyemu_at = (pyemu_l[0] + pyemu_align - 1) & ~(pyemu_align - 1);
    pyemu_l[0] = pyemu_at + pyemu_size;
    if (pyemu_align > pyemu_l[1])
        pyemu_l[1] = pyemu_align;
    return pyemu_at;
}

/* Variable pyemu_I's offset in segment pyemu_K; pyemu_T: its type. */
template <unsigned long pyemu_K, unsigned long pyemu_I, class pyemu_T, unsigned long pyemu_A>
struct pyemu_smem_slot {
    static const unsigned long pyemu_off;
};
template <unsigned long pyemu_K, unsigned long pyemu_I, class pyemu_T, unsigned long pyemu_A>
const unsigned long pyemu_smem_slot<pyemu_K, pyemu_I, pyemu_T, pyemu_A>::pyemu_off =
    pyemu_smem_place(pyemu_smem_seg<pyemu_K>::pyemu_layout, sizeof(pyemu_T),
                     alignof(pyemu_T) > (pyemu_A > 16 ? pyemu_A : 16)
                         ? alignof(pyemu_T) : (pyemu_A > 16 ? pyemu_A : 16));

/* pyemu_smem_array<E, n...>::pyemu_type is E[n]... */
template <class pyemu_E, unsigned long... pyemu_N> struct pyemu_smem_array {
    typedef pyemu_E pyemu_type;
};
template <class pyemu_E, unsigned long pyemu_N0, unsigned long... pyemu_N>
struct pyemu_smem_array<pyemu_E, pyemu_N0, pyemu_N...> {
    typedef typename pyemu_smem_array<pyemu_E, pyemu_N...>::pyemu_type pyemu_type[pyemu_N0];
};

/* The running block's copy of static shared variable pyemu_I of segment
 * pyemu_K: of element type pyemu_E, declared with alignment pyemu_A (0: its
 * type's), of sizes pyemu_N... (none: a scalar).  pyemu_tctx.smem_base is
 * where the kernel's own segment starts; segment 0 lies before it. */
template <unsigned long pyemu_K, unsigned long pyemu_I, class pyemu_E, unsigned long pyemu_A,
          unsigned long... pyemu_N>
static inline __attribute__((__always_inline__, __artificial__))
typename pyemu_smem_array<pyemu_E, pyemu_N...>::pyemu_type &pyemu_smem()
{
    typedef typename pyemu_smem_array<pyemu_E, pyemu_N...>::pyemu_type pyemu_T;
    static_assert(alignof(pyemu_T) <= 128 && pyemu_A <= 128,
                  "pyemu: a __shared__ / __local variable aligned to more than 128 bytes");
    char *pyemu_base = static_cast<char *>(pyemu_tctx.smem_base);
    if (pyemu_K == 0)
        pyemu_base -= (pyemu_smem_seg<0>::pyemu_layout[0] + 127) & ~127ul;
    return *reinterpret_cast<pyemu_T *>(
        pyemu_base + pyemu_smem_slot<pyemu_K, pyemu_I, pyemu_T, pyemu_A>::pyemu_off);
}

#endif /* PYEMU_DETAIL_SMEM_H */
