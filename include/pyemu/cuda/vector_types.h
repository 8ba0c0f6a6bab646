/* <vector_types.h> for kernels: float4, dim3, ... come from pyemu's device header. */
#ifndef PYEMU_CUDA_DEVICE_H
#include "../cuda_device.h"
#endif
