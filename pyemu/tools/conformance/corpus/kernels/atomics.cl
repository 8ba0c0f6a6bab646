/* 32-bit atomic functions on __global and __local memory, in both spellings:
 * atomic_* (OpenCL 1.1 core) and atom_* (cl_khr_*_int32_*_atomics).  Every
 * result written is independent of the order the work-items run in. */
#pragma OPENCL EXTENSION cl_khr_global_int32_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_global_int32_extended_atomics : enable
#pragma OPENCL EXTENSION cl_khr_local_int32_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_local_int32_extended_atomics : enable

/* counters: 0 add, 1 sub, 2 inc, 3 dec, 4 min, 5 max, 6 and, 7 or, 8 xor,
 * 9 max by cmpxchg, 10 count by cmpxchg; u: 0 min, 1 max, 2 add, 3 inc */
#define BODY(A, C, U, SEEN, CELLS, v, slot)                                 \
    {                                                                       \
        A##_add(&C[0], v);                                                  \
        A##_sub(&C[1], v);                                                  \
        int old = A##_inc(&C[2]);                                           \
        SEEN[old] = 1;                                                      \
        A##_dec(&C[3]);                                                     \
        A##_min(&C[4], v);                                                  \
        A##_max(&C[5], v);                                                  \
        A##_and(&C[6], v | 0x7ffbfff7);                                     \
        A##_or(&C[7], v & 0x10204001);                                      \
        A##_xor(&C[8], v);                                                  \
        int cur = C[9];                                                     \
        while (v > cur) {                                                   \
            int prev = A##_cmpxchg(&C[9], cur, v);                          \
            if (prev == cur)                                                \
                break;                                                      \
            cur = prev;                                                     \
        }                                                                   \
        int c = C[10];                                                      \
        for (;;) {                                                          \
            int prev = A##_cmpxchg(&C[10], c, c + 1);                       \
            if (prev == c)                                                  \
                break;                                                      \
            c = prev;                                                       \
        }                                                                   \
        A##_min(&U[0], (uint)v);                                            \
        A##_max(&U[1], (uint)v);                                            \
        A##_add(&U[2], (uint)v);                                            \
        A##_inc(&U[3]);                                                     \
        int was = A##_xchg(&CELLS[slot], -(int)(slot));                     \
        CELLS[slot] += 1000 * was;                                          \
    }

__kernel void atomics_global(__global const int *vals, __global int *counters,
                             __global uint *ucounters, __global int *seen, __global int *cells,
                             __global float *fcells)
{
    size_t i = get_global_id(0);
    int v = vals[i];
    BODY(atomic, counters, ucounters, seen, cells, v, i)
    float f = atomic_xchg(&fcells[i], (float)i * 0.5f);
    fcells[i] += f;
}

__kernel void atom_global(__global const int *vals, __global int *counters,
                          __global uint *ucounters, __global int *seen, __global int *cells,
                          __global float *fcells)
{
    size_t i = get_global_id(0);
    int v = vals[i];
    BODY(atom, counters, ucounters, seen, cells, v, i)
    fcells[i] = (float)i;
}

/* The same on __local memory; each work-group writes its results. */
#define LOCAL_INIT(lc, lu, lseen, lcells, l)                                \
    if (l == 0) {                                                           \
        for (int k = 0; k < 11; ++k)                                        \
            lc[k] = (k == 4) ? 0x7fffffff : (k == 5 || k == 9) ? (int)0x80000000 \
                  : (k == 6) ? -1 : 0;                                      \
        lu[0] = 0xffffffffu; lu[1] = 0; lu[2] = 0; lu[3] = 0;               \
    }                                                                       \
    lseen[l] = 0;                                                           \
    lcells[l] = (int)l * 3;

#define LOCAL_STORE(lc, lu, lseen, lcells, l, g)                            \
    if (l < 11)                                                             \
        counters[11 * g + l] = lc[l];                                       \
    if (l < 4)                                                              \
        ucounters[4 * g + l] = lu[l];                                       \
    seen[get_global_id(0)] = lseen[l];                                      \
    cells[get_global_id(0)] = lcells[l];

__kernel void atomics_local(__global const int *vals, __global int *counters,
                            __global uint *ucounters, __global int *seen, __global int *cells)
{
    __local int lc[11];
    __local uint lu[4];
    __local int lseen[64];
    __local int lcells[64];
    size_t l = get_local_id(0), g = get_group_id(0);
    int v = vals[get_global_id(0)];
    LOCAL_INIT(lc, lu, lseen, lcells, l)
    barrier(CLK_LOCAL_MEM_FENCE);
    BODY(atomic, lc, lu, lseen, lcells, v, l)
    barrier(CLK_LOCAL_MEM_FENCE);
    LOCAL_STORE(lc, lu, lseen, lcells, l, g)
}

__kernel void atom_local(__global const int *vals, __global int *counters,
                         __global uint *ucounters, __global int *seen, __global int *cells)
{
    __local int lc[11];
    __local uint lu[4];
    __local int lseen[64];
    __local int lcells[64];
    size_t l = get_local_id(0), g = get_group_id(0);
    int v = vals[get_global_id(0)];
    LOCAL_INIT(lc, lu, lseen, lcells, l)
    barrier(CLK_LOCAL_MEM_FENCE);
    BODY(atom, lc, lu, lseen, lcells, v, l)
    barrier(CLK_LOCAL_MEM_FENCE);
    LOCAL_STORE(lc, lu, lseen, lcells, l, g)
}
