/* Kernel and variable attributes. */
typedef struct __attribute__((packed)) { char c; int i; short s; } packed_t;
typedef struct { char c; int i; short s; } plain_t;

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
__attribute__((vec_type_hint(float4)))
void attributes_reqd(__global int *out)
{
    __local int lbuf[64] __attribute__((aligned(16)));
    int lid = get_local_id(0);
    lbuf[lid] = lid * 3;
    barrier(CLK_LOCAL_MEM_FENCE);
    int i = get_global_id(0);
    out[4 * i + 0] = lbuf[63 - lid];
    out[4 * i + 1] = (int)get_local_size(0);
    out[4 * i + 2] = (int)sizeof(packed_t);
    out[4 * i + 3] = (int)sizeof(plain_t);
}

__kernel __attribute__((work_group_size_hint(32, 1, 1)))
void attributes_hint(__global float4 *out)
{
    float4 v __attribute__((aligned(16))) = (float4)((float)get_global_id(0));
    out[get_global_id(0)] = v + (float4)(0.0f, 1.0f, 2.0f, 3.0f);
}
