/* OpenCL C work-item functions, barriers and fences.
 *
 * The indices live in the worker's pyemu_tctx (abi.h), which the core
 * updates as it moves from work-item to work-item:
 *   get_global_id(d) = get_group_id(d) * get_local_size(d) + get_local_id(d)
 *                      + get_global_offset(d).
 * Outside 0..2, sizes are 1 and ids 0, as the specification says.
 */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/opencl_device.h>, not this file"
#endif

/* Macros, not functions: with a literal dimension they fold to one field of
 * pyemu_tctx, spelled as CUDA's threadIdx.x is, so pyemu/compiler/regions/ sees
 * the thread index in a work-item loop and g++ vectorizes over it. */
#define PYEMU_CL_DIM(f, d, other)                                              \
    ((d) == 0 ? (size_t)(pyemu_tctx.f).x : (d) == 1 ? (size_t)(pyemu_tctx.f).y \
     : (d) == 2 ? (size_t)(pyemu_tctx.f).z : (size_t)(other))
#define PYEMU_CL_GID(c)                                                        \
    ((size_t)(pyemu_tctx.blockIdx).c * (pyemu_tctx.blockDim).c                 \
     + (pyemu_tctx.threadIdx).c + (pyemu_tctx.global_offset).c)

#define get_work_dim() ((uint)pyemu_tctx.work_dim)
#define get_local_id(d) PYEMU_CL_DIM(threadIdx, d, 0)
#define get_group_id(d) PYEMU_CL_DIM(blockIdx, d, 0)
#define get_local_size(d) PYEMU_CL_DIM(blockDim, d, 1)
#define get_enqueued_local_size(d) PYEMU_CL_DIM(blockDim, d, 1)
#define get_num_groups(d) PYEMU_CL_DIM(gridDim, d, 1)
#define get_global_offset(d) PYEMU_CL_DIM(global_offset, d, 0)
#define get_global_size(d)                                                     \
    ((d) == 0 ? (size_t)(pyemu_tctx.gridDim).x * (pyemu_tctx.blockDim).x       \
     : (d) == 1 ? (size_t)(pyemu_tctx.gridDim).y * (pyemu_tctx.blockDim).y     \
     : (d) == 2 ? (size_t)(pyemu_tctx.gridDim).z * (pyemu_tctx.blockDim).z : (size_t)1)
#define get_global_id(d)                                                       \
    ((d) == 0 ? PYEMU_CL_GID(x) : (d) == 1 ? PYEMU_CL_GID(y)                   \
     : (d) == 2 ? PYEMU_CL_GID(z) : (size_t)0)
/* What pyemu's compiler writes for a call with a literal dimension,
 * get_local_id(0) -> pyemu_cl_get_local_id_x: the field itself, which
 * pyemu/compiler/regions/ reads as the thread index (or a uniform value). */
#define pyemu_cl_get_local_id_x ((size_t)(pyemu_tctx.threadIdx).x)
#define pyemu_cl_get_local_id_y ((size_t)(pyemu_tctx.threadIdx).y)
#define pyemu_cl_get_local_id_z ((size_t)(pyemu_tctx.threadIdx).z)
#define pyemu_cl_get_group_id_x ((size_t)(pyemu_tctx.blockIdx).x)
#define pyemu_cl_get_group_id_y ((size_t)(pyemu_tctx.blockIdx).y)
#define pyemu_cl_get_group_id_z ((size_t)(pyemu_tctx.blockIdx).z)
#define pyemu_cl_get_local_size_x ((size_t)(pyemu_tctx.blockDim).x)
#define pyemu_cl_get_local_size_y ((size_t)(pyemu_tctx.blockDim).y)
#define pyemu_cl_get_local_size_z ((size_t)(pyemu_tctx.blockDim).z)
#define pyemu_cl_get_enqueued_local_size_x ((size_t)(pyemu_tctx.blockDim).x)
#define pyemu_cl_get_enqueued_local_size_y ((size_t)(pyemu_tctx.blockDim).y)
#define pyemu_cl_get_enqueued_local_size_z ((size_t)(pyemu_tctx.blockDim).z)
#define pyemu_cl_get_num_groups_x ((size_t)(pyemu_tctx.gridDim).x)
#define pyemu_cl_get_num_groups_y ((size_t)(pyemu_tctx.gridDim).y)
#define pyemu_cl_get_num_groups_z ((size_t)(pyemu_tctx.gridDim).z)
#define pyemu_cl_get_global_offset_x ((size_t)(pyemu_tctx.global_offset).x)
#define pyemu_cl_get_global_offset_y ((size_t)(pyemu_tctx.global_offset).y)
#define pyemu_cl_get_global_offset_z ((size_t)(pyemu_tctx.global_offset).z)
#define pyemu_cl_get_global_size_x ((size_t)(pyemu_tctx.gridDim).x * (pyemu_tctx.blockDim).x)
#define pyemu_cl_get_global_size_y ((size_t)(pyemu_tctx.gridDim).y * (pyemu_tctx.blockDim).y)
#define pyemu_cl_get_global_size_z ((size_t)(pyemu_tctx.gridDim).z * (pyemu_tctx.blockDim).z)
#define pyemu_cl_get_global_id_x (PYEMU_CL_GID(x))
#define pyemu_cl_get_global_id_y (PYEMU_CL_GID(y))
#define pyemu_cl_get_global_id_z (PYEMU_CL_GID(z))
#define get_local_linear_id()                                                  \
    (((size_t)(pyemu_tctx.threadIdx).z * (pyemu_tctx.blockDim).y               \
      + (pyemu_tctx.threadIdx).y) * (pyemu_tctx.blockDim).x + (pyemu_tctx.threadIdx).x)
#define get_global_linear_id()                                                 \
    (((PYEMU_CL_GID(z) - (pyemu_tctx.global_offset).z) * get_global_size(1)    \
      + (PYEMU_CL_GID(y) - (pyemu_tctx.global_offset).y)) * get_global_size(0) \
     + (PYEMU_CL_GID(x) - (pyemu_tctx.global_offset).x))

#define CLK_LOCAL_MEM_FENCE 1u
#define CLK_GLOBAL_MEM_FENCE 2u
#define CLK_IMAGE_MEM_FENCE 4u

#define PYEMU_STR2(x) #x
#define PYEMU_STR(x) PYEMU_STR2(x)
#define PYEMU_SITE (__FILE__ ":" PYEMU_STR(__LINE__) "#" PYEMU_STR(__COUNTER__)) /* see cuda_builtins.h */

/* A barrier, like CUDA's __syncthreads(): every work-item of the group must
 * reach this call site.  The flags do not matter: all memory is coherent. */
#define barrier(flags) pyemu_barrier(PYEMU_SITE)
#define work_group_barrier(...) pyemu_barrier(PYEMU_SITE)

static inline void mem_fence(cl_mem_fence_flags) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void read_mem_fence(cl_mem_fence_flags) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
static inline void write_mem_fence(cl_mem_fence_flags) { __atomic_thread_fence(__ATOMIC_RELEASE); }
