// A kernel with 49 KiB of static __shared__ memory (48 KiB is the static limit).
// Built separately from probe.cu: the question is whether nvcc accepts it at all.
// If it does build, main() launches it and prints what the runtime says.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void k_static_49k(int* out) {
  __shared__ int s[49 * 1024 / 4];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x] + s[49 * 1024 / 4 - 1 - threadIdx.x];
}

int main() {
  int* d = nullptr;
  cudaMalloc(&d, 1024 * sizeof(int));
  k_static_49k<<<1, 32>>>(d);
  cudaError_t l = cudaGetLastError();
  cudaError_t s = cudaDeviceSynchronize();
  cudaFuncAttributes a;
  cudaError_t f = cudaFuncGetAttributes(&a, (const void*)k_static_49k);
  printf("{\"launch\":\"%s\",\"sync\":\"%s\",\"func_get_attributes\":\"%s\",\"sharedSizeBytes\":%zu}\n",
         cudaGetErrorName(l), cudaGetErrorName(s), cudaGetErrorName(f), a.sharedSizeBytes);
  return 0;
}
