// Vector add in OpenCL C, the same kernel as vector_add.cu: one element per
// work-item, work-groups of 1024.
__kernel void add(__global const float *a, __global const float *b,
                  __global float *c, int n)
{
    int index = get_local_id(0) + get_group_id(0) * get_local_size(0);
    if (index < n)
        c[index] = a[index] + b[index];
}
