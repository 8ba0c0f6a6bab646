/* Address-space qualifiers, spelled without and with underscores, on kernel
 * arguments, helper-function parameters and variables. */

float twice_plain(global const float *p, int i) { return p[i] * 2.0f; }
float twice_underscore(__global const float *p, int i) { return p[i] * 2.0f; }
void put_plain(local float *l, int i, private float v) { l[i] = v; }
float first_constant(__constant float *k) { return k[0]; }

kernel void qualifiers_plain(global const float *in, global float *out,
                             constant float *k, local float *tmp)
{
    private int lid = get_local_id(0);
    private float v = twice_plain(in, get_global_id(0)) + first_constant(k);
    put_plain(tmp, lid, v);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[get_local_size(0) - 1 - lid] + k[1];
}

__kernel void qualifiers_underscore(__global const float * restrict in,
                                    __global float * restrict out,
                                    __constant float *k, __local float *tmp)
{
    __private int lid = get_local_id(0);
    __private float v = twice_underscore(in, get_global_id(0)) + first_constant(k);
    tmp[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[get_local_size(0) - 1 - lid] + k[1];
}

/* const and volatile qualified pointees, a global pointer kept in a private
 * variable, pointer arithmetic and comparisons within one buffer. */
__kernel void qualifiers_pointers(__global const int *in, __global volatile int *out, const uint n)
{
    size_t i = get_global_id(0);
    __global const int *p = in + i;
    __global const int *end = in + n;
    int acc = 0;
    for (int k = 0; k < 4 && p < end; ++k, p += 7)
        acc += *p;
    out[i] = acc + (int)(end - (in + i));
}
