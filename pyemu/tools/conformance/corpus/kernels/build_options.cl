/* Macros from the build options: -D NAME=value, -D NAME (defined as 1),
 * -DNAME=value without the space; and a function-like use of one. */
#ifndef SCALE
#error "SCALE comes from -D SCALE=..."
#endif
#if !defined(WITH_OFFSET) || WITH_OFFSET != 1
#error "-D WITH_OFFSET defines WITH_OFFSET as 1"
#endif
#define APPLY(x) ((x) * SCALE + OFFSET)

__kernel void build_options(__global const int *in, __global int *out)
{
    size_t i = get_global_id(0);
    out[i] = APPLY(in[i]) + (int)sizeof(TYPE);
}
