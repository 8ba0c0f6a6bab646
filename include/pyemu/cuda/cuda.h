/* <cuda.h> for kernels: the driver API header; pyemu's device header already gives kernels everything. */
#ifndef PYEMU_CUDA_DEVICE_H
#include "../cuda_device.h"
#endif
