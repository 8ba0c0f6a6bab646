"""The CL_* constants of the calls pyemu.opencl implements, with their real
values (CL/cl.h, OpenCL 3.0).  Groups are IntEnums (a parameter name, a
command type) or IntFlags (bitfields such as cl_mem_flags); every member is
also a module-level name, so `from pyemu.opencl import *` gives CL_MEM_READ_ONLY.
"""
from __future__ import annotations

from enum import IntEnum, IntFlag

CL_FALSE = 0
CL_TRUE = 1
CL_BLOCKING = CL_TRUE
CL_NON_BLOCKING = CL_FALSE


def _group(base, name, doc, members):
    cls = base(name, members)
    cls.__doc__ = doc
    globals().update({m: cls[m] for m, _ in members})
    return cls


cl_platform_info = _group(IntEnum, "cl_platform_info", "clGetPlatformInfo parameters.", [
    ("CL_PLATFORM_PROFILE", 0x0900), ("CL_PLATFORM_VERSION", 0x0901),
    ("CL_PLATFORM_NAME", 0x0902), ("CL_PLATFORM_VENDOR", 0x0903),
    ("CL_PLATFORM_EXTENSIONS", 0x0904), ("CL_PLATFORM_HOST_TIMER_RESOLUTION", 0x0905),
    ("CL_PLATFORM_NUMERIC_VERSION", 0x0906), ("CL_PLATFORM_EXTENSIONS_WITH_VERSION", 0x0907),
])

cl_device_type = _group(IntFlag, "cl_device_type", "Device types (a bitfield).", [
    ("CL_DEVICE_TYPE_DEFAULT", 1 << 0), ("CL_DEVICE_TYPE_CPU", 1 << 1),
    ("CL_DEVICE_TYPE_GPU", 1 << 2), ("CL_DEVICE_TYPE_ACCELERATOR", 1 << 3),
    ("CL_DEVICE_TYPE_CUSTOM", 1 << 4), ("CL_DEVICE_TYPE_ALL", 0xFFFFFFFF),
])

cl_device_info = _group(IntEnum, "cl_device_info", "clGetDeviceInfo parameters.", [
    ("CL_DEVICE_TYPE", 0x1000), ("CL_DEVICE_VENDOR_ID", 0x1001),
    ("CL_DEVICE_MAX_COMPUTE_UNITS", 0x1002), ("CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS", 0x1003),
    ("CL_DEVICE_MAX_WORK_GROUP_SIZE", 0x1004), ("CL_DEVICE_MAX_WORK_ITEM_SIZES", 0x1005),
    ("CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR", 0x1006),
    ("CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT", 0x1007),
    ("CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT", 0x1008),
    ("CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG", 0x1009),
    ("CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT", 0x100A),
    ("CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE", 0x100B),
    ("CL_DEVICE_MAX_CLOCK_FREQUENCY", 0x100C), ("CL_DEVICE_ADDRESS_BITS", 0x100D),
    ("CL_DEVICE_MAX_READ_IMAGE_ARGS", 0x100E), ("CL_DEVICE_MAX_WRITE_IMAGE_ARGS", 0x100F),
    ("CL_DEVICE_MAX_MEM_ALLOC_SIZE", 0x1010), ("CL_DEVICE_IMAGE2D_MAX_WIDTH", 0x1011),
    ("CL_DEVICE_IMAGE2D_MAX_HEIGHT", 0x1012), ("CL_DEVICE_IMAGE3D_MAX_WIDTH", 0x1013),
    ("CL_DEVICE_IMAGE3D_MAX_HEIGHT", 0x1014), ("CL_DEVICE_IMAGE3D_MAX_DEPTH", 0x1015),
    ("CL_DEVICE_IMAGE_SUPPORT", 0x1016), ("CL_DEVICE_MAX_PARAMETER_SIZE", 0x1017),
    ("CL_DEVICE_MAX_SAMPLERS", 0x1018), ("CL_DEVICE_MEM_BASE_ADDR_ALIGN", 0x1019),
    ("CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE", 0x101A), ("CL_DEVICE_SINGLE_FP_CONFIG", 0x101B),
    ("CL_DEVICE_GLOBAL_MEM_CACHE_TYPE", 0x101C), ("CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE", 0x101D),
    ("CL_DEVICE_GLOBAL_MEM_CACHE_SIZE", 0x101E), ("CL_DEVICE_GLOBAL_MEM_SIZE", 0x101F),
    ("CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE", 0x1020), ("CL_DEVICE_MAX_CONSTANT_ARGS", 0x1021),
    ("CL_DEVICE_LOCAL_MEM_TYPE", 0x1022), ("CL_DEVICE_LOCAL_MEM_SIZE", 0x1023),
    ("CL_DEVICE_ERROR_CORRECTION_SUPPORT", 0x1024),
    ("CL_DEVICE_PROFILING_TIMER_RESOLUTION", 0x1025), ("CL_DEVICE_ENDIAN_LITTLE", 0x1026),
    ("CL_DEVICE_AVAILABLE", 0x1027), ("CL_DEVICE_COMPILER_AVAILABLE", 0x1028),
    ("CL_DEVICE_EXECUTION_CAPABILITIES", 0x1029), ("CL_DEVICE_QUEUE_PROPERTIES", 0x102A),
    ("CL_DEVICE_NAME", 0x102B), ("CL_DEVICE_VENDOR", 0x102C), ("CL_DRIVER_VERSION", 0x102D),
    ("CL_DEVICE_PROFILE", 0x102E), ("CL_DEVICE_VERSION", 0x102F),
    ("CL_DEVICE_EXTENSIONS", 0x1030), ("CL_DEVICE_PLATFORM", 0x1031),
    ("CL_DEVICE_DOUBLE_FP_CONFIG", 0x1032), ("CL_DEVICE_HALF_FP_CONFIG", 0x1033),
    ("CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF", 0x1034),
    ("CL_DEVICE_HOST_UNIFIED_MEMORY", 0x1035),
    ("CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR", 0x1036),
    ("CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT", 0x1037),
    ("CL_DEVICE_NATIVE_VECTOR_WIDTH_INT", 0x1038),
    ("CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG", 0x1039),
    ("CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT", 0x103A),
    ("CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE", 0x103B),
    ("CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF", 0x103C),
    ("CL_DEVICE_OPENCL_C_VERSION", 0x103D), ("CL_DEVICE_LINKER_AVAILABLE", 0x103E),
    ("CL_DEVICE_BUILT_IN_KERNELS", 0x103F), ("CL_DEVICE_IMAGE_MAX_BUFFER_SIZE", 0x1040),
    ("CL_DEVICE_IMAGE_MAX_ARRAY_SIZE", 0x1041), ("CL_DEVICE_PARENT_DEVICE", 0x1042),
    ("CL_DEVICE_PARTITION_MAX_SUB_DEVICES", 0x1043),
    ("CL_DEVICE_PARTITION_PROPERTIES", 0x1044),
    ("CL_DEVICE_PARTITION_AFFINITY_DOMAIN", 0x1045), ("CL_DEVICE_PARTITION_TYPE", 0x1046),
    ("CL_DEVICE_REFERENCE_COUNT", 0x1047), ("CL_DEVICE_PREFERRED_INTEROP_USER_SYNC", 0x1048),
    ("CL_DEVICE_PRINTF_BUFFER_SIZE", 0x1049),
    ("CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS", 0x104C),
    ("CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE", 0x104D),
    ("CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES", 0x104E),
    ("CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE", 0x104F),
    ("CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE", 0x1050),
    ("CL_DEVICE_MAX_ON_DEVICE_QUEUES", 0x1051), ("CL_DEVICE_MAX_ON_DEVICE_EVENTS", 0x1052),
    ("CL_DEVICE_SVM_CAPABILITIES", 0x1053),
    ("CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE", 0x1054),
    ("CL_DEVICE_MAX_PIPE_ARGS", 0x1055), ("CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS", 0x1056),
    ("CL_DEVICE_PIPE_MAX_PACKET_SIZE", 0x1057),
    ("CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT", 0x1058),
    ("CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT", 0x1059),
    ("CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT", 0x105A),
    ("CL_DEVICE_IL_VERSION", 0x105B), ("CL_DEVICE_MAX_NUM_SUB_GROUPS", 0x105C),
    ("CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS", 0x105D),
    ("CL_DEVICE_NUMERIC_VERSION", 0x105E), ("CL_DEVICE_EXTENSIONS_WITH_VERSION", 0x1060),
    ("CL_DEVICE_ILS_WITH_VERSION", 0x1061),
    ("CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION", 0x1062),
    ("CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES", 0x1063),
    ("CL_DEVICE_ATOMIC_FENCE_CAPABILITIES", 0x1064),
    ("CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT", 0x1065),
    ("CL_DEVICE_OPENCL_C_ALL_VERSIONS", 0x1066),
    ("CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE", 0x1067),
    ("CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT", 0x1068),
    ("CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT", 0x1069),
    ("CL_DEVICE_OPENCL_C_FEATURES", 0x106F),
    ("CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES", 0x1070), ("CL_DEVICE_PIPE_SUPPORT", 0x1071),
    ("CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED", 0x1072),
])
CL_DEVICE_QUEUE_ON_HOST_PROPERTIES = CL_DEVICE_QUEUE_PROPERTIES

cl_device_fp_config = _group(IntFlag, "cl_device_fp_config", "Floating-point capabilities.", [
    ("CL_FP_DENORM", 1 << 0), ("CL_FP_INF_NAN", 1 << 1), ("CL_FP_ROUND_TO_NEAREST", 1 << 2),
    ("CL_FP_ROUND_TO_ZERO", 1 << 3), ("CL_FP_ROUND_TO_INF", 1 << 4), ("CL_FP_FMA", 1 << 5),
    ("CL_FP_SOFT_FLOAT", 1 << 6), ("CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT", 1 << 7),
])

cl_device_mem_cache_type = _group(IntEnum, "cl_device_mem_cache_type", "Global memory cache.", [
    ("CL_NONE", 0), ("CL_READ_ONLY_CACHE", 1), ("CL_READ_WRITE_CACHE", 2),
])

cl_device_local_mem_type = _group(IntEnum, "cl_device_local_mem_type", "Local memory kind.", [
    ("CL_LOCAL", 1), ("CL_GLOBAL", 2),
])

cl_device_exec_capabilities = _group(IntFlag, "cl_device_exec_capabilities", "What runs.", [
    ("CL_EXEC_KERNEL", 1 << 0), ("CL_EXEC_NATIVE_KERNEL", 1 << 1),
])

cl_command_queue_properties = _group(
    IntFlag, "cl_command_queue_properties", "Queue properties (a bitfield).", [
        ("CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE", 1 << 0), ("CL_QUEUE_PROFILING_ENABLE", 1 << 1),
        ("CL_QUEUE_ON_DEVICE", 1 << 2), ("CL_QUEUE_ON_DEVICE_DEFAULT", 1 << 3),
    ])

cl_context_info = _group(IntEnum, "cl_context_info", "clGetContextInfo parameters.", [
    ("CL_CONTEXT_REFERENCE_COUNT", 0x1080), ("CL_CONTEXT_DEVICES", 0x1081),
    ("CL_CONTEXT_PROPERTIES", 0x1082), ("CL_CONTEXT_NUM_DEVICES", 0x1083),
])

cl_context_properties = _group(IntEnum, "cl_context_properties", "Context property names.", [
    ("CL_CONTEXT_PLATFORM", 0x1084), ("CL_CONTEXT_INTEROP_USER_SYNC", 0x1085),
])

cl_command_queue_info = _group(IntEnum, "cl_command_queue_info", "clGetCommandQueueInfo.", [
    ("CL_QUEUE_CONTEXT", 0x1090), ("CL_QUEUE_DEVICE", 0x1091),
    ("CL_QUEUE_REFERENCE_COUNT", 0x1092), ("CL_QUEUE_PROPERTIES", 0x1093),
    ("CL_QUEUE_SIZE", 0x1094), ("CL_QUEUE_DEVICE_DEFAULT", 0x1095),
    ("CL_QUEUE_PROPERTIES_ARRAY", 0x1098),
])

cl_mem_flags = _group(IntFlag, "cl_mem_flags", "Memory object flags (a bitfield).", [
    ("CL_MEM_READ_WRITE", 1 << 0), ("CL_MEM_WRITE_ONLY", 1 << 1), ("CL_MEM_READ_ONLY", 1 << 2),
    ("CL_MEM_USE_HOST_PTR", 1 << 3), ("CL_MEM_ALLOC_HOST_PTR", 1 << 4),
    ("CL_MEM_COPY_HOST_PTR", 1 << 5), ("CL_MEM_HOST_WRITE_ONLY", 1 << 7),
    ("CL_MEM_HOST_READ_ONLY", 1 << 8), ("CL_MEM_HOST_NO_ACCESS", 1 << 9),
])

cl_mem_object_type = _group(IntEnum, "cl_mem_object_type", "Memory object types.", [
    ("CL_MEM_OBJECT_BUFFER", 0x10F0), ("CL_MEM_OBJECT_IMAGE2D", 0x10F1),
    ("CL_MEM_OBJECT_IMAGE3D", 0x10F2), ("CL_MEM_OBJECT_IMAGE2D_ARRAY", 0x10F3),
    ("CL_MEM_OBJECT_IMAGE1D", 0x10F4), ("CL_MEM_OBJECT_IMAGE1D_ARRAY", 0x10F5),
    ("CL_MEM_OBJECT_IMAGE1D_BUFFER", 0x10F6), ("CL_MEM_OBJECT_PIPE", 0x10F7),
])

cl_mem_info = _group(IntEnum, "cl_mem_info", "clGetMemObjectInfo parameters.", [
    ("CL_MEM_TYPE", 0x1100), ("CL_MEM_FLAGS", 0x1101), ("CL_MEM_SIZE", 0x1102),
    ("CL_MEM_HOST_PTR", 0x1103), ("CL_MEM_MAP_COUNT", 0x1104),
    ("CL_MEM_REFERENCE_COUNT", 0x1105), ("CL_MEM_CONTEXT", 0x1106),
    ("CL_MEM_ASSOCIATED_MEMOBJECT", 0x1107), ("CL_MEM_OFFSET", 0x1108),
    ("CL_MEM_USES_SVM_POINTER", 0x1109), ("CL_MEM_PROPERTIES", 0x110A),
])

cl_buffer_create_type = _group(IntEnum, "cl_buffer_create_type", "clCreateSubBuffer kinds.", [
    ("CL_BUFFER_CREATE_TYPE_REGION", 0x1220),
])

cl_map_flags = _group(IntFlag, "cl_map_flags", "clEnqueueMapBuffer flags (a bitfield).", [
    ("CL_MAP_READ", 1 << 0), ("CL_MAP_WRITE", 1 << 1),
    ("CL_MAP_WRITE_INVALIDATE_REGION", 1 << 2),
])

cl_program_info = _group(IntEnum, "cl_program_info", "clGetProgramInfo parameters.", [
    ("CL_PROGRAM_REFERENCE_COUNT", 0x1160), ("CL_PROGRAM_CONTEXT", 0x1161),
    ("CL_PROGRAM_NUM_DEVICES", 0x1162), ("CL_PROGRAM_DEVICES", 0x1163),
    ("CL_PROGRAM_SOURCE", 0x1164), ("CL_PROGRAM_BINARY_SIZES", 0x1165),
    ("CL_PROGRAM_BINARIES", 0x1166), ("CL_PROGRAM_NUM_KERNELS", 0x1167),
    ("CL_PROGRAM_KERNEL_NAMES", 0x1168), ("CL_PROGRAM_IL", 0x1169),
    ("CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT", 0x116A),
    ("CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT", 0x116B),
])

cl_program_build_info = _group(IntEnum, "cl_program_build_info", "clGetProgramBuildInfo.", [
    ("CL_PROGRAM_BUILD_STATUS", 0x1181), ("CL_PROGRAM_BUILD_OPTIONS", 0x1182),
    ("CL_PROGRAM_BUILD_LOG", 0x1183), ("CL_PROGRAM_BINARY_TYPE", 0x1184),
    ("CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE", 0x1185),
])

cl_build_status = _group(IntEnum, "cl_build_status", "A program's build status.", [
    ("CL_BUILD_SUCCESS", 0), ("CL_BUILD_NONE", -1), ("CL_BUILD_ERROR", -2),
    ("CL_BUILD_IN_PROGRESS", -3),
])

cl_program_binary_type = _group(IntEnum, "cl_program_binary_type", "Program binary types.", [
    ("CL_PROGRAM_BINARY_TYPE_NONE", 0), ("CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT", 1),
    ("CL_PROGRAM_BINARY_TYPE_LIBRARY", 2), ("CL_PROGRAM_BINARY_TYPE_EXECUTABLE", 4),
])

cl_kernel_info = _group(IntEnum, "cl_kernel_info", "clGetKernelInfo parameters.", [
    ("CL_KERNEL_FUNCTION_NAME", 0x1190), ("CL_KERNEL_NUM_ARGS", 0x1191),
    ("CL_KERNEL_REFERENCE_COUNT", 0x1192), ("CL_KERNEL_CONTEXT", 0x1193),
    ("CL_KERNEL_PROGRAM", 0x1194), ("CL_KERNEL_ATTRIBUTES", 0x1195),
])

cl_kernel_arg_info = _group(IntEnum, "cl_kernel_arg_info", "clGetKernelArgInfo parameters.", [
    ("CL_KERNEL_ARG_ADDRESS_QUALIFIER", 0x1196), ("CL_KERNEL_ARG_ACCESS_QUALIFIER", 0x1197),
    ("CL_KERNEL_ARG_TYPE_NAME", 0x1198), ("CL_KERNEL_ARG_TYPE_QUALIFIER", 0x1199),
    ("CL_KERNEL_ARG_NAME", 0x119A),
])

cl_kernel_arg_address_qualifier = _group(
    IntEnum, "cl_kernel_arg_address_qualifier", "Where a kernel argument points.", [
        ("CL_KERNEL_ARG_ADDRESS_GLOBAL", 0x119B), ("CL_KERNEL_ARG_ADDRESS_LOCAL", 0x119C),
        ("CL_KERNEL_ARG_ADDRESS_CONSTANT", 0x119D), ("CL_KERNEL_ARG_ADDRESS_PRIVATE", 0x119E),
    ])

cl_kernel_arg_access_qualifier = _group(
    IntEnum, "cl_kernel_arg_access_qualifier", "Image access of a kernel argument.", [
        ("CL_KERNEL_ARG_ACCESS_READ_ONLY", 0x11A0), ("CL_KERNEL_ARG_ACCESS_WRITE_ONLY", 0x11A1),
        ("CL_KERNEL_ARG_ACCESS_READ_WRITE", 0x11A2), ("CL_KERNEL_ARG_ACCESS_NONE", 0x11A3),
    ])

cl_kernel_arg_type_qualifier = _group(
    IntFlag, "cl_kernel_arg_type_qualifier", "Type qualifiers of a kernel argument.", [
        ("CL_KERNEL_ARG_TYPE_NONE", 0), ("CL_KERNEL_ARG_TYPE_CONST", 1 << 0),
        ("CL_KERNEL_ARG_TYPE_RESTRICT", 1 << 1), ("CL_KERNEL_ARG_TYPE_VOLATILE", 1 << 2),
        ("CL_KERNEL_ARG_TYPE_PIPE", 1 << 3),
    ])

cl_kernel_work_group_info = _group(
    IntEnum, "cl_kernel_work_group_info", "clGetKernelWorkGroupInfo parameters.", [
        ("CL_KERNEL_WORK_GROUP_SIZE", 0x11B0), ("CL_KERNEL_COMPILE_WORK_GROUP_SIZE", 0x11B1),
        ("CL_KERNEL_LOCAL_MEM_SIZE", 0x11B2),
        ("CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE", 0x11B3),
        ("CL_KERNEL_PRIVATE_MEM_SIZE", 0x11B4), ("CL_KERNEL_GLOBAL_WORK_SIZE", 0x11B5),
    ])

cl_event_info = _group(IntEnum, "cl_event_info", "clGetEventInfo parameters.", [
    ("CL_EVENT_COMMAND_QUEUE", 0x11D0), ("CL_EVENT_COMMAND_TYPE", 0x11D1),
    ("CL_EVENT_REFERENCE_COUNT", 0x11D2), ("CL_EVENT_COMMAND_EXECUTION_STATUS", 0x11D3),
    ("CL_EVENT_CONTEXT", 0x11D4),
])

cl_command_type = _group(IntEnum, "cl_command_type", "What an event's command is.", [
    ("CL_COMMAND_NDRANGE_KERNEL", 0x11F0), ("CL_COMMAND_TASK", 0x11F1),
    ("CL_COMMAND_NATIVE_KERNEL", 0x11F2), ("CL_COMMAND_READ_BUFFER", 0x11F3),
    ("CL_COMMAND_WRITE_BUFFER", 0x11F4), ("CL_COMMAND_COPY_BUFFER", 0x11F5),
    ("CL_COMMAND_READ_IMAGE", 0x11F6), ("CL_COMMAND_WRITE_IMAGE", 0x11F7),
    ("CL_COMMAND_COPY_IMAGE", 0x11F8), ("CL_COMMAND_COPY_IMAGE_TO_BUFFER", 0x11F9),
    ("CL_COMMAND_COPY_BUFFER_TO_IMAGE", 0x11FA), ("CL_COMMAND_MAP_BUFFER", 0x11FB),
    ("CL_COMMAND_MAP_IMAGE", 0x11FC), ("CL_COMMAND_UNMAP_MEM_OBJECT", 0x11FD),
    ("CL_COMMAND_MARKER", 0x11FE), ("CL_COMMAND_ACQUIRE_GL_OBJECTS", 0x11FF),
    ("CL_COMMAND_RELEASE_GL_OBJECTS", 0x1200), ("CL_COMMAND_READ_BUFFER_RECT", 0x1201),
    ("CL_COMMAND_WRITE_BUFFER_RECT", 0x1202), ("CL_COMMAND_COPY_BUFFER_RECT", 0x1203),
    ("CL_COMMAND_USER", 0x1204), ("CL_COMMAND_BARRIER", 0x1205),
    ("CL_COMMAND_MIGRATE_MEM_OBJECTS", 0x1206), ("CL_COMMAND_FILL_BUFFER", 0x1207),
    ("CL_COMMAND_FILL_IMAGE", 0x1208),
])

cl_command_execution_status = _group(IntEnum, "cl_command_execution_status", "Event states.", [
    ("CL_COMPLETE", 0), ("CL_RUNNING", 1), ("CL_SUBMITTED", 2), ("CL_QUEUED", 3),
])

cl_profiling_info = _group(IntEnum, "cl_profiling_info", "clGetEventProfilingInfo.", [
    ("CL_PROFILING_COMMAND_QUEUED", 0x1280), ("CL_PROFILING_COMMAND_SUBMIT", 0x1281),
    ("CL_PROFILING_COMMAND_START", 0x1282), ("CL_PROFILING_COMMAND_END", 0x1283),
    ("CL_PROFILING_COMMAND_COMPLETE", 0x1284),
])

_GROUPS = [cl_platform_info, cl_device_type, cl_device_info, cl_device_fp_config,
           cl_device_mem_cache_type, cl_device_local_mem_type, cl_device_exec_capabilities,
           cl_command_queue_properties, cl_context_info, cl_context_properties,
           cl_command_queue_info, cl_mem_flags, cl_mem_object_type, cl_mem_info,
           cl_buffer_create_type, cl_map_flags, cl_program_info, cl_program_build_info,
           cl_build_status, cl_program_binary_type, cl_kernel_info, cl_kernel_arg_info,
           cl_kernel_arg_address_qualifier, cl_kernel_arg_access_qualifier,
           cl_kernel_arg_type_qualifier, cl_kernel_work_group_info, cl_event_info,
           cl_command_type, cl_command_execution_status, cl_profiling_info]


def CL_MAKE_VERSION(major: int, minor: int, patch: int) -> int:
    """CL_MAKE_VERSION: a cl_version (10 bits major, 10 minor, 12 patch)."""
    return ((major & 0x3FF) << 22) | ((minor & 0x3FF) << 12) | (patch & 0xFFF)


__all__ = (["CL_FALSE", "CL_TRUE", "CL_BLOCKING", "CL_NON_BLOCKING",
            "CL_DEVICE_QUEUE_ON_HOST_PROPERTIES", "CL_MAKE_VERSION"]
           + [g.__name__ for g in _GROUPS] + [m for g in _GROUPS for m in g.__members__])
