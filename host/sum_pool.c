/* AveragePool and LpPool, the windowed sum pools: their attributes beyond the
 * window (window.c), shape inference, and the enqueue of the plan
 * host/window_plan.c makes. */
#include <math.h>
#include <string.h>

#include "planners.h"

/* Both ops' params (`size` bytes at `params`): zero, then the window's defaults (window.c); errors name `fn`
 * and leave the params as they were. The caller sets struct_size. */
static clpool_status init_window(void *params, size_t size, clpool_window_params *window, int32_t spatial_rank,
                                 const int64_t *kernel_shape, const char *fn)
{
    clpool_window_params w;
    const clpool_status status = clpool__window_params_init(&w, spatial_rank, kernel_shape, fn);
    if (status != CLPOOL_SUCCESS) return status;
    memset(params, 0, size);
    *window = w;
    return CLPOOL_SUCCESS;
}

clpool_status clpool_average_pool_params_init(clpool_average_pool_params *p, int32_t spatial_rank,
                                              const int64_t *kernel_shape)
{
    static const char *fn = "clpool_average_pool_params_init";
    CLPOOL_REQUIRE_NOT_NULL(p, fn);
    const clpool_status status = init_window(p, sizeof *p, &p->window, spatial_rank, kernel_shape, fn);
    if (status == CLPOOL_SUCCESS) p->struct_size = sizeof *p;
    return status;
}

clpool_status clpool_lp_pool_params_init(clpool_lp_pool_params *p, int32_t spatial_rank, const int64_t *kernel_shape)
{
    static const char *fn = "clpool_lp_pool_params_init";
    CLPOOL_REQUIRE_NOT_NULL(p, fn);
    const clpool_status status = init_window(p, sizeof *p, &p->window, spatial_rank, kernel_shape, fn);
    if (status == CLPOOL_SUCCESS) {
        p->struct_size = sizeof *p;
        p->p = 2.0;
    }
    return status;
}

/* The op's own attributes (struct sizes, count_include_pad, p), then its windows: window.c's rules, where a
 * window with no tap inside the input is allowed (its sum is 0). */
static clpool_status size_sum_pool(const clpool_shape *input, const clpool_average_pool_params *avg,
                                   const clpool_lp_pool_params *lp, const char *fn, clpool__window *w)
{
    clpool_status status = clpool__check_shape(input, fn, "input shape", NULL);
    if (status != CLPOOL_SUCCESS) return status;
    const clpool_window_params *window;
    if (avg) {
        if (avg->struct_size != sizeof *avg)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                                "%s: params.struct_size is %zu, expected %zu (initialise with clpool_average_pool_params_init)",
                                fn, avg->struct_size, sizeof *avg);
        if (avg->count_include_pad != 0 && avg->count_include_pad != 1)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: count_include_pad = %d must be 0 or 1", fn,
                                (int)avg->count_include_pad);
        window = &avg->window;
    } else {
        if (lp->struct_size != sizeof *lp)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                                "%s: params.struct_size is %zu, expected %zu (initialise with clpool_lp_pool_params_init)",
                                fn, lp->struct_size, sizeof *lp);
        if (!(lp->p > 0.0) || !isfinite(lp->p))
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: p = %g must be > 0 and finite", fn, lp->p);
        window = &lp->window;
    }
    if (window->struct_size != sizeof *window)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                            "%s: params.window.struct_size is %zu, expected %zu (initialise the params with their _init)",
                            fn, window->struct_size, sizeof *window);
    return clpool__window_size(input, window, 0, fn, w);
}

/* Both ops' shape inference: exactly one of avg, lp is set. */
static clpool_status sum_pool_output_shape(const clpool_shape *input, const clpool_average_pool_params *avg,
                                           const clpool_lp_pool_params *lp, clpool_shape *output, const char *fn)
{
    if (!avg && !lp) return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: params is NULL", fn);
    CLPOOL_REQUIRE_NOT_NULL(output, fn);
    clpool__window w;
    const clpool_status status = size_sum_pool(input, avg, lp, fn, &w);
    if (status == CLPOOL_SUCCESS) clpool__window_output_shape(input, &w, output);
    return status;
}

clpool_status clpool_average_pool_output_shape(const clpool_shape *input, const clpool_average_pool_params *params,
                                               clpool_shape *output)
{
    return sum_pool_output_shape(input, params, NULL, output, "clpool_average_pool_output_shape");
}

clpool_status clpool_lp_pool_output_shape(const clpool_shape *input, const clpool_lp_pool_params *params,
                                          clpool_shape *output)
{
    return sum_pool_output_shape(input, NULL, params, output, "clpool_lp_pool_output_shape");
}

clpool_status clpool__sum_pool_describe(const clpool_shape *input, const clpool_average_pool_params *avg,
                                        const clpool_lp_pool_params *lp, clpool_dtype dtype, const char *fn,
                                        clpool__pool_desc *desc)
{
    memset(desc, 0, sizeof *desc);
    const clpool_status status = size_sum_pool(input, avg, lp, fn, &desc->w);
    if (status != CLPOOL_SUCCESS) return status;
    desc->op = avg ? CLPOOL__OP_AVERAGE_POOL : CLPOOL__OP_LP_POOL;
    desc->count_include_pad = avg ? avg->count_include_pad : 0;
    desc->p = lp ? lp->p : 0.0;
    desc->dtype = dtype;
    desc->esize = (int64_t)clpool_dtype_size(dtype);
    desc->input = CLPOOL__ROLE_INPUT;
    desc->output = CLPOOL__ROLE_OUTPUT;
    return CLPOOL_SUCCESS;
}

/* Both ops' checks and description: exactly one of avg, lp is set. */
static clpool_status describe_call(clpool_context *ctx, const clpool_average_pool_params *avg,
                                   const clpool_lp_pool_params *lp, clpool_dtype dtype,
                                   const clpool_shape *input_shape, const char *fn, clpool__pool_desc *desc)
{
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    if (!avg && !lp) return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: params is NULL", fn);
    if (!clpool__global_pool_dtype_ok(dtype))
        return clpool__fail(CLPOOL_ERROR_UNSUPPORTED_DTYPE,
                            "%s: dtype %s (%d) is not supported by %s (float32, float64, float16, bfloat16)", fn,
                            clpool_dtype_name(dtype), (int)dtype, avg ? "AveragePool" : "LpPool");
    return clpool__sum_pool_describe(input_shape, avg, lp, dtype, fn, desc);
}

/* Both ops' enqueue: exactly one of avg, lp is set. */
static clpool_status enqueue_sum_pool(clpool_context *ctx, cl_command_queue queue,
                                      const clpool_average_pool_params *avg, const clpool_lp_pool_params *lp,
                                      clpool_dtype dtype, const clpool_shape *input_shape, cl_mem input,
                                      size_t input_offset, cl_mem output, size_t output_offset, cl_uint num_wait,
                                      const cl_event *wait, cl_event *event, const char *fn)
{
    clpool__pool_desc desc;
    const clpool_status status = describe_call(ctx, avg, lp, dtype, input_shape, fn, &desc);
    if (status != CLPOOL_SUCCESS) return status;
    return clpool__window_enqueue(ctx, queue, &desc, clpool__sum_pool_plan_call, input_shape, input, input_offset,
                                  output, output_offset, NULL, 0, num_wait, wait, event, fn);
}

/* Both ops' enqueue on views. */
static clpool_status enqueue_sum_pool_view(clpool_context *ctx, cl_command_queue queue,
                                           const clpool_average_pool_params *avg, const clpool_lp_pool_params *lp,
                                           clpool_dtype dtype, const clpool_view *input, const clpool_view *output,
                                           cl_uint num_wait, const cl_event *wait, cl_event *event, const char *fn)
{
    CLPOOL_REQUIRE_NOT_NULL(input, fn);
    clpool_shape shape;
    clpool__view_shape(input, &shape);
    clpool__pool_desc desc;
    const clpool_status status = describe_call(ctx, avg, lp, dtype, &shape, fn, &desc);
    if (status != CLPOOL_SUCCESS) return status;
    return clpool__window_enqueue_view(ctx, queue, &desc, clpool__sum_pool_plan_call, input, output, NULL, num_wait,
                                       wait, event, fn);
}

clpool_status clpool_enqueue_average_pool_view(clpool_context *ctx, cl_command_queue queue,
                                               const clpool_average_pool_params *params, clpool_dtype dtype,
                                               const clpool_view *input, const clpool_view *output, cl_uint num_wait,
                                               const cl_event *wait, cl_event *event)
{
    return enqueue_sum_pool_view(ctx, queue, params, NULL, dtype, input, output, num_wait, wait, event,
                                 "clpool_enqueue_average_pool_view");
}

clpool_status clpool_enqueue_lp_pool_view(clpool_context *ctx, cl_command_queue queue,
                                          const clpool_lp_pool_params *params, clpool_dtype dtype,
                                          const clpool_view *input, const clpool_view *output, cl_uint num_wait,
                                          const cl_event *wait, cl_event *event)
{
    return enqueue_sum_pool_view(ctx, queue, NULL, params, dtype, input, output, num_wait, wait, event,
                                 "clpool_enqueue_lp_pool_view");
}

clpool_status clpool_enqueue_average_pool(clpool_context *ctx, cl_command_queue queue,
                                          const clpool_average_pool_params *params, clpool_dtype dtype,
                                          const clpool_shape *input_shape, cl_mem input, size_t input_offset,
                                          cl_mem output, size_t output_offset, cl_uint num_wait, const cl_event *wait,
                                          cl_event *event)
{
    return enqueue_sum_pool(ctx, queue, params, NULL, dtype, input_shape, input, input_offset, output, output_offset,
                            num_wait, wait, event, "clpool_enqueue_average_pool");
}

clpool_status clpool_enqueue_lp_pool(clpool_context *ctx, cl_command_queue queue, const clpool_lp_pool_params *params,
                                     clpool_dtype dtype, const clpool_shape *input_shape, cl_mem input,
                                     size_t input_offset, cl_mem output, size_t output_offset, cl_uint num_wait,
                                     const cl_event *wait, cl_event *event)
{
    return enqueue_sum_pool(ctx, queue, NULL, params, dtype, input_shape, input, input_offset, output, output_offset,
                            num_wait, wait, event, "clpool_enqueue_lp_pool");
}
