/* <sm_20_atomic_functions.h> for kernels: atomicAdd(float *) and friends come from pyemu's device header. */
#ifndef PYEMU_CUDA_DEVICE_H
#include "../cuda_device.h"
#endif
