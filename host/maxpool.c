/* MaxPool: its attributes beyond the window (window.c), shape inference,
 * and the enqueue of the plan host/window_plan.c makes. */
#include <string.h>

#include "planners.h"

_Static_assert(CLPOOL__ARGS_MAX_SPATIAL == CLPOOL_MAX_SPATIAL, "the kernels' geometry holds every spatial dim");

clpool_status clpool_maxpool_params_init(clpool_maxpool_params *p, int32_t spatial_rank, const int64_t *kernel_shape)
{
    CLPOOL_REQUIRE_NOT_NULL(p, "clpool_maxpool_params_init");
    clpool_window_params w;
    const clpool_status status = clpool__window_params_init(&w, spatial_rank, kernel_shape, "clpool_maxpool_params_init");
    if (status != CLPOOL_SUCCESS) return status;
    memset(p, 0, sizeof *p);
    p->struct_size = sizeof *p;
    p->spatial_rank = spatial_rank;
    memcpy(p->kernel_shape, w.kernel_shape, sizeof p->kernel_shape);
    memcpy(p->strides, w.strides, sizeof p->strides);
    memcpy(p->dilations, w.dilations, sizeof p->dilations);
    return CLPOOL_SUCCESS;
}

/* The window of MaxPool's params, after checking what is MaxPool's own
 * (struct_size, storage_order); NULL params give NULL (window.c names them). */
static clpool_status window_of(const clpool_maxpool_params *p, const char *fn, clpool_window_params *w,
                               const clpool_window_params **out)
{
    *out = NULL;
    if (!p) return CLPOOL_SUCCESS;
    if (p->struct_size != sizeof *p)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                            "%s: params.struct_size is %zu, expected %zu (initialise with clpool_maxpool_params_init)", fn,
                            p->struct_size, sizeof *p);
    if (p->storage_order != 0 && p->storage_order != 1)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: storage_order = %d must be 0 or 1", fn,
                            (int)p->storage_order);
    w->struct_size = sizeof *w;
    w->spatial_rank = p->spatial_rank;
    memcpy(w->kernel_shape, p->kernel_shape, sizeof w->kernel_shape);
    memcpy(w->strides, p->strides, sizeof w->strides);
    memcpy(w->dilations, p->dilations, sizeof w->dilations);
    memcpy(w->pads, p->pads, sizeof w->pads);
    w->ceil_mode = p->ceil_mode;
    w->auto_pad = p->auto_pad;
    *out = w;
    return CLPOOL_SUCCESS;
}

/* MaxPool's windows: window.c's rules, and every window must hold a tap. */
static clpool_status size_maxpool(const clpool_shape *input, const clpool_maxpool_params *params, const char *fn,
                                  clpool__window *w)
{
    clpool_window_params wp;
    const clpool_window_params *window;
    clpool_status status = clpool__check_shape(input, fn, "input shape", NULL);
    if (status != CLPOOL_SUCCESS) return status;
    CLPOOL_REQUIRE_NOT_NULL(params, fn);
    if ((status = window_of(params, fn, &wp, &window)) != CLPOOL_SUCCESS) return status;
    return clpool__window_size(input, window, CLPOOL__WINDOW_NEEDS_TAP, fn, w);
}

clpool_status clpool_maxpool_output_shape(const clpool_shape *input, const clpool_maxpool_params *params,
                                          clpool_shape *output)
{
    static const char *fn = "clpool_maxpool_output_shape";
    CLPOOL_REQUIRE_NOT_NULL(output, fn);
    clpool__window w;
    clpool_status status = size_maxpool(input, params, fn, &w);
    if (status == CLPOOL_SUCCESS) clpool__window_output_shape(input, &w, output);
    return status;
}

clpool_status clpool__maxpool_dtype_check(clpool_dtype dtype, const char *fn, const char *op)
{
    switch (dtype) {
    case CLPOOL_FLOAT32: case CLPOOL_FLOAT64: case CLPOOL_FLOAT16:
    case CLPOOL_BFLOAT16: case CLPOOL_INT8: case CLPOOL_UINT8:
        return CLPOOL_SUCCESS;
    default:
        return clpool__fail(CLPOOL_ERROR_UNSUPPORTED_DTYPE,
                            "%s: dtype %s (%d) is not supported by %s (float32, float64, float16, bfloat16, int8, uint8)",
                            fn, clpool_dtype_name(dtype), (int)dtype, op);
    }
}

clpool_status clpool__maxpool_describe(const clpool_shape *input, const clpool_maxpool_params *params,
                                       clpool_dtype dtype, int indices, const char *fn, clpool__pool_desc *desc)
{
    memset(desc, 0, sizeof *desc);
    clpool_status status = size_maxpool(input, params, fn, &desc->w);
    if (status != CLPOOL_SUCCESS) return status;
    desc->op = CLPOOL__OP_MAXPOOL;
    desc->storage_order = params->storage_order;
    desc->dtype = dtype;
    desc->esize = (int64_t)clpool_dtype_size(dtype);
    desc->indices = indices != 0;
    desc->input = CLPOOL__ROLE_INPUT;
    desc->output = CLPOOL__ROLE_OUTPUT;
    desc->index_buf = indices ? CLPOOL__ROLE_INDICES : CLPOOL__ROLE_NONE;
    return CLPOOL_SUCCESS;
}

clpool_status clpool_enqueue_maxpool(clpool_context *ctx, cl_command_queue queue, const clpool_maxpool_params *params,
                                     clpool_dtype dtype, const clpool_shape *input_shape, cl_mem input,
                                     size_t input_offset, cl_mem output, size_t output_offset, cl_mem indices,
                                     size_t indices_offset, cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    static const char *fn = "clpool_enqueue_maxpool";
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    clpool_status status = clpool__maxpool_dtype_check(dtype, fn, "MaxPool");
    if (status != CLPOOL_SUCCESS) return status;
    clpool__pool_desc desc;
    status = clpool__maxpool_describe(input_shape, params, dtype, indices != NULL, fn, &desc);
    if (status != CLPOOL_SUCCESS) return status;
    return clpool__window_enqueue(ctx, queue, &desc, clpool__maxpool_plan_call, input_shape, input, input_offset, output,
                                  output_offset, indices, indices_offset, num_wait, wait, event, fn);
}

clpool_status clpool_enqueue_maxpool_view(clpool_context *ctx, cl_command_queue queue,
                                          const clpool_maxpool_params *params, clpool_dtype dtype,
                                          const clpool_view *input, const clpool_view *output,
                                          const clpool_view *indices, cl_uint num_wait, const cl_event *wait,
                                          cl_event *event)
{
    static const char *fn = "clpool_enqueue_maxpool_view";
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    CLPOOL_REQUIRE_NOT_NULL(input, fn);
    clpool_status status = clpool__maxpool_dtype_check(dtype, fn, "MaxPool");
    if (status != CLPOOL_SUCCESS) return status;
    clpool_shape shape;
    clpool__view_shape(input, &shape);
    clpool__pool_desc desc;
    if ((status = clpool__maxpool_describe(&shape, params, dtype, indices != NULL, fn, &desc)) != CLPOOL_SUCCESS)
        return status;
    return clpool__window_enqueue_view(ctx, queue, &desc, clpool__maxpool_plan_call, input, output, indices, num_wait,
                                       wait, event, fn);
}
