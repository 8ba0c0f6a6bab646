// Ground truth for warp collectives: runs warp_kernels.cu on a GPU and prints
// JSON {case: [ints]}.  Build: nvcc -arch=sm_90 -o warp_probe warp_probe.cu
#include <cstdio>
#include <cstring>
#include "warp_kernels.cu"

static int *d_out;
static int h_out[64 * 32];

static void dump(const char *name, int count, bool last = false) {
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(h_out, d_out, count * sizeof(int), cudaMemcpyDeviceToHost);
  printf("\"%s\": {\"err\": %d, \"out\": [", name, (int)e);
  for (int i = 0; i < count; i++) printf("%s%d", i ? "," : "", h_out[i]);
  printf("]}%s\n", last ? "" : ",");
}

int main() {
  cudaMalloc(&d_out, sizeof h_out);
  printf("{\n");
  char name[64];
  int ns[] = {64, 48};
  for (int n : ns) {
    int widths[] = {32, 16, 8};
    int args[] = {1, 3, 17, 40, -1};
    for (int w : widths)
      for (int a : args) {
        cudaMemset(d_out, 0, sizeof h_out);
        gt_shfl<<<1, n>>>(d_out, a, w);
        snprintf(name, sizeof name, "shfl_n%d_w%d_a%d", n, w, a);
        dump(name, 4 * n);
      }
    cudaMemset(d_out, 0, sizeof h_out);
    gt_shfl_double<<<1, n>>>(d_out, 3);
    snprintf(name, sizeof name, "shfl_double_n%d", n); dump(name, 4 * n);
    cudaMemset(d_out, 0, sizeof h_out);
    gt_votes<<<1, n>>>(d_out);
    snprintf(name, sizeof name, "votes_n%d", n); dump(name, 16 * n);
    cudaMemset(d_out, 0, sizeof h_out);
    gt_half<<<1, n>>>(d_out);
    snprintf(name, sizeof name, "half_n%d", n); dump(name, 2 * n);
    cudaMemset(d_out, 0, sizeof h_out); gt_tile4<<<1, n>>>(d_out);
    snprintf(name, sizeof name, "tile4_n%d", n); dump(name, 12 * n);
    cudaMemset(d_out, 0, sizeof h_out); gt_tile8<<<1, n>>>(d_out);
    snprintf(name, sizeof name, "tile8_n%d", n); dump(name, 12 * n);
    cudaMemset(d_out, 0, sizeof h_out); gt_tile16<<<1, n>>>(d_out);
    snprintf(name, sizeof name, "tile16_n%d", n); dump(name, 12 * n);
    cudaMemset(d_out, 0, sizeof h_out); gt_tile32<<<1, n>>>(d_out);
    snprintf(name, sizeof name, "tile32_n%d", n); dump(name, 12 * n, n == 48);
  }
  printf("}\n");
  return 0;
}
