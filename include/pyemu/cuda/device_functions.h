/* <device_functions.h> for kernels: __syncthreads, intrinsics, ... come from pyemu's device header. */
#ifndef PYEMU_CUDA_DEVICE_H
#include "../cuda_device.h"
#endif
