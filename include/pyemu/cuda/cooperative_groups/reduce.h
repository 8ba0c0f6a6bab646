/* <cooperative_groups/reduce.h> for kernels: pyemu/cooperative_groups/reduce.h. */
#include "../../cooperative_groups/reduce.h"
