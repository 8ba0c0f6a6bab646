/* Work-item functions: each work-item writes what it sees, in every
 * dimension (0..2) and one beyond (3: sizes 1, ids 0), at its linear index. */
#define FIELDS 7
__kernel void workitem(__global uint *out, const uint dim_beyond)
{
    size_t gx = get_global_id(0) - get_global_offset(0);
    size_t gy = get_global_id(1) - get_global_offset(1);
    size_t gz = get_global_id(2) - get_global_offset(2);
    size_t linear = (gz * get_global_size(1) + gy) * get_global_size(0) + gx;
    __global uint *o = out + linear * (FIELDS * 4 + 1);
    for (uint d = 0; d < 4; ++d) {
        uint dd = d < 3 ? d : dim_beyond;
        o[FIELDS * d + 0] = get_global_id(dd);
        o[FIELDS * d + 1] = get_local_id(dd);
        o[FIELDS * d + 2] = get_group_id(dd);
        o[FIELDS * d + 3] = get_local_size(dd);
        o[FIELDS * d + 4] = get_global_size(dd);
        o[FIELDS * d + 5] = get_num_groups(dd);
        o[FIELDS * d + 6] = get_global_offset(dd);
    }
    o[FIELDS * 4] = get_work_dim();
}
