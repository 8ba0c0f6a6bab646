// The spellings without underscores, C++-only keywords as names, kernel attributes.
typedef struct { float x; int class; } item_t;

constant float weights[4] = {0.1f, 0.2f, 0.3f, 0.4f};

float helper(private float new, const global float *this)
{
    return new + this[0];
}

kernel __attribute__((reqd_work_group_size(8, 1, 1)))
void spellings(global float *restrict out, global const float *restrict in, local float *scratch,
               constant float *coeffs, global item_t *items, uint n)
{
    private float template = in[get_global_id(0)];
    local float shared[8];
    uint lid = get_local_id(0);
    shared[lid] = template * weights[lid & 3] * coeffs[0];
    scratch[lid] = shared[lid];
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    read_mem_fence(CLK_LOCAL_MEM_FENCE);
    write_mem_fence(CLK_LOCAL_MEM_FENCE);
    if (get_global_id(0) < n) {
        out[get_global_id(0)] = helper(scratch[(lid + 1) & 7], in) + get_work_dim() + get_num_groups(0)
                              + get_global_offset(0) + get_group_id(0) + get_local_size(0);
        items[get_global_id(0)].class = (int)lid;
    }
}
