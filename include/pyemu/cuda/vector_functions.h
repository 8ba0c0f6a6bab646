/* <vector_functions.h> for kernels: make_float4 and friends come from pyemu's device header. */
#ifndef PYEMU_CUDA_DEVICE_H
#include "../cuda_device.h"
#endif
