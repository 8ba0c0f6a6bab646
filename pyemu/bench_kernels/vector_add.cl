// Vector add: one element per work-item.  Work-group 256.
__kernel void vecAdd(__global const float *a, __global const float *b,
                     __global float *c, int n)
{
    int i = get_group_id(0) * get_local_size(0) + get_local_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}
