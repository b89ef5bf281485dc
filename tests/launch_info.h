/*
 * The kernel function name and the program's build options of a launch, for
 * the test-side launch tracers (tests/cl_path_trace.c, tests/test_oclgrind.c):
 * the options name the code path a launch took.
 */
#ifndef CLPOOL_TESTS_LAUNCH_INFO_H
#define CLPOOL_TESTS_LAUNCH_INFO_H

#include <CL/cl.h>

/* name[name_len] and options[options_len] of kernel k enqueued on q ("?" and "" when unknown). */
static inline void launch_info(cl_command_queue q, cl_kernel k, char *name, size_t name_len, char *options,
                               size_t options_len)
{
    cl_program program = NULL;
    cl_device_id device = NULL;
    name[0] = '?', name[1] = '\0', options[0] = '\0';
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, name_len, name, NULL);
    name[name_len - 1] = '\0';
    if (clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof program, &program, NULL) == CL_SUCCESS &&
        clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof device, &device, NULL) == CL_SUCCESS)
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_OPTIONS, options_len, options, NULL);
    options[options_len - 1] = '\0';
}

#endif
