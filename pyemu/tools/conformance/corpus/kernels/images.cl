/* Images and samplers (OpenCL 1.2, 6.12.14): read_imagef/i/ui with samplers
 * passed as arguments, declared in the kernel and at program scope, at float
 * and integer coordinates and without a sampler; write_imagef/i/ui; the
 * image queries; 1-D, 1-D buffer, 1-D array, 2-D, 2-D array and 3-D images;
 * writes to 3-D images (cl_khr_3d_image_writes).
 */
#ifdef cl_khr_3d_image_writes
#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable
#endif

/* a sampler at program scope, as Rodinia's and the SDKs' image kernels write it */
__constant sampler_t program_sampler = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT |
                                       CLK_FILTER_LINEAR;

/* --- 2-D --------------------------------------------------------------------------------- */

__kernel void sample2d_f(__read_only image2d_t im, sampler_t s, __global const float2 *c,
                         __global float4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imagef(im, s, c[i]);
}

/* samplers declared in the kernel */
__kernel void sample2d_src_mirrored_linear(__read_only image2d_t im, __global const float2 *c,
                                           __global float4 *out)
{
    const sampler_t s = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT |
                        CLK_FILTER_LINEAR;
    size_t i = get_global_id(0);
    out[i] = read_imagef(im, s, c[i]);
}

__kernel void sample2d_src_clamp_nearest(__read_only image2d_t im, __global const float2 *c,
                                         __global float4 *out)
{
    sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
    size_t i = get_global_id(0);
    out[i] = read_imagef(im, s, c[i]);
}

__kernel void sample2d_src_edge_linear(__read_only image2d_t im, __global const float2 *c,
                                       __global float4 *out)
{
    const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
                        CLK_FILTER_LINEAR;
    size_t i = get_global_id(0);
    out[i] = read_imagef(im, s, c[i]);
}

__kernel void sample2d_program(__read_only image2d_t im, __global const float2 *c,
                               __global float4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imagef(im, program_sampler, c[i]);
}

__kernel void sample2d_i(read_only image2d_t im, sampler_t s, __global const float2 *c,
                         __global int4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imagei(im, s, c[i]);
}

__kernel void sample2d_ui(read_only image2d_t im, sampler_t s, __global const float2 *c,
                          __global uint4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imageui(im, s, c[i]);
}

/* integer coordinates (the sampler: unnormalized, nearest; its addressing applies) */
__kernel void fetch2d_f(__read_only image2d_t im, sampler_t s, __global const int2 *c,
                        __global float4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imagef(im, s, c[i]);
}

__kernel void fetch2d_i(__read_only image2d_t im, sampler_t s, __global const int2 *c,
                        __global int4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imagei(im, s, c[i]);
}

__kernel void fetch2d_ui(__read_only image2d_t im, sampler_t s, __global const int2 *c,
                         __global uint4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imageui(im, s, c[i]);
}

/* sampler-less reads (OpenCL 1.2): every texel, in range */
__kernel void load2d(__read_only image2d_t im, __global float4 *f)
{
    int x = get_global_id(0), y = get_global_id(1), w = get_image_width(im);
    f[y * w + x] = read_imagef(im, (int2)(x, y));
}

__kernel void load2d_i(__read_only image2d_t im, __global int4 *n)
{
    int x = get_global_id(0), y = get_global_id(1), w = get_image_width(im);
    n[y * w + x] = read_imagei(im, (int2)(x, y));
}

__kernel void store2d_f(__write_only image2d_t im, __global const float4 *v)
{
    int x = get_global_id(0), y = get_global_id(1);
    write_imagef(im, (int2)(x, y), v[y * get_global_size(0) + x]);
}

__kernel void store2d_i(__write_only image2d_t im, __global const int4 *v)
{
    int x = get_global_id(0), y = get_global_id(1);
    write_imagei(im, (int2)(x, y), v[y * get_global_size(0) + x]);
}

__kernel void store2d_ui(__write_only image2d_t im, __global const uint4 *v)
{
    int x = get_global_id(0), y = get_global_id(1);
    write_imageui(im, (int2)(x, y), v[y * get_global_size(0) + x]);
}

/* an image filter: one image in, another out (the texels flipped in x, scaled) */
__kernel void flip2d(__read_only image2d_t src, __write_only image2d_t dst, float scale)
{
    const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;
    int x = get_global_id(0), y = get_global_id(1);
    int2 d = get_image_dim(dst);
    float4 v = read_imagef(src, s, (int2)(d.x - 1 - x, y));
    write_imagef(dst, (int2)(x, y), v * scale);
}

__kernel void query2d(__read_only image2d_t a, __write_only image2d_t b, __global int *out)
{
    int2 da = get_image_dim(a), db = get_image_dim(b);
    out[0] = get_image_width(a);
    out[1] = get_image_height(a);
    out[2] = da.x;
    out[3] = da.y;
    out[4] = get_image_channel_data_type(a);
    out[5] = get_image_channel_order(a);
    out[6] = get_image_width(b);
    out[7] = get_image_height(b);
    out[8] = db.x;
    out[9] = db.y;
    out[10] = get_image_channel_data_type(b);
    out[11] = get_image_channel_order(b);
    out[12] = get_image_channel_data_type(a) == CLK_UNORM_INT8;
    out[13] = get_image_channel_order(b) == CLK_R;
}

/* --- 3-D --------------------------------------------------------------------------------- */

__kernel void sample3d_f(__read_only image3d_t im, sampler_t s, __global const float4 *c,
                         __global float4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imagef(im, s, c[i]);
}

__kernel void fetch3d_ui(__read_only image3d_t im, sampler_t s, __global const int4 *c,
                         __global uint4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imageui(im, s, c[i]);
}

__kernel void query3d(__read_only image3d_t im, __global int *out)
{
    int4 d = get_image_dim(im);
    out[0] = get_image_width(im);
    out[1] = get_image_height(im);
    out[2] = get_image_depth(im);
    out[3] = d.x;
    out[4] = d.y;
    out[5] = d.z;
    out[6] = d.w;
    out[7] = get_image_channel_data_type(im);
    out[8] = get_image_channel_order(im);
}

/* writes to 3-D images: cl_khr_3d_image_writes */
__kernel void store3d_f(__write_only image3d_t im, __global const float4 *v)
{
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    int w = get_global_size(0), h = get_global_size(1);
    write_imagef(im, (int4)(x, y, z, 0), v[(z * h + y) * w + x]);
}

__kernel void store3d_i(__write_only image3d_t im, __global const int4 *v)
{
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    int w = get_global_size(0), h = get_global_size(1);
    write_imagei(im, (int4)(x, y, z, 0), v[(z * h + y) * w + x]);
}

__kernel void store3d_ui(__write_only image3d_t im, __global const uint4 *v)
{
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    int w = get_global_size(0), h = get_global_size(1);
    write_imageui(im, (int4)(x, y, z, 0), v[(z * h + y) * w + x]);
}

/* a 3-D write and, of an image holding what it writes, a 3-D read: each
 * work-item writes its texel and samples its coordinates */
__kernel void store3d_then_sample(__write_only image3d_t im, __global const float4 *v,
                                  sampler_t s, __global const float4 *c,
                                  __read_only image3d_t src, __global float4 *out)
{
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    int w = get_global_size(0), h = get_global_size(1);
    int i = (z * h + y) * w + x;
    write_imagef(im, (int4)(x, y, z, 0), v[i]);
    for (int k = i; k < 256; k += w * h * get_global_size(2))
        out[k] = read_imagef(src, s, c[k]);
}

/* --- 1-D, 1-D buffer, 1-D array ----------------------------------------------------------- */

__kernel void sample1d_f(__read_only image1d_t im, sampler_t s, __global const float *c,
                         __global float4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imagef(im, s, c[i]);
}

__kernel void fetch1d_i(__read_only image1d_t im, sampler_t s, __global const int *c,
                        __global int4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imagei(im, s, c[i]);
}

__kernel void store1d_f(__write_only image1d_t im, __global const float4 *v)
{
    int x = get_global_id(0);
    write_imagef(im, x, v[x]);
}

/* a 1-D buffer image takes no sampler: integer coordinates, in range.  No
 * image queries: PoCL 3.1's kernel library has none for image1d_buffer_t. */
__kernel void buffer1d_scale(__read_only image1d_buffer_t src, __write_only image1d_buffer_t dst,
                             __global float4 *copy)
{
    int x = get_global_id(0);
    float4 v = read_imagef(src, x);
    copy[x] = v;
    write_imagef(dst, x, v * 0.5f);
}

__kernel void buffer1d_ui(__read_only image1d_buffer_t src, __write_only image1d_buffer_t dst)
{
    int x = get_global_id(0);
    write_imageui(dst, x, read_imageui(src, x) + (uint4)(1, 2, 3, 4));
}

__kernel void sample1da_f(__read_only image1d_array_t im, sampler_t s, __global const float2 *c,
                          __global float4 *out, __global int *n)
{
    size_t i = get_global_id(0);
    out[i] = read_imagef(im, s, c[i]);
    if (i == 0) {
        n[0] = get_image_width(im);
        n[1] = (int)get_image_array_size(im);
    }
}

/* --- 2-D array ----------------------------------------------------------------------------- */

__kernel void sample2da_f(__read_only image2d_array_t im, sampler_t s, __global const float4 *c,
                          __global float4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imagef(im, s, c[i]);
}

__kernel void fetch2da_i(__read_only image2d_array_t im, sampler_t s, __global const int4 *c,
                         __global int4 *out)
{
    size_t i = get_global_id(0);
    out[i] = read_imagei(im, s, c[i]);
}

__kernel void store2da_f(__write_only image2d_array_t im, __global const float4 *v,
                         __global int *dims)
{
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    int w = get_global_size(0), h = get_global_size(1);
    write_imagef(im, (int4)(x, y, z, 0), v[(z * h + y) * w + x]);
    if (x + y + z == 0) {
        int2 d = get_image_dim(im);
        dims[0] = get_image_width(im);
        dims[1] = get_image_height(im);
        dims[2] = d.x;
        dims[3] = d.y;
        dims[4] = (int)get_image_array_size(im);
    }
}
