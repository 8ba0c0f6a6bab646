/* Slide: sparse matrix-vector product, CSR format, one work-item per row. */
__kernel void spmv_csr(const int num_rows, __global const int *ptr,
                       __global const int *indices, __global const float *data,
                       __global const float *x, __global float *y)
{
    int row = get_global_id(0);
    if (row < num_rows) {
        float dot = 0.0f;
        int row_start = ptr[row];
        int row_end = ptr[row + 1];
        for (int jj = row_start; jj < row_end; jj++)
            dot += data[jj] * x[indices[jj]];
        y[row] = dot;
    }
}
