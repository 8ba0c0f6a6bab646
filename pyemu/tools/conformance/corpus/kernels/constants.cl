/* __constant kernel arguments and program-scope __constant data. */
__constant float weights[3] = {0.25f, 0.5f, 0.25f};
constant int shifts[4] = {-2, -1, 1, 2};
__constant float4 bias = (float4)(1.0f, 2.0f, 4.0f, 8.0f);
constant struct { int scale; float offset; } params = {3, 0.5f};

__kernel void constants(__global const float *x, __constant float *taps,
                        __constant int *table, __global float *out, __global int *iout,
                        const int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    int l = max(i - 1, 0), r = min(i + 1, n - 1);
    float s = weights[0] * x[l] + weights[1] * x[i] + weights[2] * x[r];
    float t = taps[0] * x[l] + taps[1] * x[i] + taps[2] * x[r];
    out[2 * i] = s + bias.s2;
    out[2 * i + 1] = t + params.offset;
    iout[i] = table[i % 16] * params.scale + shifts[i & 3];
}
