"""Events: wait lists, clWaitForEvents, info, profiling, user events, callbacks,
markers and barriers, reference counts."""
import threading
import time

import numpy as np

from pyemu.opencl import *  # noqa: F403


def _gated_write(context, queue, n=16):
    """A write that waits for a user event: (user event, write event, buffer)."""
    u = clCreateUserEvent(context)
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 4 * n)
    ev = clEnqueueWriteBuffer(queue, b, CL_FALSE, 0, 4 * n, np.arange(n, dtype=np.int32), [u])
    return u, ev, b


def test_clCreateUserEvent_info(context):
    u = clCreateUserEvent(context)
    assert clGetEventInfo(u, CL_EVENT_COMMAND_TYPE) == CL_COMMAND_USER
    assert clGetEventInfo(u, CL_EVENT_COMMAND_EXECUTION_STATUS) == CL_SUBMITTED
    assert clGetEventInfo(u, CL_EVENT_COMMAND_QUEUE) is None
    assert clGetEventInfo(u, CL_EVENT_CONTEXT) is context
    clSetUserEventStatus(u, CL_COMPLETE)
    assert clGetEventInfo(u, CL_EVENT_COMMAND_EXECUTION_STATUS) == CL_COMPLETE


def test_clCreateUserEvent_bad_context(code_of):
    assert code_of(clCreateUserEvent, None) == CL_INVALID_CONTEXT


def test_clSetUserEventStatus_twice(context, code_of):
    u = clCreateUserEvent(context)
    clSetUserEventStatus(u, CL_COMPLETE)
    assert code_of(clSetUserEventStatus, u, CL_COMPLETE) == CL_INVALID_OPERATION


def test_clSetUserEventStatus_positive_status(context, code_of):
    u = clCreateUserEvent(context)
    assert code_of(clSetUserEventStatus, u, CL_RUNNING) == CL_INVALID_VALUE
    clSetUserEventStatus(u, CL_COMPLETE)


def test_clSetUserEventStatus_not_a_user_event(context, queue, code_of):
    ev = clEnqueueMarkerWithWaitList(queue)
    assert code_of(clSetUserEventStatus, ev, CL_COMPLETE) == CL_INVALID_EVENT


def test_user_event_gates_a_command(context, queue):
    u, ev, b = _gated_write(context, queue)
    time.sleep(0.02)
    assert clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS) == CL_QUEUED
    clSetUserEventStatus(u, CL_COMPLETE)
    clWaitForEvents([ev])
    assert clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS) == CL_COMPLETE


def test_failed_user_event_fails_what_waits_on_it(context, queue, code_of):
    u, ev, b = _gated_write(context, queue)
    clSetUserEventStatus(u, -1234)
    assert clGetEventInfo(u, CL_EVENT_COMMAND_EXECUTION_STATUS) == -1234
    assert code_of(clWaitForEvents, [ev]) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    assert clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS) == \
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST


def test_clWaitForEvents_empty_list(code_of):
    assert code_of(clWaitForEvents, []) == CL_INVALID_VALUE
    assert code_of(clWaitForEvents, None) == CL_INVALID_VALUE


def test_clWaitForEvents_not_an_event(code_of):
    assert code_of(clWaitForEvents, ["event"]) == CL_INVALID_EVENT


def test_clWaitForEvents_different_contexts(context, device, code_of):
    other = clCreateContext(None, [device])
    a, b = clCreateUserEvent(context), clCreateUserEvent(other)
    assert code_of(clWaitForEvents, [a, b]) == CL_INVALID_CONTEXT
    clSetUserEventStatus(a, CL_COMPLETE)
    clSetUserEventStatus(b, CL_COMPLETE)


def test_clWaitForEvents_waits_for_another_thread(context):
    u = clCreateUserEvent(context)
    threading.Timer(0.05, clSetUserEventStatus, (u, CL_COMPLETE)).start()
    t0 = time.perf_counter()
    clWaitForEvents([u])
    assert time.perf_counter() - t0 >= 0.04


def test_wait_list_of_another_context(device, queue, code_of):
    other = clCreateContext(None, [device])
    u = clCreateUserEvent(other)
    assert code_of(clEnqueueMarkerWithWaitList, queue, [u]) == CL_INVALID_CONTEXT
    clSetUserEventStatus(u, CL_COMPLETE)


def test_wait_list_not_a_list(queue, context, code_of):
    u = clCreateUserEvent(context)
    assert code_of(clEnqueueMarkerWithWaitList, queue, u) == CL_INVALID_EVENT_WAIT_LIST
    clSetUserEventStatus(u, CL_COMPLETE)


def test_wait_list_released_event(queue, context, code_of):
    u = clCreateUserEvent(context)
    clSetUserEventStatus(u, CL_COMPLETE)
    clReleaseEvent(u)
    assert code_of(clEnqueueMarkerWithWaitList, queue, [u]) == CL_INVALID_EVENT_WAIT_LIST


def test_clGetEventInfo_bad_param(context, code_of):
    u = clCreateUserEvent(context)
    assert code_of(clGetEventInfo, u, 0x1000) == CL_INVALID_VALUE
    clSetUserEventStatus(u, CL_COMPLETE)


def test_clGetEventInfo_bad_event(code_of):
    assert code_of(clGetEventInfo, 5, CL_EVENT_CONTEXT) == CL_INVALID_EVENT


def test_clRetainEvent_clReleaseEvent_counts(context, code_of):
    u = clCreateUserEvent(context)
    clRetainEvent(u)
    assert clGetEventInfo(u, CL_EVENT_REFERENCE_COUNT) == 2
    clReleaseEvent(u)
    assert clGetEventInfo(u, CL_EVENT_REFERENCE_COUNT) == 1
    clSetUserEventStatus(u, CL_COMPLETE)
    clReleaseEvent(u)
    assert code_of(clReleaseEvent, u) == CL_INVALID_EVENT


def test_clGetEventProfilingInfo_times_in_order(context, queue):
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 1 << 20)
    ev = clEnqueueFillBuffer(queue, b, np.int32(3), 4, 0, 1 << 20)
    clWaitForEvents([ev])
    t = [clGetEventProfilingInfo(ev, p) for p in (
        CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START,
        CL_PROFILING_COMMAND_END, CL_PROFILING_COMMAND_COMPLETE)]
    assert t == sorted(t) and t[0] > 0


def test_clGetEventProfilingInfo_queue_without_profiling(context, device, code_of):
    q = clCreateCommandQueue(context, device, 0)
    ev = clEnqueueMarkerWithWaitList(q)
    clFinish(q)
    assert code_of(clGetEventProfilingInfo, ev, CL_PROFILING_COMMAND_END) == \
        CL_PROFILING_INFO_NOT_AVAILABLE


def test_clGetEventProfilingInfo_not_complete(context, queue, code_of):
    u, ev, b = _gated_write(context, queue)
    assert code_of(clGetEventProfilingInfo, ev, CL_PROFILING_COMMAND_END) == \
        CL_PROFILING_INFO_NOT_AVAILABLE
    assert code_of(clGetEventProfilingInfo, u, CL_PROFILING_COMMAND_END) == \
        CL_PROFILING_INFO_NOT_AVAILABLE
    clSetUserEventStatus(u, CL_COMPLETE)
    clWaitForEvents([ev])


def test_clGetEventProfilingInfo_bad_param(context, queue, code_of):
    ev = clEnqueueMarkerWithWaitList(queue)
    clWaitForEvents([ev])
    assert code_of(clGetEventProfilingInfo, ev, 0x1290) == CL_INVALID_VALUE


def test_clSetEventCallback_runs_at_completion(context, queue):
    u, ev, b = _gated_write(context, queue)
    got = []
    done = threading.Event()
    clSetEventCallback(ev, CL_COMPLETE, lambda e, s, d: (got.append((e, s, d)), done.set()),
                       "data")
    assert got == []
    clSetUserEventStatus(u, CL_COMPLETE)
    assert done.wait(5)
    assert got == [(ev, CL_COMPLETE, "data")]


def test_clSetEventCallback_on_complete_event_runs_now(context):
    u = clCreateUserEvent(context)
    clSetUserEventStatus(u, CL_COMPLETE)
    got = []
    clSetEventCallback(u, CL_COMPLETE, lambda e, s, d: got.append(s))
    assert got == [CL_COMPLETE]


def test_clSetEventCallback_reports_the_error(context):
    u = clCreateUserEvent(context)
    got = []
    clSetEventCallback(u, CL_COMPLETE, lambda e, s, d: got.append(s))
    clSetUserEventStatus(u, -77)
    assert got == [-77]


def test_clSetEventCallback_submitted_already_reached(context):
    u = clCreateUserEvent(context)
    got = []
    clSetEventCallback(u, CL_SUBMITTED, lambda e, s, d: got.append(s))
    assert got == [CL_SUBMITTED]
    clSetUserEventStatus(u, CL_COMPLETE)


def test_clSetEventCallback_bad_type(context, code_of):
    u = clCreateUserEvent(context)
    assert code_of(clSetEventCallback, u, CL_QUEUED, lambda *a: None) == CL_INVALID_VALUE
    assert code_of(clSetEventCallback, u, CL_COMPLETE, None) == CL_INVALID_VALUE
    clSetUserEventStatus(u, CL_COMPLETE)


def test_clEnqueueMarkerWithWaitList_waits_for_the_list(context, queue):
    u = clCreateUserEvent(context)
    m = clEnqueueMarkerWithWaitList(queue, [u])
    assert clGetEventInfo(m, CL_EVENT_COMMAND_TYPE) == CL_COMMAND_MARKER
    time.sleep(0.01)
    assert clGetEventInfo(m, CL_EVENT_COMMAND_EXECUTION_STATUS) > CL_COMPLETE
    clSetUserEventStatus(u, CL_COMPLETE)
    clWaitForEvents([m])


def test_clEnqueueMarkerWithWaitList_out_of_order_waits_for_everything_before(context, device):
    q = clCreateCommandQueue(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    u = clCreateUserEvent(context)
    ev = clEnqueueMarkerWithWaitList(q, [u])
    m = clEnqueueMarkerWithWaitList(q)
    time.sleep(0.01)
    assert clGetEventInfo(m, CL_EVENT_COMMAND_EXECUTION_STATUS) > CL_COMPLETE
    clSetUserEventStatus(u, CL_COMPLETE)
    clWaitForEvents([m, ev])


def test_out_of_order_queue_runs_past_a_blocked_command(context, device):
    q = clCreateCommandQueue(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    u = clCreateUserEvent(context)
    blocked = clEnqueueMarkerWithWaitList(q, [u])
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 16)
    free = clEnqueueFillBuffer(q, b, np.int32(1), 4, 0, 16)
    clWaitForEvents([free])                # does not wait for `blocked`
    assert clGetEventInfo(blocked, CL_EVENT_COMMAND_EXECUTION_STATUS) > CL_COMPLETE
    clSetUserEventStatus(u, CL_COMPLETE)
    clFinish(q)


def test_clEnqueueBarrierWithWaitList_orders_an_out_of_order_queue(context, device):
    q = clCreateCommandQueue(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    u = clCreateUserEvent(context)
    clEnqueueMarkerWithWaitList(q, [u])
    bar = clEnqueueBarrierWithWaitList(q)
    assert clGetEventInfo(bar, CL_EVENT_COMMAND_TYPE) == CL_COMMAND_BARRIER
    b = clCreateBuffer(context, CL_MEM_READ_WRITE, 16)
    after = clEnqueueFillBuffer(q, b, np.int32(1), 4, 0, 16)
    time.sleep(0.01)
    assert clGetEventInfo(after, CL_EVENT_COMMAND_EXECUTION_STATUS) > CL_COMPLETE
    clSetUserEventStatus(u, CL_COMPLETE)
    clFinish(q)
    assert clGetEventInfo(after, CL_EVENT_COMMAND_EXECUTION_STATUS) == CL_COMPLETE


def test_clEnqueueMarkerWithWaitList_bad_queue(code_of):
    assert code_of(clEnqueueMarkerWithWaitList, None) == CL_INVALID_COMMAND_QUEUE


def test_in_order_queue_waits_for_the_previous_command(context, queue):
    u, ev, b = _gated_write(context, queue)
    out = np.zeros(16, np.int32)
    r = clEnqueueReadBuffer(queue, b, CL_FALSE, 0, 64, out)
    time.sleep(0.01)
    assert clGetEventInfo(r, CL_EVENT_COMMAND_EXECUTION_STATUS) > CL_COMPLETE
    clSetUserEventStatus(u, CL_COMPLETE)
    clFinish(queue)
    assert out.tolist() == list(range(16))
