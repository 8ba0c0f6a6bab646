/* <sm_60_atomic_functions.h> for kernels: atomicAdd(double *), atomicAdd_block, ... come from pyemu's device header. */
#ifndef PYEMU_CUDA_DEVICE_H
#include "../cuda_device.h"
#endif
