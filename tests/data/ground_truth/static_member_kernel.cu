#include <cstdio>
struct S { static __global__ void k(int *o) { o[threadIdx.x] = 7; } };
template <typename T> struct TS { static __global__ void k(T *o) { o[threadIdx.x] = 9; } };
int main() {
    int *d; cudaMalloc(&d, 128);
    S::k<<<1, 4>>>(d);
    TS<int>::k<<<1, 4>>>(d + 4);
    int h[8]; cudaMemcpy(h, d, 32, cudaMemcpyDeviceToHost);
    printf("err=%s h=%d %d\n", cudaGetErrorString(cudaGetLastError()), h[0], h[4]);
    return 0;
}
