// nvcc 13.0 -O2 -arch=sm_90 on an H100 80GB HBM3, 2026-11-25; output: grid_probe_h100.txt
// grid_probe.cu - what an H100 does with this_grid() and grid.sync()
#include <cstdio>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void info(unsigned long long *out) {
    cg::grid_group g = cg::this_grid();
    unsigned long long t = g.thread_rank();
    unsigned long long *o = out + 8 * t;
    o[0] = t; o[1] = g.size(); o[2] = g.num_blocks(); o[3] = g.block_rank();
    o[4] = g.is_valid(); o[5] = g.dim_blocks().x * 10000 + g.dim_blocks().y * 100 + g.dim_blocks().z;
    o[6] = g.num_threads(); o[7] = g.block_index().x * 100 + g.block_index().y;
}
__global__ void twophase(int *a, int *b, int n) {
    cg::grid_group g = cg::this_grid();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = i * 3 + 1;
    g.sync();
    int j = (i + n / 2 + 7) % n;
    b[i] = a[j];
}
__global__ void plain_sync(int *a) {
    cg::grid_group g = cg::this_grid();
    a[blockIdx.x] = g.is_valid();
    g.sync();
    a[blockIdx.x + 8] = 5;
}
int main() {
    int v95 = -1, v96 = -1;
    cudaError_t e95 = cudaDeviceGetAttribute(&v95, (cudaDeviceAttr)95, 0);
    cudaError_t e96 = cudaDeviceGetAttribute(&v96, (cudaDeviceAttr)96, 0);
    printf("attr95 %d %s\nattr96 %d %s\n", v95, cudaGetErrorName(e95), v96, cudaGetErrorName(e96));
    cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
    printf("prop.cooperativeLaunch %d sms %d\n", p.cooperativeLaunch, p.multiProcessorCount);
    unsigned long long *o; cudaMalloc(&o, 8 * 8 * 64 * 8);
    dim3 grid(3, 2, 1), block(4, 2, 1);
    void *args[] = {&o};
    cudaError_t e = cudaLaunchCooperativeKernel((void *)info, grid, block, args, 0, 0);
    printf("coop info launch %s sync %s\n", cudaGetErrorName(e), cudaGetErrorName(cudaDeviceSynchronize()));
    unsigned long long h[48 * 8]; cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 48; t += 5) { printf("info coop t%d:", t); for (int k = 0; k < 8; k++) printf(" %llu", h[8*t+k]); printf("\n"); }
    info<<<grid, block>>>(o);
    printf("plain info sync %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 48; t += 5) { printf("info plain t%d:", t); for (int k = 0; k < 8; k++) printf(" %llu", h[8*t+k]); printf("\n"); }
    int n = 132 * 256; int *a, *b; cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4);
    void *a2[] = {&a, &b, &n};
    e = cudaLaunchCooperativeKernel((void *)twophase, dim3(132), dim3(256), a2, 0, 0);
    printf("twophase launch %s sync %s\n", cudaGetErrorName(e), cudaGetErrorName(cudaDeviceSynchronize()));
    int *hb = new int[n]; cudaMemcpy(hb, b, n * 4, cudaMemcpyDeviceToHost);
    int bad = 0; for (int i = 0; i < n; i++) if (hb[i] != ((i + n / 2 + 7) % n) * 3 + 1) bad++;
    printf("twophase bad %d\n", bad);
    int nb = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, twophase, 256, 0);
    e = cudaLaunchCooperativeKernel((void *)twophase, dim3(nb * 132 + 1), dim3(256), a2, 0, 0);
    printf("too large (%d per sm) %s: %s\n", nb, cudaGetErrorName(e), cudaGetErrorString(e));
    cudaGetLastError();
    fflush(stdout);
    cudaMemset(a, 0, 64);
    plain_sync<<<2, 32>>>(a);
    cudaError_t le = cudaGetLastError();
    cudaError_t se = cudaDeviceSynchronize();
    int ha[16]; cudaMemcpy(ha, a, 64, cudaMemcpyDeviceToHost);
    printf("plain grid.sync launch %s sync %s: %s; a %d %d %d %d\n", cudaGetErrorName(le), cudaGetErrorName(se), cudaGetErrorString(se), ha[0], ha[1], ha[8], ha[9]);
    return 0;
}
