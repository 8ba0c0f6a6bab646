/* <assert.h> and <cassert> for kernels: keeps pyemu's device assert, which fails the launch; glibc's would abort the process. */
/* No include guard, like the standard header: every inclusion redefines
 * assert from the NDEBUG of that moment; PYEMU_DEVICE_ASSERT is in
 * detail/cuda_builtins.h. */
#ifndef PYEMU_CUDA_DEVICE_H
#include "../cuda_device.h"
#endif

#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) PYEMU_DEVICE_ASSERT(e, #e)
#endif
