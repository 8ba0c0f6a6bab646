// 256-bin histogram of bytes in OpenCL C, the same kernel as histogram.cu
// (histo_kernel of "CUDA by Example", ch. 9): a grid-stride loop, every byte
// counted with atomic_add on its bin in global memory.  Work-groups of 256.
__kernel void histo_kernel(__global const unsigned char *buffer, long size,
                           __global unsigned int *histo)
{
    int i = get_local_id(0) + get_group_id(0) * get_local_size(0);
    int offset = get_local_size(0) * get_num_groups(0);
    while (i < size) {
        atomic_add(&(histo[buffer[i]]), 1u);
        i += offset;
    }
}
