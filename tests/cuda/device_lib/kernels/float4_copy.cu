// Course kernel: vectorized loads and stores with float4, int2 and dim3 in device code.
#include <cuda_runtime.h>
#include <vector_types.h>

__global__ void copyVectorized(const float *__restrict__ in, float *__restrict__ out, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = idx; i < n / 4; i += blockDim.x * gridDim.x) {
        float4 v = reinterpret_cast<const float4 *>(in)[i];
        v.x *= 2.0f;
        reinterpret_cast<float4 *>(out)[i] = v;
    }
    int rem = n % 4, i = n - rem + idx;
    if (idx < rem)
        out[i] = 2.0f * in[i];
}

__global__ void saxpy4(int n, float a, const float4 *x, float4 *y)
{
    __shared__ float4 tile[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        tile[threadIdx.x] = x[i];
        float4 yv = y[i], xv = tile[threadIdx.x];
        y[i] = make_float4(a * xv.x + yv.x, a * xv.y + yv.y, a * xv.z + yv.z, a * xv.w + yv.w);
    }
    int2 p = make_int2(threadIdx.x, threadIdx.y);
    dim3 where = blockIdx;
    uint3 back = where;
    (void)p;
    (void)back;
}

struct Particle {
    float3 pos;
    float3 vel;
    double2 extra;
};

__global__ void integrate(Particle *p, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    p[i].pos.x += p[i].vel.x * dt;
    p[i].pos.y += p[i].vel.y * dt;
    p[i].pos.z += p[i].vel.z * dt;
}
