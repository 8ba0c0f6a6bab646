/* The texture sampler: one implementation under CUDA's textures and
 * surfaces (detail/cuda_texture.h) and OpenCL's images and samplers
 * (detail/cl_image.h).
 *
 * A texture object, a surface object and an OpenCL image are all the
 * address of a pyemu_image in device memory, written by the host
 * (pyemu/runtime/image.py packs the same layout).  The sampling follows
 * what an NVIDIA GPU does (measured on an H100: tests/data/ground_truth/
 * texture_h100.json), not float math:
 *   - a normalized coordinate is cut to 20 fractional bits (toward -inf),
 *     then scaled by the size;
 *   - point filtering takes texel floor(x);
 *   - linear filtering rounds x - 0.5 to 8 fractional bits (to nearest):
 *     the texel index and a 9-bit weight A/256; in 2-D the four weights are
 *     w11 = round(A*B/256), w10 = A - w11, w01 = B - w11, the rest to 256;
 *     in 3-D (texture_filter_h200.json, bit for bit) the z slices weigh
 *     256 - C and C, a slice's weight S goes to x = 1 as round(S*A/256) and
 *     each x part to y = 1 as round(w*B/256), half up where x = 1, half down
 *     where x = 0; in clamp mode the position is first held between the
 *     first and last texel centres (weight 0 past the edge);
 *     the weighted sum is exact and rounded once to float, ties away from 0;
 *   - linear filtering of 8/16-bit integers read as normalized floats
 *     rounds the exact weighted sum, half up, to a 16-bit fraction:
 *     R / 65535 (unsigned) or R / 32767 (signed), the result held at -1;
 *     signed 8-bit (-128 taken as it is) widens the sum by 258 + 1/128 with
 *     the 1/128 part cut to 1/8 (pyemu_snorm8_widen; texture_snorm8_h200.bin
 *     and texture_filter_h200.json, bit for bit);
 *   - a 1-D texture filters like a 2-D one of height 1 sampled at y = 0
 *     (half the border colour reaches it in border mode, as on the GPU);
 *   - unnormalized coordinates with wrap or mirror clamp (CUDA's rule);
 *   - border texels of an integer format are the border colour converted
 *     to the format, then read like any texel;
 *   - a 1-D fetch from linear memory past either end returns zero.
 * Names are pyemu_-prefixed: OpenCL sources see this file too.
 */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/cuda_device.h> or <pyemu/opencl_device.h>, not this file"
#endif
#ifndef PYEMU_DETAIL_SAMPLER_H
#define PYEMU_DETAIL_SAMPLER_H

#define PYEMU_IMAGE_MAGIC 0x54584d31u   /* "1MXT" */

/* Channel kinds: cudaChannelFormatKind's values. */
#define PYEMU_KIND_SIGNED 0u
#define PYEMU_KIND_UNSIGNED 1u
#define PYEMU_KIND_FLOAT 2u

/* Address modes: cudaTextureAddressMode's values. */
#define PYEMU_ADDR_WRAP 0u
#define PYEMU_ADDR_CLAMP 1u
#define PYEMU_ADDR_MIRROR 2u
#define PYEMU_ADDR_BORDER 3u

/* pyemu_image.mode_flags */
#define PYEMU_IMG_LINEAR_MEMORY 0x1u   /* cudaResourceTypeLinear: tex1Dfetch only */
#define PYEMU_IMG_READ_NORMALIZED 0x2u /* cudaReadModeNormalizedFloat */
#define PYEMU_IMG_NORM_COORDS 0x4u     /* normalizedCoords */
#define PYEMU_IMG_FILTER_LINEAR 0x8u   /* cudaFilterModeLinear */
#define PYEMU_IMG_SURFACE 0x10u        /* a surface object (surf2Dread/write) */
#define PYEMU_IMG_NORM_FORMAT 0x20u    /* OpenCL: CL_UNORM_* / CL_SNORM_* data */
#define PYEMU_IMG_OPENCL 0x40u         /* OpenCL's rules: a 1-D image is 1-D, integer borders are values */
#define PYEMU_IMG_LAYERED 0x80u        /* depth counts layers of a 1-D or 2-D image */
#define PYEMU_IMG_CUBEMAP 0x100u       /* depth counts faces (+x, -x, +y, -y, +z, -z) */

/* 128 bytes; the host packs it with struct format
 * "<IIIIII3III QQQQQQ 4f II QQ" (pyemu/runtime/image.py). */
typedef struct pyemu_image {
    unsigned int magic;        /* PYEMU_IMAGE_MAGIC */
    unsigned int dims;         /* 1, 2 or 3 */
    unsigned int chan_kind;    /* PYEMU_KIND_* */
    unsigned int channels;     /* 1, 2 or 4 (OpenCL: 1 to 4) */
    unsigned int bytes;        /* bytes a channel: 1, 2 or 4 */
    unsigned int mode_flags;   /* PYEMU_IMG_* */
    unsigned int address[3];   /* PYEMU_ADDR_* a dimension */
    unsigned int cl_order;     /* OpenCL cl_channel_order (0 for CUDA) */
    unsigned long long texels; /* element (0, 0, 0) */
    unsigned long long width;  /* in elements */
    unsigned long long height; /* 1 for 1-D */
    unsigned long long depth;  /* 1 for 1-D and 2-D */
    unsigned long long pitch;  /* bytes from a row to the next */
    unsigned long long slice;  /* bytes from a slice to the next */
    float border[4];           /* cudaTextureDesc.borderColor */
    unsigned int cl_type;      /* OpenCL cl_channel_type (0 for CUDA) */
    unsigned int swizzle;      /* OpenCL: where channel c of the data goes in rgba, 2 bits each */
    unsigned long long extent_bytes; /* bytes the elements span */
    unsigned long long reserved;
} pyemu_image;

#ifdef __cplusplus
static_assert(sizeof(pyemu_image) == 128, "pyemu_image is 128 bytes");

/* How a read samples: a CUDA texture object carries it, an OpenCL sampler_t is one. */
struct pyemu_sampling {
    unsigned int address[3];
    bool linear;
    bool norm_coords;
    bool read_normalized;      /* integer data read as [0, 1] / [-1, 1] */
    const float *border;       /* 4 floats */
};

/* A fetched value: floats (float data, normalized reads) or integers. */
struct pyemu_texel {
    float pyemu_f[4];
    long long pyemu_i[4];
};

static inline const pyemu_image *pyemu_image_of(unsigned long long pyemu_h, const char *pyemu_what)
{
    const pyemu_image *pyemu_im = (const pyemu_image *)(uintptr_t)pyemu_h;
    /* a destroyed object's descriptor was freed: reading it faults as a use
     * after free; a value that never was one fails the launch here */
    if (pyemu_h == 0 || pyemu_im->magic != PYEMU_IMAGE_MAGIC) {
        printf("pyemu: %s 0x%llx is not a live texture, surface or image object\n",
                     pyemu_what, pyemu_h);
        pyemu_trap();
    }
    return pyemu_im;
}

static inline float pyemu_smp_half(unsigned short pyemu_h)
{
    unsigned int pyemu_s = (pyemu_h >> 15) & 1u, pyemu_e = (pyemu_h >> 10) & 31u, pyemu_m = pyemu_h & 1023u;
    float pyemu_v;
    if (pyemu_e == 0) pyemu_v = ldexpf((float)pyemu_m, -24);
    else if (pyemu_e == 31) pyemu_v = pyemu_m ? NAN : INFINITY;
    else pyemu_v = ldexpf((float)(pyemu_m | 1024u), (int)pyemu_e - 25);
    return pyemu_s ? -pyemu_v : pyemu_v;
}

/* The largest value of a normalized integer channel (255, 127, 65535, 32767). */
static inline long long pyemu_norm_max(const pyemu_image *pyemu_im)
{
    int pyemu_bits = (int)pyemu_im->bytes * 8;
    return pyemu_im->chan_kind == PYEMU_KIND_SIGNED ? (1LL << (pyemu_bits - 1)) - 1 : (1LL << pyemu_bits) - 1;
}

/* Raw channel c of the element at p: integers as they are, floats as their value. */
static inline long long pyemu_raw_int(const pyemu_image *pyemu_im, const unsigned char *pyemu_p)
{
    switch (pyemu_im->bytes * 4 + pyemu_im->chan_kind) {
    case 4 + PYEMU_KIND_SIGNED: return *(const signed char *)pyemu_p;
    case 4 + PYEMU_KIND_UNSIGNED: return *(const unsigned char *)pyemu_p;
    case 8 + PYEMU_KIND_SIGNED: { short pyemu_val; memcpy(&pyemu_val, pyemu_p, 2); return pyemu_val; }
    case 8 + PYEMU_KIND_UNSIGNED: { unsigned short pyemu_val; memcpy(&pyemu_val, pyemu_p, 2); return pyemu_val; }
    case 16 + PYEMU_KIND_SIGNED: { int pyemu_val; memcpy(&pyemu_val, pyemu_p, 4); return pyemu_val; }
    default: { unsigned int pyemu_val; memcpy(&pyemu_val, pyemu_p, 4); return pyemu_val; }
    }
}

static inline float pyemu_raw_float(const pyemu_image *pyemu_im, const unsigned char *pyemu_p)
{
    if (pyemu_im->bytes == 2) {
        unsigned short pyemu_h;
        memcpy(&pyemu_h, pyemu_p, 2);
        return pyemu_smp_half(pyemu_h);
    }
    float pyemu_v;
    memcpy(&pyemu_v, pyemu_p, 4);
    return pyemu_v;
}

/* An index of a texel as the address mode maps it; -1 for a border texel. */
static inline long long pyemu_address(long long pyemu_i, long long pyemu_n, unsigned int pyemu_mode)
{
    switch (pyemu_mode) {
    case PYEMU_ADDR_WRAP: {
        long long pyemu_r = pyemu_i % pyemu_n;
        return pyemu_r < 0 ? pyemu_r + pyemu_n : pyemu_r;
    }
    case PYEMU_ADDR_MIRROR: {
        long long pyemu_r = pyemu_i % (2 * pyemu_n);
        if (pyemu_r < 0) pyemu_r += 2 * pyemu_n;
        return pyemu_r < pyemu_n ? pyemu_r : 2 * pyemu_n - 1 - pyemu_r;
    }
    case PYEMU_ADDR_BORDER:
        return (pyemu_i < 0 || pyemu_i >= pyemu_n) ? -1 : pyemu_i;
    default:
        return pyemu_i < 0 ? 0 : (pyemu_i >= pyemu_n ? pyemu_n - 1 : pyemu_i);
    }
}

/* Channel values of one texel as exact numbers: for float data the float,
 * for integer data the integer (normalized reads divide later, exactly).
 * pyemu_A border texel is the border colour, converted to the format. */
static inline void pyemu_texel_values(const pyemu_image *pyemu_im, const pyemu_sampling &pyemu_s,
                                      long long pyemu_i, long long pyemu_j, long long pyemu_k,
                                      double pyemu_out[4])
{
    const bool pyemu_isf = pyemu_im->chan_kind == PYEMU_KIND_FLOAT;
    unsigned int pyemu_nc = pyemu_im->channels;
    if (pyemu_i < 0 || pyemu_j < 0 || pyemu_k < 0) {
        for (unsigned int pyemu_ch = 0; pyemu_ch < 4; pyemu_ch++) {
            double pyemu_b = pyemu_s.border[pyemu_ch];
            if (!pyemu_isf) {
                if (pyemu_s.read_normalized) {
                    /* to the nearest integer, ties toward -inf (0.5 of u8 is 127) */
                    long long pyemu_m = pyemu_norm_max(pyemu_im);
                    double pyemu_q = ceil(pyemu_b * (double)pyemu_m - 0.5);
                    double pyemu_lo = pyemu_im->chan_kind == PYEMU_KIND_SIGNED ? -(double)pyemu_m : 0.0;
                    pyemu_b = (pyemu_q < pyemu_lo ? pyemu_lo : (pyemu_q > pyemu_m ? (double)pyemu_m : pyemu_q)) + 0.0;
                } else if (pyemu_im->mode_flags & PYEMU_IMG_OPENCL) {
                    pyemu_b = (double)(long long)pyemu_b;      /* (0, 0, 0, 1) is 0, 0, 0, 1 */
                } else {
                    /* element reads: the colour's float bits, cut to the channel (as the GPU) */
                    float pyemu_fb = pyemu_s.border[pyemu_ch];
                    unsigned int pyemu_u;
                    memcpy(&pyemu_u, &pyemu_fb, 4);
                    int pyemu_bits = (int)pyemu_im->bytes * 8;
                    long long pyemu_v = pyemu_bits >= 32 ? (long long)pyemu_u
                                                         : (long long)(pyemu_u & ((1u << pyemu_bits) - 1u));
                    if (pyemu_im->chan_kind == PYEMU_KIND_SIGNED && pyemu_v >= (1LL << (pyemu_bits - 1)))
                        pyemu_v -= 1LL << pyemu_bits;
                    pyemu_b = (double)pyemu_v;
                }
            }
            pyemu_out[pyemu_ch] = pyemu_b;
        }
        return;
    }
    const unsigned char *pyemu_p = (const unsigned char *)(uintptr_t)(
        pyemu_im->texels + (unsigned long long)pyemu_k * pyemu_im->slice +
        (unsigned long long)pyemu_j * pyemu_im->pitch +
        (unsigned long long)pyemu_i * pyemu_nc * pyemu_im->bytes);
    for (unsigned int pyemu_ch = 0; pyemu_ch < 4; pyemu_ch++) {
        if (pyemu_ch >= pyemu_nc) {
            pyemu_out[pyemu_ch] = pyemu_ch == 3 ? 1.0 : 0.0;
            if (pyemu_ch == 3 && pyemu_s.read_normalized && !pyemu_isf)
                pyemu_out[pyemu_ch] = (double)pyemu_norm_max(pyemu_im);
            continue;
        }
        const unsigned char *pyemu_q = pyemu_p + pyemu_ch * pyemu_im->bytes;
        pyemu_out[pyemu_ch] = pyemu_isf ? (double)pyemu_raw_float(pyemu_im, pyemu_q)
                                 : (double)pyemu_raw_int(pyemu_im, pyemu_q);
        /* -128 of a signed 8-bit channel reads as -1, as -127 does (point
         * reads; linear filtering takes -128 as it is, as the GPU does) */
        if (!pyemu_isf && pyemu_s.read_normalized && !pyemu_s.linear &&
            pyemu_im->chan_kind == PYEMU_KIND_SIGNED &&
            pyemu_out[pyemu_ch] < -(double)pyemu_norm_max(pyemu_im))
            pyemu_out[pyemu_ch] = -(double)pyemu_norm_max(pyemu_im);
    }
}

/* A long double rounded to float, ties away from zero (the filter's rounding). */
static inline float pyemu_round_away(long double pyemu_v)
{
    float pyemu_r = (float)pyemu_v;
    long double pyemu_d = pyemu_v - (long double)pyemu_r;
    if (pyemu_d != 0 && isfinite(pyemu_r)) {
        float pyemu_n = nextafterf(pyemu_r, pyemu_d > 0 ? INFINITY : -INFINITY);
        long double pyemu_dn = (long double)pyemu_n - pyemu_v;
        if (fabsl(pyemu_dn) == fabsl(pyemu_d) && fabsf(pyemu_n) > fabsf(pyemu_r)) pyemu_r = pyemu_n;
    }
    return pyemu_r;
}

/* Signed 8-bit normalized linear filtering: n is the exact weighted sum of
 * the texels (-128 as it is) in 1/256 steps, an s8.8 fixed-point value.  The
 * GPU widens it to a 16-bit fraction of 32767 not by the exact 32767/127 but
 * by 258 + 1/128 with the 1/128 part cut to 1/8 (floor), then rounds half up:
 * R = floor((258 n + 32 floor(n / 4096) + 128) / 256).  Every one of the
 * 2 x 255 x 256 lerps of tests/data/ground_truth/texture_snorm8_h200.bin and
 * the signed 8-bit cases of texture_filter_h200.json, bit for bit. */
static inline long long pyemu_snorm8_widen(long long pyemu_n)
{
    long long pyemu_x = 258 * pyemu_n + 32 * (pyemu_n >> 12) + 128;   /* >> on signed: floor */
    return pyemu_x >> 8;
}

/* A texture coordinate as the hardware takes it: a normalized one cut to
 * 20 fractional bits and scaled by the size.  NaN reads as 0; a coordinate
 * beyond +-2^40 is held there. */
static inline double pyemu_coord(float pyemu_u, long long pyemu_n, bool pyemu_norm)
{
    double pyemu_x = pyemu_u;
    if (!(pyemu_x == pyemu_x)) pyemu_x = 0;
    const double pyemu_lim = 1099511627776.0;   /* 2^40 */
    if (pyemu_norm) {
        if (pyemu_x > 1048576.0) pyemu_x = 1048576.0;
        if (pyemu_x < -1048576.0) pyemu_x = -1048576.0;
        pyemu_x = floor(pyemu_x * 1048576.0) / 1048576.0 * (double)pyemu_n;
    }
    if (pyemu_x > pyemu_lim) pyemu_x = pyemu_lim;
    if (pyemu_x < -pyemu_lim) pyemu_x = -pyemu_lim;
    return pyemu_x;
}

/* The sample of image im at (x, y, z) (unused coordinates 0): float results
 * in out->f (float data, normalized reads), integer results in out->i.
 * Not inlined: one copy a module, called from every fetch (inlined into each
 * fetch of each kernel's thread loops, g++ took seconds a kernel). */
static inline __attribute__((noinline)) void pyemu_sample(const pyemu_image *pyemu_im, const pyemu_sampling &pyemu_s,
                                float pyemu_u, float pyemu_v, float pyemu_w, pyemu_texel *pyemu_out)
{
    const long long pyemu_size[3] = {(long long)pyemu_im->width, (long long)pyemu_im->height,
                                     (long long)pyemu_im->depth};
    const float pyemu_uvw[3] = {pyemu_u, pyemu_v, pyemu_w};
    const unsigned int pyemu_dims = pyemu_im->dims;
    unsigned int pyemu_mode[3];
    long long pyemu_idx[3] = {0, 0, 0};
    int pyemu_wt[3] = {0, 0, 0};            /* the 8-bit weights of linear filtering */
    for (unsigned int pyemu_d = 0; pyemu_d < 3; pyemu_d++) {
        pyemu_mode[pyemu_d] = pyemu_s.address[pyemu_d];
        if (!pyemu_s.norm_coords && (pyemu_mode[pyemu_d] == PYEMU_ADDR_WRAP || pyemu_mode[pyemu_d] == PYEMU_ADDR_MIRROR))
            pyemu_mode[pyemu_d] = PYEMU_ADDR_CLAMP;    /* CUDA: unnormalized wrap/mirror clamp */
        /* a 1-D texture is sampled at y = 0 of a 2-D one of height 1 */
        bool pyemu_used = pyemu_d < pyemu_dims ||
                          (pyemu_d == 1 && pyemu_dims == 1 && !(pyemu_im->mode_flags & PYEMU_IMG_OPENCL));
        if (!pyemu_used) continue;
        double pyemu_x = pyemu_coord(pyemu_d < pyemu_dims ? pyemu_uvw[pyemu_d] : 0.0f, pyemu_size[pyemu_d], pyemu_s.norm_coords);
        if (pyemu_s.linear) {
            long long pyemu_q = (long long)floor((pyemu_x - 0.5) * 256.0 + 0.5);
            /* clamp mode holds the position between the first and last texel
             * centres (it shows in 3-D, where the weights depend on it) */
            if (pyemu_mode[pyemu_d] == PYEMU_ADDR_CLAMP) {
                const long long pyemu_last = (pyemu_size[pyemu_d] - 1) * 256;
                pyemu_q = pyemu_q < 0 ? 0 : (pyemu_q > pyemu_last ? pyemu_last : pyemu_q);
            }
            pyemu_idx[pyemu_d] = pyemu_q >> 8;     /* arithmetic shift: floor */
            pyemu_wt[pyemu_d] = (int)(pyemu_q & 255);
        } else {
            pyemu_idx[pyemu_d] = (long long)floor(pyemu_x);
        }
    }
    double pyemu_t[4];
    if (!pyemu_s.linear) {
        long long pyemu_a = pyemu_address(pyemu_idx[0], pyemu_size[0], pyemu_mode[0]);
        long long pyemu_b = pyemu_dims >= 2 ? pyemu_address(pyemu_idx[1], pyemu_size[1], pyemu_mode[1]) : 0;
        long long pyemu_c = pyemu_dims >= 3 ? pyemu_address(pyemu_idx[2], pyemu_size[2], pyemu_mode[2]) : 0;
        pyemu_texel_values(pyemu_im, pyemu_s, pyemu_a, pyemu_b, pyemu_c, pyemu_t);
        for (int pyemu_ch = 0; pyemu_ch < 4; pyemu_ch++) {
            pyemu_out->pyemu_i[pyemu_ch] = (long long)pyemu_t[pyemu_ch];
            if (pyemu_im->chan_kind == PYEMU_KIND_FLOAT) pyemu_out->pyemu_f[pyemu_ch] = (float)pyemu_t[pyemu_ch];
            else if (pyemu_s.read_normalized) {
                double pyemu_m = (double)pyemu_norm_max(pyemu_im);
                double pyemu_r = pyemu_t[pyemu_ch] / pyemu_m;
                pyemu_out->pyemu_f[pyemu_ch] = (float)(pyemu_r < -1.0 ? -1.0 : pyemu_r);
            } else pyemu_out->pyemu_f[pyemu_ch] = (float)pyemu_t[pyemu_ch];
        }
        return;
    }
    /* linear: up to 8 texels and their weights (out of 256) */
    int pyemu_n = 0;
    long long pyemu_ti[8][3];
    int pyemu_w8[8];
    const int pyemu_A = pyemu_wt[0], pyemu_B = pyemu_wt[1], pyemu_C = pyemu_wt[2];
    if (pyemu_dims <= 2) {
        const int pyemu_w11 = (pyemu_A * pyemu_B + 128) >> 8;
        const int pyemu_wv[4] = {256 - pyemu_A - pyemu_B + pyemu_w11, pyemu_A - pyemu_w11, pyemu_B - pyemu_w11, pyemu_w11};
        for (int pyemu_k = 0; pyemu_k < 4; pyemu_k++) {
            pyemu_ti[pyemu_k][0] = pyemu_idx[0] + (pyemu_k & 1);
            pyemu_ti[pyemu_k][1] = pyemu_idx[1] + (pyemu_k >> 1);
            pyemu_ti[pyemu_k][2] = 0;
            pyemu_w8[pyemu_k] = pyemu_wv[pyemu_k];
        }
        pyemu_n = 4;
    } else {
        /* 3-D: the two z slices weigh 256 - C and C; each slice's weight S
         * goes to x = 1 as round(S*A/256) (half up), the rest to x = 0; each
         * of those to y = 1 as round(w*B/256), half up where x = 1 and half
         * down where x = 0 (in a slice of weight 256 this is the 2-D rule) */
        for (int pyemu_zo = 0; pyemu_zo < 2; pyemu_zo++) {
            const int pyemu_sw = pyemu_zo ? pyemu_C : 256 - pyemu_C;
            const int pyemu_x1 = (pyemu_sw * pyemu_A + 128) >> 8;
            const int pyemu_x0 = pyemu_sw - pyemu_x1;
            const int pyemu_y11 = (pyemu_x1 * pyemu_B + 128) >> 8;
            const int pyemu_y01 = (pyemu_x0 * pyemu_B + 127) >> 8;
            const int pyemu_wv[4] = {pyemu_x0 - pyemu_y01, pyemu_x1 - pyemu_y11, pyemu_y01, pyemu_y11};
            for (int pyemu_k = 0; pyemu_k < 4; pyemu_k++) {
                pyemu_ti[pyemu_n][0] = pyemu_idx[0] + (pyemu_k & 1);
                pyemu_ti[pyemu_n][1] = pyemu_idx[1] + (pyemu_k >> 1);
                pyemu_ti[pyemu_n][2] = pyemu_idx[2] + pyemu_zo;
                pyemu_w8[pyemu_n] = pyemu_wv[pyemu_k];
                pyemu_n++;
            }
        }
    }
    long double pyemu_acc[4] = {0, 0, 0, 0};
    for (int pyemu_k = 0; pyemu_k < pyemu_n; pyemu_k++) {
        if (pyemu_w8[pyemu_k] == 0) continue;
        long long pyemu_a = pyemu_address(pyemu_ti[pyemu_k][0], pyemu_size[0], pyemu_mode[0]);
        long long pyemu_b = pyemu_address(pyemu_ti[pyemu_k][1], pyemu_size[1], pyemu_mode[1]);
        long long pyemu_c = pyemu_dims >= 3 ? pyemu_address(pyemu_ti[pyemu_k][2], pyemu_size[2], pyemu_mode[2]) : 0;
        if (pyemu_a < 0 || pyemu_b < 0 || pyemu_c < 0) pyemu_a = pyemu_b = pyemu_c = -1;
        pyemu_texel_values(pyemu_im, pyemu_s, pyemu_a, pyemu_b, pyemu_c, pyemu_t);
        for (int pyemu_ch = 0; pyemu_ch < 4; pyemu_ch++) pyemu_acc[pyemu_ch] += (long double)pyemu_w8[pyemu_k] * (long double)pyemu_t[pyemu_ch];
    }
    if (pyemu_im->chan_kind != PYEMU_KIND_FLOAT && pyemu_s.read_normalized) {
        /* normalized integers: the filtered value is rounded (half up) to a
         * 16-bit fraction, R / 65535 (unsigned) or R / 32767 (signed) */
        const long long pyemu_m = pyemu_norm_max(pyemu_im);
        const long long pyemu_d = pyemu_im->chan_kind == PYEMU_KIND_SIGNED ? 32767 : 65535;
        const bool pyemu_s8 = pyemu_im->chan_kind == PYEMU_KIND_SIGNED && pyemu_im->bytes == 1;
        for (int pyemu_ch = 0; pyemu_ch < 4; pyemu_ch++) {
            long long pyemu_r;
            if (pyemu_s8) {
                pyemu_r = pyemu_snorm8_widen((long long)pyemu_acc[pyemu_ch]);
            } else {
                long long pyemu_num = (long long)pyemu_acc[pyemu_ch] * pyemu_d + pyemu_m * 128;
                long long pyemu_den = pyemu_m * 256;
                pyemu_r = pyemu_num / pyemu_den;
                if ((pyemu_num % pyemu_den) != 0 && pyemu_num < 0) pyemu_r -= 1;   /* floor */
            }
            if (pyemu_r < -pyemu_d) pyemu_r = -pyemu_d;     /* -128 / -32768 alone: -1 */
            pyemu_out->pyemu_f[pyemu_ch] = (float)((long double)pyemu_r / (long double)pyemu_d);
            pyemu_out->pyemu_i[pyemu_ch] = (long long)pyemu_out->pyemu_f[pyemu_ch];
        }
        return;
    }
    long double pyemu_div = 256.0L;
    /* integer data: [0, 1] / [-1, 1] for a normalized read; an OpenCL read_imagef of an
     * unnormalized integer image (undefined there) filters the values themselves, as its
     * nearest read returns them (CUDA refuses linear filtering of element-type integers) */
    if (pyemu_im->chan_kind != PYEMU_KIND_FLOAT && pyemu_s.read_normalized)
        pyemu_div *= (long double)pyemu_norm_max(pyemu_im);
    for (int pyemu_ch = 0; pyemu_ch < 4; pyemu_ch++) {
        pyemu_out->pyemu_f[pyemu_ch] = pyemu_round_away(pyemu_acc[pyemu_ch] / pyemu_div);
        pyemu_out->pyemu_i[pyemu_ch] = (long long)pyemu_out->pyemu_f[pyemu_ch];
    }
}

/* Layer `layer` of a layered image (a cubemap's face) as an image of its own:
 * the layer is taken as unsigned and clamped to the last (as the GPU does). */
static inline pyemu_image pyemu_layer_of(const pyemu_image *pyemu_im, int pyemu_layer)
{
    pyemu_image pyemu_l = *pyemu_im;
    unsigned long long pyemu_k = (unsigned int)pyemu_layer;
    if (pyemu_k >= pyemu_im->depth) pyemu_k = pyemu_im->depth - 1;
    pyemu_l.texels += pyemu_k * pyemu_im->slice;
    pyemu_l.depth = 1;
    pyemu_l.mode_flags &= ~(PYEMU_IMG_LAYERED | PYEMU_IMG_CUBEMAP);
    return pyemu_l;
}

/* The face a cubemap direction (x, y, z) selects and its normalized (s, t),
 * per the CUDA Programming Guide's cubemap table; at ties z wins over y and
 * y over x (as an H100 picks: tests/data/ground_truth/array3d_h100.json). */
static inline int pyemu_cube_face(float pyemu_x, float pyemu_y, float pyemu_z, float *pyemu_s, float *pyemu_t)
{
    float pyemu_ax = fabsf(pyemu_x), pyemu_ay = fabsf(pyemu_y), pyemu_az = fabsf(pyemu_z);
    int pyemu_face;
    float pyemu_m, pyemu_sc, pyemu_tc;
    if (pyemu_az >= pyemu_ax && pyemu_az >= pyemu_ay) {
        pyemu_face = pyemu_z >= 0 ? 4 : 5;
        pyemu_m = pyemu_az;
        pyemu_sc = pyemu_z >= 0 ? pyemu_x : -pyemu_x;
        pyemu_tc = -pyemu_y;
    } else if (pyemu_ay >= pyemu_ax) {
        pyemu_face = pyemu_y >= 0 ? 2 : 3;
        pyemu_m = pyemu_ay;
        pyemu_sc = pyemu_x;
        pyemu_tc = pyemu_y >= 0 ? pyemu_z : -pyemu_z;
    } else {
        pyemu_face = pyemu_x >= 0 ? 0 : 1;
        pyemu_m = pyemu_ax;
        pyemu_sc = pyemu_x >= 0 ? -pyemu_z : pyemu_z;
        pyemu_tc = -pyemu_y;
    }
    if (pyemu_m > 0) {
        *pyemu_s = (pyemu_sc / pyemu_m + 1.0f) * 0.5f;
        *pyemu_t = (pyemu_tc / pyemu_m + 1.0f) * 0.5f;
    } else {
        *pyemu_s = *pyemu_t = 0.5f;     /* (0, 0, 0): the middle of face +z */
    }
    return pyemu_face;
}

/* tex1Dfetch: element i of linear memory; zero past either end. */
static inline void pyemu_fetch_linear(const pyemu_image *pyemu_im, bool pyemu_read_norm, long long pyemu_i,
                                      pyemu_texel *pyemu_out)
{
    for (int pyemu_ch = 0; pyemu_ch < 4; pyemu_ch++) { pyemu_out->pyemu_f[pyemu_ch] = 0; pyemu_out->pyemu_i[pyemu_ch] = 0; }
    if (pyemu_i < 0 || (unsigned long long)pyemu_i >= pyemu_im->width) return;
    static const float pyemu_noborder[4] = {0, 0, 0, 0};
    pyemu_sampling pyemu_s = {{PYEMU_ADDR_CLAMP, PYEMU_ADDR_CLAMP, PYEMU_ADDR_CLAMP}, false, false,
                              pyemu_read_norm, pyemu_noborder};
    double pyemu_t[4];
    pyemu_texel_values(pyemu_im, pyemu_s, pyemu_i, 0, 0, pyemu_t);
    for (unsigned int pyemu_ch = 0; pyemu_ch < pyemu_im->channels; pyemu_ch++) {
        pyemu_out->pyemu_i[pyemu_ch] = (long long)pyemu_t[pyemu_ch];
        if (pyemu_im->chan_kind == PYEMU_KIND_FLOAT) pyemu_out->pyemu_f[pyemu_ch] = (float)pyemu_t[pyemu_ch];
        else if (pyemu_read_norm) {
            double pyemu_r = pyemu_t[pyemu_ch] / (double)pyemu_norm_max(pyemu_im);
            pyemu_out->pyemu_f[pyemu_ch] = (float)(pyemu_r < -1.0 ? -1.0 : pyemu_r);
        } else pyemu_out->pyemu_f[pyemu_ch] = (float)pyemu_t[pyemu_ch];
    }
}

/* The address of element (x, y, z) of a surface or image, or NULL when
 * out of range. */
static inline unsigned char *pyemu_element_at(const pyemu_image *pyemu_im, long long pyemu_x,
                                              long long pyemu_y, long long pyemu_z)
{
    if (pyemu_x < 0 || pyemu_y < 0 || pyemu_z < 0 || (unsigned long long)pyemu_x >= pyemu_im->width ||
        (unsigned long long)pyemu_y >= pyemu_im->height || (unsigned long long)pyemu_z >= pyemu_im->depth)
        return 0;
    return (unsigned char *)(uintptr_t)(pyemu_im->texels + (unsigned long long)pyemu_z * pyemu_im->slice +
                                        (unsigned long long)pyemu_y * pyemu_im->pitch +
                                        (unsigned long long)pyemu_x * pyemu_im->channels * pyemu_im->bytes);
}
#endif /* __cplusplus */

#endif /* PYEMU_DETAIL_SAMPLER_H */
