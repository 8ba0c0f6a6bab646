/* CUDA texture and surface objects on the device: tex1Dfetch<T>, tex1D<T>,
 * tex2D<T>, tex3D<T>, tex2DLod<T> (level 0), tex1DLayered, tex2DLayered,
 * texCubemap, texCubemapLayered, surf1D/2D/3Dread and write and their
 * 1DLayered, 2DLayered, Cubemap and CubemapLayered forms (one store and one
 * load underneath: pyemu_surf_write, pyemu_surf_read).
 * A texture or surface object is the device address of a pyemu_image
 * (detail/sampler.h), made by cudaCreateTextureObject /
 * cudaCreateSurfaceObject (pyemu/cuda/texture.py); the sampling is the one
 * sampler both facades share. */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/cuda_device.h>, not this file"
#endif
#include "sampler.h"

/* The host's array handle types, declared as in CUDA's driver_types.h so a
 * header shared by host and device code compiles (cudaArray *a_Src). */
struct cudaArray;
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
struct cudaMipmappedArray;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
typedef const struct cudaMipmappedArray *cudaMipmappedArray_const_t;

typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

enum cudaSurfaceBoundaryMode {
    cudaBoundaryModeZero = 0,
    cudaBoundaryModeClamp = 1,
    cudaBoundaryModeTrap = 2
};

static inline pyemu_sampling pyemu_tex_sampling(const pyemu_image *im)
{
    pyemu_sampling s = {{im->address[0], im->address[1], im->address[2]},
                        (im->mode_flags & PYEMU_IMG_FILTER_LINEAR) != 0,
                        (im->mode_flags & PYEMU_IMG_NORM_COORDS) != 0,
                        (im->mode_flags & PYEMU_IMG_READ_NORMALIZED) != 0, im->border};
    return s;
}

/* A fetched texel as the type T the kernel asks for: float components from
 * the float results, integer components from the integer ones. */
template <class pyemu_T> struct pyemu_tex_as;
#define PYEMU_TEX_SCALAR(pyemu_T, pyemu_F)                                                  \
    template <> struct pyemu_tex_as<pyemu_T> {                                        \
        static pyemu_T make(const pyemu_texel &t) { return (pyemu_T)t.pyemu_F[0]; }               \
    };
#define PYEMU_TEX_VEC(pyemu_V, pyemu_E, pyemu_F)                                                  \
    template <> struct pyemu_tex_as<pyemu_V##1> {                                     \
        static pyemu_V##1 make(const pyemu_texel &t) { pyemu_V##1 r = {(pyemu_E)t.pyemu_F[0]}; return r; } \
    };                                                                          \
    template <> struct pyemu_tex_as<pyemu_V##2> {                                     \
        static pyemu_V##2 make(const pyemu_texel &t)                                  \
        { pyemu_V##2 r = {(pyemu_E)t.pyemu_F[0], (pyemu_E)t.pyemu_F[1]}; return r; }                          \
    };                                                                          \
    template <> struct pyemu_tex_as<pyemu_V##4> {                                     \
        static pyemu_V##4 make(const pyemu_texel &t)                                  \
        { pyemu_V##4 r = {(pyemu_E)t.pyemu_F[0], (pyemu_E)t.pyemu_F[1], (pyemu_E)t.pyemu_F[2], (pyemu_E)t.pyemu_F[3]}; return r; }    \
    };
PYEMU_TEX_SCALAR(float, pyemu_f)
PYEMU_TEX_SCALAR(char, pyemu_i)
PYEMU_TEX_SCALAR(signed char, pyemu_i)
PYEMU_TEX_SCALAR(unsigned char, pyemu_i)
PYEMU_TEX_SCALAR(short, pyemu_i)
PYEMU_TEX_SCALAR(unsigned short, pyemu_i)
PYEMU_TEX_SCALAR(int, pyemu_i)
PYEMU_TEX_SCALAR(unsigned int, pyemu_i)
PYEMU_TEX_VEC(float, float, pyemu_f)
PYEMU_TEX_VEC(char, signed char, pyemu_i)
PYEMU_TEX_VEC(uchar, unsigned char, pyemu_i)
PYEMU_TEX_VEC(short, short, pyemu_i)
PYEMU_TEX_VEC(ushort, unsigned short, pyemu_i)
PYEMU_TEX_VEC(int, int, pyemu_i)
PYEMU_TEX_VEC(uint, unsigned int, pyemu_i)
#undef PYEMU_TEX_SCALAR
#undef PYEMU_TEX_VEC

template <class pyemu_T> static inline pyemu_T pyemu_tex_read(cudaTextureObject_t obj, float x, float y, float z)
{
    const pyemu_image *im = pyemu_image_of(obj, "texture object");
    pyemu_sampling s = pyemu_tex_sampling(im);
    pyemu_texel t;
    pyemu_sample(im, s, x, y, z, &t);
    return pyemu_tex_as<pyemu_T>::make(t);
}

/* tex1Dfetch<T>(obj, x): element x of the texture's linear memory, zero
 * past either end (as on the GPU); no filtering, no address mode. */
template <class pyemu_T> static inline pyemu_T tex1Dfetch(cudaTextureObject_t obj, int x)
{
    const pyemu_image *im = pyemu_image_of(obj, "texture object");
    pyemu_texel t;
    pyemu_fetch_linear(im, (im->mode_flags & PYEMU_IMG_READ_NORMALIZED) != 0, x, &t);
    return pyemu_tex_as<pyemu_T>::make(t);
}
template <class pyemu_T> static inline pyemu_T tex1D(cudaTextureObject_t obj, float x)
{
    return pyemu_tex_read<pyemu_T>(obj, x, 0.0f, 0.0f);
}
template <class pyemu_T> static inline pyemu_T tex2D(cudaTextureObject_t obj, float x, float y)
{
    return pyemu_tex_read<pyemu_T>(obj, x, y, 0.0f);
}
template <class pyemu_T> static inline pyemu_T tex3D(cudaTextureObject_t obj, float x, float y, float z)
{
    return pyemu_tex_read<pyemu_T>(obj, x, y, z);
}
/* The Lod and Grad forms: textures have one level here, level 0. */
template <class pyemu_T> static inline pyemu_T tex1DLod(cudaTextureObject_t obj, float x, float)
{
    return pyemu_tex_read<pyemu_T>(obj, x, 0.0f, 0.0f);
}
template <class pyemu_T> static inline pyemu_T tex2DLod(cudaTextureObject_t obj, float x, float y, float)
{
    return pyemu_tex_read<pyemu_T>(obj, x, y, 0.0f);
}
template <class pyemu_T> static inline pyemu_T tex3DLod(cudaTextureObject_t obj, float x, float y, float z, float)
{
    return pyemu_tex_read<pyemu_T>(obj, x, y, z);
}
/* Layered and cubemap textures (cudaArrayLayered, cudaArrayCubemap): a
 * layer is a 1-D or 2-D texture of its own (no filtering across layers); a
 * cubemap samples the face the direction selects at normalized (s, t),
 * whatever normalizedCoords says, with the texture's address mode and
 * filter inside that face (no filtering across faces). */
/* Layer (or face) `layer` of im sampled at (x, y) as a texture of its own;
 * a cubemap's face always at normalized coordinates. */
template <class pyemu_T> static inline pyemu_T pyemu_tex_in_layer(const pyemu_image *pyemu_im, int pyemu_layer,
                                                                 float pyemu_x, float pyemu_y, bool pyemu_norm)
{
    pyemu_image pyemu_l = pyemu_layer_of(pyemu_im, pyemu_layer);
    pyemu_sampling pyemu_s = pyemu_tex_sampling(&pyemu_l);
    if (pyemu_norm) pyemu_s.norm_coords = true;
    pyemu_texel pyemu_t;
    pyemu_sample(&pyemu_l, pyemu_s, pyemu_x, pyemu_y, 0.0f, &pyemu_t);
    return pyemu_tex_as<pyemu_T>::make(pyemu_t);
}
template <class pyemu_T> static inline pyemu_T pyemu_tex_layer(cudaTextureObject_t pyemu_obj, float pyemu_x, float pyemu_y, int pyemu_layer)
{
    return pyemu_tex_in_layer<pyemu_T>(pyemu_image_of(pyemu_obj, "texture object"), pyemu_layer, pyemu_x, pyemu_y, false);
}
template <class pyemu_T> static inline pyemu_T pyemu_tex_cube(cudaTextureObject_t pyemu_obj, float pyemu_x, float pyemu_y, float pyemu_z, int pyemu_layer)
{
    const pyemu_image *pyemu_im = pyemu_image_of(pyemu_obj, "texture object");
    float pyemu_fs, pyemu_ft;
    int pyemu_face = pyemu_cube_face(pyemu_x, pyemu_y, pyemu_z, &pyemu_fs, &pyemu_ft);
    /* the layer clamps to the last whole cube, then the face is chosen in it */
    unsigned long long pyemu_cubes = pyemu_im->depth / 6 ? pyemu_im->depth / 6 : 1, pyemu_k = (unsigned int)pyemu_layer;
    if (pyemu_k >= pyemu_cubes) pyemu_k = pyemu_cubes - 1;
    return pyemu_tex_in_layer<pyemu_T>(pyemu_im, (int)(pyemu_k * 6u + (unsigned int)pyemu_face), pyemu_fs, pyemu_ft, true);
}
template <class pyemu_T> static inline pyemu_T tex1DLayered(cudaTextureObject_t pyemu_obj, float pyemu_x, int pyemu_layer)
{
    return pyemu_tex_layer<pyemu_T>(pyemu_obj, pyemu_x, 0.0f, pyemu_layer);
}
template <class pyemu_T> static inline pyemu_T tex2DLayered(cudaTextureObject_t pyemu_obj, float pyemu_x, float pyemu_y, int pyemu_layer)
{
    return pyemu_tex_layer<pyemu_T>(pyemu_obj, pyemu_x, pyemu_y, pyemu_layer);
}
template <class pyemu_T> static inline pyemu_T tex1DLayeredLod(cudaTextureObject_t pyemu_obj, float pyemu_x, int pyemu_layer, float)
{
    return pyemu_tex_layer<pyemu_T>(pyemu_obj, pyemu_x, 0.0f, pyemu_layer);
}
template <class pyemu_T> static inline pyemu_T tex2DLayeredLod(cudaTextureObject_t pyemu_obj, float pyemu_x, float pyemu_y, int pyemu_layer, float)
{
    return pyemu_tex_layer<pyemu_T>(pyemu_obj, pyemu_x, pyemu_y, pyemu_layer);
}
template <class pyemu_T> static inline pyemu_T texCubemap(cudaTextureObject_t pyemu_obj, float pyemu_x, float pyemu_y, float pyemu_z)
{
    return pyemu_tex_cube<pyemu_T>(pyemu_obj, pyemu_x, pyemu_y, pyemu_z, 0);
}
template <class pyemu_T> static inline pyemu_T texCubemapLayered(cudaTextureObject_t pyemu_obj, float pyemu_x, float pyemu_y, float pyemu_z, int pyemu_layer)
{
    return pyemu_tex_cube<pyemu_T>(pyemu_obj, pyemu_x, pyemu_y, pyemu_z, pyemu_layer);
}
template <class pyemu_T> static inline pyemu_T texCubemapLod(cudaTextureObject_t pyemu_obj, float pyemu_x, float pyemu_y, float pyemu_z, float)
{
    return pyemu_tex_cube<pyemu_T>(pyemu_obj, pyemu_x, pyemu_y, pyemu_z, 0);
}
template <class pyemu_T> static inline void tex2DLayered(pyemu_T *r, cudaTextureObject_t pyemu_obj, float pyemu_x, float pyemu_y, int pyemu_layer) { *r = tex2DLayered<pyemu_T>(pyemu_obj, pyemu_x, pyemu_y, pyemu_layer); }
template <class pyemu_T> static inline void tex1DLayered(pyemu_T *r, cudaTextureObject_t pyemu_obj, float pyemu_x, int pyemu_layer) { *r = tex1DLayered<pyemu_T>(pyemu_obj, pyemu_x, pyemu_layer); }
template <class pyemu_T> static inline void texCubemap(pyemu_T *r, cudaTextureObject_t pyemu_obj, float pyemu_x, float pyemu_y, float pyemu_z) { *r = texCubemap<pyemu_T>(pyemu_obj, pyemu_x, pyemu_y, pyemu_z); }

/* The forms that write through a pointer: tex2D(&v, obj, x, y). */
template <class pyemu_T> static inline void tex1Dfetch(pyemu_T *r, cudaTextureObject_t obj, int x) { *r = tex1Dfetch<pyemu_T>(obj, x); }
template <class pyemu_T> static inline void tex1D(pyemu_T *r, cudaTextureObject_t obj, float x) { *r = tex1D<pyemu_T>(obj, x); }
template <class pyemu_T> static inline void tex2D(pyemu_T *r, cudaTextureObject_t obj, float x, float y) { *r = tex2D<pyemu_T>(obj, x, y); }
template <class pyemu_T> static inline void tex3D(pyemu_T *r, cudaTextureObject_t obj, float x, float y, float z) { *r = tex3D<pyemu_T>(obj, x, y, z); }

/* ---- surfaces: x is in bytes, as in CUDA ---- */

/* The element a surface access at byte x reaches, or NULL (zero mode, out
 * of range).  Out of range in trap mode faults (cudaErrorIllegalAddress, as
 * on the GPU); an x that is not a multiple of the element size fails the
 * launch (the GPU reports cudaErrorMisalignedAddress). */
static inline unsigned char *pyemu_surf_at(cudaSurfaceObject_t obj, int xb, int y, int z,
                                           int mode, size_t n, const char *call)
{
    const pyemu_image *im = pyemu_image_of(obj, "surface object");
    long long es = (long long)im->channels * im->bytes;
    if (xb % es != 0 || (long long)n > es) {
        printf("pyemu: %s: byte x = %d is not a multiple of the surface's %lld-byte element "
                     "(or the %zu-byte value does not fit one): misaligned address\n", call, xb, es, n);
        pyemu_trap();
    }
    long long x = xb / es;
    long long yy = y, zz = z;
    if (mode == cudaBoundaryModeClamp) {
        x = x < 0 ? 0 : (x >= (long long)im->width ? (long long)im->width - 1 : x);
        yy = yy < 0 ? 0 : (yy >= (long long)im->height ? (long long)im->height - 1 : yy);
        zz = zz < 0 ? 0 : (zz >= (long long)im->depth ? (long long)im->depth - 1 : zz);
    }
    unsigned char *p = pyemu_element_at(im, x, yy, zz);
    if (p == 0 && mode == cudaBoundaryModeTrap) {
        printf("pyemu: %s: element (%lld, %lld, %lld) (byte x = %d) is outside the %llux%llux%llu "
                     "surface (cudaBoundaryModeTrap)\n", call, x, yy, zz, xb, im->width, im->height, im->depth);
        /* an access outside every allocation: cudaErrorIllegalAddress */
        (void)*(volatile char *)(uintptr_t)8;
    }
    return p;
}

/* One surface store and one surface load under every surfNDwrite/read:
 * (x, y, z) with x in bytes; a layered surface's layer (a cubemap's face,
 * a layered cubemap's layer * 6 + face) is z.  A load outside the surface
 * in zero mode returns zeros. */
template <class pyemu_T> static inline void pyemu_surf_write(const pyemu_T &pyemu_v, cudaSurfaceObject_t pyemu_s,
                                                       int pyemu_x, int pyemu_y, int pyemu_z,
                                                       cudaSurfaceBoundaryMode pyemu_m, const char *pyemu_call)
{
    unsigned char *pyemu_p = pyemu_surf_at(pyemu_s, pyemu_x, pyemu_y, pyemu_z, pyemu_m, sizeof(pyemu_T), pyemu_call);
    if (pyemu_p) memcpy(pyemu_p, &pyemu_v, sizeof(pyemu_T));
}
template <class pyemu_T> static inline pyemu_T pyemu_surf_read(cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_y,
                                                   int pyemu_z, cudaSurfaceBoundaryMode pyemu_m,
                                                   const char *pyemu_call)
{
    pyemu_T pyemu_v;
    memset(&pyemu_v, 0, sizeof pyemu_v);
    unsigned char *pyemu_p = pyemu_surf_at(pyemu_s, pyemu_x, pyemu_y, pyemu_z, pyemu_m, sizeof(pyemu_T), pyemu_call);
    if (pyemu_p) memcpy(&pyemu_v, pyemu_p, sizeof(pyemu_T));
    return pyemu_v;
}

#define PYEMU_SURF_MODE cudaSurfaceBoundaryMode pyemu_m = cudaBoundaryModeTrap
template <class pyemu_T> static inline void surf1Dwrite(pyemu_T pyemu_v, cudaSurfaceObject_t pyemu_s, int pyemu_x, PYEMU_SURF_MODE)
{ pyemu_surf_write(pyemu_v, pyemu_s, pyemu_x, 0, 0, pyemu_m, "surf1Dwrite"); }
template <class pyemu_T> static inline void surf2Dwrite(pyemu_T pyemu_v, cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_y, PYEMU_SURF_MODE)
{ pyemu_surf_write(pyemu_v, pyemu_s, pyemu_x, pyemu_y, 0, pyemu_m, "surf2Dwrite"); }
template <class pyemu_T> static inline void surf3Dwrite(pyemu_T pyemu_v, cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_y, int pyemu_z, PYEMU_SURF_MODE)
{ pyemu_surf_write(pyemu_v, pyemu_s, pyemu_x, pyemu_y, pyemu_z, pyemu_m, "surf3Dwrite"); }
template <class pyemu_T> static inline void surf1DLayeredwrite(pyemu_T pyemu_v, cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_layer, PYEMU_SURF_MODE)
{ pyemu_surf_write(pyemu_v, pyemu_s, pyemu_x, 0, pyemu_layer, pyemu_m, "surf1DLayeredwrite"); }
template <class pyemu_T> static inline void surf2DLayeredwrite(pyemu_T pyemu_v, cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_y, int pyemu_layer, PYEMU_SURF_MODE)
{ pyemu_surf_write(pyemu_v, pyemu_s, pyemu_x, pyemu_y, pyemu_layer, pyemu_m, "surf2DLayeredwrite"); }
template <class pyemu_T> static inline void surfCubemapwrite(pyemu_T pyemu_v, cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_y, int pyemu_face, PYEMU_SURF_MODE)
{ pyemu_surf_write(pyemu_v, pyemu_s, pyemu_x, pyemu_y, pyemu_face, pyemu_m, "surfCubemapwrite"); }
template <class pyemu_T> static inline void surfCubemapLayeredwrite(pyemu_T pyemu_v, cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_y, int pyemu_layer_face, PYEMU_SURF_MODE)
{ pyemu_surf_write(pyemu_v, pyemu_s, pyemu_x, pyemu_y, pyemu_layer_face, pyemu_m, "surfCubemapLayeredwrite"); }

template <class pyemu_T> static inline pyemu_T surf1Dread(cudaSurfaceObject_t pyemu_s, int pyemu_x, PYEMU_SURF_MODE)
{ return pyemu_surf_read<pyemu_T>(pyemu_s, pyemu_x, 0, 0, pyemu_m, "surf1Dread"); }
template <class pyemu_T> static inline pyemu_T surf2Dread(cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_y, PYEMU_SURF_MODE)
{ return pyemu_surf_read<pyemu_T>(pyemu_s, pyemu_x, pyemu_y, 0, pyemu_m, "surf2Dread"); }
template <class pyemu_T> static inline pyemu_T surf3Dread(cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_y, int pyemu_z, PYEMU_SURF_MODE)
{ return pyemu_surf_read<pyemu_T>(pyemu_s, pyemu_x, pyemu_y, pyemu_z, pyemu_m, "surf3Dread"); }
template <class pyemu_T> static inline pyemu_T surf1DLayeredread(cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_layer, PYEMU_SURF_MODE)
{ return pyemu_surf_read<pyemu_T>(pyemu_s, pyemu_x, 0, pyemu_layer, pyemu_m, "surf1DLayeredread"); }
template <class pyemu_T> static inline pyemu_T surf2DLayeredread(cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_y, int pyemu_layer, PYEMU_SURF_MODE)
{ return pyemu_surf_read<pyemu_T>(pyemu_s, pyemu_x, pyemu_y, pyemu_layer, pyemu_m, "surf2DLayeredread"); }
template <class pyemu_T> static inline pyemu_T surfCubemapread(cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_y, int pyemu_face, PYEMU_SURF_MODE)
{ return pyemu_surf_read<pyemu_T>(pyemu_s, pyemu_x, pyemu_y, pyemu_face, pyemu_m, "surfCubemapread"); }
template <class pyemu_T> static inline pyemu_T surfCubemapLayeredread(cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_y, int pyemu_layer_face, PYEMU_SURF_MODE)
{ return pyemu_surf_read<pyemu_T>(pyemu_s, pyemu_x, pyemu_y, pyemu_layer_face, pyemu_m, "surfCubemapLayeredread"); }

/* The forms that read through a pointer: surf2Dread(&v, obj, x, y). */
template <class pyemu_T> static inline void surf1Dread(pyemu_T *pyemu_r, cudaSurfaceObject_t pyemu_s, int pyemu_x, PYEMU_SURF_MODE)
{ *pyemu_r = pyemu_surf_read<pyemu_T>(pyemu_s, pyemu_x, 0, 0, pyemu_m, "surf1Dread"); }
template <class pyemu_T> static inline void surf2Dread(pyemu_T *pyemu_r, cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_y, PYEMU_SURF_MODE)
{ *pyemu_r = pyemu_surf_read<pyemu_T>(pyemu_s, pyemu_x, pyemu_y, 0, pyemu_m, "surf2Dread"); }
template <class pyemu_T> static inline void surf3Dread(pyemu_T *pyemu_r, cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_y, int pyemu_z, PYEMU_SURF_MODE)
{ *pyemu_r = pyemu_surf_read<pyemu_T>(pyemu_s, pyemu_x, pyemu_y, pyemu_z, pyemu_m, "surf3Dread"); }
template <class pyemu_T> static inline void surf1DLayeredread(pyemu_T *pyemu_r, cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_layer, PYEMU_SURF_MODE)
{ *pyemu_r = pyemu_surf_read<pyemu_T>(pyemu_s, pyemu_x, 0, pyemu_layer, pyemu_m, "surf1DLayeredread"); }
template <class pyemu_T> static inline void surf2DLayeredread(pyemu_T *pyemu_r, cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_y, int pyemu_layer, PYEMU_SURF_MODE)
{ *pyemu_r = pyemu_surf_read<pyemu_T>(pyemu_s, pyemu_x, pyemu_y, pyemu_layer, pyemu_m, "surf2DLayeredread"); }
template <class pyemu_T> static inline void surfCubemapread(pyemu_T *pyemu_r, cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_y, int pyemu_face, PYEMU_SURF_MODE)
{ *pyemu_r = pyemu_surf_read<pyemu_T>(pyemu_s, pyemu_x, pyemu_y, pyemu_face, pyemu_m, "surfCubemapread"); }
template <class pyemu_T> static inline void surfCubemapLayeredread(pyemu_T *pyemu_r, cudaSurfaceObject_t pyemu_s, int pyemu_x, int pyemu_y, int pyemu_layer_face, PYEMU_SURF_MODE)
{ *pyemu_r = pyemu_surf_read<pyemu_T>(pyemu_s, pyemu_x, pyemu_y, pyemu_layer_face, pyemu_m, "surfCubemapLayeredread"); }
#undef PYEMU_SURF_MODE

/* ---- texture references (removed in CUDA 12; the course and Rodinia use them) ----
 * texture<T, dim, readMode> texRef; at file scope holds its descriptor
 * itself, written by the host: mod.get_texref("texRef") and
 * cudaBindTexture / cudaBindTexture2D / cudaBindTextureToArray
 * (pyemu/cuda/texref.py).  Fetching one that is not bound fails the launch
 * (cudaErrorLaunchFailure, with a message saying so). */
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };

/* The channel format of a texture's element type T (what
 * cudaCreateChannelDesc<T>() gives): kind, channels, bytes a channel. */
template <class pyemu_T> struct pyemu_chan { enum { pyemu_kind = 3, pyemu_n = 0, pyemu_bytes = 0 }; };
#define PYEMU_CHAN(pyemu_T, pyemu_K, pyemu_N, pyemu_B) \
    template <> struct pyemu_chan<pyemu_T> { enum { pyemu_kind = pyemu_K, pyemu_n = pyemu_N, pyemu_bytes = pyemu_B }; };
#define PYEMU_CHAN_VEC(pyemu_V, pyemu_K, pyemu_B) \
    PYEMU_CHAN(pyemu_V##1, pyemu_K, 1, pyemu_B) PYEMU_CHAN(pyemu_V##2, pyemu_K, 2, pyemu_B) \
    PYEMU_CHAN(pyemu_V##4, pyemu_K, 4, pyemu_B)
PYEMU_CHAN(float, PYEMU_KIND_FLOAT, 1, 4) PYEMU_CHAN(char, PYEMU_KIND_SIGNED, 1, 1)
PYEMU_CHAN(signed char, PYEMU_KIND_SIGNED, 1, 1) PYEMU_CHAN(unsigned char, PYEMU_KIND_UNSIGNED, 1, 1)
PYEMU_CHAN(short, PYEMU_KIND_SIGNED, 1, 2) PYEMU_CHAN(unsigned short, PYEMU_KIND_UNSIGNED, 1, 2)
PYEMU_CHAN(int, PYEMU_KIND_SIGNED, 1, 4) PYEMU_CHAN(unsigned int, PYEMU_KIND_UNSIGNED, 1, 4)
PYEMU_CHAN_VEC(float, PYEMU_KIND_FLOAT, 4) PYEMU_CHAN_VEC(char, PYEMU_KIND_SIGNED, 1)
PYEMU_CHAN_VEC(uchar, PYEMU_KIND_UNSIGNED, 1) PYEMU_CHAN_VEC(short, PYEMU_KIND_SIGNED, 2)
PYEMU_CHAN_VEC(ushort, PYEMU_KIND_UNSIGNED, 2) PYEMU_CHAN_VEC(int, PYEMU_KIND_SIGNED, 4)
PYEMU_CHAN_VEC(uint, PYEMU_KIND_UNSIGNED, 4)
#undef PYEMU_CHAN_VEC
#undef PYEMU_CHAN

/* Until bound, the descriptor holds no magic, only T's channel format and
 * the dimension, which the host reads as the reference's channelDesc (the
 * one cudaBindTexture(0, texRef, devPtr, size) binds with, as in CUDA). */
template <class pyemu_T, int dim = 1, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct texture {
    pyemu_image pyemu_desc = {0u, (unsigned int)dim, (unsigned int)pyemu_chan<pyemu_T>::pyemu_kind,
                              (unsigned int)pyemu_chan<pyemu_T>::pyemu_n,
                              (unsigned int)pyemu_chan<pyemu_T>::pyemu_bytes, 0u, {0u, 0u, 0u}, 0u,
                              0ull, 0ull, 0ull, 0ull, 0ull, 0ull, {0.0f, 0.0f, 0.0f, 0.0f}, 0u, 0u,
                              0ull, 0ull};
};

/* What a fetch returns: T, or the float type of T's shape for normalized reads. */
template <class pyemu_T, int pyemu_M> struct pyemu_texref_ret { typedef pyemu_T type; };
#define PYEMU_TEXREF_NORM(pyemu_T, pyemu_R) \
    template <> struct pyemu_texref_ret<pyemu_T, cudaReadModeNormalizedFloat> { typedef pyemu_R type; };
PYEMU_TEXREF_NORM(char, float) PYEMU_TEXREF_NORM(signed char, float)
PYEMU_TEXREF_NORM(unsigned char, float) PYEMU_TEXREF_NORM(short, float)
PYEMU_TEXREF_NORM(unsigned short, float)
PYEMU_TEXREF_NORM(char1, float1) PYEMU_TEXREF_NORM(uchar1, float1)
PYEMU_TEXREF_NORM(short1, float1) PYEMU_TEXREF_NORM(ushort1, float1)
PYEMU_TEXREF_NORM(char2, float2) PYEMU_TEXREF_NORM(uchar2, float2)
PYEMU_TEXREF_NORM(short2, float2) PYEMU_TEXREF_NORM(ushort2, float2)
PYEMU_TEXREF_NORM(char4, float4) PYEMU_TEXREF_NORM(uchar4, float4)
PYEMU_TEXREF_NORM(short4, float4) PYEMU_TEXREF_NORM(ushort4, float4)
#undef PYEMU_TEXREF_NORM

template <class pyemu_T, int pyemu_D, enum cudaTextureReadMode pyemu_M>
static inline const pyemu_image *pyemu_texref_image(const texture<pyemu_T, pyemu_D, pyemu_M> &r)
{
    if (r.pyemu_desc.magic != PYEMU_IMAGE_MAGIC) {
        printf("pyemu: fetch from a texture reference that is not bound (cudaBindTexture): "
               "cudaErrorTextureNotBound on GPUs of that era\n");
        pyemu_trap();
    }
    return &r.pyemu_desc;
}

template <class pyemu_T, int pyemu_D, enum cudaTextureReadMode pyemu_M>
static inline typename pyemu_texref_ret<pyemu_T, pyemu_M>::type pyemu_texref_read(const texture<pyemu_T, pyemu_D, pyemu_M> &r, float x,
                                                                      float y, float z)
{
    const pyemu_image *im = pyemu_texref_image(r);
    pyemu_sampling s = pyemu_tex_sampling(im);
    s.read_normalized = pyemu_M == cudaReadModeNormalizedFloat;
    pyemu_texel t;
    pyemu_sample(im, s, x, y, z, &t);
    return pyemu_tex_as<typename pyemu_texref_ret<pyemu_T, pyemu_M>::type>::make(t);
}

template <class pyemu_T, int pyemu_D, enum cudaTextureReadMode pyemu_M>
static inline typename pyemu_texref_ret<pyemu_T, pyemu_M>::type tex1Dfetch(const texture<pyemu_T, pyemu_D, pyemu_M> &r, int x)
{
    const pyemu_image *im = pyemu_texref_image(r);
    pyemu_texel t;
    pyemu_fetch_linear(im, pyemu_M == cudaReadModeNormalizedFloat, x, &t);
    return pyemu_tex_as<typename pyemu_texref_ret<pyemu_T, pyemu_M>::type>::make(t);
}
template <class pyemu_T, int pyemu_D, enum cudaTextureReadMode pyemu_M>
static inline typename pyemu_texref_ret<pyemu_T, pyemu_M>::type tex1D(const texture<pyemu_T, pyemu_D, pyemu_M> &r, float x)
{
    return pyemu_texref_read(r, x, 0.0f, 0.0f);
}
template <class pyemu_T, int pyemu_D, enum cudaTextureReadMode pyemu_M>
static inline typename pyemu_texref_ret<pyemu_T, pyemu_M>::type tex2D(const texture<pyemu_T, pyemu_D, pyemu_M> &r, float x, float y)
{
    return pyemu_texref_read(r, x, y, 0.0f);
}
template <class pyemu_T, int pyemu_D, enum cudaTextureReadMode pyemu_M>
static inline typename pyemu_texref_ret<pyemu_T, pyemu_M>::type tex3D(const texture<pyemu_T, pyemu_D, pyemu_M> &r, float x, float y,
                                                          float z)
{
    return pyemu_texref_read(r, x, y, z);
}
