"""Hostile input for OpenCL's platform, device, context, queue and event calls
(expectations: the OpenCL 3.0 specification's "Errors" of each call)."""
from hostile_cases import Case

C = Case
CTX2 = "ctx2 = cl.clCreateContext(None, [dev])\n"
USER = "u = cl.clCreateUserEvent(ctx)\n"
W = "b = buf(16); w = np.ones(4, np.int32)\n"

CASES = [
    # ---- platforms and devices
    C("clGetPlatformInfo_unknown_param", "cl.clGetPlatformInfo(platform, 0xdead)", -30),
    C("clGetPlatformInfo_not_a_platform", "cl.clGetPlatformInfo(ctx, cl.CL_PLATFORM_NAME)", -32),
    C("clGetPlatformInfo_string_param", "cl.clGetPlatformInfo(platform, 'name')", -30),
    C("clGetPlatformInfo_null_platform",
      "assert cl.clGetPlatformInfo(None, cl.CL_PLATFORM_NAME) == 'pyemu'", "ok"),
    C("clGetDeviceIDs_cpu_not_found", "cl.clGetDeviceIDs(platform, cl.CL_DEVICE_TYPE_CPU)", -1),
    C("clGetDeviceIDs_type_zero", "cl.clGetDeviceIDs(platform, 0)", -31),
    C("clGetDeviceIDs_type_string", "cl.clGetDeviceIDs(platform, 'gpu')", -31),
    C("clGetDeviceIDs_type_unknown_bits", "cl.clGetDeviceIDs(platform, 1 << 40)", -31),
    C("clGetDeviceIDs_context_for_platform", "cl.clGetDeviceIDs(ctx, cl.CL_DEVICE_TYPE_ALL)",
      -32),
    C("clGetDeviceIDs_numpy_type",
      "assert cl.clGetDeviceIDs(platform, np.uint64(cl.CL_DEVICE_TYPE_GPU)) == [dev]", "ok"),
    C("clGetDeviceInfo_unknown_param", "cl.clGetDeviceInfo(dev, 0xdead)", -30),
    C("clGetDeviceInfo_not_a_device", "cl.clGetDeviceInfo(ctx, cl.CL_DEVICE_NAME)", -33),
    C("clGetDeviceInfo_none", "cl.clGetDeviceInfo(None, cl.CL_DEVICE_NAME)", -33),
    C("clReleaseDevice_not_a_device", "cl.clReleaseDevice('gpu')", -33),
    C("clRetainDevice_root_device_many_times",
      "for _ in range(100):\n    cl.clRetainDevice(dev); cl.clReleaseDevice(dev)\n"
      "assert cl.clGetDeviceInfo(dev, cl.CL_DEVICE_REFERENCE_COUNT) == 1", "ok"),
    # ---- contexts
    C("clCreateContext_empty_device_list", "cl.clCreateContext(None, [])", -30),
    C("clCreateContext_null_devices", "cl.clCreateContext(None, None)", -30),
    C("clCreateContext_context_as_device", "cl.clCreateContext(None, [ctx])", -33),
    C("clCreateContext_unknown_property", "cl.clCreateContext([0xdead, 1, 0], [dev])", -64),
    C("clCreateContext_platform_property_not_a_platform",
      "cl.clCreateContext([cl.CL_CONTEXT_PLATFORM, 'x', 0], [dev])", -32),
    C("clCreateContext_property_twice",
      "cl.clCreateContext([cl.CL_CONTEXT_PLATFORM, platform, cl.CL_CONTEXT_PLATFORM, platform, "
      "0], [dev])", -64),
    C("clCreateContext_properties_not_pairs",
      "cl.clCreateContext([cl.CL_CONTEXT_PLATFORM, platform, 5], [dev])", -64),
    C("clCreateContext_properties_an_int", "cl.clCreateContext(5, [dev])", -64),
    C("clCreateContext_notify_not_callable", "cl.clCreateContext(None, [dev], 5)", -30),
    C("clCreateContext_user_data_without_notify", "cl.clCreateContext(None, [dev], None, 1)",
      -30),
    C("clCreateContext_devices_an_int", "cl.clCreateContext(None, 5)", -30),
    C("clCreateContext_duplicate_devices_count_once",
      "c = cl.clCreateContext(None, [dev, dev])\n"
      "assert cl.clGetContextInfo(c, cl.CL_CONTEXT_NUM_DEVICES) == 1\n"
      "assert cl.clGetContextInfo(c, cl.CL_CONTEXT_DEVICES) == [dev]", "ok"),
    C("clCreateContextFromType_cpu", "cl.clCreateContextFromType(None, cl.CL_DEVICE_TYPE_CPU)",
      -1),
    C("clCreateContextFromType_zero", "cl.clCreateContextFromType(None, 0)", -31),
    C("clGetContextInfo_unknown_param", "cl.clGetContextInfo(ctx, 0xdead)", -30),
    C("clGetContextInfo_released", "cl.clReleaseContext(ctx); cl.clGetContextInfo(ctx, "
      "cl.CL_CONTEXT_NUM_DEVICES)", -34),
    C("clReleaseContext_twice", "c = cl.clCreateContext(None, [dev]); cl.clReleaseContext(c); "
      "cl.clReleaseContext(c)", -34),
    C("clRetainContext_none", "cl.clRetainContext(None)", -34),
    C("clCreateBuffer_released_context", "cl.clReleaseContext(ctx); buf(16)", -34),
    C("queue_works_after_its_context_is_released",
      "cl.clReleaseContext(ctx); cl.clFinish(q); cl.clEnqueueMarkerWithWaitList(q); cl.clFinish(q)",
      "ok"),
    C("clContext_after_cudaDeviceReset", "cudaDeviceReset(); buf(16)", -34),
    # ---- command queues
    C("clCreateCommandQueue_unknown_bits", "cl.clCreateCommandQueue(ctx, dev, 1 << 20)", -30),
    C("clCreateCommandQueue_on_device", "cl.clCreateCommandQueue(ctx, dev, "
      "cl.CL_QUEUE_ON_DEVICE | cl.CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)", -35),
    C("clCreateCommandQueue_negative_properties", "cl.clCreateCommandQueue(ctx, dev, -1)", -30),
    C("clCreateCommandQueue_float_properties", "cl.clCreateCommandQueue(ctx, dev, 1.5)", -30),
    C("clCreateCommandQueue_not_a_device", "cl.clCreateCommandQueue(ctx, 'gpu', 0)", -33),
    C("clCreateCommandQueue_not_a_context", "cl.clCreateCommandQueue(None, dev, 0)", -34),
    C("clCreateCommandQueueWithProperties_queue_size",
      "cl.clCreateCommandQueueWithProperties(ctx, dev, [cl.CL_QUEUE_SIZE, 16, 0])", -30),
    C("clCreateCommandQueueWithProperties_unknown_name",
      "cl.clCreateCommandQueueWithProperties(ctx, dev, [0x9999, 1, 0])", -30),
    C("clCreateCommandQueueWithProperties_strings",
      "cl.clCreateCommandQueueWithProperties(ctx, dev, ['x', 'y'])", -30),
    C("clCreateCommandQueueWithProperties_out_of_order_ok",
      "q2 = cl.clCreateCommandQueueWithProperties(ctx, dev, [cl.CL_QUEUE_PROPERTIES, "
      "cl.CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | cl.CL_QUEUE_PROFILING_ENABLE, 0])\n"
      "cl.clFinish(q2); cl.clReleaseCommandQueue(q2)", "ok"),
    C("clFinish_none", "cl.clFinish(None)", -36),
    C("clFinish_released_queue", "cl.clReleaseCommandQueue(q); cl.clFinish(q)", -36),
    C("clFlush_not_a_queue", "cl.clFlush(ctx)", -36),
    C("clGetCommandQueueInfo_unknown_param", "cl.clGetCommandQueueInfo(q, 0xdead)", -30),
    C("clReleaseCommandQueue_twice", "cl.clReleaseCommandQueue(q); cl.clReleaseCommandQueue(q)",
      -36),
    C("clCommandQueue_after_cudaDeviceReset", "cudaDeviceReset(); cl.clFinish(q)", -36),
    C("clReleaseCommandQueue_with_commands_pending",
      USER + W + "e = cl.clEnqueueWriteBuffer(q, b, cl.CL_FALSE, 0, 16, w, [u])\n"
      "cl.clReleaseCommandQueue(q); cl.clSetUserEventStatus(u, cl.CL_COMPLETE)\n"
      "r = np.zeros(4, np.int32); q2 = cl.clCreateCommandQueue(ctx, dev, 0)\n"
      # another queue: ordered after the write only through its event
      "cl.clEnqueueReadBuffer(q2, b, cl.CL_TRUE, 0, 16, r, [e]); assert (r == 1).all()", "ok"),
    # ---- events
    C("clWaitForEvents_an_int", "cl.clWaitForEvents(5)", -30),
    C("clWaitForEvents_empty", "cl.clWaitForEvents([])", -30),
    C("clWaitForEvents_none_entry", "cl.clWaitForEvents([None])", -58),
    C("clWaitForEvents_released_event",
      "e = cl.clEnqueueMarkerWithWaitList(q); cl.clReleaseEvent(e); cl.clWaitForEvents([e])",
      -58),
    C("clWaitForEvents_two_contexts",
      CTX2 + "cl.clWaitForEvents([cl.clCreateUserEvent(ctx), cl.clCreateUserEvent(ctx2)])", -34),
    C("clWaitForEvents_failed_user_event",
      USER + "cl.clSetUserEventStatus(u, -100); cl.clWaitForEvents([u])", -14),
    C("clWaitForEvents_after_cudaDeviceReset",
      "e = cl.clEnqueueMarkerWithWaitList(q); cudaDeviceReset(); cl.clWaitForEvents([e])", -58),
    C("clGetEventInfo_unknown_param",
      "cl.clGetEventInfo(cl.clEnqueueMarkerWithWaitList(q), 0xdead)", -30),
    C("clGetEventInfo_failed_user_event_status",
      USER + "cl.clSetUserEventStatus(u, -1234)\n"
      "assert cl.clGetEventInfo(u, cl.CL_EVENT_COMMAND_EXECUTION_STATUS) == -1234", "ok"),
    C("clGetEventProfilingInfo_without_profiling",
      "e = cl.clEnqueueMarkerWithWaitList(q); cl.clFinish(q)\n"
      "cl.clGetEventProfilingInfo(e, cl.CL_PROFILING_COMMAND_END)", -7),
    C("clGetEventProfilingInfo_user_event",
      USER + "cl.clGetEventProfilingInfo(u, cl.CL_PROFILING_COMMAND_END)", -7),
    C("clGetEventProfilingInfo_unknown_param",
      "qp = cl.clCreateCommandQueue(ctx, dev, cl.CL_QUEUE_PROFILING_ENABLE)\n"
      "e = cl.clEnqueueMarkerWithWaitList(qp); cl.clFinish(qp); cl.clGetEventProfilingInfo(e, 7)",
      -30),
    C("clSetEventCallback_unknown_type",
      USER + "cl.clSetEventCallback(u, 99, lambda e, s, d: None)", -30),
    C("clSetEventCallback_not_callable", USER + "cl.clSetEventCallback(u, cl.CL_COMPLETE, 5)",
      -30),
    C("clSetEventCallback_callback_raises",
      USER + "def f(e, s, d):\n    raise RuntimeError('a bug in the callback')\n"
      "cl.clSetEventCallback(u, cl.CL_COMPLETE, f); cl.clSetUserEventStatus(u, cl.CL_COMPLETE)\n"
      "cl.clWaitForEvents([u]); cl.clFinish(q)", "ok"),
    C("clSetEventCallback_on_failed_event_gets_the_error",
      USER + "got = []\ncl.clSetEventCallback(u, cl.CL_COMPLETE, lambda e, s, d: got.append(s))\n"
      "cl.clSetUserEventStatus(u, -77); assert got == [-77], got", "ok"),
    C("clSetUserEventStatus_not_a_user_event",
      "cl.clSetUserEventStatus(cl.clEnqueueMarkerWithWaitList(q), cl.CL_COMPLETE)", -58),
    C("clSetUserEventStatus_twice",
      USER + "cl.clSetUserEventStatus(u, cl.CL_COMPLETE); "
      "cl.clSetUserEventStatus(u, cl.CL_COMPLETE)", -59),
    C("clSetUserEventStatus_positive", USER + "cl.clSetUserEventStatus(u, 1)", -30),
    C("clSetUserEventStatus_string", USER + "cl.clSetUserEventStatus(u, 'done')", -30),
    C("clCreateUserEvent_not_a_context", "cl.clCreateUserEvent(q)", -34),
    C("clReleaseEvent_twice", USER + "cl.clReleaseEvent(u); cl.clReleaseEvent(u)", -58),
    C("clRetainEvent_none", "cl.clRetainEvent(None)", -58),
    C("wait_list_none_entry", W + "cl.clEnqueueWriteBuffer(q, b, cl.CL_TRUE, 0, 16, w, [None])",
      -57),
    C("wait_list_a_string", W + "cl.clEnqueueWriteBuffer(q, b, cl.CL_TRUE, 0, 16, w, 'events')",
      -57),
    C("wait_list_released_event",
      W + "e = cl.clEnqueueMarkerWithWaitList(q); cl.clReleaseEvent(e)\n"
      "cl.clEnqueueWriteBuffer(q, b, cl.CL_TRUE, 0, 16, w, [e])", -57),
    C("wait_list_event_of_another_context",
      CTX2 + W + "cl.clEnqueueWriteBuffer(q, b, cl.CL_TRUE, 0, 16, w, "
      "[cl.clCreateUserEvent(ctx2)])", -34),
    C("wait_list_failed_user_event_blocking_write",
      USER + W + "cl.clSetUserEventStatus(u, -5)\n"
      "cl.clEnqueueWriteBuffer(q, b, cl.CL_TRUE, 0, 16, w, [u])", -14),
    C("cudaDeviceReset_with_a_command_waiting_on_a_released_user_event",
      USER + W + "cl.clEnqueueWriteBuffer(q, b, cl.CL_FALSE, 0, 16, w, [u])\n"
      "cl.clReleaseMemObject(b); cl.clReleaseEvent(u); del u; cudaDeviceReset()", "ok",
      reps=1, timeout=30),
    C("clEnqueueMarkerWithWaitList_not_a_queue", "cl.clEnqueueMarkerWithWaitList(ctx)", -36),
    C("clEnqueueBarrierWithWaitList_out_of_order_ok",
      "q2 = cl.clCreateCommandQueue(ctx, dev, cl.CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)\n"
      + USER + "e = cl.clEnqueueBarrierWithWaitList(q2, [u]); cl.clSetUserEventStatus(u, 0)\n"
      "cl.clWaitForEvents([e])", "ok"),
]
