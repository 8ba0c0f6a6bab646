/* <assert.h> and <cassert> for kernels: keeps pyemu's device assert, which fails the launch; glibc's would abort the process. */
/* No include guard, like the standard header: every inclusion redefines
 * assert from the NDEBUG of that moment.  Same definition as in
 * detail/cuda_builtins.h. */
#ifndef PYEMU_CUDA_DEVICE_H
#include "../cuda_device.h"
#endif

#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : pyemu_assert_fail(#e, __FILE__, __LINE__, __func__))
#endif
