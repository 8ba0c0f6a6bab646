/* 64-bit atomics (cl_khr_int64_base_atomics, cl_khr_int64_extended_atomics)
 * on __global long and ulong. */
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
__kernel void atom_int64(__global const long *vals, __global long *c, __global ulong *u,
                         __global long *cells)
{
    size_t i = get_global_id(0);
    long v = vals[i];
    atom_add(&c[0], v);
    atom_sub(&c[1], v);
    atom_inc(&c[2]);
    atom_dec(&c[3]);
    atom_min(&c[4], v);
    atom_max(&c[5], v);
    atom_and(&c[6], v | 0x7ffffffbfffffff7L);
    atom_or(&c[7], v & 0x1020400000000001L);
    atom_xor(&c[8], v);
    long cur = c[9];
    while (v > cur) {
        long prev = atom_cmpxchg(&c[9], cur, v);
        if (prev == cur)
            break;
        cur = prev;
    }
    atom_add(&u[0], (ulong)v);
    atom_max(&u[1], (ulong)v);
    atom_min(&u[2], (ulong)v);
    long was = atom_xchg(&cells[i], (long)i << 33);
    cells[i] += was;
}
