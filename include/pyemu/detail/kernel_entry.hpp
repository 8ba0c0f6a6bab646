/* pyemu/detail/kernel_entry.hpp - entry points of a compiled kernel module.
 *
 * pyemu's compiler includes this file at the top of the translation unit,
 * before the user's source, and appends after that source one
 *     pyemu_entry::pyemu_kernel<decltype(&f), &f>
 * per kernel, plus a pyemu_kernel_desc built from its members (abi.h).  The
 * templates here turn a kernel `void f(P...)` into:
 *   - the layout of its packed argument buffer: the C struct layout of P...
 *     in order, each parameter at the next multiple of its alignment;
 *   - one pyemu_param_desc per parameter (C spelling, kind, size, offset);
 *   - pyemu_run_thread(args): calls f once, for the thread the core has set;
 *   - pyemu_run_block(args): runs every thread of the block as a plain loop,
 *     or calls the kernel's block function when a third argument,
 *     pyemu_block_fn<decltype(&g), &g>, names one (pyemu/compiler/regions/).
 *
 * Rules this file keeps:
 *   - C++11 and later, since users may pass -std=c++11;
 *   - no standard C++ header (g++ builtins instead), so the user's source
 *     sees no names it did not ask for (a `using namespace std;` and a
 *     device function called swap must still work);
 *   - every identifier starts with pyemu_ / PYEMU_, so the user's -D macros
 *     cannot change it (this file is read before the user's own #defines);
 *   - it depends on abi.h only, so other dialects (OpenCL C) can reuse it.
 */
#ifndef PYEMU_KERNEL_ENTRY_HPP
#define PYEMU_KERNEL_ENTRY_HPP

#include "../abi.h"

/* The CUDA header spells threadIdx and blockDim as macros over pyemu_tctx;
 * here they are plain member names. */
#pragma push_macro("threadIdx")
#pragma push_macro("blockDim")
#undef threadIdx
#undef blockDim

namespace pyemu_entry {

/* ---- small traits (no <type_traits>) ----------------------------------- */

template <class pyemu_T> struct pyemu_remove_cv { typedef pyemu_T pyemu_type; };
template <class pyemu_T> struct pyemu_remove_cv<const pyemu_T> { typedef pyemu_T pyemu_type; };
template <class pyemu_T> struct pyemu_remove_cv<volatile pyemu_T> { typedef pyemu_T pyemu_type; };
template <class pyemu_T> struct pyemu_remove_cv<const volatile pyemu_T> { typedef pyemu_T pyemu_type; };

template <class pyemu_T> struct pyemu_is_ref { static const bool pyemu_value = false; };
template <class pyemu_T> struct pyemu_is_ref<pyemu_T &> { static const bool pyemu_value = true; };
template <class pyemu_T> struct pyemu_is_ref<pyemu_T &&> { static const bool pyemu_value = true; };

template <class pyemu_T> struct pyemu_is_void { static const bool pyemu_value = false; };
template <> struct pyemu_is_void<void> { static const bool pyemu_value = true; };

/* Pointer traits; const-pointee tells PYEMU_PARAM_CONST_POINTEE. */
template <class pyemu_T> struct pyemu_ptr { static const bool pyemu_isptr = false, pyemu_cpointee = false; };
template <class pyemu_T> struct pyemu_ptr<pyemu_T *> {
    static const bool pyemu_isptr = true, pyemu_cpointee = false;
};
template <class pyemu_T> struct pyemu_ptr<const pyemu_T *> {
    static const bool pyemu_isptr = true, pyemu_cpointee = true;
};
template <class pyemu_T> struct pyemu_ptr<const volatile pyemu_T *> {
    static const bool pyemu_isptr = true, pyemu_cpointee = true;
};

/* ---- what kind of parameter a type is (abi.h PYEMU_PARAM_*) ------------ */

#define PYEMU_ENTRY_INT(t)                                                        \
    template <> struct pyemu_scalar_kind<t, false> {                              \
        static const unsigned pyemu_value = (t)(-1) < (t)0 ? PYEMU_PARAM_SIGNED         \
                                                     : PYEMU_PARAM_UNSIGNED;      \
    };
#define PYEMU_ENTRY_FLOAT(t)                                                      \
    template <> struct pyemu_scalar_kind<t, false> {                              \
        static const unsigned pyemu_value = PYEMU_PARAM_FLOAT;                          \
    };

/* Anything not listed below is a pointer or a struct. */
template <class pyemu_T, bool pyemu_enum = __is_enum(pyemu_T)>
struct pyemu_scalar_kind {
    static const unsigned pyemu_value =
        pyemu_ptr<pyemu_T>::pyemu_isptr ? PYEMU_PARAM_POINTER : PYEMU_PARAM_STRUCT;
};
/* Enumerations pass as their underlying integer type. */
template <class pyemu_T>
struct pyemu_scalar_kind<pyemu_T, true> {
    static const unsigned pyemu_value = pyemu_scalar_kind<__underlying_type(pyemu_T)>::pyemu_value;
};
template <> struct pyemu_scalar_kind<bool, false> { static const unsigned pyemu_value = PYEMU_PARAM_UNSIGNED; };
template <> struct pyemu_scalar_kind<decltype(nullptr), false> {
    static const unsigned pyemu_value = PYEMU_PARAM_POINTER;
};
PYEMU_ENTRY_INT(char)
PYEMU_ENTRY_INT(signed char)
PYEMU_ENTRY_INT(unsigned char)
PYEMU_ENTRY_INT(wchar_t)
PYEMU_ENTRY_INT(char16_t)
PYEMU_ENTRY_INT(char32_t)
#if defined(__cpp_char8_t)
PYEMU_ENTRY_INT(char8_t)
#endif
PYEMU_ENTRY_INT(short)
PYEMU_ENTRY_INT(unsigned short)
PYEMU_ENTRY_INT(int)
PYEMU_ENTRY_INT(unsigned int)
PYEMU_ENTRY_INT(long)
PYEMU_ENTRY_INT(unsigned long)
PYEMU_ENTRY_INT(long long)
PYEMU_ENTRY_INT(unsigned long long)
#if defined(__SIZEOF_INT128__)
PYEMU_ENTRY_INT(__int128)
PYEMU_ENTRY_INT(unsigned __int128)
#endif
PYEMU_ENTRY_FLOAT(float)
PYEMU_ENTRY_FLOAT(double)
PYEMU_ENTRY_FLOAT(long double)
#undef PYEMU_ENTRY_INT
#undef PYEMU_ENTRY_FLOAT

template <class pyemu_T>
struct pyemu_param_traits {
    static_assert(!pyemu_is_ref<pyemu_T>::pyemu_value,
                  "pyemu: a __global__ function cannot take a reference parameter "
                  "(CUDA passes kernel arguments pyemu_by pyemu_value; pass a pointer or a pyemu_value)");
    typedef typename pyemu_remove_cv<pyemu_T>::pyemu_type pyemu_bare;
    static const unsigned pyemu_kind = pyemu_scalar_kind<pyemu_bare>::pyemu_value;
    static const unsigned pyemu_flags =
        pyemu_ptr<pyemu_bare>::pyemu_cpointee ? PYEMU_PARAM_CONST_POINTEE : 0u;
};

/* ---- the C spelling of a type ------------------------------------------ */

/* g++ spells the type in __PRETTY_FUNCTION__ as "... [with pyemu_T = float*]".
 * The name is cut out once, when the module is loaded (dynamic
 * initialisation of the parameter tables), into a buffer of that size. */
template <class pyemu_T>
struct pyemu_type_name {
    static const char *pyemu_get() {
        static char pyemu_buf[sizeof(__PRETTY_FUNCTION__)];
        if (pyemu_buf[0] == '\0') {
            static const char pyemu_key[] = "[with pyemu_T = ";
            const char *pyemu_p = __builtin_strstr(__PRETTY_FUNCTION__, pyemu_key);
            if (pyemu_p == 0) {
                pyemu_buf[0] = '?';
                return pyemu_buf;
            }
            pyemu_p += sizeof(pyemu_key) - 1;
            unsigned long pyemu_n = __builtin_strlen(pyemu_p);
            if (pyemu_n > 0 && pyemu_p[pyemu_n - 1] == ']')
                --pyemu_n;
            __builtin_memcpy(pyemu_buf, pyemu_p, pyemu_n);
            pyemu_buf[pyemu_n] = '\0';
        }
        return pyemu_buf;
    }
};

/* ---- the packed argument buffer ---------------------------------------- */

template <unsigned... pyemu_I> struct pyemu_seq {};
template <unsigned pyemu_N, unsigned... pyemu_I>
struct pyemu_make_seq : pyemu_make_seq<pyemu_N - 1, pyemu_N - 1, pyemu_I...> {};
template <unsigned... pyemu_I> struct pyemu_make_seq<0, pyemu_I...> {
    typedef pyemu_seq<pyemu_I...> pyemu_type;
};

/* pyemu_lay<Off, P...>: P... laid out from byte Off on.  `here` is where the
 * first parameter lies, `end` where the last ends, `maxalign` the largest
 * alignment. */
template <unsigned pyemu_off, class... pyemu_P>
struct pyemu_lay {
    static const unsigned pyemu_end = pyemu_off;
    static const unsigned pyemu_maxalign = 1;
};

template <unsigned pyemu_off, class pyemu_T, class... pyemu_R>
struct pyemu_lay<pyemu_off, pyemu_T, pyemu_R...> {
    static const unsigned pyemu_a = unsigned(alignof(pyemu_T));
    static const unsigned pyemu_here = (pyemu_off + pyemu_a - 1) / pyemu_a * pyemu_a;
    typedef pyemu_lay<pyemu_here + unsigned(sizeof(pyemu_T)), pyemu_R...> pyemu_rest;
    static const unsigned pyemu_end = pyemu_rest::pyemu_end;
    static const unsigned pyemu_maxalign = pyemu_a > pyemu_rest::pyemu_maxalign ? pyemu_a : unsigned(pyemu_rest::pyemu_maxalign);
};

/* Offset of the I-th parameter of layout L. */
template <unsigned pyemu_I, class pyemu_L>
struct pyemu_nth_offset {
    static const unsigned pyemu_value = pyemu_nth_offset<pyemu_I - 1, typename pyemu_L::pyemu_rest>::pyemu_value;
};
template <class pyemu_L>
struct pyemu_nth_offset<0, pyemu_L> {
    static const unsigned pyemu_value = pyemu_L::pyemu_here;
};

/* ---- the type of a kernel --------------------------------------------- */

/* decltype(pyemu_kernel_type(&f)) is f's type even when f shares its name
 * with other functions (a kernel named div, exp or abs beside the C
 * library's): of an overload set, deduction keeps the one function that
 * returns void.  Never defined: only its type is used. */
template <class... pyemu_P>
void (*pyemu_kernel_type(void (*pyemu_f)(pyemu_P...)))(pyemu_P...);
/* a function of another return type, alone of its name: its type, for the
 * static assertion below to name the mistake */
template <class pyemu_R, class... pyemu_P>
pyemu_R (*pyemu_kernel_type(pyemu_R (*pyemu_f)(pyemu_P...)))(pyemu_P...);

/* ---- the entry points of one kernel ------------------------------------ */

/* The kernel's block function, when pyemu/compiler/regions/ wrote one: `bool g(P...)`
 * runs a whole block region by region between the barriers, without fibers,
 * and returns true (false: it declined, nothing ran). */
template <class pyemu_Sig, pyemu_Sig pyemu_G>
struct pyemu_block_fn {};

template <class pyemu_Sig, pyemu_Sig pyemu_F, class pyemu_Block = void>
struct pyemu_kernel;

template <class pyemu_R, class... pyemu_P, pyemu_R (*pyemu_F)(pyemu_P...), class pyemu_Block>
struct pyemu_kernel<pyemu_R (*)(pyemu_P...), pyemu_F, pyemu_Block> {
    static_assert(pyemu_is_void<pyemu_R>::pyemu_value,
                  "pyemu: a __global__ function must return void");

    typedef pyemu_lay<0, pyemu_P...> pyemu_layout;
    static const unsigned pyemu_nparams = sizeof...(pyemu_P);
    static const unsigned pyemu_align = pyemu_layout::pyemu_maxalign;
    /* sizeof the equivalent C struct: the end rounded up to the alignment */
    static const unsigned pyemu_args_size =
        sizeof...(pyemu_P) == 0 ? 0u : (pyemu_layout::pyemu_end + pyemu_align - 1) / pyemu_align * pyemu_align;
    static const unsigned pyemu_buf_size = pyemu_args_size ? pyemu_args_size : 1u;

    template <class pyemu_Seq> struct pyemu_impl;
    template <unsigned... pyemu_I>
    struct pyemu_impl<pyemu_seq<pyemu_I...> > {
        /* Calls f (or g) with its arguments read from an aligned local copy. */
        template <class pyemu_T, pyemu_T (*pyemu_G)(pyemu_P...)>
        static inline __attribute__((__always_inline__)) pyemu_T pyemu_call_with(const unsigned char *pyemu_b) {
            (void)pyemu_b;
            return pyemu_G(*reinterpret_cast<const pyemu_P *>(
                pyemu_b + pyemu_nth_offset<pyemu_I, pyemu_layout>::pyemu_value)...);
        }
        static inline __attribute__((__always_inline__)) void pyemu_call(const unsigned char *pyemu_b) {
            pyemu_call_with<pyemu_R, pyemu_F>(pyemu_b);
        }
        static const pyemu_param_desc pyemu_params[sizeof...(pyemu_P) + 1];
    };
    typedef pyemu_impl<typename pyemu_make_seq<sizeof...(pyemu_P)>::pyemu_type> pyemu_indexed;

    /* pyemu_run(b) calls the block function, if there is one; false when
     * there is none, or when it declined the block (too many threads for
     * its per-thread copies) and the block must run as below. */
    template <class pyemu_B> struct pyemu_blocked {
        static inline __attribute__((__always_inline__)) bool pyemu_run(const unsigned char *) {
            return false;
        }
    };
    template <bool (*pyemu_G)(pyemu_P...)>
    struct pyemu_blocked<pyemu_block_fn<bool (*)(pyemu_P...), pyemu_G> > {
        static inline __attribute__((__always_inline__)) bool pyemu_run(const unsigned char *pyemu_b) {
            return pyemu_indexed::template pyemu_call_with<bool, pyemu_G>(pyemu_b);
        }
    };

    /* Runs the one thread the core has set in pyemu_tctx (fiber mode). */
    static void pyemu_run_thread(const void *pyemu_args) {
        alignas(pyemu_align) unsigned char pyemu_buf[pyemu_buf_size];
        __builtin_memcpy(pyemu_buf, pyemu_args, pyemu_args_size);
        pyemu_indexed::pyemu_call(pyemu_buf);
    }

    /* The block again after a fault (pyemu_tctx.precise, see block.c): the
     * plain loop without the block function, each thread's index stored
     * before it runs (volatile: g++ may not sink it), so that a fault names
     * its thread; the first barrier turns the block into fibers as usual. */
    static __attribute__((__cold__)) void pyemu_run_precise(const unsigned char *pyemu_b) {
        volatile pyemu_uint3 &pyemu_v = pyemu_tctx.threadIdx;
        const pyemu_uint3 pyemu_d = pyemu_tctx.blockDim;
        pyemu_indexed::pyemu_call(pyemu_b); /* thread 0 */
        if (!pyemu_first_thread_done())
            return;
        for (unsigned pyemu_z = 0; pyemu_z < pyemu_d.z; ++pyemu_z)
            for (unsigned pyemu_y = 0; pyemu_y < pyemu_d.y; ++pyemu_y)
                for (unsigned pyemu_x = (pyemu_y | pyemu_z) ? 0u : 1u; pyemu_x < pyemu_d.x; ++pyemu_x) {
                    pyemu_v.x = pyemu_x;
                    pyemu_v.y = pyemu_y;
                    pyemu_v.z = pyemu_z;
                    pyemu_indexed::pyemu_call(pyemu_b);
                }
    }

    /* Runs every thread of the block; the core has set threadIdx to {0,0,0}.
     * The arguments are copied to a local buffer first, so stores through
     * the kernel's pointers cannot alias them, and g++ keeps them and the
     * indices in registers; flatten inlines f into the loop.  A kernel with
     * barriers or warp collectives gets pyemu_run_block_lean instead (the
     * generated table says which): its blocks run in its block function
     * (flattened as before) or on fibers, the loop below is only the
     * fallback, and f flattened into it (and into pyemu_run_precise) was
     * most of such a module's build. */
    static __attribute__((__flatten__)) void pyemu_run_block(const void *pyemu_args) {
        pyemu_run_block_body(pyemu_args);
    }
    static void pyemu_run_block_lean(const void *pyemu_args) {
        pyemu_run_block_body(pyemu_args);
    }
    static __attribute__((__flatten__)) bool pyemu_run_blocked(const unsigned char *pyemu_b) {
        return pyemu_blocked<pyemu_Block>::pyemu_run(pyemu_b);
    }
    static inline __attribute__((__always_inline__)) void pyemu_run_block_body(const void *pyemu_args) {
        alignas(pyemu_align) unsigned char pyemu_buf[pyemu_buf_size];
        __builtin_memcpy(pyemu_buf, pyemu_args, pyemu_args_size);
        if (__builtin_expect(pyemu_tctx.precise != 0, 0)) {
            pyemu_run_precise(pyemu_buf);
            return;
        }
        if (pyemu_run_blocked(pyemu_buf))
            return;
        pyemu_thread_ctx &pyemu_c = pyemu_tctx;
        const unsigned pyemu_bx = pyemu_c.blockDim.x, pyemu_by = pyemu_c.blockDim.y,
                       pyemu_bz = pyemu_c.blockDim.z;
        pyemu_indexed::pyemu_call(pyemu_buf); /* thread 0 */
        if (!pyemu_first_thread_done())
            return;
        /* Take the context again after the call, as the kernel's own threadIdx
         * does: g++ then sees one address, forwards each threadIdx.x store
         * to the kernel's reads, and can vectorize the loop over x. */
        pyemu_thread_ctx &pyemu_t = pyemu_tctx;
        for (unsigned pyemu_z = 0; pyemu_z < pyemu_bz; ++pyemu_z) {
            for (unsigned pyemu_y = 0; pyemu_y < pyemu_by; ++pyemu_y) {
                pyemu_t.threadIdx.y = pyemu_y;
                pyemu_t.threadIdx.z = pyemu_z;
                for (unsigned pyemu_x = (pyemu_y | pyemu_z) ? 0u : 1u; pyemu_x < pyemu_bx; ++pyemu_x) {
                    pyemu_t.threadIdx.x = pyemu_x;
                    pyemu_indexed::pyemu_call(pyemu_buf);
                }
            }
        }
    }
};

/* One descriptor per parameter, then an all-zero terminator. */
template <class pyemu_R, class... pyemu_P, pyemu_R (*pyemu_F)(pyemu_P...), class pyemu_Block>
template <unsigned... pyemu_I>
const pyemu_param_desc
    pyemu_kernel<pyemu_R (*)(pyemu_P...), pyemu_F, pyemu_Block>::pyemu_impl<pyemu_seq<pyemu_I...> >::pyemu_params
        [sizeof...(pyemu_P) + 1] = {
            {pyemu_type_name<pyemu_P>::pyemu_get(), pyemu_param_traits<pyemu_P>::pyemu_kind,
             unsigned(sizeof(pyemu_P)), unsigned(alignof(pyemu_P)),
             pyemu_nth_offset<pyemu_I, typename pyemu_kernel<pyemu_R (*)(pyemu_P...), pyemu_F, pyemu_Block>::pyemu_layout>::pyemu_value,
             pyemu_param_traits<pyemu_P>::pyemu_flags}...,
            {0, 0, 0, 0, 0, 0}};

#if defined(__cpp_noexcept_function_type)
/* C++17: `void f() noexcept` has a type of its own; run it like the others. */
template <class pyemu_R, class... pyemu_P, pyemu_R (*pyemu_F)(pyemu_P...) noexcept, class pyemu_Block>
struct pyemu_kernel<pyemu_R (*)(pyemu_P...) noexcept, pyemu_F, pyemu_Block>
    : pyemu_kernel<pyemu_R (*)(pyemu_P...), static_cast<pyemu_R (*)(pyemu_P...)>(pyemu_F), pyemu_Block> {};
#endif

} /* namespace pyemu_entry */

#pragma pop_macro("blockDim")
#pragma pop_macro("threadIdx")

#endif /* PYEMU_KERNEL_ENTRY_HPP */
