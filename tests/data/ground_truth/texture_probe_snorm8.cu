// Ground-truth probe (run on an H200 on 2026-12-03: texture_snorm8_h200.bin) of
// 1-D linear filtering of a signed 8-bit texture read with
// cudaReadModeNormalizedFloat: every pair of neighbouring texels (i, i + 1)
// at every 8-bit weight A (x = i + 0.5 + A/256), over two textures of 256
// texels: -128..127 ascending, and a pseudo-random order (LCG, seed 7).
// pyemu's rule (the exact weighted sum rounded half up to R/32767) misses 4%
// of texture_filter_h200.json's signed 8-bit values; this table gives the
// lerp of each pair directly, to find the rule.
// Writes out.bin: the 2 x 256 texel bytes, then for each texture 255 x 256
// floats (little endian), sample (i, A) at index i * 256 + A.
// Build: nvcc -O2 -arch=sm_90 -o texture_probe_snorm8 texture_probe_snorm8.cu
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

__global__ void k(cudaTextureObject_t t, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { int c = i >> 8, a = i & 255; o[i] = tex1D<float>(t, c + 0.5f + a / 256.0f); }
}

int main() {
  int8_t d[2][256];
  uint32_t s = 7;
  for (int i = 0; i < 256; i++) d[0][i] = (int8_t)(i - 128);
  for (int i = 0; i < 256; i++) { s = s * 1664525u + 1013904223u; d[1][i] = (int8_t)(s >> 24); }
  FILE *f = fopen("out.bin", "wb");
  fwrite(d, 1, 512, f);
  int n = 255 * 256;
  float *o;
  cudaMalloc(&o, n * 4);
  float *h = new float[n];
  for (int v = 0; v < 2; v++) {
    cudaChannelFormatDesc cd = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindSigned);
    cudaArray_t a;
    cudaMallocArray(&a, &cd, 256, 0);
    cudaMemcpy2DToArray(a, 0, 0, d[v], 256, 256, 1, cudaMemcpyHostToDevice);
    cudaResourceDesc r = {};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeNormalizedFloat;
    cudaTextureObject_t t;
    cudaCreateTextureObject(&t, &r, &td, 0);
    k<<<(n + 255) / 256, 256>>>(t, o, n);
    cudaMemcpy(h, o, n * 4, cudaMemcpyDeviceToHost);
    fwrite(h, 4, n, f);
    cudaDestroyTextureObject(t);
    cudaFreeArray(a);
  }
  fclose(f);
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
