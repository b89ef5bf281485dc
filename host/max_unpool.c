/* MaxUnpool: its attributes (a window of kernel_shape, strides and pads), shape inference and the output_shape
 * input, and the enqueue of the plan host/max_unpool_plan.c makes. */
#include <string.h>

#include "planners.h"

clpool_status clpool_max_unpool_params_init(clpool_max_unpool_params *p, int32_t spatial_rank,
                                            const int64_t *kernel_shape)
{
    static const char *fn = "clpool_max_unpool_params_init";
    CLPOOL_REQUIRE_NOT_NULL(p, fn);
    clpool_window_params w;
    const clpool_status status = clpool__window_params_init(&w, spatial_rank, kernel_shape, fn);
    if (status != CLPOOL_SUCCESS) return status;
    memset(p, 0, sizeof *p);
    p->struct_size = sizeof *p;
    p->window = w;
    return CLPOOL_SUCCESS;
}

/* The params' own checks: struct sizes, the window's ranges (window.c) and the attributes MaxUnpool lacks. */
static clpool_status check_params(const clpool_max_unpool_params *p, const char *fn)
{
    CLPOOL_REQUIRE_NOT_NULL(p, fn);
    if (p->struct_size != sizeof *p)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                            "%s: params.struct_size is %zu, expected %zu (initialise with clpool_max_unpool_params_init)",
                            fn, p->struct_size, sizeof *p);
    const clpool_window_params *w = &p->window;
    if (w->struct_size != sizeof *w)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                            "%s: params.window.struct_size is %zu, expected %zu (initialise the params with their _init)",
                            fn, w->struct_size, sizeof *w);
    clpool_status status = clpool__window_check(w, fn);
    if (status != CLPOOL_SUCCESS) return status;
    for (int32_t i = 0; i < w->spatial_rank; ++i)
        if (w->dilations[i] != 1)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                                "%s: dilations[%d] = %lld, but MaxUnpool has no dilations (leave them 1)", fn, (int)i,
                                (long long)w->dilations[i]);
    if (w->ceil_mode != 0)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                            "%s: ceil_mode = %d, but MaxUnpool has no ceil_mode (leave it 0; give output_shape instead)",
                            fn, (int)w->ceil_mode);
    if (w->auto_pad != CLPOOL_AUTO_PAD_NOTSET)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                            "%s: auto_pad = %d, but MaxUnpool has no auto_pad (leave it NOTSET; give pads or output_shape)",
                            fn, (int)w->auto_pad);
    if (p->has_output_shape != 0 && p->has_output_shape != 1)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: has_output_shape = %d must be 0 or 1", fn,
                            (int)p->has_output_shape);
    if (p->indices != CLPOOL_UNPOOL_INDICES_INFERRED && p->indices != CLPOOL_UNPOOL_INDICES_OUTPUT)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: indices = %d is not a clpool_unpool_indices value", fn,
                            (int)p->indices);
    return CLPOOL_SUCCESS;
}

/* The shape the attributes infer from X: N x C x ((X_i - 1) * strides_i + kernel_shape_i - pads). */
static clpool_status inferred_shape(const clpool_shape *x, const clpool_window_params *w, const char *fn,
                                    clpool_shape *out)
{
    const int32_t ns = x->rank - 2;
    memset(out, 0, sizeof *out);
    out->rank = x->rank;
    out->dims[0] = x->dims[0];
    out->dims[1] = x->dims[1];
    for (int32_t i = 0; i < ns; ++i) {
        int64_t d;
        if (__builtin_mul_overflow(x->dims[2 + i] - 1, w->strides[i], &d) ||
            __builtin_add_overflow(d, w->kernel_shape[i], &d) || /* then d >= 1, less the pads (>= 0): */
            __builtin_sub_overflow(d, w->pads[i], &d) || /* LCOV_EXCL_BR_LINE: d - pad fits */
            __builtin_sub_overflow(d, w->pads[ns + i], &d))
            return clpool__fail(CLPOOL_ERROR_OVERFLOW, "%s: the output size along spatial axis %d overflows int64", fn,
                                (int)i);
        if (d < 1)
            return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE,
                                "%s: along spatial axis %d the output size (X %lld - 1) * stride %lld + kernel %lld - "
                                "pads %lld - %lld = %lld is < 1",
                                fn, (int)i, (long long)x->dims[2 + i], (long long)w->strides[i],
                                (long long)w->kernel_shape[i], (long long)w->pads[i], (long long)w->pads[ns + i],
                                (long long)d);
        out->dims[2 + i] = d;
    }
    return clpool__check_shape(out, fn, "inferred output shape", NULL);
}

/* The output's shape (output_shape: rank, N and C those of X, spatial dims >= 1; else the inferred one) and the
 * shape the indices count positions in (the inferred one only where params.indices is INFERRED). */
static clpool_status unpool_shape(const clpool_shape *x, const clpool_max_unpool_params *p, const char *fn,
                                  clpool_shape *out, clpool_shape *index_space)
{
    clpool_status status = clpool__check_shape(x, fn, "X shape", NULL);
    if (status != CLPOOL_SUCCESS) return status;
    if ((status = check_params(p, fn)) != CLPOOL_SUCCESS) return status;
    if (x->rank < 3)
        return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE, "%s: X rank %d must be >= 3 (N x C x D1 ...)", fn,
                            (int)x->rank);
    const int32_t ns = x->rank - 2;
    const clpool_window_params *w = &p->window;
    if (w->spatial_rank != ns)
        return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE, "%s: kernel_shape has %d dims but X has %d spatial dims", fn,
                            (int)w->spatial_rank, (int)ns);
    for (int32_t i = 0; i < ns; ++i)
        if (x->dims[2 + i] < 1)
            return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE, "%s: X spatial dim %d is %lld; MaxUnpool needs >= 1", fn,
                                (int)i, (long long)x->dims[2 + i]);
    if (!p->has_output_shape) {
        if ((status = inferred_shape(x, w, fn, out)) == CLPOOL_SUCCESS) *index_space = *out;
        return status;
    }
    const clpool_shape *o = &p->output_shape;
    if ((status = clpool__check_shape(o, fn, "output_shape", NULL)) != CLPOOL_SUCCESS) return status;
    char a[160], b[160];
    if (o->rank != x->rank || o->dims[0] != x->dims[0] || o->dims[1] != x->dims[1])
        return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE, "%s: output_shape %s must have X's rank and its N and C (X is %s)",
                            fn, clpool__shape_str(o, a, sizeof a), clpool__shape_str(x, b, sizeof b));
    for (int32_t i = 0; i < ns; ++i)
        if (o->dims[2 + i] < 1)
            return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE, "%s: output_shape spatial dim %d is %lld; must be >= 1", fn,
                                (int)i, (long long)o->dims[2 + i]);
    *out = *o;
    if (p->indices == CLPOOL_UNPOOL_INDICES_OUTPUT) {
        *index_space = *o;
        return CLPOOL_SUCCESS;
    }
    return inferred_shape(x, w, fn, index_space);
}

clpool_status clpool_max_unpool_output_shape(const clpool_shape *x_shape, const clpool_max_unpool_params *params,
                                             clpool_shape *output)
{
    static const char *fn = "clpool_max_unpool_output_shape";
    CLPOOL_REQUIRE_NOT_NULL(output, fn);
    clpool_shape out, index_space;
    const clpool_status status = unpool_shape(x_shape, params, fn, &out, &index_space);
    if (status == CLPOOL_SUCCESS) *output = out;
    return status;
}

/* The checks both enqueue forms make beyond the tensors' own, and the call as its contiguous form: the caller
 * sets the buffer offsets. */
static clpool_status prepare_call(clpool_context *ctx, cl_command_queue queue, const clpool_max_unpool_params *params,
                                  clpool_dtype dtype, const clpool_shape *x_shape, cl_uint num_wait,
                                  const cl_event *wait, const char *fn, clpool_shape *out, cl_command_queue *q,
                                  clpool__max_unpool_desc *desc)
{
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    clpool_status status = clpool__maxpool_dtype_check(dtype, fn, "MaxUnpool");
    if (status != CLPOOL_SUCCESS) return status;
    clpool_shape index_space;
    if ((status = unpool_shape(x_shape, params, fn, out, &index_space)) != CLPOOL_SUCCESS) return status;
    if ((status = clpool__check_dtype_device(ctx, dtype, fn)) != CLPOOL_SUCCESS) return status;
    if ((status = clpool__check_wait_list(num_wait, wait, fn)) != CLPOOL_SUCCESS) return status;
    if ((status = clpool__resolve_queue(ctx, queue, fn, q)) != CLPOOL_SUCCESS) return status;
    const int64_t planes = x_shape->dims[0] * x_shape->dims[1];
    memset(desc, 0, sizeof *desc);
    desc->dtype = dtype;
    desc->esize = (int64_t)clpool_dtype_size(dtype);
    desc->planes = planes;
    if (planes == 0) return CLPOOL_SUCCESS; /* an empty output: nothing to plan */
    desc->x_plane = clpool_shape_elements(x_shape) / planes;
    desc->y_plane = clpool_shape_elements(out) / planes;
    desc->idx_plane = clpool_shape_elements(&index_space) / planes;
    desc->ns = out->rank - 2;
    /* indices of another shape's planes land at the same coordinates of the output's */
    for (int32_t i = 0; i < desc->ns; ++i) {
        desc->idx_dims[i] = index_space.dims[2 + i];
        desc->y_dims[i] = out->dims[2 + i];
        desc->remap |= desc->idx_dims[i] != desc->y_dims[i];
    }
    return CLPOOL_SUCCESS;
}

/* The counter's checks, and its element offset into the call. */
static clpool_status check_skipped(cl_mem skipped, size_t skipped_offset, const char *fn, clpool__max_unpool_desc *d)
{
    d->count_skipped = skipped != NULL;
    d->skip_off = (int64_t)(skipped_offset / sizeof(cl_uint));
    return skipped ? clpool__check_buffer(skipped, skipped_offset, 1, sizeof(cl_uint), fn, "skipped", NULL)
                   : CLPOOL_SUCCESS;
}

/* Runs a planned call; without a counter the kernels get the output, which they then never read as one. */
static clpool_status run_call(clpool_context *ctx, cl_command_queue q, clpool__plan *plan, cl_mem x, cl_mem indices,
                              cl_mem output, cl_mem skipped, cl_uint num_wait, const cl_event *wait, cl_event *event,
                              const char *fn)
{
    cl_mem mems[CLPOOL__ROLES] = {[CLPOOL__ROLE_INPUT] = x, [CLPOOL__ROLE_INDICES] = indices,
                                  [CLPOOL__ROLE_OUTPUT] = output, [CLPOOL__ROLE_COUNTER] = skipped ? skipped : output};
    return clpool__plan_run(ctx, q, plan, mems, num_wait, wait, event, fn);
}

clpool_status clpool_enqueue_max_unpool(clpool_context *ctx, cl_command_queue queue,
                                        const clpool_max_unpool_params *params, clpool_dtype dtype,
                                        const clpool_shape *x_shape, cl_mem x, size_t x_offset, cl_mem indices,
                                        size_t indices_offset, cl_mem output, size_t output_offset, cl_mem skipped,
                                        size_t skipped_offset, cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    static const char *fn = "clpool_enqueue_max_unpool";
    clpool_shape out;
    cl_command_queue q;
    clpool__max_unpool_desc desc;
    clpool_status status = prepare_call(ctx, queue, params, dtype, x_shape, num_wait, wait, fn, &out, &q, &desc);
    if (status != CLPOOL_SUCCESS) return status;
    const size_t esize = (size_t)desc.esize;
    const int64_t n_x = clpool_shape_elements(x_shape), n_y = clpool_shape_elements(&out);
    if ((status = clpool__check_buffer(x, x_offset, n_x, esize, fn, "X", NULL)) != CLPOOL_SUCCESS) return status;
    if ((status = clpool__check_buffer(indices, indices_offset, n_x, sizeof(cl_long), fn, "indices", NULL)) !=
        CLPOOL_SUCCESS)
        return status;
    if ((status = clpool__check_buffer(output, output_offset, n_y, esize, fn, "output", NULL)) != CLPOOL_SUCCESS)
        return status;
    if ((status = check_skipped(skipped, skipped_offset, fn, &desc)) != CLPOOL_SUCCESS) return status;
    if (n_y == 0) return clpool__enqueue_nothing(q, num_wait, wait, event);
    desc.x_off = (int64_t)(x_offset / esize);
    desc.idx_off = (int64_t)(indices_offset / sizeof(cl_long));
    desc.y_off = (int64_t)(output_offset / esize);
    clpool__device_caps caps;
    clpool__device_caps_of(ctx, &caps);
    clpool__plan plan;
    clpool__max_unpool_plan_call(&caps, &desc, &plan);
    return run_call(ctx, q, &plan, x, indices, output, skipped, num_wait, wait, event, fn);
}

clpool_status clpool_enqueue_max_unpool_view(clpool_context *ctx, cl_command_queue queue,
                                             const clpool_max_unpool_params *params, clpool_dtype dtype,
                                             const clpool_view *x, const clpool_view *indices,
                                             const clpool_view *output, cl_mem skipped, size_t skipped_offset,
                                             cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    static const char *fn = "clpool_enqueue_max_unpool_view";
    CLPOOL_REQUIRE_NOT_NULL(x, fn);
    CLPOOL_REQUIRE_NOT_NULL(indices, fn);
    CLPOOL_REQUIRE_NOT_NULL(output, fn);
    clpool_shape x_shape, out;
    cl_command_queue q;
    clpool__max_unpool_view_desc v;
    memset(&v, 0, sizeof v);
    clpool__view_shape(x, &x_shape);
    clpool_status status = prepare_call(ctx, queue, params, dtype, &x_shape, num_wait, wait, fn, &out, &q, &v.call);
    if (status != CLPOOL_SUCCESS) return status;
    const size_t esize = (size_t)v.call.esize;
    if ((status = clpool__view_check(x, esize, NULL, 0, fn, "X")) != CLPOOL_SUCCESS) return status;
    if ((status = clpool__view_check(indices, sizeof(cl_long), &x_shape, 0, fn, "indices")) != CLPOOL_SUCCESS)
        return status;
    if ((status = clpool__view_check(output, esize, &out, 1, fn, "output")) != CLPOOL_SUCCESS) return status;
    if ((status = check_skipped(skipped, skipped_offset, fn, &v.call)) != CLPOOL_SUCCESS) return status;
    if (clpool_shape_elements(&out) == 0) return clpool__enqueue_nothing(q, num_wait, wait, event);
    v.call.x_off = (int64_t)(x->offset / esize);
    v.call.idx_off = (int64_t)(indices->offset / sizeof(cl_long));
    v.call.y_off = (int64_t)(output->offset / esize);
    clpool__device_caps caps;
    clpool__device_caps_of(ctx, &caps);
    clpool__plan plan;
    if (clpool__view_contiguous(x) && clpool__view_contiguous(indices) && clpool__view_contiguous(output)) {
        clpool__max_unpool_plan_call(&caps, &v.call, &plan); /* the contiguous call's kernels */
    } else {
        v.rank = x_shape.rank;
        for (int32_t d = 0; d < v.rank; ++d) {
            v.x_dims[d] = x_shape.dims[d], v.y_dims[d] = out.dims[d];
            v.x_strides[d] = x->strides[d], v.idx_strides[d] = indices->strides[d];
            v.y_strides[d] = output->strides[d];
        }
        clpool__max_unpool_plan_view(&caps, &v, &plan);
    }
    return run_call(ctx, q, &plan, x->mem, indices->mem, output->mem, skipped, num_wait, wait, event, fn);
}
