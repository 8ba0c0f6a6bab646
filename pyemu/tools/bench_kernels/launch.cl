// The launch rows in OpenCL C, the same kernels as launch.cu.
__kernel void emptyKernel() {}

__kernel void tick(__global int *count) { count[0] += 1; }

__kernel void addTo(__global const float *a, __global const float *b, __global float *c, int n)
{
    int i = get_global_id(0);
    if (i < n)
        c[i] += a[i] + b[i];
}
