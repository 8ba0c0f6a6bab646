/* <cooperative_groups.h> for kernels: pyemu/cooperative_groups.h. */
#include "../cooperative_groups.h"
