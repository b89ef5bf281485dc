/* GlobalMaxPool / GlobalAveragePool / GlobalLpPool: validation, shape
 * inference, and the enqueue of the plan host/global_plan.c makes. */
#include <math.h>
#include <string.h>

#include "planners.h"
#include "window.h"

static const char *op_name(clpool__op op)
{
    return op == CLPOOL__OP_GLOBAL_MAX_POOL       ? "GlobalMaxPool"
           : op == CLPOOL__OP_GLOBAL_AVERAGE_POOL ? "GlobalAveragePool"
                                                  : "GlobalLpPool";
}

static clpool_status check_input(const clpool_shape *input, const char *fn, int64_t *planes, int64_t *plane_size)
{
    int64_t n = 0;
    clpool_status status = clpool__check_shape(input, fn, "input shape", &n);
    if (status != CLPOOL_SUCCESS) return status;
    if (input->rank < 3)
        return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE, "%s: input rank %d must be >= 3 (N x C x D1 ...)", fn,
                            (int)input->rank);
    int64_t s = 1;
    for (int32_t i = 2; i < input->rank; ++i) {
        if (input->dims[i] == 0)
            return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE,
                                "%s: spatial dim %d is 0; a global pool needs at least one element per plane", fn,
                                (int)(i - 2));
        /* The full product was checked, but with N or C = 0 it is 0 whatever the spatial dims are. */
        if (!clpool__mul_ok(s, input->dims[i], &s))
            return clpool__fail(CLPOOL_ERROR_OVERFLOW, "%s: the spatial size of the input overflows int64", fn);
    }
    *planes = input->dims[0] * input->dims[1];
    *plane_size = s;
    return CLPOOL_SUCCESS;
}

clpool_status clpool_global_pool_output_shape(const clpool_shape *input, clpool_shape *output)
{
    static const char *fn = "clpool_global_pool_output_shape";
    CLPOOL_REQUIRE_NOT_NULL(output, fn);
    int64_t planes, plane_size;
    clpool_status status = check_input(input, fn, &planes, &plane_size);
    if (status != CLPOOL_SUCCESS) return status;
    memset(output, 0, sizeof *output);
    output->rank = input->rank;
    output->dims[0] = input->dims[0];
    output->dims[1] = input->dims[1];
    for (int32_t i = 2; i < input->rank; ++i) output->dims[i] = 1;
    return CLPOOL_SUCCESS;
}

/* The op's dtype and, for GlobalLpPool, p. */
static clpool_status check_op(clpool__op op, double p, clpool_dtype dtype, const char *fn)
{
    if (!clpool__global_pool_dtype_ok(dtype))
        return clpool__fail(CLPOOL_ERROR_UNSUPPORTED_DTYPE,
                            "%s: dtype %s (%d) is not supported by %s (float32, float64, float16, bfloat16)", fn,
                            clpool_dtype_name(dtype), (int)dtype, op_name(op));
    if (op == CLPOOL__OP_GLOBAL_LP_POOL && !(p > 0 && isfinite(p)))
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: p = %g must be finite and > 0", fn, p);
    return CLPOOL_SUCCESS;
}

static clpool_status enqueue_global(clpool_context *ctx, cl_command_queue queue, clpool__op op, double p,
                                    clpool_dtype dtype, const clpool_shape *input_shape, cl_mem input,
                                    size_t input_offset, cl_mem output, size_t output_offset, cl_uint num_wait,
                                    const cl_event *wait, cl_event *event, const char *fn)
{
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    clpool_status status = check_op(op, p, dtype, fn);
    if (status != CLPOOL_SUCCESS) return status;
    int64_t planes, plane_size;
    status = check_input(input_shape, fn, &planes, &plane_size);
    if (status != CLPOOL_SUCCESS) return status;
    const size_t esize = clpool_dtype_size(dtype);
    if ((status = clpool__check_dtype_device(ctx, dtype, fn)) != CLPOOL_SUCCESS) return status;
    if ((status = clpool__check_wait_list(num_wait, wait, fn)) != CLPOOL_SUCCESS) return status;
    cl_command_queue q;
    if ((status = clpool__resolve_queue(ctx, queue, fn, &q)) != CLPOOL_SUCCESS) return status;
    if ((status = clpool__check_buffer(input, input_offset, planes * plane_size, esize, fn, "input", NULL)) !=
        CLPOOL_SUCCESS)
        return status;
    if ((status = clpool__check_buffer(output, output_offset, planes, esize, fn, "output", NULL)) != CLPOOL_SUCCESS)
        return status;
    if (planes == 0) return clpool__enqueue_nothing(q, num_wait, wait, event);
    const int64_t in_off = (int64_t)(input_offset / esize), out_off = (int64_t)(output_offset / esize);
    const clpool__global_desc desc = {.op = op, .p = p, .dtype = dtype, .esize = (int64_t)esize, .planes = planes,
                                      .plane_size = plane_size, .in_off = in_off, .out_off = out_off};
    clpool__device_caps caps;
    clpool__device_caps_of(ctx, &caps);
    clpool__plan plan;
    clpool__global_plan_call(&caps, &desc, &plan);
    cl_mem mems[CLPOOL__ROLES] = {[CLPOOL__ROLE_INPUT] = input, [CLPOOL__ROLE_OUTPUT] = output};
    clpool__tier_job *job;
    if (!clpool__plan_now(ctx, &plan, (uint64_t)(planes * plane_size) * esize, mems, &job))
        clpool__global_plan_first_tier(&caps, &desc, &plan);
    return clpool__plan_run_tiered(ctx, q, &plan, mems, job, num_wait, wait, event, fn);
}

clpool_status clpool_enqueue_global_max_pool(clpool_context *ctx, cl_command_queue queue, clpool_dtype dtype,
                                             const clpool_shape *input_shape, cl_mem input, size_t input_offset,
                                             cl_mem output, size_t output_offset, cl_uint num_wait,
                                             const cl_event *wait, cl_event *event)
{
    return enqueue_global(ctx, queue, CLPOOL__OP_GLOBAL_MAX_POOL, 0.0, dtype, input_shape, input, input_offset, output,
                          output_offset, num_wait, wait, event, "clpool_enqueue_global_max_pool");
}

clpool_status clpool_enqueue_global_average_pool(clpool_context *ctx, cl_command_queue queue, clpool_dtype dtype,
                                                 const clpool_shape *input_shape, cl_mem input, size_t input_offset,
                                                 cl_mem output, size_t output_offset, cl_uint num_wait,
                                                 const cl_event *wait, cl_event *event)
{
    return enqueue_global(ctx, queue, CLPOOL__OP_GLOBAL_AVERAGE_POOL, 0.0, dtype, input_shape, input, input_offset, output,
                          output_offset, num_wait, wait, event, "clpool_enqueue_global_average_pool");
}

clpool_status clpool_enqueue_global_lp_pool(clpool_context *ctx, cl_command_queue queue, double p, clpool_dtype dtype,
                                            const clpool_shape *input_shape, cl_mem input, size_t input_offset,
                                            cl_mem output, size_t output_offset, cl_uint num_wait,
                                            const cl_event *wait, cl_event *event)
{
    return enqueue_global(ctx, queue, CLPOOL__OP_GLOBAL_LP_POOL, p, dtype, input_shape, input, input_offset, output,
                          output_offset, num_wait, wait, event, "clpool_enqueue_global_lp_pool");
}

/* A global pool on views: one window over each whole plane (MaxPool without Indices, AveragePool,
 * LpPool) through the windowed ops' view path, after the global pools' own checks. Contiguous views
 * take the contiguous call; others sum in the windows' order (within the same bound). */
static clpool_status enqueue_global_view(clpool_context *ctx, cl_command_queue queue, clpool__op op, double p,
                                         clpool_dtype dtype, const clpool_view *input, const clpool_view *output,
                                         cl_uint num_wait, const cl_event *wait, cl_event *event, const char *fn)
{
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    CLPOOL_REQUIRE_NOT_NULL(input, fn);
    clpool_status status = check_op(op, p, dtype, fn);
    if (status != CLPOOL_SUCCESS) return status;
    clpool_shape shape;
    clpool__view_shape(input, &shape);
    int64_t planes, plane_size;
    status = check_input(&shape, fn, &planes, &plane_size);
    if (status != CLPOOL_SUCCESS) return status;
    clpool_window_params w;
    if ((status = clpool__window_params_init(&w, shape.rank - 2, shape.dims + 2, fn)) != CLPOOL_SUCCESS) return status;
    clpool__pool_desc desc;
    if (op == CLPOOL__OP_GLOBAL_MAX_POOL) {
        clpool_maxpool_params mp;
        clpool_maxpool_params_init(&mp, w.spatial_rank, w.kernel_shape);
        status = clpool__maxpool_describe(&shape, &mp, dtype, 0, fn, &desc);
    } else {
        clpool_average_pool_params avg;
        clpool_lp_pool_params lp;
        clpool_average_pool_params_init(&avg, w.spatial_rank, w.kernel_shape);
        clpool_lp_pool_params_init(&lp, w.spatial_rank, w.kernel_shape);
        lp.p = p;
        status = clpool__sum_pool_describe(&shape, op == CLPOOL__OP_GLOBAL_AVERAGE_POOL ? &avg : NULL,
                                           op == CLPOOL__OP_GLOBAL_LP_POOL ? &lp : NULL, dtype, fn, &desc);
    }
    if (status != CLPOOL_SUCCESS) return status;
    return clpool__window_enqueue_view(ctx, queue, &desc,
                                       op == CLPOOL__OP_GLOBAL_MAX_POOL ? clpool__maxpool_plan_call
                                                                        : clpool__sum_pool_plan_call,
                                       input, output, NULL, num_wait, wait, event, fn);
}

clpool_status clpool_enqueue_global_max_pool_view(clpool_context *ctx, cl_command_queue queue, clpool_dtype dtype,
                                                  const clpool_view *input, const clpool_view *output,
                                                  cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    return enqueue_global_view(ctx, queue, CLPOOL__OP_GLOBAL_MAX_POOL, 0.0, dtype, input, output, num_wait, wait, event,
                               "clpool_enqueue_global_max_pool_view");
}

clpool_status clpool_enqueue_global_average_pool_view(clpool_context *ctx, cl_command_queue queue, clpool_dtype dtype,
                                                      const clpool_view *input, const clpool_view *output,
                                                      cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    return enqueue_global_view(ctx, queue, CLPOOL__OP_GLOBAL_AVERAGE_POOL, 0.0, dtype, input, output, num_wait, wait,
                               event, "clpool_enqueue_global_average_pool_view");
}

clpool_status clpool_enqueue_global_lp_pool_view(clpool_context *ctx, cl_command_queue queue, double p,
                                                 clpool_dtype dtype, const clpool_view *input,
                                                 const clpool_view *output, cl_uint num_wait, const cl_event *wait,
                                                 cl_event *event)
{
    return enqueue_global_view(ctx, queue, CLPOOL__OP_GLOBAL_LP_POOL, p, dtype, input, output, num_wait, wait, event,
                               "clpool_enqueue_global_lp_pool_view");
}
