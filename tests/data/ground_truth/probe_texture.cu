// Ground-truth probe of CUDA texture sampling and the texture/array/surface API.
//
// Runs on a real GPU (not in CI).  Prints one JSON document on stdout: for
// each sampling case the texture's data, the coordinates and the fetched
// values, all as exact bit patterns (floats as uint32 hex), and the error
// codes of the texture, array and surface calls with bad arguments.
//
// Build: nvcc -O2 -arch=sm_90 -o probe_texture probe_texture.cu
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <cstdlib>

static uint32_t lcg_state = 12345u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }
static float frand(float lo, float hi) { return lo + (hi - lo) * ((lcg() >> 8) * (1.0f / 16777216.0f)); }
static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static bool first_case = true;
static void begin_case(const char* name) {
  printf("%s\n{\"case\": \"%s\"", first_case ? "" : ",", name);
  first_case = false;
}
static void end_case() { printf("}"); }
static void jfloats(const char* key, const float* v, size_t n) {
  printf(", \"%s\": [", key);
  for (size_t i = 0; i < n; i++) printf("%s\"%08x\"", i ? "," : "", fbits(v[i]));
  printf("]");
}
static void jints(const char* key, const long long* v, size_t n) {
  printf(", \"%s\": [", key);
  for (size_t i = 0; i < n; i++) printf("%s%lld", i ? "," : "", v[i]);
  printf("]");
}
static void jint(const char* key, long long v) { printf(", \"%s\": %lld", key, v); }
static void jerr(const char* key, cudaError_t e) {
  printf(", \"%s\": {\"code\": %d, \"name\": \"%s\"}", key, (int)e, cudaGetErrorName(e));
}

// ---------------------------------------------------------------- kernels

template <class T>
__global__ void k2d(cudaTextureObject_t t, const float* c, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<T>(t, c[2 * i], c[2 * i + 1]);
}
template <class T>
__global__ void k2dlod(cudaTextureObject_t t, const float* c, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DLod<T>(t, c[2 * i], c[2 * i + 1], 0.0f);
}
template <class T>
__global__ void k1d(cudaTextureObject_t t, const float* c, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1D<T>(t, c[i]);
}
template <class T>
__global__ void k3d(cudaTextureObject_t t, const float* c, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D<T>(t, c[3 * i], c[3 * i + 1], c[3 * i + 2]);
}
template <class T>
__global__ void kfetch(cudaTextureObject_t t, const int* idx, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<T>(t, idx[i]);
}
__global__ void ksurf(cudaSurfaceObject_t s, const int* xy, float* out, int n, int mode) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (mode == 0) out[i] = surf2Dread<float>(s, xy[2 * i], xy[2 * i + 1], cudaBoundaryModeZero);
  else out[i] = surf2Dread<float>(s, xy[2 * i], xy[2 * i + 1], cudaBoundaryModeClamp);
}
__global__ void ksurfwrite(cudaSurfaceObject_t s, int x, int y, float v, int mode) {
  if (mode == 0) surf2Dwrite(v, s, x, y, cudaBoundaryModeZero);
  else if (mode == 1) surf2Dwrite(v, s, x, y, cudaBoundaryModeClamp);
  else surf2Dwrite(v, s, x, y, cudaBoundaryModeTrap);
}

// ---------------------------------------------------------------- helpers

static const char* mode_name(int m) {
  return m == cudaAddressModeWrap ? "wrap" : m == cudaAddressModeClamp ? "clamp"
       : m == cudaAddressModeMirror ? "mirror" : "border";
}

template <class T>
static std::vector<T> run_kernel(int which, cudaTextureObject_t t, const std::vector<float>& c, int n) {
  float* dc; T* dout;
  cudaMalloc(&dc, c.size() * 4 + 4);
  cudaMalloc(&dout, n * sizeof(T) + 4);
  cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice);
  int b = 64, g = (n + b - 1) / b;
  if (which == 1) k1d<T><<<g, b>>>(t, dc, dout, n);
  else if (which == 2) k2d<T><<<g, b>>>(t, dc, dout, n);
  else if (which == 3) k3d<T><<<g, b>>>(t, dc, dout, n);
  else k2dlod<T><<<g, b>>>(t, dc, dout, n);
  std::vector<T> out(n);
  cudaError_t e = cudaMemcpy(out.data(), dout, n * sizeof(T), cudaMemcpyDeviceToHost);
  if (e) fprintf(stderr, "kernel error %d\n", (int)e);
  cudaFree(dc); cudaFree(dout);
  return out;
}

static cudaTextureObject_t make_tex(cudaArray_t a, int mode, int filter, int norm, int readmode,
                                    float border, cudaError_t* err) {
  cudaResourceDesc r; memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray; r.res.array.array = a;
  cudaTextureDesc d; memset(&d, 0, sizeof d);
  for (int i = 0; i < 3; i++) d.addressMode[i] = (cudaTextureAddressMode)mode;
  d.filterMode = (cudaTextureFilterMode)filter;
  d.readMode = (cudaTextureReadMode)readmode;
  d.normalizedCoords = norm;
  for (int i = 0; i < 4; i++) d.borderColor[i] = border + 0.125f * i;
  cudaTextureObject_t t = 0;
  *err = cudaCreateTextureObject(&t, &r, &d, nullptr);
  return t;
}

// coordinates: random ones plus texel centres and edges
static std::vector<float> coords(int dims, int n, float lo, float hi, const int* size, bool norm) {
  std::vector<float> c;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < dims; k++) {
      float v;
      if (i % 8 == 0) {   // a texel centre or edge, exactly
        int j = (int)(lcg() % (size[k] + 2)) - 1;
        v = j + ((i / 8) % 2 ? 0.5f : 0.0f);
        if (norm) v /= size[k];
      } else {
        v = frand(lo, hi);
      }
      c.push_back(v);
    }
  return c;
}

// ---------------------------------------------------------------- sections

static void float2d() {
  const int W = 5, H = 4;
  std::vector<float> data(W * H);
  for (auto& v : data) v = frand(-10.f, 10.f);
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  cudaMallocArray(&a, &cd, W, H);
  cudaMemcpy2DToArray(a, 0, 0, data.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice);
  int size[2] = {W, H};
  for (int norm = 0; norm < 2; norm++)
    for (int filter = 0; filter < 2; filter++)
      for (int mode = 0; mode < 4; mode++) {
        char name[96];
        snprintf(name, sizeof name, "float2d_%s_%s_%s", mode_name(mode), filter ? "linear" : "point",
                 norm ? "norm" : "unnorm");
        begin_case(name);
        jint("w", W); jint("h", H); jint("mode", mode); jint("filter", filter); jint("norm", norm);
        jfloats("data", data.data(), data.size());
        cudaError_t e;
        cudaTextureObject_t t = make_tex(a, mode, filter, norm, cudaReadModeElementType, 0.25f, &e);
        jerr("create", e);
        std::vector<float> c = norm ? coords(2, 128, -1.6f, 2.6f, size, true)
                                    : coords(2, 128, -3.0f, 8.0f, size, false);
        std::vector<float> out = run_kernel<float>(2, t, c, 128);
        jfloats("coords", c.data(), c.size());
        jfloats("out", out.data(), out.size());
        if (mode == 1 && filter == 1 && norm == 1) {
          std::vector<float> lod = run_kernel<float>(4, t, c, 128);
          jfloats("out_lod0", lod.data(), lod.size());
        }
        end_case();
        cudaDestroyTextureObject(t);
      }
  cudaFreeArray(a);
}

static void float1d_3d() {
  const int N = 7;
  std::vector<float> data(N);
  for (auto& v : data) v = frand(-4.f, 4.f);
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  cudaMallocArray(&a, &cd, N, 0);
  cudaMemcpy2DToArray(a, 0, 0, data.data(), N * 4, N * 4, 1, cudaMemcpyHostToDevice);
  int size[1] = {N};
  for (int norm = 0; norm < 2; norm++)
    for (int mode = 0; mode < 4; mode++) {
      char name[96];
      snprintf(name, sizeof name, "float1d_%s_linear_%s", mode_name(mode), norm ? "norm" : "unnorm");
      begin_case(name);
      jint("w", N); jint("mode", mode); jint("filter", 1); jint("norm", norm);
      jfloats("data", data.data(), data.size());
      cudaError_t e;
      cudaTextureObject_t t = make_tex(a, mode, 1, norm, cudaReadModeElementType, -1.5f, &e);
      jerr("create", e);
      std::vector<float> c = norm ? coords(1, 96, -1.6f, 2.6f, size, true)
                                  : coords(1, 96, -3.0f, 10.0f, size, false);
      std::vector<float> out = run_kernel<float>(1, t, c, 96);
      jfloats("coords", c.data(), c.size());
      jfloats("out", out.data(), out.size());
      end_case();
      cudaDestroyTextureObject(t);
    }
  cudaFreeArray(a);

  const int W = 3, H = 4, D = 2;
  std::vector<float> d3(W * H * D);
  for (auto& v : d3) v = frand(-8.f, 8.f);
  cudaArray_t a3;
  cudaMalloc3DArray(&a3, &cd, make_cudaExtent(W, H, D), 0);
  cudaMemcpy3DParms p; memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr(d3.data(), W * 4, W, H);
  p.dstArray = a3; p.extent = make_cudaExtent(W, H, D); p.kind = cudaMemcpyHostToDevice;
  cudaMemcpy3D(&p);
  int s3[3] = {W, H, D};
  for (int mode = 0; mode < 4; mode++) {
    char name[96];
    snprintf(name, sizeof name, "float3d_%s_linear_norm", mode_name(mode));
    begin_case(name);
    jint("w", W); jint("h", H); jint("d", D); jint("mode", mode); jint("filter", 1); jint("norm", 1);
    jfloats("data", d3.data(), d3.size());
    cudaError_t e;
    cudaTextureObject_t t = make_tex(a3, mode, 1, 1, cudaReadModeElementType, 2.0f, &e);
    jerr("create", e);
    std::vector<float> c = coords(3, 96, -1.3f, 2.3f, s3, true);
    // then one axis at a time (the others at a texel centre)
    for (int ax = 0; ax < 3; ax++)
      for (int q = 0; q < 32; q++)
        for (int k = 0; k < 3; k++)
          c.push_back(k == ax ? frand(-1.3f, 2.3f) : (1.5f / s3[k]));
    std::vector<float> out = run_kernel<float>(3, t, c, 96 + 96);
    jfloats("coords", c.data(), c.size());
    jfloats("out", out.data(), out.size());
    end_case();
    cudaDestroyTextureObject(t);
  }
  cudaFreeArray(a3);
}

// 8/16-bit integer textures read as normalized floats (and as elements)
template <class E, int NC>
static void int_norm(const char* tag, int bits, cudaChannelFormatKind kind) {
  const int W = 4, H = 3;
  std::vector<E> data(W * H * NC);
  long long lo = kind == cudaChannelFormatKindSigned ? -(1LL << (bits - 1)) : 0;
  long long span = 1LL << bits;
  for (size_t i = 0; i < data.size(); i++) data[i] = (E)(lo + (long long)(lcg() % span));
  data[0] = (E)lo;                  // the extremes, exactly
  data[1] = (E)(lo + span - 1);
  cudaChannelFormatDesc cd = cudaCreateChannelDesc(bits, NC > 1 ? bits : 0, NC > 2 ? bits : 0,
                                                   NC > 3 ? bits : 0, kind);
  cudaArray_t a;
  cudaMallocArray(&a, &cd, W, H);
  cudaMemcpy2DToArray(a, 0, 0, data.data(), W * sizeof(E) * NC, W * sizeof(E) * NC, H,
                      cudaMemcpyHostToDevice);
  int size[2] = {W, H};
  for (int filter = 0; filter < 2; filter++)
    for (int mode = 1; mode < 4; mode += 2) {
      char name[96];
      snprintf(name, sizeof name, "%s_normfloat_%s_%s", tag, mode_name(mode), filter ? "linear" : "point");
      begin_case(name);
      jint("w", W); jint("h", H); jint("channels", NC); jint("bits", bits);
      jint("signed", kind == cudaChannelFormatKindSigned); jint("mode", mode); jint("filter", filter);
      jint("norm", 0);
      std::vector<long long> dv(data.begin(), data.end());
      jints("data", dv.data(), dv.size());
      cudaError_t e;
      cudaTextureObject_t t = make_tex(a, mode, filter, 0, cudaReadModeNormalizedFloat, 0.25f, &e);
      jerr("create", e);
      std::vector<float> c = coords(2, 64, -2.0f, 6.0f, size, false);
      jfloats("coords", c.data(), c.size());
      if (NC == 1) {
        std::vector<float> out = run_kernel<float>(2, t, c, 64);
        jfloats("out", out.data(), out.size());
      } else {
        std::vector<float4> out = run_kernel<float4>(2, t, c, 64);
        jfloats("out", (float*)out.data(), out.size() * 4);
      }
      end_case();
      cudaDestroyTextureObject(t);
    }
  // element type, point, border: the raw integers
  {
    char name[96];
    snprintf(name, sizeof name, "%s_element_border_point", tag);
    begin_case(name);
    cudaError_t e;
    cudaTextureObject_t t = make_tex(a, cudaAddressModeBorder, 0, 0, cudaReadModeElementType, 3.0f, &e);
    jerr("create", e);
    std::vector<float> c = coords(2, 32, -2.0f, 6.0f, size, false);
    jfloats("coords", c.data(), c.size());
    std::vector<long long> ov;
    if (NC == 1) {
      std::vector<E> out = run_kernel<E>(2, t, c, 32);
      ov.assign(out.begin(), out.end());
    }
    jints("out", ov.data(), ov.size());
    end_case();
    cudaDestroyTextureObject(t);
    // linear filtering of an element-type integer texture
    t = make_tex(a, cudaAddressModeClamp, 1, 0, cudaReadModeElementType, 0.f, &e);
    snprintf(name, sizeof name, "%s_element_linear_create", tag);
    begin_case(name); jerr("create", e); end_case();
    if (!e) cudaDestroyTextureObject(t);
  }
  cudaFreeArray(a);
}

static void fetch() {
  const int N = 10;
  std::vector<float> data(N);
  for (auto& v : data) v = frand(-5.f, 5.f);
  float* d; cudaMalloc(&d, N * 4);
  cudaMemcpy(d, data.data(), N * 4, cudaMemcpyHostToDevice);
  std::vector<int> idx;
  for (int i = -3; i < N + 5; i++) idx.push_back(i);
  idx.push_back(1 << 20); idx.push_back(-(1 << 20));
  int n = idx.size();
  int* didx; cudaMalloc(&didx, n * 4);
  cudaMemcpy(didx, idx.data(), n * 4, cudaMemcpyHostToDevice);
  float* dout; cudaMalloc(&dout, n * 16);

  for (int variant = 0; variant < 3; variant++) {
    cudaResourceDesc r; memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeLinear;
    cudaTextureDesc td; memset(&td, 0, sizeof td);
    const char* name;
    if (variant == 0) {
      r.res.linear.devPtr = d; r.res.linear.desc = cudaCreateChannelDesc<float>();
      r.res.linear.sizeInBytes = N * 4; name = "fetch_float";
    } else if (variant == 1) {   // bytes of the same buffer as u8 normalized
      r.res.linear.devPtr = d; r.res.linear.desc = cudaCreateChannelDesc<unsigned char>();
      r.res.linear.sizeInBytes = N; td.readMode = cudaReadModeNormalizedFloat; name = "fetch_u8_normfloat";
    } else {                      // as int2 pairs
      r.res.linear.devPtr = d; r.res.linear.desc = cudaCreateChannelDesc<int2>();
      r.res.linear.sizeInBytes = N * 4; name = "fetch_int2";
    }
    td.addressMode[0] = cudaAddressModeBorder;   // ignored for linear memory
    cudaTextureObject_t t = 0;
    cudaError_t e = cudaCreateTextureObject(&t, &r, &td, nullptr);
    begin_case(name);
    jerr("create", e);
    jfloats("data", data.data(), data.size());
    std::vector<long long> iv(idx.begin(), idx.end());
    jints("idx", iv.data(), iv.size());
    int b = 64, g = (n + b - 1) / b;
    std::vector<float> out(n * 2);
    if (variant == 2) {
      kfetch<int2><<<g, b>>>(t, didx, (int2*)dout, n);
      cudaMemcpy(out.data(), dout, n * 8, cudaMemcpyDeviceToHost);
      jfloats("out", out.data(), n * 2);
    } else {
      kfetch<float><<<g, b>>>(t, didx, dout, n);
      cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
      jfloats("out", out.data(), n);
    }
    end_case();
    cudaDestroyTextureObject(t);
  }
  cudaFree(d); cudaFree(didx); cudaFree(dout);
}

static void surfaces() {
  const int W = 4, H = 3;
  std::vector<float> data(W * H);
  for (int i = 0; i < W * H; i++) data[i] = i + 1;
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  cudaMallocArray(&a, &cd, W, H, cudaArraySurfaceLoadStore);
  cudaMemcpy2DToArray(a, 0, 0, data.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice);
  cudaResourceDesc r; memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray; r.res.array.array = a;
  cudaSurfaceObject_t s = 0;
  cudaError_t e = cudaCreateSurfaceObject(&s, &r);
  std::vector<int> xy;
  int xs[] = {-8, -4, 0, 4, 8, 12, 16, 20, 400};
  int ys[] = {-1, 0, 2, 3, 5};
  for (int x : xs) for (int y : ys) { xy.push_back(x); xy.push_back(y); }
  int n = xy.size() / 2;
  int* dxy; cudaMalloc(&dxy, xy.size() * 4);
  cudaMemcpy(dxy, xy.data(), xy.size() * 4, cudaMemcpyHostToDevice);
  float* dout; cudaMalloc(&dout, n * 4);
  for (int mode = 0; mode < 2; mode++) {
    begin_case(mode ? "surf2Dread_clamp" : "surf2Dread_zero");
    jerr("create", e);
    std::vector<long long> v(xy.begin(), xy.end());
    jints("xy", v.data(), v.size());
    ksurf<<<1, 64>>>(s, dxy, dout, n, mode);
    std::vector<float> out(n);
    jerr("sync", cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost));
    jfloats("out", out.data(), n);
    end_case();
  }
  // writes out of range: zero mode drops them, clamp mode clamps them
  begin_case("surf2Dwrite_zero_clamp");
  ksurfwrite<<<1, 1>>>(s, 16, 1, 100.f, 0);   // x past the end: dropped
  ksurfwrite<<<1, 1>>>(s, -4, 1, 200.f, 0);
  ksurfwrite<<<1, 1>>>(s, 20, 1, 300.f, 1);   // clamped to x = 12 (the last float)
  ksurfwrite<<<1, 1>>>(s, -8, 2, 400.f, 1);   // clamped to x = 0
  jerr("sync", cudaDeviceSynchronize());
  std::vector<float> back(W * H);
  cudaMemcpy2DFromArray(back.data(), W * 4, a, 0, 0, W * 4, H, cudaMemcpyDeviceToHost);
  jfloats("after", back.data(), back.size());
  end_case();

  // API errors
  begin_case("surface_api");
  cudaArray_t plain;
  cudaMallocArray(&plain, &cd, W, H);
  r.res.array.array = plain;
  cudaSurfaceObject_t s2 = 0;
  jerr("create_without_surface_flag", cudaCreateSurfaceObject(&s2, &r));
  cudaResourceDesc rl; memset(&rl, 0, sizeof rl);
  rl.resType = cudaResourceTypeLinear; rl.res.linear.devPtr = dout;
  rl.res.linear.desc = cd; rl.res.linear.sizeInBytes = 64;
  jerr("create_linear", cudaCreateSurfaceObject(&s2, &rl));
  jerr("destroy_zero", cudaDestroySurfaceObject(0));
  end_case();
  cudaFreeArray(plain);
}

static void api_errors() {
  begin_case("array_api");
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr;
  jerr("mallocarray_w0", cudaMallocArray(&a, &cd, 0, 4));
  cudaChannelFormatDesc bad = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindFloat);
  jerr("mallocarray_bad_desc", cudaMallocArray(&a, &bad, 4, 4));
  cudaChannelFormatDesc bad2 = cudaCreateChannelDesc(24, 0, 0, 0, cudaChannelFormatKindUnsigned);
  jerr("mallocarray_24bit", cudaMallocArray(&a, &bad2, 4, 4));
  cudaChannelFormatDesc bad3 = cudaCreateChannelDesc(16, 16, 16, 0, cudaChannelFormatKindSigned);
  jerr("mallocarray_3channels", cudaMallocArray(&a, &bad3, 4, 4));
  cudaChannelFormatDesc f3 = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
  jerr("mallocarray_float3", cudaMallocArray(&a, &f3, 4, 4));
  if (a) { cudaFreeArray(a); a = nullptr; }
  jerr("mallocarray_w_65537", cudaMallocArray(&a, &cd, 65537, 4));
  if (a) { cudaFreeArray(a); a = nullptr; }
  jerr("mallocarray_w_131073", cudaMallocArray(&a, &cd, 131073, 0));
  if (a) { cudaFreeArray(a); a = nullptr; }
  jerr("mallocarray_ok", cudaMallocArray(&a, &cd, 8, 4));
  cudaChannelFormatDesc got; cudaExtent ext; unsigned int flags = 99;
  jerr("getinfo", cudaArrayGetInfo(&got, &ext, &flags, a));
  jint("info_x", got.x); jint("info_y", got.y); jint("info_f", got.f);
  jint("info_w", ext.width); jint("info_h", ext.height); jint("info_d", ext.depth); jint("info_flags", flags);
  cudaArray_t a1;
  cudaMallocArray(&a1, &cd, 8);
  cudaArrayGetInfo(&got, &ext, &flags, a1);
  jint("info1d_h", ext.height); jint("info1d_d", ext.depth);
  cudaFreeArray(a1);
  float host[64] = {0};
  jerr("copy_too_wide", cudaMemcpy2DToArray(a, 4, 0, host, 64, 20, 2, cudaMemcpyHostToDevice));
  jerr("copy_too_tall", cudaMemcpy2DToArray(a, 0, 3, host, 32, 32, 2, cudaMemcpyHostToDevice));
  jerr("copy_spitch_small", cudaMemcpy2DToArray(a, 0, 0, host, 8, 16, 2, cudaMemcpyHostToDevice));
  jerr("copy_width_not_elem", cudaMemcpy2DToArray(a, 0, 0, host, 32, 6, 2, cudaMemcpyHostToDevice));
  jerr("copy_woffset_not_elem", cudaMemcpy2DToArray(a, 2, 0, host, 32, 8, 2, cudaMemcpyHostToDevice));
  jerr("copy_bad_kind", cudaMemcpy2DToArray(a, 0, 0, host, 32, 32, 2, (cudaMemcpyKind)7));
  jerr("copy_d2h_kind_to_array", cudaMemcpy2DToArray(a, 0, 0, host, 32, 32, 2, cudaMemcpyDeviceToHost));
  jerr("from_too_wide", cudaMemcpy2DFromArray(host, 64, a, 0, 0, 36, 1, cudaMemcpyDeviceToHost));
  jerr("toarray_ok", cudaMemcpyToArray(a, 0, 0, host, 64, cudaMemcpyHostToDevice));
  jerr("toarray_wraps_rows", cudaMemcpyToArray(a, 16, 0, host, 32, cudaMemcpyHostToDevice));
  jerr("toarray_past_end", cudaMemcpyToArray(a, 16, 3, host, 32, cudaMemcpyHostToDevice));
  jerr("toarray_zero", cudaMemcpyToArray(a, 0, 0, host, 0, cudaMemcpyHostToDevice));

  // texture objects
  cudaResourceDesc r; memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray; r.res.array.array = a;
  cudaTextureDesc td; memset(&td, 0, sizeof td);
  cudaTextureObject_t t = 0;
  jerr("tex_null_res", cudaCreateTextureObject(&t, nullptr, &td, nullptr));
  jerr("tex_null_texdesc", cudaCreateTextureObject(&t, &r, nullptr, nullptr));
  jerr("tex_null_out", cudaCreateTextureObject(nullptr, &r, &td, nullptr));
  td.readMode = cudaReadModeNormalizedFloat;
  jerr("tex_normfloat_on_float", cudaCreateTextureObject(&t, &r, &td, nullptr));
  if (t) { cudaDestroyTextureObject(t); t = 0; }
  td.readMode = cudaReadModeElementType;
  td.addressMode[0] = (cudaTextureAddressMode)7;
  jerr("tex_bad_address_mode", cudaCreateTextureObject(&t, &r, &td, nullptr));
  if (t) { cudaDestroyTextureObject(t); t = 0; }
  td.addressMode[0] = cudaAddressModeClamp;
  td.filterMode = (cudaTextureFilterMode)5;
  jerr("tex_bad_filter", cudaCreateTextureObject(&t, &r, &td, nullptr));
  if (t) { cudaDestroyTextureObject(t); t = 0; }
  td.filterMode = cudaFilterModePoint;
  r.resType = (cudaResourceType)9;
  jerr("tex_bad_restype", cudaCreateTextureObject(&t, &r, &td, nullptr));
  r.resType = cudaResourceTypeArray; r.res.array.array = nullptr;
  jerr("tex_null_array", cudaCreateTextureObject(&t, &r, &td, nullptr));
  r.res.array.array = a;
  jerr("tex_ok", cudaCreateTextureObject(&t, &r, &td, nullptr));
  jint("tex_handle_nonzero", t != 0);
  cudaResourceDesc back; memset(&back, 0x5a, sizeof back);
  jerr("getresdesc", cudaGetTextureObjectResourceDesc(&back, t));
  jint("getresdesc_type", back.resType); jint("getresdesc_same_array", back.res.array.array == a);
  jerr("destroy_ok", cudaDestroyTextureObject(t));
  jerr("destroy_zero", cudaDestroyTextureObject(0));
  jerr("getresdesc_zero", cudaGetTextureObjectResourceDesc(&back, 0));

  float* d; cudaMalloc(&d, 4096);
  cudaResourceDesc rl; memset(&rl, 0, sizeof rl);
  rl.resType = cudaResourceTypeLinear; rl.res.linear.devPtr = d; rl.res.linear.desc = cd;
  rl.res.linear.sizeInBytes = 4096;
  jerr("linear_ok", cudaCreateTextureObject(&t, &rl, &td, nullptr));
  if (t) { cudaDestroyTextureObject(t); t = 0; }
  rl.res.linear.devPtr = (char*)d + 4;
  rl.res.linear.sizeInBytes = 1024;
  jerr("linear_misaligned", cudaCreateTextureObject(&t, &rl, &td, nullptr));
  if (t) { cudaDestroyTextureObject(t); t = 0; }
  rl.res.linear.devPtr = d;
  rl.res.linear.sizeInBytes = 0;
  jerr("linear_size0", cudaCreateTextureObject(&t, &rl, &td, nullptr));
  if (t) { cudaDestroyTextureObject(t); t = 0; }
  rl.res.linear.sizeInBytes = 1ull << 40;
  jerr("linear_too_big", cudaCreateTextureObject(&t, &rl, &td, nullptr));
  if (t) { cudaDestroyTextureObject(t); t = 0; }
  rl.res.linear.sizeInBytes = 4096;
  td.filterMode = cudaFilterModeLinear;
  jerr("linear_filter_linear", cudaCreateTextureObject(&t, &rl, &td, nullptr));
  if (t) { cudaDestroyTextureObject(t); t = 0; }
  td.filterMode = cudaFilterModePoint;

  cudaResourceDesc rp; memset(&rp, 0, sizeof rp);
  rp.resType = cudaResourceTypePitch2D; rp.res.pitch2D.devPtr = d; rp.res.pitch2D.desc = cd;
  rp.res.pitch2D.width = 8; rp.res.pitch2D.height = 4; rp.res.pitch2D.pitchInBytes = 128;
  jerr("pitch_ok", cudaCreateTextureObject(&t, &rp, &td, nullptr));
  if (t) { cudaDestroyTextureObject(t); t = 0; }
  rp.res.pitch2D.pitchInBytes = 48;
  jerr("pitch_not_32", cudaCreateTextureObject(&t, &rp, &td, nullptr));
  if (t) { cudaDestroyTextureObject(t); t = 0; }
  rp.res.pitch2D.pitchInBytes = 16;
  jerr("pitch_smaller_than_row", cudaCreateTextureObject(&t, &rp, &td, nullptr));
  if (t) { cudaDestroyTextureObject(t); t = 0; }
  rp.res.pitch2D.pitchInBytes = 128; rp.res.pitch2D.devPtr = (char*)d + 16;
  jerr("pitch_misaligned_ptr", cudaCreateTextureObject(&t, &rp, &td, nullptr));
  if (t) { cudaDestroyTextureObject(t); t = 0; }
  rp.res.pitch2D.devPtr = d; rp.res.pitch2D.width = 0;
  jerr("pitch_width0", cudaCreateTextureObject(&t, &rp, &td, nullptr));
  if (t) { cudaDestroyTextureObject(t); t = 0; }
  cudaFree(d);
  jerr("freearray_ok", cudaFreeArray(a));
  jerr("freearray_null", cudaFreeArray(nullptr));
  cudaExtent e3 = make_cudaExtent(4, 4, 4);
  cudaArray_t a3 = nullptr;
  jerr("malloc3d_ok", cudaMalloc3DArray(&a3, &cd, e3, 0));
  if (a3) cudaFreeArray(a3);
  a3 = nullptr;
  jerr("malloc3d_layered", cudaMalloc3DArray(&a3, &cd, e3, cudaArrayLayered));
  if (a3) cudaFreeArray(a3);
  a3 = nullptr;
  jerr("malloc3d_cubemap_4x4x4", cudaMalloc3DArray(&a3, &cd, e3, cudaArrayCubemap));
  if (a3) cudaFreeArray(a3);
  a3 = nullptr;
  jerr("malloc3d_w0", cudaMalloc3DArray(&a3, &cd, make_cudaExtent(0, 4, 4), 0));
  jerr("malloc3d_bad_flags", cudaMalloc3DArray(&a3, &cd, e3, 0x1000));
  end_case();
}

// one surface write that breaks the context, in a process of its own:
// probe_texture surf N  (run_probe_texture.sh runs N = 0..3)
static int surf_case(int q) {
  const int xs2[] = {16, -4, 6, 2};
  const int modes2[] = {2, 2, 1, 0};
  const char* names2[] = {"surf2Dwrite_trap_past_end", "surf2Dwrite_trap_negative",
                          "surf2Dwrite_clamp_misaligned", "surf2Dwrite_zero_misaligned"};
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  cudaMallocArray(&a, &cd, 4, 3, cudaArraySurfaceLoadStore);
  cudaResourceDesc r; memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray; r.res.array.array = a;
  cudaSurfaceObject_t s = 0;
  cudaCreateSurfaceObject(&s, &r);
  ksurfwrite<<<1, 1>>>(s, xs2[q], 1, 1.f, modes2[q]);
  cudaError_t e = cudaDeviceSynchronize();
  printf("{\"case\": \"%s\", \"x\": %d, \"mode\": %d", names2[q], xs2[q], modes2[q]);
  jerr("sync", e);
  printf("}\n");
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && !strcmp(argv[1], "surf")) return surf_case(atoi(argv[2]));
  cudaFree(0);
  printf("{\"cases\": [");
  float2d();
  float1d_3d();
  int_norm<unsigned char, 1>("u8", 8, cudaChannelFormatKindUnsigned);
  int_norm<unsigned char, 4>("u8x4", 8, cudaChannelFormatKindUnsigned);
  int_norm<signed char, 1>("s8", 8, cudaChannelFormatKindSigned);
  int_norm<unsigned short, 1>("u16", 16, cudaChannelFormatKindUnsigned);
  int_norm<short, 1>("s16", 16, cudaChannelFormatKindSigned);
  fetch();
  api_errors();
  surfaces();
  printf("\n]}\n");
  return 0;
}
