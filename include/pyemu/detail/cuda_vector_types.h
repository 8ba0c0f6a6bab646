/* CUDA's built-in vector types (float4, int2, ...), dim3 and the make_* functions, as in CUDA 12's vector_types.h. */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/cuda_device.h>, not this file"
#endif

/* Each type is a trivial aggregate (no constructors), so it can live in a
 * __shared__ (static __thread) array.  Alignments are CUDA's: the 2- and
 * 4-element types are aligned to their size (at most 16 bytes), the 1- and
 * 3-element types only to their element.  No arithmetic operators: CUDA has
 * none either; #include <helper_math.h> for the usual ones. */

/* uint3 is the abi's type, since threadIdx and blockIdx are pyemu_uint3. */
typedef pyemu_uint3 uint3;

#define PYEMU_ALIGN_OF_N(T, n) (sizeof(T) * (n) < 16 ? sizeof(T) * (n) : 16)

/* The four types NAME1 .. NAME4 of element type T, and their make_ functions. */
#define PYEMU_VECTOR_TYPES(NAME, T)                                          \
    struct NAME##1 { T x; };                                                 \
    struct __attribute__((aligned(PYEMU_ALIGN_OF_N(T, 2)))) NAME##2 { T x, y; }; \
    PYEMU_VECTOR_TYPE3(NAME, T)                                              \
    struct __attribute__((aligned(PYEMU_ALIGN_OF_N(T, 4)))) NAME##4 { T x, y, z, w; }; \
    static inline NAME##1 make_##NAME##1(T x)                                \
    { NAME##1 v = {x}; return v; }                                           \
    static inline NAME##2 make_##NAME##2(T x, T y)                           \
    { NAME##2 v = {x, y}; return v; }                                        \
    static inline NAME##3 make_##NAME##3(T x, T y, T z)                      \
    { NAME##3 v = {x, y, z}; return v; }                                     \
    static inline NAME##4 make_##NAME##4(T x, T y, T z, T w)                 \
    { NAME##4 v = {x, y, z, w}; return v; }

#define PYEMU_VECTOR_TYPE3(NAME, T) struct NAME##3 { T x, y, z; };
PYEMU_VECTOR_TYPES(char, signed char)
PYEMU_VECTOR_TYPES(uchar, unsigned char)
PYEMU_VECTOR_TYPES(short, short)
PYEMU_VECTOR_TYPES(ushort, unsigned short)
PYEMU_VECTOR_TYPES(int, int)
PYEMU_VECTOR_TYPES(long, long)
PYEMU_VECTOR_TYPES(ulong, unsigned long)
PYEMU_VECTOR_TYPES(longlong, long long)
PYEMU_VECTOR_TYPES(ulonglong, unsigned long long)
PYEMU_VECTOR_TYPES(float, float)
PYEMU_VECTOR_TYPES(double, double)
#undef PYEMU_VECTOR_TYPE3
#define PYEMU_VECTOR_TYPE3(NAME, T) /* uint3 is the abi's pyemu_uint3 */
PYEMU_VECTOR_TYPES(uint, unsigned int)
#undef PYEMU_VECTOR_TYPE3
#undef PYEMU_VECTOR_TYPES
#undef PYEMU_ALIGN_OF_N

/* Launch dimensions: unset components are 1. */
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};
