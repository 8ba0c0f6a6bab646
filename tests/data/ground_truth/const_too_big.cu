__constant__ float a[8192];
__constant__ float b[8193];
__global__ void k(float* o) { o[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x]; }
int main() { return 0; }
