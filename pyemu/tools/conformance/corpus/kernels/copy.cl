/* Slide: memory access patterns.  offset_copy reads with a shifted start
 * (misaligned to the work-group), stride_copy with a stride between
 * neighbouring work-items. */
__kernel void offset_copy(__global float *odata, __global const float *idata, const int offset)
{
    int xid = get_global_id(0) + offset;
    odata[get_global_id(0)] = idata[xid];
}

__kernel void stride_copy(__global float *odata, __global const float *idata, const int stride)
{
    int xid = get_global_id(0) * stride;
    odata[get_global_id(0)] = idata[xid];
}

/* Run with a NULL local size: the implementation picks the work-groups. */
__kernel void copy_any_groups(__global float *odata, __global const float *idata)
{
    size_t i = get_global_id(0);
    odata[i] = idata[i] * 2.0f;
}
