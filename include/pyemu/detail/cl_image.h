/* OpenCL images and samplers on the device: image1d_t, image1d_buffer_t,
 * image1d_array_t, image2d_t, image2d_array_t, image3d_t, sampler_t and the CLK_* sampler bits,
 * write_imagef/i/ui, get_image_width/height/depth/dim/array_size,
 * get_image_channel_data_type/order.
 *
 * An image argument is the device address of its pyemu_image (the same
 * descriptor a CUDA texture object is, detail/sampler.h); a sampler_t is
 * its bits, as OpenCL C spells them, whether it comes from the kernel source
 * or from clCreateSampler.  Sampling is the shared sampler's, so an image
 * reads exactly as a CUDA texture of the same data and modes.
 * Names are pyemu_-prefixed (the user's -D macros are defined already).
 */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/opencl_device.h>, not this file"
#endif
#include "sampler.h"

/* Distinct pointer types, so that the built-ins overload on the dimension. */
struct pyemu_image1d_s : pyemu_image {};
struct pyemu_image2d_s : pyemu_image {};
struct pyemu_image3d_s : pyemu_image {};
struct pyemu_image1d_array_s : pyemu_image {};
struct pyemu_image2d_array_s : pyemu_image {};
typedef pyemu_image1d_s *image1d_t;
typedef pyemu_image1d_s *image1d_buffer_t;
typedef pyemu_image2d_s *image2d_t;
typedef pyemu_image3d_s *image3d_t;
/* An array is stored one dimension up (the host's image.py): a 1-D array's
 * layers are the rows of a 2-D box, a 2-D array's the slices of a 3-D one. */
typedef pyemu_image1d_array_s *image1d_array_t;
typedef pyemu_image2d_array_s *image2d_array_t;

typedef unsigned int sampler_t;
#define CLK_NORMALIZED_COORDS_FALSE 0x0
#define CLK_NORMALIZED_COORDS_TRUE 0x1
#define CLK_ADDRESS_NONE 0x0
#define CLK_ADDRESS_CLAMP_TO_EDGE 0x2
#define CLK_ADDRESS_CLAMP 0x4
#define CLK_ADDRESS_REPEAT 0x6
#define CLK_ADDRESS_MIRRORED_REPEAT 0x8
#define CLK_FILTER_NEAREST 0x10
#define CLK_FILTER_LINEAR 0x20

/* cl_channel_order and cl_channel_type values (get_image_channel_*). */
#define CLK_R 0x10B0
#define CLK_A 0x10B1
#define CLK_RG 0x10B2
#define CLK_RA 0x10B3
#define CLK_RGB 0x10B4
#define CLK_RGBA 0x10B5
#define CLK_BGRA 0x10B6
#define CLK_ARGB 0x10B7
#define CLK_INTENSITY 0x10B8
#define CLK_LUMINANCE 0x10B9
#define CLK_SNORM_INT8 0x10D0
#define CLK_SNORM_INT16 0x10D1
#define CLK_UNORM_INT8 0x10D2
#define CLK_UNORM_INT16 0x10D3
#define CLK_SIGNED_INT8 0x10D7
#define CLK_SIGNED_INT16 0x10D8
#define CLK_SIGNED_INT32 0x10D9
#define CLK_UNSIGNED_INT8 0x10DA
#define CLK_UNSIGNED_INT16 0x10DB
#define CLK_UNSIGNED_INT32 0x10DC
#define CLK_HALF_FLOAT 0x10DD
#define CLK_FLOAT 0x10DE

static const float pyemu_cl_border_zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
static const float pyemu_cl_border_opaque[4] = {0.0f, 0.0f, 0.0f, 1.0f};

/* A sampler_t's bits as the shared sampler's modes.  CLK_ADDRESS_CLAMP's
 * border is transparent black, or opaque black for an order without alpha;
 * CLK_ADDRESS_NONE clamps to the edge (the specification leaves it undefined). */
static inline pyemu_sampling pyemu_cl_sampling(const pyemu_image *pyemu_im, sampler_t pyemu_smp)
{
    unsigned int pyemu_a = pyemu_smp & 0xEu, pyemu_mode;
    switch (pyemu_a) {
    case CLK_ADDRESS_CLAMP: pyemu_mode = PYEMU_ADDR_BORDER; break;
    case CLK_ADDRESS_REPEAT: pyemu_mode = PYEMU_ADDR_WRAP; break;
    case CLK_ADDRESS_MIRRORED_REPEAT: pyemu_mode = PYEMU_ADDR_MIRROR; break;
    default: pyemu_mode = PYEMU_ADDR_CLAMP; break;
    }
    bool pyemu_alpha = pyemu_im->cl_order != CLK_R && pyemu_im->cl_order != CLK_RG &&
                       pyemu_im->cl_order != CLK_RGB && pyemu_im->cl_order != CLK_INTENSITY &&
                       pyemu_im->cl_order != CLK_LUMINANCE;
    pyemu_sampling pyemu_s = {{pyemu_mode, pyemu_mode, pyemu_mode},
                              (pyemu_smp & CLK_FILTER_LINEAR) != 0,
                              (pyemu_smp & CLK_NORMALIZED_COORDS_TRUE) != 0,
                              (pyemu_im->mode_flags & PYEMU_IMG_NORM_FORMAT) != 0,
                              pyemu_alpha ? pyemu_cl_border_zero : pyemu_cl_border_opaque};
    return pyemu_s;
}

/* Data channel c of a BGRA image is rgba channel 2 - c for c < 3. */
static inline void pyemu_cl_order_out(const pyemu_image *pyemu_im, pyemu_texel *pyemu_t)
{
    if (pyemu_im->cl_order == CLK_BGRA) {
        float pyemu_f = pyemu_t->pyemu_f[0];
        pyemu_t->pyemu_f[0] = pyemu_t->pyemu_f[2];
        pyemu_t->pyemu_f[2] = pyemu_f;
        long long pyemu_i = pyemu_t->pyemu_i[0];
        pyemu_t->pyemu_i[0] = pyemu_t->pyemu_i[2];
        pyemu_t->pyemu_i[2] = pyemu_i;
    }
}

static inline pyemu_texel pyemu_cl_read(const pyemu_image *pyemu_im, sampler_t pyemu_smp, float pyemu_x,
                                        float pyemu_y, float pyemu_z)
{
    pyemu_image_of((unsigned long long)(uintptr_t)pyemu_im, "image");
    pyemu_sampling pyemu_s = pyemu_cl_sampling(pyemu_im, pyemu_smp);
    pyemu_texel pyemu_t;
    pyemu_sample(pyemu_im, pyemu_s, pyemu_x, pyemu_y, pyemu_z, &pyemu_t);
    pyemu_cl_order_out(pyemu_im, &pyemu_t);
    return pyemu_t;
}

/* Integer coordinates: texel (x, y, z) itself, as a nearest sample at its centre. */
static inline pyemu_texel pyemu_cl_read_int(const pyemu_image *pyemu_im, sampler_t pyemu_smp, int pyemu_x,
                                            int pyemu_y, int pyemu_z)
{
    return pyemu_cl_read(pyemu_im, pyemu_smp & ~(unsigned)(CLK_FILTER_LINEAR | CLK_NORMALIZED_COORDS_TRUE),
                         pyemu_x + 0.5f, pyemu_y + 0.5f, pyemu_z + 0.5f);
}

#define PYEMU_CL_F4(pyemu_t) pyemu_R((pyemu_t).pyemu_f[0], (pyemu_t).pyemu_f[1], (pyemu_t).pyemu_f[2], (pyemu_t).pyemu_f[3])
#define PYEMU_CL_I4(pyemu_t) pyemu_R((int)(pyemu_t).pyemu_i[0], (int)(pyemu_t).pyemu_i[1], (int)(pyemu_t).pyemu_i[2], (int)(pyemu_t).pyemu_i[3])
#define PYEMU_CL_U4(pyemu_t) pyemu_R((uint)(pyemu_t).pyemu_i[0], (uint)(pyemu_t).pyemu_i[1], (uint)(pyemu_t).pyemu_i[2], (uint)(pyemu_t).pyemu_i[3])

/* The texel at coordinate c of an image: float coordinates are sampled,
 * integer ones (int, int2, int4) name the texel.  Templates, so that a
 * program that reads no image instantiates no vector class. */
template <class pyemu_C> static inline float pyemu_cl_co(const pyemu_C &pyemu_c, int pyemu_k)
{
    typedef typename pyemu_vt<pyemu_C>::pyemu_type pyemu_V;
    const pyemu_V pyemu_v = pyemu_c;
    if constexpr (pyemu_vt<pyemu_C>::pyemu_n == 0) return pyemu_k == 0 ? (float)pyemu_v : 0.0f;
    else return pyemu_k < pyemu_vt<pyemu_C>::pyemu_n && pyemu_k < 3 ? (float)pyemu_v.pyemu_s[pyemu_k] : 0.0f;
}
template <class pyemu_C>
static inline pyemu_texel pyemu_cl_at(const pyemu_image *pyemu_im, sampler_t pyemu_smp, const pyemu_C &pyemu_c)
{
    float pyemu_x = pyemu_cl_co(pyemu_c, 0), pyemu_y = pyemu_cl_co(pyemu_c, 1), pyemu_z = pyemu_cl_co(pyemu_c, 2);
    if constexpr (pyemu_is_fp<typename pyemu_vt<pyemu_C>::pyemu_elem>::pyemu_v)
        return pyemu_cl_read(pyemu_im, pyemu_smp, pyemu_x, pyemu_y, pyemu_z);
    else
        return pyemu_cl_read_int(pyemu_im, pyemu_smp, (int)pyemu_x, (int)pyemu_y, (int)pyemu_z);
}

/* The layer an array coordinate names: round to nearest even, clamped to
 * [0, layers - 1] (OpenCL C 6.13.14.2; an integer coordinate is clamped too). */
static inline long long pyemu_cl_layer(float pyemu_l, unsigned long long pyemu_n)
{
    float pyemu_r = nearbyintf(pyemu_l);       /* the default rounding: to nearest even */
    if (!(pyemu_r > 0.0f)) return 0;           /* NaN and below 0 */
    return pyemu_r >= (float)pyemu_n ? (long long)pyemu_n - 1 : (long long)pyemu_r;
}

/* A read of one layer of an array image: the layer as an image of its own
 * (the descriptor copied with its dimension dropped), sampled at the rest. */
template <class pyemu_C>
static inline pyemu_texel pyemu_cl_at_layer(const pyemu_image *pyemu_im, sampler_t pyemu_smp,
                                            const pyemu_C &pyemu_c, unsigned int pyemu_dims)
{
    pyemu_image_of((unsigned long long)(uintptr_t)pyemu_im, "image");
    pyemu_image pyemu_one = *pyemu_im;
    float pyemu_x = pyemu_cl_co(pyemu_c, 0), pyemu_y = pyemu_cl_co(pyemu_c, 1);
    if (pyemu_dims == 1) {
        long long pyemu_l = pyemu_cl_layer(pyemu_y, pyemu_im->height);
        pyemu_one.texels += (unsigned long long)pyemu_l * pyemu_im->pitch;
        pyemu_one.height = 1;
        pyemu_y = 0.0f;
    } else {
        long long pyemu_l = pyemu_cl_layer(pyemu_cl_co(pyemu_c, 2), pyemu_im->depth);
        pyemu_one.texels += (unsigned long long)pyemu_l * pyemu_im->slice;
    }
    pyemu_one.dims = pyemu_dims;
    pyemu_one.depth = 1;
    if constexpr (pyemu_is_fp<typename pyemu_vt<pyemu_C>::pyemu_elem>::pyemu_v)
        return pyemu_cl_read(&pyemu_one, pyemu_smp, pyemu_x, pyemu_y, 0.0f);
    else
        return pyemu_cl_read_int(&pyemu_one, pyemu_smp, (int)pyemu_x, (int)pyemu_y, 0);
}
template <class pyemu_C>
static inline pyemu_texel pyemu_cl_at(image1d_array_t pyemu_im, sampler_t pyemu_smp, const pyemu_C &pyemu_c)
{ return pyemu_cl_at_layer(pyemu_im, pyemu_smp, pyemu_c, 1); }
template <class pyemu_C>
static inline pyemu_texel pyemu_cl_at(image2d_array_t pyemu_im, sampler_t pyemu_smp, const pyemu_C &pyemu_c)
{ return pyemu_cl_at_layer(pyemu_im, pyemu_smp, pyemu_c, 2); }
#define PYEMU_CL_READS(NAME, RT, CONV)                                                          \
    template <class pyemu_Img, class pyemu_C, class pyemu_R = RT>                              \
    static inline pyemu_R NAME(pyemu_Img pyemu_im, sampler_t pyemu_s, const pyemu_C &pyemu_c)   \
    { pyemu_texel pyemu_t = pyemu_cl_at(pyemu_im, pyemu_s, pyemu_c); return CONV(pyemu_t); }   \
    template <class pyemu_Img, class pyemu_C, class pyemu_R = RT>                              \
    static inline pyemu_R NAME(pyemu_Img pyemu_im, const pyemu_C &pyemu_c)                     \
    { pyemu_texel pyemu_t = pyemu_cl_at(pyemu_im, 0u, pyemu_c); return CONV(pyemu_t); }
PYEMU_CL_READS(read_imagef, float4, PYEMU_CL_F4)
PYEMU_CL_READS(read_imagei, int4, PYEMU_CL_I4)
PYEMU_CL_READS(read_imageui, uint4, PYEMU_CL_U4)
#undef PYEMU_CL_READS

/* write_image*: out-of-range coordinates write nothing (undefined in OpenCL). */
static inline void pyemu_cl_write(const pyemu_image *pyemu_im, int pyemu_x, int pyemu_y, int pyemu_z,
                                  const double pyemu_v[4], bool pyemu_is_float)
{
    pyemu_image_of((unsigned long long)(uintptr_t)pyemu_im, "image");
    unsigned char *pyemu_p = pyemu_element_at(pyemu_im, pyemu_x, pyemu_y, pyemu_z);
    if (!pyemu_p) return;
    double pyemu_rgba[4] = {pyemu_v[0], pyemu_v[1], pyemu_v[2], pyemu_v[3]};
    if (pyemu_im->cl_order == CLK_BGRA) {
        pyemu_rgba[0] = pyemu_v[2];
        pyemu_rgba[2] = pyemu_v[0];
    }
    for (unsigned int pyemu_ch = 0; pyemu_ch < pyemu_im->channels; pyemu_ch++) {
        unsigned char *pyemu_q = pyemu_p + pyemu_ch * pyemu_im->bytes;
        double pyemu_x2 = pyemu_rgba[pyemu_ch];
        if (pyemu_im->chan_kind == PYEMU_KIND_FLOAT) {
            if (pyemu_im->bytes == 4) {
                float pyemu_f = (float)pyemu_x2;
                memcpy(pyemu_q, &pyemu_f, 4);
            } else {
                /* half, to nearest even */
                float pyemu_f = (float)pyemu_x2;
                unsigned int pyemu_u;
                memcpy(&pyemu_u, &pyemu_f, 4);
                unsigned int pyemu_sign = (pyemu_u >> 16) & 0x8000u;
                float pyemu_a = fabsf(pyemu_f);
                unsigned short pyemu_h;
                if (pyemu_a != pyemu_a) pyemu_h = 0x7E00u;
                else if (pyemu_a >= 65520.0f) pyemu_h = 0x7C00u;
                else if (pyemu_a < 6.103515625e-05f) pyemu_h = (unsigned short)nearbyintf(pyemu_a * 16777216.0f);
                else {
                    int pyemu_e;
                    float pyemu_m = frexpf(pyemu_a, &pyemu_e);      /* [0.5, 1) */
                    unsigned int pyemu_mm = (unsigned int)nearbyintf(pyemu_m * 2048.0f);  /* 1024..2048 */
                    if (pyemu_mm == 2048) { pyemu_mm = 1024; pyemu_e++; }
                    pyemu_h = (unsigned short)(((unsigned)(pyemu_e + 14) << 10) | (pyemu_mm - 1024));
                }
                pyemu_h = (unsigned short)(pyemu_h | pyemu_sign);
                memcpy(pyemu_q, &pyemu_h, 2);
            }
            continue;
        }
        int pyemu_bits = (int)pyemu_im->bytes * 8;
        long long pyemu_lo, pyemu_hi;
        if (pyemu_im->chan_kind == PYEMU_KIND_SIGNED) {
            pyemu_hi = (1LL << (pyemu_bits - 1)) - 1;
            pyemu_lo = -pyemu_hi - 1;
        } else {
            pyemu_hi = pyemu_bits >= 32 ? 0xFFFFFFFFLL : (1LL << pyemu_bits) - 1;
            pyemu_lo = 0;
        }
        double pyemu_r;
        if (pyemu_im->mode_flags & PYEMU_IMG_NORM_FORMAT) {
            /* convert_T_sat_rte(v * max), as the specification has it */
            pyemu_r = nearbyint((double)((float)pyemu_x2 * (float)pyemu_norm_max(pyemu_im)));   /* in float */
        } else {
            pyemu_r = pyemu_is_float ? nearbyint(pyemu_x2) : pyemu_x2;
        }
        if (!(pyemu_r == pyemu_r)) pyemu_r = 0;
        long long pyemu_iv = pyemu_r < (double)pyemu_lo ? pyemu_lo
                           : (pyemu_r > (double)pyemu_hi ? pyemu_hi : (long long)pyemu_r);
        memcpy(pyemu_q, &pyemu_iv, pyemu_im->bytes);   /* little-endian */
    }
}

template <class pyemu_Img, class pyemu_C, class pyemu_V>
static inline void pyemu_cl_write_any(pyemu_Img pyemu_im, const pyemu_C &pyemu_c, const pyemu_V &pyemu_v,
                                      bool pyemu_is_float)
{
    typedef typename pyemu_vt<pyemu_V>::pyemu_type pyemu_W;
    const pyemu_W pyemu_w = pyemu_v;
    double pyemu_d[4] = {(double)pyemu_w.pyemu_s[0], (double)pyemu_w.pyemu_s[1], (double)pyemu_w.pyemu_s[2],
                         (double)pyemu_w.pyemu_s[3]};
    pyemu_cl_write(pyemu_im, (int)pyemu_cl_co(pyemu_c, 0), (int)pyemu_cl_co(pyemu_c, 1),
                   (int)pyemu_cl_co(pyemu_c, 2), pyemu_d, pyemu_is_float);
}
template <class pyemu_Img, class pyemu_C, class pyemu_V>
static inline void write_imagef(pyemu_Img pyemu_im, const pyemu_C &pyemu_c, const pyemu_V &pyemu_v)
{ pyemu_cl_write_any(pyemu_im, pyemu_c, pyemu_v, true); }
template <class pyemu_Img, class pyemu_C, class pyemu_V>
static inline void write_imagei(pyemu_Img pyemu_im, const pyemu_C &pyemu_c, const pyemu_V &pyemu_v)
{ pyemu_cl_write_any(pyemu_im, pyemu_c, pyemu_v, false); }
template <class pyemu_Img, class pyemu_C, class pyemu_V>
static inline void write_imageui(pyemu_Img pyemu_im, const pyemu_C &pyemu_c, const pyemu_V &pyemu_v)
{ pyemu_cl_write_any(pyemu_im, pyemu_c, pyemu_v, false); }

static inline int get_image_width(const pyemu_image *pyemu_i) { return (int)pyemu_image_of((unsigned long long)(uintptr_t)pyemu_i, "image")->width; }
static inline int get_image_height(const pyemu_image *pyemu_i) { return (int)pyemu_image_of((unsigned long long)(uintptr_t)pyemu_i, "image")->height; }
static inline int get_image_depth(image3d_t pyemu_i) { return (int)pyemu_image_of((unsigned long long)(uintptr_t)pyemu_i, "image")->depth; }
static inline int get_image_channel_data_type(const pyemu_image *pyemu_i) { return (int)pyemu_image_of((unsigned long long)(uintptr_t)pyemu_i, "image")->cl_type; }
static inline int get_image_channel_order(const pyemu_image *pyemu_i) { return (int)pyemu_image_of((unsigned long long)(uintptr_t)pyemu_i, "image")->cl_order; }
static inline size_t get_image_array_size(image1d_array_t pyemu_i) { return (size_t)pyemu_image_of((unsigned long long)(uintptr_t)pyemu_i, "image")->height; }
static inline size_t get_image_array_size(image2d_array_t pyemu_i) { return (size_t)pyemu_image_of((unsigned long long)(uintptr_t)pyemu_i, "image")->depth; }
template <class pyemu_Img> struct pyemu_dim_of;
template <> struct pyemu_dim_of<image2d_t> { typedef int2 pyemu_type; static const int pyemu_n = 2; };
template <> struct pyemu_dim_of<image2d_array_t> { typedef int2 pyemu_type; static const int pyemu_n = 2; };
template <> struct pyemu_dim_of<image3d_t> { typedef int4 pyemu_type; static const int pyemu_n = 3; };
template <class pyemu_Img, class pyemu_R = typename pyemu_dim_of<pyemu_Img>::pyemu_type>
static inline pyemu_R get_image_dim(pyemu_Img pyemu_i)
{
    if constexpr (pyemu_dim_of<pyemu_Img>::pyemu_n == 2) return pyemu_R(get_image_width(pyemu_i), get_image_height(pyemu_i));
    else return pyemu_R(get_image_width(pyemu_i), get_image_height(pyemu_i), (int)pyemu_i->depth, 0);
}
