// Ground-truth probe: cudaMemcpy3D with CUDA arrays (valid copies and the
// error code of each misuse), layered and cubemap arrays and their fetches
// (tex1DLayered, tex2DLayered, texCubemap: face selection, ties, layer
// clamping).  Prints one JSON document.  Not run in CI.
// Build: nvcc -O2 -arch=sm_90 -o probe_array3d probe_array3d.cu
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <vector>

static bool first = true;
static void err(const char* name, cudaError_t e) {
  printf("%s\n  \"%s\": %d", first ? "" : ",", name, (int)e);
  first = false;
  cudaGetLastError();
}
static uint32_t fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

__global__ void kl2(cudaTextureObject_t t, const float* c, float* o, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) o[i] = tex2DLayered<float>(t, c[3 * i], c[3 * i + 1], (int)c[3 * i + 2]);
}
__global__ void kl1(cudaTextureObject_t t, const float* c, float* o, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) o[i] = tex1DLayered<float>(t, c[3 * i], (int)c[3 * i + 2]);
}
__global__ void kcube(cudaTextureObject_t t, const float* c, float* o, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) o[i] = texCubemap<float>(t, c[3 * i], c[3 * i + 1], c[3 * i + 2]);
}
__global__ void kcubel(cudaTextureObject_t t, const float* c, float* o, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) o[i] = texCubemapLayered<float>(t, c[4 * i], c[4 * i + 1], c[4 * i + 2], (int)c[4 * i + 3]);
}

static cudaTextureObject_t mk(cudaArray_t a, bool linear, bool norm, cudaTextureAddressMode am) {
  cudaResourceDesc r = {};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaTextureDesc d = {};
  d.addressMode[0] = d.addressMode[1] = d.addressMode[2] = am;
  d.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
  d.readMode = cudaReadModeElementType;
  d.normalizedCoords = norm;
  cudaTextureObject_t t = 0;
  cudaError_t e = cudaCreateTextureObject(&t, &r, &d, nullptr);
  if (e) printf("/* create %d */", (int)e);
  return t;
}

static void run(const char* name, void (*k)(cudaTextureObject_t, const float*, float*, int),
                cudaTextureObject_t t, const std::vector<float>& c, int stride) {
  int n = (int)c.size() / stride;
  float *dc, *dout;
  cudaMalloc(&dc, c.size() * 4);
  cudaMalloc(&dout, n * 4);
  cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice);
  k<<<(n + 63) / 64, 64>>>(t, dc, dout, n);
  std::vector<float> out(n);
  cudaError_t e = cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
  printf("%s\n  \"%s\": {\"rc\": %d, \"coords\": [", first ? "" : ",", name, (int)e);
  first = false;
  for (size_t i = 0; i < c.size(); i++) printf("%s\"%08x\"", i ? "," : "", fb(c[i]));
  printf("], \"out\": [");
  for (int i = 0; i < n; i++) printf("%s\"%08x\"", i ? "," : "", fb(out[i]));
  printf("]}");
  cudaFree(dc);
  cudaFree(dout);
}

int main() {
  printf("{");
  cudaChannelFormatDesc f4 = cudaCreateChannelDesc<float>();
  cudaChannelFormatDesc u2 = cudaCreateChannelDesc<unsigned short>();
  cudaArray_t a3, b3, a2, c3;
  err("malloc_a3", cudaMalloc3DArray(&a3, &f4, make_cudaExtent(8, 6, 4)));
  err("malloc_b3", cudaMalloc3DArray(&b3, &f4, make_cudaExtent(8, 6, 4)));
  err("malloc_a2", cudaMalloc3DArray(&a2, &f4, make_cudaExtent(8, 6, 0)));
  err("malloc_c3_u16", cudaMalloc3DArray(&c3, &u2, make_cudaExtent(8, 6, 4)));
  std::vector<float> h(8 * 6 * 4), g(8 * 6 * 4, -1.0f);
  for (size_t i = 0; i < h.size(); i++) h[i] = (float)i;
  void* dp;
  size_t pitch;
  cudaMallocPitch(&dp, &pitch, 64, 24);
  cudaPitchedPtr hp = make_cudaPitchedPtr(h.data(), 32, 8, 6);
  cudaPitchedPtr gp = make_cudaPitchedPtr(g.data(), 32, 8, 6);
  cudaPitchedPtr dpp = make_cudaPitchedPtr(dp, pitch, 64, 6);

  // valid copies: host -> array (extent in elements), array -> array, array -> host
  cudaMemcpy3DParms p = {};
  p.srcPtr = hp; p.dstArray = a3; p.extent = make_cudaExtent(8, 6, 4); p.kind = cudaMemcpyHostToDevice;
  err("h2a_full", cudaMemcpy3D(&p));
  p = {}; p.srcArray = a3; p.srcPos = make_cudaPos(1, 2, 1); p.dstArray = b3; p.dstPos = make_cudaPos(2, 1, 0);
  p.extent = make_cudaExtent(3, 2, 2); p.kind = cudaMemcpyDeviceToDevice;
  err("a2a_box", cudaMemcpy3D(&p));
  p = {}; p.srcArray = b3; p.dstPtr = gp; p.extent = make_cudaExtent(8, 6, 4); p.kind = cudaMemcpyDeviceToHost;
  err("a2h_full", cudaMemcpy3D(&p));
  printf(",\n  \"a2a_result\": [");
  for (size_t i = 0; i < g.size(); i++) printf("%s%g", i ? "," : "", g[i]);
  printf("]");
  // extent width past the array, in elements
  p = {}; p.srcPtr = hp; p.dstArray = a3; p.extent = make_cudaExtent(9, 6, 1); p.kind = cudaMemcpyHostToDevice;
  err("h2a_width_past", cudaMemcpy3D(&p));
  p = {}; p.srcPtr = hp; p.dstArray = a3; p.dstPos = make_cudaPos(1, 0, 0); p.extent = make_cudaExtent(8, 1, 1); p.kind = cudaMemcpyHostToDevice;
  err("h2a_pos_width_past", cudaMemcpy3D(&p));
  p = {}; p.srcPtr = hp; p.dstArray = a3; p.extent = make_cudaExtent(8, 7, 1); p.kind = cudaMemcpyHostToDevice;
  err("h2a_height_past", cudaMemcpy3D(&p));
  p = {}; p.srcPtr = make_cudaPitchedPtr(h.data(), 32, 8, 8); p.dstArray = a3; p.dstPos = make_cudaPos(0, 0, 2); p.extent = make_cudaExtent(8, 6, 3); p.kind = cudaMemcpyHostToDevice;
  err("h2a_depth_past", cudaMemcpy3D(&p));
  p = {}; p.srcPtr = hp; p.dstArray = a2; p.extent = make_cudaExtent(8, 6, 2); p.kind = cudaMemcpyHostToDevice;
  err("h2a_2d_depth2", cudaMemcpy3D(&p));
  p = {}; p.srcPtr = hp; p.dstArray = a2; p.extent = make_cudaExtent(8, 6, 1); p.kind = cudaMemcpyHostToDevice;
  err("h2a_2d_ok", cudaMemcpy3D(&p));
  // both array and pointer on one side
  p = {}; p.srcPtr = hp; p.srcArray = b3; p.dstArray = a3; p.extent = make_cudaExtent(8, 6, 1); p.kind = cudaMemcpyHostToDevice;
  err("src_both", cudaMemcpy3D(&p));
  p = {}; p.srcPtr = hp; p.dstArray = a3; p.dstPtr = dpp; p.extent = make_cudaExtent(8, 6, 1); p.kind = cudaMemcpyHostToDevice;
  err("dst_both", cudaMemcpy3D(&p));
  // neither
  p = {}; p.dstArray = a3; p.extent = make_cudaExtent(8, 6, 1); p.kind = cudaMemcpyHostToDevice;
  err("src_neither", cudaMemcpy3D(&p));
  // element size mismatch array to array
  p = {}; p.srcArray = c3; p.dstArray = a3; p.extent = make_cudaExtent(4, 2, 1); p.kind = cudaMemcpyDeviceToDevice;
  err("a2a_format_mismatch", cudaMemcpy3D(&p));
  // wrong kinds
  p = {}; p.srcPtr = hp; p.dstArray = a3; p.extent = make_cudaExtent(8, 6, 1); p.kind = cudaMemcpyDeviceToHost;
  err("h2a_kind_d2h", cudaMemcpy3D(&p));
  p = {}; p.srcArray = a3; p.dstArray = b3; p.extent = make_cudaExtent(8, 6, 1); p.kind = cudaMemcpyHostToDevice;
  err("a2a_kind_h2d", cudaMemcpy3D(&p));
  p = {}; p.srcArray = a3; p.dstArray = b3; p.extent = make_cudaExtent(8, 6, 1); p.kind = cudaMemcpyDefault;
  err("a2a_kind_default", cudaMemcpy3D(&p));
  p = {}; p.srcArray = a3; p.dstArray = b3; p.extent = make_cudaExtent(8, 6, 1); p.kind = (cudaMemcpyKind)7;
  err("a2a_kind_bad", cudaMemcpy3D(&p));
  // pitch of the linear side less than the width in bytes
  p = {}; p.srcPtr = make_cudaPitchedPtr(h.data(), 16, 4, 6); p.dstArray = a3; p.extent = make_cudaExtent(8, 6, 1); p.kind = cudaMemcpyHostToDevice;
  err("h2a_src_pitch_small", cudaMemcpy3D(&p));
  p = {}; p.srcArray = a3; p.dstPtr = make_cudaPitchedPtr(g.data(), 16, 4, 6); p.extent = make_cudaExtent(8, 6, 1); p.kind = cudaMemcpyDeviceToHost;
  err("a2h_dst_pitch_small", cudaMemcpy3D(&p));
  // device pitched <-> array with linear pos in bytes
  p = {}; p.srcArray = a3; p.dstPtr = dpp; p.dstPos = make_cudaPos(4, 0, 0); p.extent = make_cudaExtent(8, 6, 1); p.kind = cudaMemcpyDeviceToDevice;
  err("a2d_dstpos_bytes", cudaMemcpy3D(&p));
  // zero extent
  p = {}; p.srcPtr = hp; p.dstArray = a3; p.extent = make_cudaExtent(0, 6, 1); p.kind = cudaMemcpyHostToDevice;
  err("h2a_zero_width", cudaMemcpy3D(&p));
  // async
  p = {}; p.srcPtr = hp; p.dstArray = a3; p.extent = make_cudaExtent(8, 6, 4); p.kind = cudaMemcpyHostToDevice;
  err("h2a_async", cudaMemcpy3DAsync(&p, 0));
  cudaDeviceSynchronize();
  // overlap a->a same array
  p = {}; p.srcArray = a3; p.dstArray = a3; p.dstPos = make_cudaPos(1, 0, 0); p.extent = make_cudaExtent(4, 2, 1); p.kind = cudaMemcpyDeviceToDevice;
  err("a2a_same_overlap", cudaMemcpy3D(&p));

  // layered / cubemap allocation
  cudaArray_t l1, l2, cm, cml, bad;
  err("malloc_layered1d", cudaMalloc3DArray(&l1, &f4, make_cudaExtent(8, 0, 3), cudaArrayLayered));
  err("malloc_layered2d", cudaMalloc3DArray(&l2, &f4, make_cudaExtent(4, 3, 3), cudaArrayLayered));
  err("malloc_cubemap", cudaMalloc3DArray(&cm, &f4, make_cudaExtent(4, 4, 6), cudaArrayCubemap));
  err("malloc_cubemap_layered", cudaMalloc3DArray(&cml, &f4, make_cudaExtent(4, 4, 12), cudaArrayCubemap | cudaArrayLayered));
  err("malloc_cubemap_not_square", cudaMalloc3DArray(&bad, &f4, make_cudaExtent(4, 3, 6), cudaArrayCubemap));
  err("malloc_cubemap_depth5", cudaMalloc3DArray(&bad, &f4, make_cudaExtent(4, 4, 5), cudaArrayCubemap));
  err("malloc_cubemap_layered_depth8", cudaMalloc3DArray(&bad, &f4, make_cudaExtent(4, 4, 8), cudaArrayCubemap | cudaArrayLayered));
  err("malloc_layered_depth0", cudaMalloc3DArray(&bad, &f4, make_cudaExtent(4, 3, 0), cudaArrayLayered));
  err("mallocarray_layered", cudaMallocArray(&bad, &f4, 4, 3, cudaArrayLayered));
  err("malloc_surface_layered", cudaMalloc3DArray(&bad, &f4, make_cudaExtent(4, 3, 2), cudaArrayLayered | cudaArraySurfaceLoadStore));
  {
    cudaExtent e; cudaChannelFormatDesc d; unsigned int fl;
    cudaArrayGetInfo(&d, &e, &fl, l2);
    printf(",\n  \"info_layered2d\": [%zu, %zu, %zu, %u]", e.width, e.height, e.depth, fl);
    cudaArrayGetInfo(&d, &e, &fl, l1);
    printf(",\n  \"info_layered1d\": [%zu, %zu, %zu, %u]", e.width, e.height, e.depth, fl);
    cudaArrayGetInfo(&d, &e, &fl, cm);
    printf(",\n  \"info_cubemap\": [%zu, %zu, %zu, %u]", e.width, e.height, e.depth, fl);
  }
  // fill: value = layer*100 + y*10 + x
  std::vector<float> L(4 * 3 * 3), L1(8 * 3), C(4 * 4 * 6), CL(4 * 4 * 12);
  for (int l = 0; l < 3; l++) for (int y = 0; y < 3; y++) for (int x = 0; x < 4; x++) L[(l * 3 + y) * 4 + x] = l * 100 + y * 10 + x;
  for (int l = 0; l < 3; l++) for (int x = 0; x < 8; x++) L1[l * 8 + x] = l * 100 + x;
  for (int f = 0; f < 12; f++) for (int y = 0; y < 4; y++) for (int x = 0; x < 4; x++) CL[(f * 4 + y) * 4 + x] = f * 100 + y * 10 + x;
  for (int i = 0; i < 96; i++) C[i] = CL[i];
  p = {}; p.srcPtr = make_cudaPitchedPtr(L.data(), 16, 4, 3); p.dstArray = l2; p.extent = make_cudaExtent(4, 3, 3); p.kind = cudaMemcpyHostToDevice;
  err("copy_layered2d", cudaMemcpy3D(&p));
  p = {}; p.srcPtr = make_cudaPitchedPtr(L1.data(), 32, 8, 1); p.dstArray = l1; p.extent = make_cudaExtent(8, 1, 3); p.kind = cudaMemcpyHostToDevice;
  err("copy_layered1d", cudaMemcpy3D(&p));
  p = {}; p.srcPtr = make_cudaPitchedPtr(C.data(), 16, 4, 4); p.dstArray = cm; p.extent = make_cudaExtent(4, 4, 6); p.kind = cudaMemcpyHostToDevice;
  err("copy_cubemap", cudaMemcpy3D(&p));
  p = {}; p.srcPtr = make_cudaPitchedPtr(CL.data(), 16, 4, 4); p.dstArray = cml; p.extent = make_cudaExtent(4, 4, 12); p.kind = cudaMemcpyHostToDevice;
  err("copy_cubemap_layered", cudaMemcpy3D(&p));
  p = {}; p.srcPtr = make_cudaPitchedPtr(L1.data(), 32, 8, 1); p.dstArray = l1; p.extent = make_cudaExtent(8, 2, 3); p.kind = cudaMemcpyHostToDevice;
  err("copy_layered1d_height2", cudaMemcpy3D(&p));

  std::vector<float> c2;
  float pts[][3] = {{0.5f, 0.5f, 0}, {1.5f, 2.5f, 1}, {3.5f, 1.5f, 2}, {2.5f, 0.5f, 3}, {2.5f, 0.5f, -1},
                    {2.5f, 0.5f, 7}, {9.f, 9.f, 1}, {-1.f, 1.5f, 2}, {1.75f, 1.25f, 1}, {0.5f, 0.5f, 100000}};
  for (auto& q : pts) c2.insert(c2.end(), q, q + 3);
  run("layered2d_point_clamp", kl2, mk(l2, false, false, cudaAddressModeClamp), c2, 3);
  run("layered2d_linear_clamp", kl2, mk(l2, true, false, cudaAddressModeClamp), c2, 3);
  run("layered2d_linear_border", kl2, mk(l2, true, false, cudaAddressModeBorder), c2, 3);
  run("layered1d_point", kl1, mk(l1, false, false, cudaAddressModeClamp), c2, 3);
  run("layered1d_linear", kl1, mk(l1, true, false, cudaAddressModeClamp), c2, 3);
  // cubemap directions: axis, diagonals (ties), off-axis
  std::vector<float> c3v;
  float dirs[][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1},
                     {1, 0.5f, 0.25f}, {-1, 0.5f, 0.25f}, {0.5f, 1, 0.25f}, {0.5f, -1, 0.25f},
                     {0.25f, 0.5f, 1}, {0.25f, 0.5f, -1}, {1, 1, 0}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1},
                     {-1, -1, -1}, {-1, 1, 0}, {0, -1, 1}, {1, 0, -1}, {2, -0.3f, 0.7f}, {-0.3f, 2, -0.9f},
                     {0.6f, -0.1f, -3}, {0.9f, 0.99f, 0.2f}, {0, 0, 0}, {1, -1, 0}, {0.5f, 0.5f, -0.5f}};
  for (auto& q : dirs) c3v.insert(c3v.end(), q, q + 3);
  run("cubemap_point_norm", kcube, mk(cm, false, true, cudaAddressModeClamp), c3v, 3);
  run("cubemap_linear_norm", kcube, mk(cm, true, true, cudaAddressModeClamp), c3v, 3);
  run("cubemap_point_unnorm", kcube, mk(cm, false, false, cudaAddressModeClamp), c3v, 3);
  run("cubemap_linear_wrap", kcube, mk(cm, true, true, cudaAddressModeWrap), c3v, 3);
  std::vector<float> c4v;
  for (int i = 0; i < 8; i++) { c4v.insert(c4v.end(), dirs[i * 3 % 27], dirs[i * 3 % 27] + 3); c4v.push_back((float)(i % 3)); }
  run("cubemap_layered_point", kcubel, mk(cml, false, true, cudaAddressModeClamp), c4v, 4);
  printf("\n}\n");
  return 0;
}
