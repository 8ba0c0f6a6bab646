/* <helper_math.h> for kernels: the vector operators of the CUDA samples' helper_math.h (float2/3/4, int2/3/4, uint2/3/4). */
#ifndef PYEMU_HELPER_MATH_H
#define PYEMU_HELPER_MATH_H
#ifndef PYEMU_CUDA_DEVICE_H
#include "../cuda_device.h"
#endif

/* Conversions and broadcasts: make_float3(s), make_float4(float3 v, w), ... */
static inline float2 make_float2(float s) { return make_float2(s, s); }
static inline float2 make_float2(float3 a) { return make_float2(a.x, a.y); }
static inline float2 make_float2(int2 a) { return make_float2((float)a.x, (float)a.y); }
static inline float2 make_float2(uint2 a) { return make_float2((float)a.x, (float)a.y); }
static inline float3 make_float3(float s) { return make_float3(s, s, s); }
static inline float3 make_float3(float2 a) { return make_float3(a.x, a.y, 0.0f); }
static inline float3 make_float3(float2 a, float s) { return make_float3(a.x, a.y, s); }
static inline float3 make_float3(float4 a) { return make_float3(a.x, a.y, a.z); }
static inline float3 make_float3(int3 a) { return make_float3((float)a.x, (float)a.y, (float)a.z); }
static inline float3 make_float3(uint3 a) { return make_float3((float)a.x, (float)a.y, (float)a.z); }
static inline float4 make_float4(float s) { return make_float4(s, s, s, s); }
static inline float4 make_float4(float3 a) { return make_float4(a.x, a.y, a.z, 0.0f); }
static inline float4 make_float4(float3 a, float w) { return make_float4(a.x, a.y, a.z, w); }
static inline float4 make_float4(int4 a) { return make_float4((float)a.x, (float)a.y, (float)a.z, (float)a.w); }
static inline float4 make_float4(uint4 a) { return make_float4((float)a.x, (float)a.y, (float)a.z, (float)a.w); }
static inline int2 make_int2(int s) { return make_int2(s, s); }
static inline int2 make_int2(int3 a) { return make_int2(a.x, a.y); }
static inline int2 make_int2(uint2 a) { return make_int2((int)a.x, (int)a.y); }
static inline int2 make_int2(float2 a) { return make_int2((int)a.x, (int)a.y); }
static inline int3 make_int3(int s) { return make_int3(s, s, s); }
static inline int3 make_int3(int2 a) { return make_int3(a.x, a.y, 0); }
static inline int3 make_int3(int2 a, int s) { return make_int3(a.x, a.y, s); }
static inline int3 make_int3(uint3 a) { return make_int3((int)a.x, (int)a.y, (int)a.z); }
static inline int3 make_int3(float3 a) { return make_int3((int)a.x, (int)a.y, (int)a.z); }
static inline int4 make_int4(int s) { return make_int4(s, s, s, s); }
static inline int4 make_int4(int3 a) { return make_int4(a.x, a.y, a.z, 0); }
static inline int4 make_int4(int3 a, int w) { return make_int4(a.x, a.y, a.z, w); }
static inline int4 make_int4(uint4 a) { return make_int4((int)a.x, (int)a.y, (int)a.z, (int)a.w); }
static inline int4 make_int4(float4 a) { return make_int4((int)a.x, (int)a.y, (int)a.z, (int)a.w); }
static inline uint2 make_uint2(unsigned int s) { return make_uint2(s, s); }
static inline uint2 make_uint2(uint3 a) { return make_uint2(a.x, a.y); }
static inline uint2 make_uint2(int2 a) { return make_uint2((unsigned int)a.x, (unsigned int)a.y); }
static inline uint3 make_uint3(unsigned int s) { return make_uint3(s, s, s); }
static inline uint3 make_uint3(uint2 a) { return make_uint3(a.x, a.y, 0u); }
static inline uint3 make_uint3(uint2 a, unsigned int s) { return make_uint3(a.x, a.y, s); }
static inline uint3 make_uint3(uint4 a) { return make_uint3(a.x, a.y, a.z); }
static inline uint3 make_uint3(int3 a) { return make_uint3((unsigned int)a.x, (unsigned int)a.y, (unsigned int)a.z); }
static inline uint4 make_uint4(unsigned int s) { return make_uint4(s, s, s, s); }
static inline uint4 make_uint4(uint3 a) { return make_uint4(a.x, a.y, a.z, 0u); }
static inline uint4 make_uint4(uint3 a, unsigned int w) { return make_uint4(a.x, a.y, a.z, w); }
static inline uint4 make_uint4(int4 a) { return make_uint4((unsigned int)a.x, (unsigned int)a.y, (unsigned int)a.z, (unsigned int)a.w); }

/* Component-wise arithmetic: v op v, v op s, s op v, v op= v, v op= s. */
#define PYEMU_HM_OPS2(V, S, OP)                                                     \
    static inline V operator OP(V a, V b) { V r = {(S)(a.x OP b.x), (S)(a.y OP b.y)}; return r; } \
    static inline V operator OP(V a, S s) { V r = {(S)(a.x OP s), (S)(a.y OP s)}; return r; } \
    static inline V operator OP(S s, V a) { V r = {(S)(s OP a.x), (S)(s OP a.y)}; return r; } \
    static inline void operator OP##=(V &a, V b) { a = a OP b; }                   \
    static inline void operator OP##=(V &a, S s) { a = a OP s; }
#define PYEMU_HM_OPS3(V, S, OP)                                                     \
    static inline V operator OP(V a, V b) { V r = {(S)(a.x OP b.x), (S)(a.y OP b.y), (S)(a.z OP b.z)}; return r; } \
    static inline V operator OP(V a, S s) { V r = {(S)(a.x OP s), (S)(a.y OP s), (S)(a.z OP s)}; return r; } \
    static inline V operator OP(S s, V a) { V r = {(S)(s OP a.x), (S)(s OP a.y), (S)(s OP a.z)}; return r; } \
    static inline void operator OP##=(V &a, V b) { a = a OP b; }                   \
    static inline void operator OP##=(V &a, S s) { a = a OP s; }
#define PYEMU_HM_OPS4(V, S, OP)                                                     \
    static inline V operator OP(V a, V b) { V r = {(S)(a.x OP b.x), (S)(a.y OP b.y), (S)(a.z OP b.z), (S)(a.w OP b.w)}; return r; } \
    static inline V operator OP(V a, S s) { V r = {(S)(a.x OP s), (S)(a.y OP s), (S)(a.z OP s), (S)(a.w OP s)}; return r; } \
    static inline V operator OP(S s, V a) { V r = {(S)(s OP a.x), (S)(s OP a.y), (S)(s OP a.z), (S)(s OP a.w)}; return r; } \
    static inline void operator OP##=(V &a, V b) { a = a OP b; }                   \
    static inline void operator OP##=(V &a, S s) { a = a OP s; }
#define PYEMU_HM_ARITH(N, V, S) \
    PYEMU_HM_OPS##N(V, S, +) PYEMU_HM_OPS##N(V, S, -) PYEMU_HM_OPS##N(V, S, *) PYEMU_HM_OPS##N(V, S, /)
PYEMU_HM_ARITH(2, float2, float) PYEMU_HM_ARITH(3, float3, float) PYEMU_HM_ARITH(4, float4, float)
PYEMU_HM_ARITH(2, int2, int) PYEMU_HM_ARITH(3, int3, int) PYEMU_HM_ARITH(4, int4, int)
PYEMU_HM_ARITH(2, uint2, unsigned int) PYEMU_HM_ARITH(3, uint3, unsigned int) PYEMU_HM_ARITH(4, uint4, unsigned int)
#undef PYEMU_HM_ARITH
#undef PYEMU_HM_OPS2
#undef PYEMU_HM_OPS3
#undef PYEMU_HM_OPS4

static inline float2 operator-(float2 a) { return make_float2(-a.x, -a.y); }
static inline float3 operator-(float3 a) { return make_float3(-a.x, -a.y, -a.z); }
static inline float4 operator-(float4 a) { return make_float4(-a.x, -a.y, -a.z, -a.w); }
static inline int2 operator-(int2 a) { return make_int2(-a.x, -a.y); }
static inline int3 operator-(int3 a) { return make_int3(-a.x, -a.y, -a.z); }
static inline int4 operator-(int4 a) { return make_int4(-a.x, -a.y, -a.z, -a.w); }

/* Component-wise min and max. */
static inline float2 fminf(float2 a, float2 b) { return make_float2(fminf(a.x, b.x), fminf(a.y, b.y)); }
static inline float3 fminf(float3 a, float3 b) { return make_float3(fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z)); }
static inline float4 fminf(float4 a, float4 b) { return make_float4(fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z), fminf(a.w, b.w)); }
static inline float2 fmaxf(float2 a, float2 b) { return make_float2(fmaxf(a.x, b.x), fmaxf(a.y, b.y)); }
static inline float3 fmaxf(float3 a, float3 b) { return make_float3(fmaxf(a.x, b.x), fmaxf(a.y, b.y), fmaxf(a.z, b.z)); }
static inline float4 fmaxf(float4 a, float4 b) { return make_float4(fmaxf(a.x, b.x), fmaxf(a.y, b.y), fmaxf(a.z, b.z), fmaxf(a.w, b.w)); }
static inline int2 min(int2 a, int2 b) { return make_int2(min(a.x, b.x), min(a.y, b.y)); }
static inline int3 min(int3 a, int3 b) { return make_int3(min(a.x, b.x), min(a.y, b.y), min(a.z, b.z)); }
static inline int4 min(int4 a, int4 b) { return make_int4(min(a.x, b.x), min(a.y, b.y), min(a.z, b.z), min(a.w, b.w)); }
static inline int2 max(int2 a, int2 b) { return make_int2(max(a.x, b.x), max(a.y, b.y)); }
static inline int3 max(int3 a, int3 b) { return make_int3(max(a.x, b.x), max(a.y, b.y), max(a.z, b.z)); }
static inline int4 max(int4 a, int4 b) { return make_int4(max(a.x, b.x), max(a.y, b.y), max(a.z, b.z), max(a.w, b.w)); }
static inline uint2 min(uint2 a, uint2 b) { return make_uint2(min(a.x, b.x), min(a.y, b.y)); }
static inline uint3 min(uint3 a, uint3 b) { return make_uint3(min(a.x, b.x), min(a.y, b.y), min(a.z, b.z)); }
static inline uint4 min(uint4 a, uint4 b) { return make_uint4(min(a.x, b.x), min(a.y, b.y), min(a.z, b.z), min(a.w, b.w)); }
static inline uint2 max(uint2 a, uint2 b) { return make_uint2(max(a.x, b.x), max(a.y, b.y)); }
static inline uint3 max(uint3 a, uint3 b) { return make_uint3(max(a.x, b.x), max(a.y, b.y), max(a.z, b.z)); }
static inline uint4 max(uint4 a, uint4 b) { return make_uint4(max(a.x, b.x), max(a.y, b.y), max(a.z, b.z), max(a.w, b.w)); }

/* lerp: a + t (b - a).  C++20 has the float one already (std::lerp, which
 * <math.h> puts in the global namespace). */
#ifndef __cpp_lib_interpolate
static inline float lerp(float a, float b, float t) { return a + t * (b - a); }
#endif
static inline float2 lerp(float2 a, float2 b, float t) { return a + t * (b - a); }
static inline float3 lerp(float3 a, float3 b, float t) { return a + t * (b - a); }
static inline float4 lerp(float4 a, float4 b, float t) { return a + t * (b - a); }

/* clamp to [a, b], component-wise; the bounds are scalars or vectors. */
static inline float clamp(float f, float a, float b) { return fmaxf(a, fminf(f, b)); }
static inline int clamp(int f, int a, int b) { return max(a, min(f, b)); }
static inline unsigned int clamp(unsigned int f, unsigned int a, unsigned int b) { return max(a, min(f, b)); }
#define PYEMU_HM_CLAMP2(V, S, MAKE) \
    static inline V clamp(V v, S a, S b) { return MAKE(clamp(v.x, a, b), clamp(v.y, a, b)); } \
    static inline V clamp(V v, V a, V b) { return MAKE(clamp(v.x, a.x, b.x), clamp(v.y, a.y, b.y)); }
#define PYEMU_HM_CLAMP3(V, S, MAKE) \
    static inline V clamp(V v, S a, S b) { return MAKE(clamp(v.x, a, b), clamp(v.y, a, b), clamp(v.z, a, b)); } \
    static inline V clamp(V v, V a, V b) { return MAKE(clamp(v.x, a.x, b.x), clamp(v.y, a.y, b.y), clamp(v.z, a.z, b.z)); }
#define PYEMU_HM_CLAMP4(V, S, MAKE) \
    static inline V clamp(V v, S a, S b) { return MAKE(clamp(v.x, a, b), clamp(v.y, a, b), clamp(v.z, a, b), clamp(v.w, a, b)); } \
    static inline V clamp(V v, V a, V b) { return MAKE(clamp(v.x, a.x, b.x), clamp(v.y, a.y, b.y), clamp(v.z, a.z, b.z), clamp(v.w, a.w, b.w)); }
PYEMU_HM_CLAMP2(float2, float, make_float2) PYEMU_HM_CLAMP3(float3, float, make_float3) PYEMU_HM_CLAMP4(float4, float, make_float4)
PYEMU_HM_CLAMP2(int2, int, make_int2) PYEMU_HM_CLAMP3(int3, int, make_int3) PYEMU_HM_CLAMP4(int4, int, make_int4)
PYEMU_HM_CLAMP2(uint2, unsigned int, make_uint2) PYEMU_HM_CLAMP3(uint3, unsigned int, make_uint3)
PYEMU_HM_CLAMP4(uint4, unsigned int, make_uint4)
#undef PYEMU_HM_CLAMP2
#undef PYEMU_HM_CLAMP3
#undef PYEMU_HM_CLAMP4

/* Dot products, lengths, normalization. */
static inline float dot(float2 a, float2 b) { return a.x * b.x + a.y * b.y; }
static inline float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline float dot(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
static inline int dot(int2 a, int2 b) { return a.x * b.x + a.y * b.y; }
static inline int dot(int3 a, int3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline int dot(int4 a, int4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
static inline unsigned int dot(uint2 a, uint2 b) { return a.x * b.x + a.y * b.y; }
static inline unsigned int dot(uint3 a, uint3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline unsigned int dot(uint4 a, uint4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
static inline float length(float2 v) { return sqrtf(dot(v, v)); }
static inline float length(float3 v) { return sqrtf(dot(v, v)); }
static inline float length(float4 v) { return sqrtf(dot(v, v)); }
static inline float2 normalize(float2 v) { return v * rsqrtf(dot(v, v)); }
static inline float3 normalize(float3 v) { return v * rsqrtf(dot(v, v)); }
static inline float4 normalize(float4 v) { return v * rsqrtf(dot(v, v)); }

/* Cross product, reflection of i about the normal n. */
static inline float3 cross(float3 a, float3 b)
{
    return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline float3 reflect(float3 i, float3 n) { return i - 2.0f * n * dot(n, i); }

/* Component-wise floorf, fracf (v - floor v), fabs, fmodf; abs of int vectors. */
static inline float fracf(float v) { return v - floorf(v); }
static inline float2 floorf(float2 v) { return make_float2(floorf(v.x), floorf(v.y)); }
static inline float3 floorf(float3 v) { return make_float3(floorf(v.x), floorf(v.y), floorf(v.z)); }
static inline float4 floorf(float4 v) { return make_float4(floorf(v.x), floorf(v.y), floorf(v.z), floorf(v.w)); }
static inline float2 fracf(float2 v) { return make_float2(fracf(v.x), fracf(v.y)); }
static inline float3 fracf(float3 v) { return make_float3(fracf(v.x), fracf(v.y), fracf(v.z)); }
static inline float4 fracf(float4 v) { return make_float4(fracf(v.x), fracf(v.y), fracf(v.z), fracf(v.w)); }
static inline float2 fabs(float2 v) { return make_float2(fabsf(v.x), fabsf(v.y)); }
static inline float3 fabs(float3 v) { return make_float3(fabsf(v.x), fabsf(v.y), fabsf(v.z)); }
static inline float4 fabs(float4 v) { return make_float4(fabsf(v.x), fabsf(v.y), fabsf(v.z), fabsf(v.w)); }
static inline float2 fmodf(float2 a, float2 b) { return make_float2(fmodf(a.x, b.x), fmodf(a.y, b.y)); }
static inline float3 fmodf(float3 a, float3 b) { return make_float3(fmodf(a.x, b.x), fmodf(a.y, b.y), fmodf(a.z, b.z)); }
static inline float4 fmodf(float4 a, float4 b) { return make_float4(fmodf(a.x, b.x), fmodf(a.y, b.y), fmodf(a.z, b.z), fmodf(a.w, b.w)); }
static inline int2 abs(int2 v) { return make_int2(abs(v.x), abs(v.y)); }
static inline int3 abs(int3 v) { return make_int3(abs(v.x), abs(v.y), abs(v.z)); }
static inline int4 abs(int4 v) { return make_int4(abs(v.x), abs(v.y), abs(v.z), abs(v.w)); }

/* Hermite interpolation between 0 at a and 1 at b. */
static inline float smoothstep(float a, float b, float x)
{
    float y = clamp((x - a) / (b - a), 0.0f, 1.0f);
    return y * y * (3.0f - 2.0f * y);
}

#endif /* PYEMU_HELPER_MATH_H */
