"""clEnqueueNDRangeKernel's kept launch descriptions (pyemu/opencl/ndrange.py):
the packed key of the common form (work_dim, n global sizes, n local sizes)
never answers for a call of other sizes, another work_dim or sizes that are
not integers, and the events it returns are full cl_event objects (slotted:
one is made on every enqueue).  The bound launch (kernel._hot) answers only
for the queue, arguments and sizes it was made for, and the event object it
recycles is only ever one the program dropped."""
import threading

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


COUNTER = r"""
__kernel void count(__global int *c) { if (get_global_id(0) == 0) atomic_inc(c); }
__kernel void put(__global int *o, int v) { o[get_global_id(0)] = v; }"""


def _counter(context, device):
    prog = clCreateProgramWithSource(context, [COUNTER])
    clBuildProgram(prog, [device])
    k = clCreateKernel(prog, "count")
    buf = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4,
                         np.zeros(1, np.int32))
    clSetKernelArg(k, 0, buf)
    return k, buf


def test_events_the_program_holds_are_never_recycled(context, device, queue):
    k, buf = _counter(context, device)
    held = [clEnqueueNDRangeKernel(queue, k, 1, None, [64], [64]) for _ in range(40)]
    for _ in range(40):                                  # dropped at once: recycled
        clEnqueueNDRangeKernel(queue, k, 1, None, [64], [64])
    held.append(clEnqueueNDRangeKernel(queue, k, 1, None, [64], [64]))
    clFinish(queue)
    assert len({id(e) for e in held}) == len(held)
    # each its own command: in an in-order queue one ends before the next starts
    times = [(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START),
              clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END)) for e in held]
    for (s0, e0), (s1, e1) in zip(times, times[1:]):
        assert s0 <= e0 <= s1 <= e1
    for e in held:
        assert clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT) == 1
        assert clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE) is queue
    assert _read(queue, buf, 1)[0] == 81
    clReleaseMemObject(buf)
    clReleaseKernel(k)


def test_a_released_or_retained_event_dropped_is_recycled_whole(context, device, queue):
    k, buf = _counter(context, device)
    E = clEnqueueNDRangeKernel
    e = E(queue, k, 1, None, [64], [64])
    clReleaseEvent(e)                    # count 0: its command let go of already
    del e
    e = E(queue, k, 1, None, [64], [64])   # may be the same object, alive again
    assert clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT) == 1
    clRetainEvent(e)                     # count 2, then dropped without a release
    del e
    e = E(queue, k, 1, None, [64], [64])
    assert clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT) == 1
    clWaitForEvents([e])
    assert clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS) == CL_COMPLETE
    assert _read(queue, buf, 1)[0] == 3
    clReleaseMemObject(buf)
    clReleaseKernel(k)


def test_bound_launch_follows_arguments_queues_and_sizes(context, device, queue):
    prog = clCreateProgramWithSource(context, [COUNTER])
    clBuildProgram(prog, [device])
    k = clCreateKernel(prog, "put")
    a = clCreateBuffer(context, CL_MEM_READ_WRITE, 4 * 64)
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 4 * 64)
    other = clCreateCommandQueue(context, device, 0)
    clSetKernelArg(k, 0, a)
    clSetKernelArg(k, 1, 1)
    for _ in range(3):
        clEnqueueNDRangeKernel(queue, k, 1, None, [64], [16])
    clSetKernelArg(k, 1, 2)                              # a new value
    clEnqueueNDRangeKernel(queue, k, 1, None, [64], [16])
    np.testing.assert_array_equal(_read(queue, a, 64), np.full(64, 2))
    clSetKernelArg(k, 0, b)                              # a new buffer
    clEnqueueNDRangeKernel(queue, k, 1, None, [32], [16])  # and other sizes
    e = clEnqueueNDRangeKernel(other, k, 1, None, [64], [16])   # another queue
    assert clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE) is other
    clFinish(other)
    np.testing.assert_array_equal(_read(queue, b, 64), np.full(64, 2))
    clSetKernelArg(k, 1, 3)
    clEnqueueNDRangeKernel(queue, k, 1, None, [32], [16])
    np.testing.assert_array_equal(_read(queue, b, 64), [3] * 32 + [2] * 32)
    clReleaseCommandQueue(other)
    for m in (a, b):
        clReleaseMemObject(m)
    clReleaseKernel(k)


def test_threads_enqueueing_one_kernel_object_lose_no_launch(context, device, queue):
    """clEnqueueNDRangeKernel is thread-safe (only clSetKernelArg is not): two
    threads enqueue one kernel object at once, dropping or keeping events."""
    k, buf = _counter(context, device)
    kept = [[], []]

    def storm(i):
        for j in range(1500):
            e = clEnqueueNDRangeKernel(queue, k, 1, None, [64], [64])
            if j % 100 == i:
                kept[i].append(e)

    threads = [threading.Thread(target=storm, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    clFinish(queue)
    assert _read(queue, buf, 1)[0] == 3000
    events = kept[0] + kept[1]
    assert len({id(e) for e in events}) == len(events) == 30
    for e in events:
        assert clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS) == CL_COMPLETE
    clReleaseMemObject(buf)
    clReleaseKernel(k)


def test_hot_one_dimensional_sizes_are_still_checked_exactly(context, device, queue, code_of):
    """After a kept 1-D enqueue, sizes of another count, kind or value go the
    checked way and get its codes; NumPy sizes and tuples of the same values
    are the same enqueue."""
    k, buf = _setup(context, device, "put", 5)
    E = clEnqueueNDRangeKernel
    for _ in range(3):
        E(queue, k, 1, None, [64], [16])               # the kept (hot) form
    assert code_of(E, queue, k, 1, None, [64, 1], [16]) == CL_INVALID_GLOBAL_WORK_SIZE
    assert code_of(E, queue, k, 1, None, [64], [16, 1]) == CL_INVALID_WORK_GROUP_SIZE
    assert code_of(E, queue, k, 1, None, [64.0], [16]) == CL_INVALID_GLOBAL_WORK_SIZE
    assert code_of(E, queue, k, 1, None, [64], [16.0]) == CL_INVALID_WORK_GROUP_SIZE
    assert code_of(E, queue, k, 1.0, None, [64], [16]) == CL_INVALID_WORK_DIMENSION
    assert code_of(E, queue, k, 1, None, [], [16]) == CL_INVALID_GLOBAL_WORK_SIZE
    assert code_of(E, queue, k, 1, None, [64], [24]) == CL_INVALID_WORK_GROUP_SIZE
    assert code_of(E, queue, k, 1, None, 64, 16) == 0            # ints for work_dim 1
    E(queue, k, 1, None, (64,), np.array([16]))
    np.testing.assert_array_equal(_read(queue, buf, 64), np.full(64, 5 + 16))
    E(queue, k, 1, None, [32], [32])
    np.testing.assert_array_equal(_read(queue, buf, 64), [5 + 32] * 32 + [5 + 16] * 32)
    clReleaseMemObject(buf)
    clReleaseKernel(k)
