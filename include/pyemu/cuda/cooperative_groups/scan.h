/* <cooperative_groups/scan.h> for kernels: pyemu/cooperative_groups/scan.h. */
#include "../../cooperative_groups/scan.h"
