/* __ldg and the cache-hinted loads and stores of the CUDA Programming Guide
 * ("Read-Only Data Cache Load Function", "Load Functions Using Cache Hints",
 * "Store Functions Using Cache Hints"): __ldg, __ldcg, __ldca, __ldcs,
 * __ldlu, __ldcv, __stwb, __stcg, __stcs, __stwt.
 *
 * There is no cache to hint at here: each is the plain load or store of the
 * element, checked as any access is (an address outside device memory
 * faults).  CUDA overloads them for the scalar and vector types; one
 * template takes every type, so what nvcc compiles compiles here. */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/cuda_device.h>, not this file"
#endif

/* the stored value converts to the element type, as with CUDA's overloads */
template <class pyemu_T> struct pyemu_ldst_same { typedef pyemu_T pyemu_type; };
#define PYEMU_LDST_V(T) typename pyemu_ldst_same<T>::pyemu_type

template <class pyemu_T> static inline pyemu_T __ldg(const pyemu_T *pyemu_p) { return *pyemu_p; }
template <class pyemu_T> static inline pyemu_T __ldcg(const pyemu_T *pyemu_p) { return *pyemu_p; }
template <class pyemu_T> static inline pyemu_T __ldca(const pyemu_T *pyemu_p) { return *pyemu_p; }
template <class pyemu_T> static inline pyemu_T __ldcs(const pyemu_T *pyemu_p) { return *pyemu_p; }
template <class pyemu_T> static inline pyemu_T __ldlu(const pyemu_T *pyemu_p) { return *pyemu_p; }
template <class pyemu_T> static inline pyemu_T __ldcv(const pyemu_T *pyemu_p) { return *pyemu_p; }
template <class pyemu_T> static inline void __stwb(pyemu_T *pyemu_p, PYEMU_LDST_V(pyemu_T) pyemu_v) { *pyemu_p = pyemu_v; }
template <class pyemu_T> static inline void __stcg(pyemu_T *pyemu_p, PYEMU_LDST_V(pyemu_T) pyemu_v) { *pyemu_p = pyemu_v; }
template <class pyemu_T> static inline void __stcs(pyemu_T *pyemu_p, PYEMU_LDST_V(pyemu_T) pyemu_v) { *pyemu_p = pyemu_v; }
template <class pyemu_T> static inline void __stwt(pyemu_T *pyemu_p, PYEMU_LDST_V(pyemu_T) pyemu_v) { *pyemu_p = pyemu_v; }
