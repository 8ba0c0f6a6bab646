/* Kernels written by a macro, as generic code does: the kernel, its
 * __local array and its barrier all come from the expansion. */
#define REVERSE_KERNEL(NAME, T)                                             \
__kernel void NAME(__global const T *in, __global T *out)                   \
{                                                                           \
    __local T buf[64];                                                      \
    size_t l = get_local_id(0);                                             \
    buf[l] = in[get_global_id(0)];                                          \
    barrier(CLK_LOCAL_MEM_FENCE);                                           \
    out[get_global_id(0)] = buf[63 - l];                                    \
}

REVERSE_KERNEL(macro_kernel_int, int)
REVERSE_KERNEL(macro_kernel_float, float)
