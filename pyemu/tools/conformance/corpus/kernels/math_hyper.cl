/* Hyperbolic built-ins, float; sincos with a private pointer. */
__kernel void math_hyper(__global const float *x, __global const float *u,
                         __global const float *w, __global float *o_sinh,
                         __global float *o_cosh, __global float *o_tanh,
                         __global float *o_asinh, __global float *o_acosh,
                         __global float *o_atanh, __global float *o_sincos)
{
    size_t i = get_global_id(0);
    float a = x[i];
    o_sinh[i] = sinh(a);
    o_cosh[i] = cosh(a);
    o_tanh[i] = tanh(a);
    o_asinh[i] = asinh(a * 1000.0f);
    o_acosh[i] = acosh(w[i]);
    o_atanh[i] = atanh(u[i]);
    float c;
    (void)sincos(u[i], &c);
    o_sincos[i] = c;

}
