/* <math_functions.h> for kernels: the math library comes from pyemu's device header. */
#ifndef PYEMU_CUDA_DEVICE_H
#include "../cuda_device.h"
#endif
