/* Status names, OpenCL error names and the per-thread detailed error message. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Large enough to carry a useful slice of a kernel build log. */
#define CLPOOL_ERROR_CAPACITY 8192

static _Thread_local char last_error[CLPOOL_ERROR_CAPACITY];

const char *clpool_status_string(clpool_status status)
{
    switch (status) {
    case CLPOOL_SUCCESS: return "CLPOOL_SUCCESS";
    case CLPOOL_ERROR_INVALID_ARGUMENT: return "CLPOOL_ERROR_INVALID_ARGUMENT";
    case CLPOOL_ERROR_INVALID_SHAPE: return "CLPOOL_ERROR_INVALID_SHAPE";
    case CLPOOL_ERROR_UNSUPPORTED_DTYPE: return "CLPOOL_ERROR_UNSUPPORTED_DTYPE";
    case CLPOOL_ERROR_UNSUPPORTED_DEVICE: return "CLPOOL_ERROR_UNSUPPORTED_DEVICE";
    case CLPOOL_ERROR_OUT_OF_HOST_MEMORY: return "CLPOOL_ERROR_OUT_OF_HOST_MEMORY";
    case CLPOOL_ERROR_BUILD_FAILED: return "CLPOOL_ERROR_BUILD_FAILED";
    case CLPOOL_ERROR_OPENCL: return "CLPOOL_ERROR_OPENCL";
    case CLPOOL_ERROR_NO_DEVICE: return "CLPOOL_ERROR_NO_DEVICE";
    case CLPOOL_ERROR_BUFFER_TOO_SMALL: return "CLPOOL_ERROR_BUFFER_TOO_SMALL";
    case CLPOOL_ERROR_OVERFLOW: return "CLPOOL_ERROR_OVERFLOW";
    }
    return "CLPOOL_UNKNOWN_STATUS";
}

const char *clpool_last_error(void)
{
    return last_error;
}

clpool_status clpool__fail(clpool_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

void clpool__append_error(const char *text)
{
    const size_t used = strlen(last_error); /* at most sizeof last_error - 1: room for the NUL at least */
    snprintf(last_error + used, sizeof last_error - used, "%s", text);
}

const char *clpool__cl_error_name(cl_int err)
{
    switch (err) {
#define NAME(x) case x: return #x
    NAME(CL_SUCCESS);
    NAME(CL_DEVICE_NOT_FOUND);
    NAME(CL_DEVICE_NOT_AVAILABLE);
    NAME(CL_COMPILER_NOT_AVAILABLE);
    NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE);
    NAME(CL_OUT_OF_RESOURCES);
    NAME(CL_OUT_OF_HOST_MEMORY);
    NAME(CL_BUILD_PROGRAM_FAILURE);
    NAME(CL_INVALID_VALUE);
    NAME(CL_INVALID_DEVICE_TYPE);
    NAME(CL_INVALID_PLATFORM);
    NAME(CL_INVALID_DEVICE);
    NAME(CL_INVALID_CONTEXT);
    NAME(CL_INVALID_QUEUE_PROPERTIES);
    NAME(CL_INVALID_COMMAND_QUEUE);
    NAME(CL_INVALID_MEM_OBJECT);
    NAME(CL_INVALID_BUILD_OPTIONS);
    NAME(CL_INVALID_PROGRAM);
    NAME(CL_INVALID_PROGRAM_EXECUTABLE);
    NAME(CL_INVALID_KERNEL_NAME);
    NAME(CL_INVALID_KERNEL);
    NAME(CL_INVALID_ARG_INDEX);
    NAME(CL_INVALID_ARG_VALUE);
    NAME(CL_INVALID_ARG_SIZE);
    NAME(CL_INVALID_KERNEL_ARGS);
    NAME(CL_INVALID_WORK_DIMENSION);
    NAME(CL_INVALID_WORK_GROUP_SIZE);
    NAME(CL_INVALID_WORK_ITEM_SIZE);
    NAME(CL_INVALID_GLOBAL_OFFSET);
    NAME(CL_INVALID_EVENT_WAIT_LIST);
    NAME(CL_INVALID_EVENT);
    NAME(CL_INVALID_OPERATION);
    NAME(CL_INVALID_BUFFER_SIZE);
    NAME(CL_INVALID_GLOBAL_WORK_SIZE);
    NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET);
    NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
#undef NAME
    default: return "unknown OpenCL error";
    }
}

clpool_status clpool__cl_fail(cl_int err, const char *what)
{
    return clpool__fail(CLPOOL_ERROR_OPENCL, "%s failed: %s (%d)", what, clpool__cl_error_name(err), (int)err);
}
