// Matrix transpose as the course writes it: blocks of 32x32 threads, one
// element per thread, the tile in shared memory padded by one column so the
// column reads of the second half do not all hit one bank.  Sizes are
// multiples of 32.
__global__ void transpose32(float *odata, const float *idata, int width, int height)
{
    __shared__ float tile[32][33];

    int xIndex = blockIdx.x * 32 + threadIdx.x;
    int yIndex = blockIdx.y * 32 + threadIdx.y;
    int index_in = xIndex + yIndex * width;

    xIndex = blockIdx.y * 32 + threadIdx.x;
    yIndex = blockIdx.x * 32 + threadIdx.y;
    int index_out = xIndex + yIndex * height;

    tile[threadIdx.y][threadIdx.x] = idata[index_in];

    __syncthreads();

    odata[index_out] = tile[threadIdx.x][threadIdx.y];
}
