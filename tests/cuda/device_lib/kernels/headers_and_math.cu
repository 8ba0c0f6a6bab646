// Kernels that include every shim header and use the math library, intrinsics, atomics and assert.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_runtime_api.h>
#include <device_launch_parameters.h>
#include <device_functions.h>
#include <vector_types.h>
#include <vector_functions.h>
#include <math_functions.h>
#include <math_constants.h>
#include <device_atomic_functions.h>
#include <sm_20_atomic_functions.h>
#include <sm_60_atomic_functions.h>
#include <helper_math.h>
#include <assert.h>
#include <cassert>
#include <cmath>
#include <cstdio>

__device__ float gaussian(float x, float sigma)
{
    return expf(-x * x / (2.0f * sigma * sigma)) * rsqrtf(2.0f * CUDART_PI_F) / sigma;
}

__device__ __forceinline__ int lane() { return threadIdx.x & (warpSize - 1); }

__global__ void mathKernel(const float *x, float *y, double *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(n >= 0);
    if (i >= n)
        return;
    float s, c;
    sincosf(x[i], &s, &c);
    __sincosf(x[i], &s, &c);
    sincospif(x[i], &s, &c);
    float v = __saturatef(s) + __fdividef(c, 2.0f) + sinpif(x[i]) + cospif(x[i]) + exp10f(x[i]) +
              norm3df(x[i], s, c) + rnorm4df(1, 2, 3, x[i]) + erfinvf(0.5f) + normcdff(x[i]) +
              __expf(x[i]) + __logf(fabsf(x[i]) + 1) + __powf(2.0f, x[i]) + rcbrtf(x[i]) +
              fminf(x[i], 1.0f) + fmaxf(x[i], 0.0f) + min(x[i], 2.0f) + max(1.0f, x[i]) +
              sqrt(x[i]) + sin(x[i]) + __fadd_rz(x[i], 1.0f) + __fmul_rn(x[i], 2.0f) + gaussian(x[i], 1.0f);
    if (v != v)
        v = CUDART_NAN_F;
    if (isinf(v))
        v = CUDART_INF_F;
    y[i] = v + (float)__float2int_rn(v) + __int2float_rn(__popc(i)) + (float)__clz(i) + (float)__ffs(i) +
           __int_as_float(__float_as_int(v)) + (float)lane() + (float)__brev(i) + (float)__byte_perm(i, 0, 0x3210);
    double d = rsqrt((double)x[i]) + erfcinv(1.5) + normcdfinv(0.3) + cyl_bessel_i0(1.0) +
               __dadd_rn(1.0, 2.0) + __longlong_as_double(__double_as_longlong(1.0)) + CUDART_PI + CUDART_INF;
    z[i] = d + (double)umin(1u, 2u) + (double)llmax(1LL, 2LL) + clock64() * 0.0;
    int3 a = make_int3(1, 2, 3);
    float3 b = make_float3(a) * 2.0f + make_float3(1.0f);
    y[i] += dot(b, normalize(b)) + length(cross(b, make_float3(0, 1, 0)));
}

__device__ int lock = 0;
__device__ unsigned int counter;
__device__ unsigned long long total;

__global__ void atomicsKernel(int *ints, unsigned int *uints, float *f, double *d)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&ints[0], 1);
    atomicSub(&ints[1], 1);
    atomicExch(&ints[2], i);
    atomicMin(&ints[3], i);
    atomicMax(&ints[4], i);
    atomicAnd(&ints[5], ~1);
    atomicOr(&ints[6], 1);
    atomicXor(&ints[7], 1);
    atomicCAS(&ints[8], 0, i);
    atomicInc(&uints[0], 15u);
    atomicDec(&uints[1], 15u);
    atomicAdd(f, 1.0f);
    atomicExch(f + 1, 2.0f);
    atomicAdd(d, 1.0);
    atomicAdd_block(&counter, 1u);
    atomicAdd_system(&total, 2ull);
    atomicMax(&total, 5ull);
    __shared__ int sh;
    if (threadIdx.x == 0)
        sh = 0;
    __syncthreads();
    atomicAdd(&sh, 1);
    if (threadIdx.x == 0) {
        while (atomicCAS(&lock, 0, 1) != 0)
            ;
        __threadfence();
        counter += sh;
        atomicExch(&lock, 0);
    }
}
