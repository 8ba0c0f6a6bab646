/* <device_launch_parameters.h> for kernels: threadIdx, blockIdx, blockDim, gridDim, warpSize come from pyemu's device header. */
#ifndef PYEMU_CUDA_DEVICE_H
#include "../cuda_device.h"
#endif
