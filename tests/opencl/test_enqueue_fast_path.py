"""clEnqueueNDRangeKernel's kept launch descriptions (pyemu/opencl/ndrange.py):
the packed key of the common form (work_dim, n global sizes, n local sizes)
never answers for a call of other sizes, another work_dim or sizes that are
not integers, and the events it returns are full cl_event objects (slotted:
one is made on every enqueue)."""
import numpy as np

from pyemu.opencl import *  # noqa: F403

SOURCE = r"""
__kernel void put(__global int *o, int v) { o[get_global_id(0)] = v + (int)get_local_size(0); }
__kernel void put2(__global int *o) {
    o[get_global_id(1) * get_global_size(0) + get_global_id(0)] =
        (int)(get_local_size(0) * 10 + get_local_size(1));
}"""


def _setup(context, device, name, *args):
    prog = clCreateProgramWithSource(context, [SOURCE])
    clBuildProgram(prog, [device])
    k = clCreateKernel(prog, name)
    buf = clCreateBuffer(context, CL_MEM_READ_WRITE, 4 * 64)
    clSetKernelArg(k, 0, buf)
    for i, a in enumerate(args, 1):
        clSetKernelArg(k, i, a)
    return k, buf


def _read(queue, buf, n):
    out = np.empty(n, np.int32)
    clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, out.nbytes, out)
    return out


def test_key_does_not_answer_for_other_sizes(context, device, queue, code_of):
    k, buf = _setup(context, device, "put", 7)
    E = clEnqueueNDRangeKernel
    E(queue, k, 1, None, [64], [16])                     # kept under its key
    assert code_of(E, queue, k, 2, None, [64], [16]) == CL_INVALID_GLOBAL_WORK_SIZE
    assert code_of(E, queue, k, 1, None, [64], [16, 1]) == CL_INVALID_WORK_GROUP_SIZE
    assert code_of(E, queue, k, 1, None, [64.0], [16]) == CL_INVALID_GLOBAL_WORK_SIZE
    assert code_of(E, queue, k, 1, None, [64], [True]) == 0      # bool is an int, as in C
    assert code_of(E, queue, k, 256 + 1, None, [64], [16]) == CL_INVALID_WORK_DIMENSION
    assert code_of(E, queue, k, 1, None, [64], [-16]) == CL_INVALID_WORK_GROUP_SIZE
    E(queue, k, 1, None, [64], [32])
    np.testing.assert_array_equal(_read(queue, buf, 64), np.full(64, 7 + 32))
    E(queue, k, 1, None, np.array([64]), np.array([8]))   # NumPy sizes: the same key kind
    np.testing.assert_array_equal(_read(queue, buf, 64), np.full(64, 7 + 8))
    clReleaseMemObject(buf)
    clReleaseKernel(k)


def test_two_dimensional_keys_keep_their_split(context, device, queue, code_of):
    k, buf = _setup(context, device, "put2")
    E = clEnqueueNDRangeKernel
    E(queue, k, 2, None, [8, 8], [4, 2])
    np.testing.assert_array_equal(_read(queue, buf, 64), np.full(64, 42))
    E(queue, k, 2, None, [8, 8], [2, 4])                 # same values, other order
    np.testing.assert_array_equal(_read(queue, buf, 64), np.full(64, 24))
    assert code_of(E, queue, k, 2, None, [8, 8, 1], [4, 2]) == CL_INVALID_GLOBAL_WORK_SIZE
    clReleaseMemObject(buf)
    clReleaseKernel(k)


def test_events_of_the_fast_path_are_full_events(context, device, queue):
    k, buf = _setup(context, device, "put", 1)
    evs = [clEnqueueNDRangeKernel(queue, k, 1, None, [64], [64]) for _ in range(3)]
    clWaitForEvents(evs)
    for e in evs:
        assert isinstance(e, cl_event)
        assert clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS) == CL_COMPLETE
        assert clGetEventInfo(e, CL_EVENT_COMMAND_TYPE) == CL_COMMAND_NDRANGE_KERNEL
        assert clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE) is queue
        assert clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT) == 1
    clRetainEvent(evs[0])
    assert clGetEventInfo(evs[0], CL_EVENT_REFERENCE_COUNT) == 2
    for e in evs:
        clReleaseEvent(e)
    clReleaseEvent(evs[0])
    try:
        clGetEventInfo(evs[0], CL_EVENT_COMMAND_EXECUTION_STATUS)
        raise AssertionError("a released event answered")
    except CLError as exc:
        assert exc.code == CL_INVALID_EVENT
    clReleaseMemObject(buf)
    clReleaseKernel(k)
