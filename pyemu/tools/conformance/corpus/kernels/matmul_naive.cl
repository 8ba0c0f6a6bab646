/* Slide: naive matrix multiply, one work-item per element of P. */
__kernel void matmul_naive(__global const float *M, __global const float *N,
                           __global float *P, const int Width)
{
    int Row = get_global_id(1);
    int Col = get_global_id(0);
    if (Row < Width && Col < Width) {
        float Pvalue = 0.0f;
        for (int k = 0; k < Width; ++k)
            Pvalue += M[Row * Width + k] * N[k * Width + Col];
        P[Row * Width + Col] = Pvalue;
    }
}
