// Ground-truth probe of CUDA linear texture filtering where pyemu was not yet
// bit-exact: 3-D linear filtering (all three axes fractional) and linear
// filtering of 8/16-bit integer textures read as normalized floats
// (cudaReadModeNormalizedFloat), signed and unsigned, 1-D, 2-D and 3-D.
// Prints one JSON document: per case the texture description, the texel data
// (integers, or float bits as hex), the coordinates (float bits as hex) and
// the fetched values (float bits as hex).  Runs on a real GPU, not in CI.
// Build: nvcc -O2 -arch=sm_90 -o probe_texture_filter probe_texture_filter.cu
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

static uint32_t lcg_state = 2024u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }
static float frand(float lo, float hi) { return lo + (hi - lo) * ((lcg() >> 8) * (1.0f / 16777216.0f)); }
static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

static bool first_case = true;

__global__ void k1(cudaTextureObject_t t, const float* c, float4* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = tex1D<float4>(t, c[i]);
}
__global__ void k2(cudaTextureObject_t t, const float* c, float4* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = tex2D<float4>(t, c[2 * i], c[2 * i + 1]);
}
__global__ void k3(cudaTextureObject_t t, const float* c, float4* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = tex3D<float4>(t, c[3 * i], c[3 * i + 1], c[3 * i + 2]);
}

// kind: 'u' unsigned int, 's' signed int, 'f' float; bits 8/16/32; always 4 channels
// (float4 reads), data random over the type's full range.
static void run_case(const char* name, int dims, int W, int H, int D, char kind, int bits,
                     cudaTextureAddressMode am, bool normcoords, int ncoords) {
  int nch = 4;
  size_t texels = (size_t)W * H * D;
  size_t esz = bits / 8;
  std::vector<unsigned char> data(texels * nch * esz);
  std::vector<long long> ivals(texels * nch);
  std::vector<uint32_t> fvals(texels * nch);
  for (size_t i = 0; i < texels * nch; i++) {
    if (kind == 'f') {
      float f = frand(-4.0f, 4.0f);
      memcpy(&data[i * 4], &f, 4);
      fvals[i] = fbits(f);
    } else if (bits == 8) {
      uint8_t u = (uint8_t)(lcg() >> 24);
      data[i] = u;
      ivals[i] = kind == 's' ? (long long)(int8_t)u : (long long)u;
    } else {
      uint16_t u = (uint16_t)(lcg() >> 16);
      memcpy(&data[i * 2], &u, 2);
      ivals[i] = kind == 's' ? (long long)(int16_t)u : (long long)u;
    }
  }
  cudaChannelFormatKind ck = kind == 'f' ? cudaChannelFormatKindFloat
                           : kind == 's' ? cudaChannelFormatKindSigned : cudaChannelFormatKindUnsigned;
  cudaChannelFormatDesc cd = cudaCreateChannelDesc(bits, bits, bits, bits, ck);
  cudaArray_t arr;
  cudaExtent ext = make_cudaExtent(W, dims >= 2 ? H : 0, dims == 3 ? D : 0);
  CK(cudaMalloc3DArray(&arr, &cd, ext, 0));
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(data.data(), W * nch * esz, W, H);
  p.dstArray = arr;
  p.extent = make_cudaExtent(W, H, D);
  p.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&p));
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = arr;
  cudaTextureDesc td = {};
  for (int a = 0; a < 3; a++) td.addressMode[a] = am;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = kind == 'f' ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
  td.normalizedCoords = normcoords;
  cudaTextureObject_t tex;
  CK(cudaCreateTextureObject(&tex, &rd, &td, nullptr));

  // coordinates: random, plus a regular lattice of fractional positions
  std::vector<float> c;
  int dimsz[3] = {W, H, D};
  for (int i = 0; i < ncoords; i++) {
    for (int a = 0; a < dims; a++) {
      float v;
      if (i % 4 == 3) v = (float)(lcg() % (dimsz[a] * 8)) / 8.0f + 0.0f;  // eighths of a texel
      else v = frand(-0.75f, dimsz[a] + 0.75f);
      if (normcoords) v /= dimsz[a];
      c.push_back(v);
    }
  }
  float* dc; float4* dout;
  CK(cudaMalloc(&dc, c.size() * 4));
  CK(cudaMalloc(&dout, ncoords * sizeof(float4)));
  CK(cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice));
  int tb = 128, nb = (ncoords + tb - 1) / tb;
  if (dims == 1) k1<<<nb, tb>>>(tex, dc, dout, ncoords);
  else if (dims == 2) k2<<<nb, tb>>>(tex, dc, dout, ncoords);
  else k3<<<nb, tb>>>(tex, dc, dout, ncoords);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<float4> out(ncoords);
  CK(cudaMemcpy(out.data(), dout, ncoords * sizeof(float4), cudaMemcpyDeviceToHost));

  printf("%s\n{\"case\": \"%s\", \"dims\": %d, \"width\": %d, \"height\": %d, \"depth\": %d, "
         "\"kind\": \"%c\", \"bits\": %d, \"channels\": 4, \"address_mode\": %d, "
         "\"normalized_coords\": %s, \"read_mode\": \"%s\", \"filter\": \"linear\"",
         first_case ? "" : ",", name, dims, W, dims >= 2 ? H : 1, dims == 3 ? D : 1, kind, bits,
         (int)am, normcoords ? "true" : "false", kind == 'f' ? "element" : "normalized_float");
  first_case = false;
  printf(", \"data\": [");
  for (size_t i = 0; i < texels * nch; i++) {
    if (kind == 'f') printf("%s\"%08x\"", i ? "," : "", fvals[i]);
    else printf("%s%lld", i ? "," : "", ivals[i]);
  }
  printf("], \"coords\": [");
  for (size_t i = 0; i < c.size(); i++) printf("%s\"%08x\"", i ? "," : "", fbits(c[i]));
  printf("], \"results\": [");
  for (int i = 0; i < ncoords; i++)
    printf("%s\"%08x\",\"%08x\",\"%08x\",\"%08x\"", i ? "," : "", fbits(out[i].x), fbits(out[i].y),
           fbits(out[i].z), fbits(out[i].w));
  printf("]}");
  cudaDestroyTextureObject(tex);
  cudaFreeArray(arr);
  cudaFree(dc); cudaFree(dout);
}

int main() {
  printf("{\"cases\": [");
  // 3-D float linear filtering, every axis fractional
  run_case("3d_f32_clamp", 3, 5, 4, 3, 'f', 32, cudaAddressModeClamp, false, 600);
  run_case("3d_f32_border", 3, 4, 3, 3, 'f', 32, cudaAddressModeBorder, false, 400);
  run_case("3d_f32_wrap_norm", 3, 4, 4, 3, 'f', 32, cudaAddressModeWrap, true, 400);
  run_case("3d_f32_mirror_norm", 3, 3, 4, 5, 'f', 32, cudaAddressModeMirror, true, 400);
  // normalized 8/16-bit integers, 1/2/3-D
  run_case("1d_u8_clamp", 1, 16, 1, 1, 'u', 8, cudaAddressModeClamp, false, 400);
  run_case("1d_s16_border", 1, 16, 1, 1, 's', 16, cudaAddressModeBorder, false, 400);
  run_case("2d_u8_clamp", 2, 8, 6, 1, 'u', 8, cudaAddressModeClamp, false, 800);
  run_case("2d_s8_clamp", 2, 8, 6, 1, 's', 8, cudaAddressModeClamp, false, 800);
  run_case("2d_u16_clamp", 2, 8, 6, 1, 'u', 16, cudaAddressModeClamp, false, 800);
  run_case("2d_s16_clamp", 2, 8, 6, 1, 's', 16, cudaAddressModeClamp, false, 800);
  run_case("2d_u8_wrap_norm", 2, 8, 8, 1, 'u', 8, cudaAddressModeWrap, true, 400);
  run_case("2d_u16_border", 2, 6, 5, 1, 'u', 16, cudaAddressModeBorder, false, 400);
  run_case("3d_u8_clamp", 3, 4, 4, 3, 'u', 8, cudaAddressModeClamp, false, 600);
  run_case("3d_s16_clamp", 3, 4, 3, 4, 's', 16, cudaAddressModeClamp, false, 600);
  printf("\n]}\n");
  return 0;
}
