/* <cuda_runtime.h> for kernels: pyemu's device header (force-included anyway) has everything. */
#ifndef PYEMU_CUDA_DEVICE_H
#include "../cuda_device.h"
#endif
