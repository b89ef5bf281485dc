/* MaxPool: attribute validation, shape inference, and the launch of the
 * plan host/maxpool_plan.c makes. */
#include <string.h>

#include "maxpool_plan.h"

_Static_assert(CLPOOL__ARGS_MAX_SPATIAL == CLPOOL_MAX_SPATIAL, "the kernels' geometry holds every spatial dim");

/* Per-dim results of validation: effective padding and output size. */
typedef struct maxpool_dims {
    int32_t ns;
    int64_t pad_begin[CLPOOL_MAX_SPATIAL];
    int64_t out[CLPOOL_MAX_SPATIAL];
} maxpool_dims;

clpool_status clpool_maxpool_params_init(clpool_maxpool_params *p, int32_t spatial_rank, const int64_t *kernel_shape)
{
    CLPOOL_REQUIRE_NOT_NULL(p, "clpool_maxpool_params_init");
    CLPOOL_REQUIRE_NOT_NULL(kernel_shape, "clpool_maxpool_params_init");
    if (spatial_rank < 1 || spatial_rank > CLPOOL_MAX_SPATIAL)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "clpool_maxpool_params_init: spatial_rank %d is outside 1..%d",
                            (int)spatial_rank, CLPOOL_MAX_SPATIAL);
    memset(p, 0, sizeof *p);
    p->struct_size = sizeof *p;
    p->spatial_rank = spatial_rank;
    for (int32_t i = 0; i < spatial_rank; ++i) {
        p->kernel_shape[i] = kernel_shape[i];
        p->strides[i] = 1;
        p->dilations[i] = 1;
    }
    return CLPOOL_SUCCESS;
}

/* Attribute ranges that do not depend on the input. */
static clpool_status check_attributes(const clpool_maxpool_params *p, const char *fn)
{
    if (p->struct_size != sizeof *p)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                            "%s: params.struct_size is %zu, expected %zu (initialise with clpool_maxpool_params_init)", fn,
                            p->struct_size, sizeof *p);
    const int32_t ns = p->spatial_rank;
    if (ns < 1 || ns > CLPOOL_MAX_SPATIAL)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: spatial_rank %d is outside 1..%d", fn, (int)ns,
                            CLPOOL_MAX_SPATIAL);
    for (int32_t i = 0; i < ns; ++i) {
        if (p->kernel_shape[i] < 1)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: kernel_shape[%d] = %lld must be >= 1", fn, (int)i,
                                (long long)p->kernel_shape[i]);
        if (p->strides[i] < 1)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: strides[%d] = %lld must be >= 1", fn, (int)i,
                                (long long)p->strides[i]);
        if (p->dilations[i] < 1)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: dilations[%d] = %lld must be >= 1", fn, (int)i,
                                (long long)p->dilations[i]);
    }
    for (int32_t i = 0; i < 2 * ns; ++i) {
        if (p->pads[i] < 0)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: pads[%d] = %lld must be >= 0", fn, (int)i,
                                (long long)p->pads[i]);
        if (p->pads[i] != 0 && p->auto_pad != CLPOOL_AUTO_PAD_NOTSET)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: pads must be 0 when auto_pad is not NOTSET (pads[%d] = %lld)",
                                fn, (int)i, (long long)p->pads[i]);
    }
    if (p->ceil_mode != 0 && p->ceil_mode != 1)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: ceil_mode = %d must be 0 or 1", fn, (int)p->ceil_mode);
    if (p->storage_order != 0 && p->storage_order != 1)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: storage_order = %d must be 0 or 1", fn,
                            (int)p->storage_order);
    if (p->auto_pad < CLPOOL_AUTO_PAD_NOTSET || p->auto_pad > CLPOOL_AUTO_PAD_VALID)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: auto_pad = %d is not a clpool_auto_pad value", fn,
                            (int)p->auto_pad);
    return CLPOOL_SUCCESS;
}

/* Does window `o` of a dim hold at least one tap inside [0, in)? */
static int window_has_tap(int64_t o, int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb)
{
    const int64_t start = o * s - pb;
    const int64_t lo = start < 0 ? (-start - 1) / d + 1 : 0; /* ceil(-start / d), no overflow */
    return lo < k && start + lo * d < in;
}

/* Validate everything and compute padding + output size per spatial dim. */
static clpool_status size_maxpool(const clpool_shape *input, const clpool_maxpool_params *params, const char *fn,
                                  maxpool_dims *dims)
{
    clpool_status status = clpool__check_shape(input, fn, "input shape", NULL);
    if (status != CLPOOL_SUCCESS) return status;
    CLPOOL_REQUIRE_NOT_NULL(params, fn);
    const clpool_maxpool_params *p = params;
    if ((status = check_attributes(p, fn)) != CLPOOL_SUCCESS) return status;
    if (input->rank < 3)
        return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE, "%s: input rank %d must be >= 3 (N x C x D1 ...)", fn,
                            (int)input->rank);
    const int32_t ns = input->rank - 2;
    if (p->spatial_rank != ns)
        return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE,
                            "%s: kernel_shape has %d dims but the input has %d spatial dims", fn, (int)p->spatial_rank,
                            (int)ns);
    dims->ns = ns;
    for (int32_t i = 0; i < ns; ++i) {
        const int64_t in = input->dims[2 + i], k = p->kernel_shape[i], s = p->strides[i], d = p->dilations[i];
        int64_t e, pb = p->pads[i], pe = p->pads[ns + i], out, span;
        /* e = (k-1)*d + 1; every later sum must also stay in range. */
        if (__builtin_mul_overflow(k - 1, d, &e) || __builtin_add_overflow(e, 1, &e) ||
            __builtin_add_overflow(in, pb, &span) || __builtin_add_overflow(span, pe, &span) ||
            __builtin_add_overflow(span, s, &out))
            return clpool__fail(CLPOOL_ERROR_OVERFLOW, "%s: kernel/dilation/pads along spatial axis %d overflow int64", fn,
                                (int)i);
        if (p->auto_pad == CLPOOL_AUTO_PAD_SAME_UPPER || p->auto_pad == CLPOOL_AUTO_PAD_SAME_LOWER) {
            out = in / s + (in % s != 0);
            int64_t total = out > 0 ? (out - 1) * s + e - in : 0;
            if (total < 0) total = 0;
            const int64_t small = total / 2;
            pb = p->auto_pad == CLPOOL_AUTO_PAD_SAME_UPPER ? small : total - small;
            pe = total - pb;
            span = in + pb + pe;
        } else {
            /* NOTSET and VALID (pads are 0) share the floor/ceil formula. */
            if (span < e)
                return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE,
                                    "%s: along spatial axis %d the padded input (%lld) is smaller than the dilated kernel (%lld)",
                                    fn, (int)i, (long long)span, (long long)e);
            out = (span - e) / s + 1;
            if (p->ceil_mode) {
                out += (span - e) % s != 0;
                /* A window may not start in the right padding (onnx PR 5741). */
                if ((out - 1) * s >= in + pb) --out;
            }
        }
        if (in == 0 || out <= 0)
            return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE, "%s: spatial axis %d has size %lld, giving output size %lld", fn,
                                (int)i, (long long)in, (long long)out);
        /* A window starting inside [0, in) holds its first tap; only windows
         * starting in the padding need a look (few: about pads/stride). */
        const int64_t first_inside = (pb + s - 1) / s;     /* first o with start >= 0 */
        const int64_t first_after = (in + pb + s - 1) / s; /* first o with start >= in */
        for (int64_t o = 0; o < out; ++o) {
            if (o >= first_inside && o < first_after) {
                o = first_after - 1;
                continue;
            }
            if (!window_has_tap(o, in, k, s, d, pb))
                return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                                    "%s: output position %lld along spatial axis %d has a window with no input element "
                                    "(pads/dilations too large for kernel_shape)",
                                    fn, (long long)o, (int)i);
        }
        dims->pad_begin[i] = pb;
        dims->out[i] = out;
    }
    return CLPOOL_SUCCESS;
}

/* The output (and Indices) shape the dims imply. */
static void dims_output_shape(const clpool_shape *input, const maxpool_dims *dims, clpool_shape *output)
{
    memset(output, 0, sizeof *output);
    output->rank = input->rank;
    output->dims[0] = input->dims[0];
    output->dims[1] = input->dims[1];
    for (int32_t i = 0; i < dims->ns; ++i) output->dims[2 + i] = dims->out[i];
}

clpool_status clpool_maxpool_output_shape(const clpool_shape *input, const clpool_maxpool_params *params,
                                          clpool_shape *output)
{
    static const char *fn = "clpool_maxpool_output_shape";
    CLPOOL_REQUIRE_NOT_NULL(output, fn);
    maxpool_dims dims;
    clpool_status status = size_maxpool(input, params, fn, &dims);
    if (status == CLPOOL_SUCCESS) dims_output_shape(input, &dims, output);
    return status;
}

static int maxpool_dtype_ok(clpool_dtype dtype)
{
    switch (dtype) {
    case CLPOOL_FLOAT32: case CLPOOL_FLOAT64: case CLPOOL_FLOAT16:
    case CLPOOL_BFLOAT16: case CLPOOL_INT8: case CLPOOL_UINT8:
        return 1;
    default:
        return 0;
    }
}

clpool_status clpool__maxpool_describe(const clpool_shape *input, const clpool_maxpool_params *params,
                                       clpool_dtype dtype, int indices, const char *fn, clpool__maxpool_desc *desc)
{
    maxpool_dims dims;
    clpool_status status = size_maxpool(input, params, fn, &dims);
    if (status != CLPOOL_SUCCESS) return status;
    memset(desc, 0, sizeof *desc);
    desc->ns = dims.ns;
    desc->planes = input->dims[0] * input->dims[1];
    for (int32_t i = 0; i < dims.ns; ++i) {
        desc->in[i] = input->dims[2 + i];
        desc->out[i] = dims.out[i];
        desc->kernel[i] = params->kernel_shape[i];
        desc->stride[i] = params->strides[i];
        desc->dilation[i] = params->dilations[i];
        desc->pad[i] = dims.pad_begin[i];
    }
    desc->storage_order = params->storage_order;
    desc->dtype = dtype;
    desc->esize = (int64_t)clpool_dtype_size(dtype);
    desc->indices = indices != 0;
    desc->input = CLPOOL__MP_INPUT;
    desc->output = CLPOOL__MP_OUTPUT;
    desc->index_buf = indices ? CLPOOL__MP_INDICES : CLPOOL__MP_NONE;
    return CLPOOL_SUCCESS;
}

/* The planner's view of the context's device. */
static void device_caps(const clpool_context *ctx, clpool__device_caps *caps)
{
    caps->cpu = ctx->cpu;
    caps->cpu_simd = ctx->cpu_simd;
    caps->vector_bytes = ctx->vector_bytes;
    caps->cache_bytes = ctx->info.cache_bytes;
    caps->compute_units = ctx->info.compute_units;
}

/* One planned launch: its program's kernel, the buffers by role (mems,
 * indexed by clpool__mp_buffer), the by-value struct, the enqueue. */
static clpool_status run_launch(clpool_context *ctx, cl_command_queue q, const clpool__mp_launch *l,
                                const cl_mem *mems, cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    clpool__kernel k = {0};
    clpool_status status = clpool__kernel_get(ctx, l->parts, &l->options, l->kernel, &k);
    cl_uint a = 0;
    for (; status == CLPOOL_SUCCESS && a < 4 && l->buffers[a] != CLPOOL__MP_NONE; ++a)
        status = clpool__set_buffer_arg(&k, a, mems[l->buffers[a]]);
    if (status == CLPOOL_SUCCESS) {
        if (l->arg_kind == CLPOOL__MP_ARGS_GEOM)
            status = clpool__set_arg(&k, a, sizeof l->geom, &l->geom);
        else if (l->arg_kind == CLPOOL__MP_ARGS_2D)
            status = clpool__set_arg(&k, a, sizeof l->sizes2d, &l->sizes2d);
        else if (l->arg_kind == CLPOOL__MP_ARGS_GENERIC)
            status = clpool__set_arg(&k, a, sizeof l->generic, &l->generic);
        else
            status = clpool__set_arg(&k, a, sizeof l->sizes3d, &l->sizes3d);
    }
    if (status == CLPOOL_SUCCESS)
        status = clpool__launch(ctx, q, &k, l->dims, l->items, l->cpu_local, num_wait, wait, event);
    clpool__kernel_put(ctx, &k);
    return status;
}

/* The two-pass 3-D plan: the first pass into a context scratch slot, the
 * second waiting on its event (out-of-order queues). Where the slot cannot
 * be allocated the plan's fallback, which needs none, runs the call. */
static clpool_status run_two_passes(clpool_context *ctx, cl_command_queue q, const clpool__maxpool_plan *plan,
                                    cl_mem *mems, cl_uint num_wait, const cl_event *wait, cl_event *event,
                                    const char *fn)
{
    clpool__scratch_lease mid;
    clpool_status status = clpool__scratch_get(ctx, q, plan->scratch_bytes, fn, "3-D pooling's first pass", &mid);
    if (status == CLPOOL_ERROR_OPENCL) return run_launch(ctx, q, &plan->fallback, mems, num_wait, wait, event);
    if (status != CLPOOL_SUCCESS) return status;
    mems[CLPOOL__MP_SCRATCH] = mid.mem;
    cl_event first = NULL, last = NULL;
    status = run_launch(ctx, q, &plan->launch[0], mems, num_wait, wait, &first);
    if (status == CLPOOL_SUCCESS) status = run_launch(ctx, q, &plan->launch[1], mems, 1, &first, &last);
    clpool__scratch_done(ctx, &mid, first, last, event);
    return status;
}

/* Tiers: whether the plan's kernels are to be used now (every one is asked,
 * so a two-pass plan's both are remembered). Whole planes without Indices
 * run GlobalMaxPool's kernels, which tier on their own. */
static int plan_programs_wanted(clpool_context *ctx, const clpool__maxpool_plan *plan, clpool_dtype dtype)
{
    if (plan->path == CLPOOL__MP_GLOBAL_MAX_INDICES) return clpool__global_max_indices_wanted(ctx, dtype);
    int wanted = 1;
    for (int i = 0; i < plan->launches; ++i)
        wanted &= clpool__program_wanted(ctx, plan->launch[i].parts, &plan->launch[i].options, plan->launch[i].kernel);
    return wanted;
}

clpool_status clpool_enqueue_maxpool(clpool_context *ctx, cl_command_queue queue, const clpool_maxpool_params *params,
                                     clpool_dtype dtype, const clpool_shape *input_shape, cl_mem input,
                                     size_t input_offset, cl_mem output, size_t output_offset, cl_mem indices,
                                     size_t indices_offset, cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    static const char *fn = "clpool_enqueue_maxpool";
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    if (!maxpool_dtype_ok(dtype))
        return clpool__fail(CLPOOL_ERROR_UNSUPPORTED_DTYPE,
                            "%s: dtype %s (%d) is not supported by MaxPool (float32, float64, float16, bfloat16, int8, uint8)",
                            fn, clpool_dtype_name(dtype), (int)dtype);
    clpool__maxpool_desc desc;
    clpool_status status = clpool__maxpool_describe(input_shape, params, dtype, indices != NULL, fn, &desc);
    if (status != CLPOOL_SUCCESS) return status;
    const size_t esize = clpool_dtype_size(dtype);
    int64_t n_out = desc.planes;
    for (int32_t i = 0; i < desc.ns; ++i) n_out *= desc.out[i];
    const int64_t n_in = clpool_shape_elements(input_shape);
    if ((status = clpool__check_dtype_device(ctx, dtype, fn)) != CLPOOL_SUCCESS) return status;
    if ((status = clpool__check_wait_list(num_wait, wait, fn)) != CLPOOL_SUCCESS) return status;
    cl_command_queue q;
    if ((status = clpool__resolve_queue(ctx, queue, fn, &q)) != CLPOOL_SUCCESS) return status;
    size_t in_bytes = 0; /* the input cl_mem's size: vector loads may read up to its end */
    if ((status = clpool__check_buffer(input, input_offset, n_in, esize, fn, "input", &in_bytes)) != CLPOOL_SUCCESS)
        return status;
    if ((status = clpool__check_buffer(output, output_offset, n_out, esize, fn, "output", NULL)) != CLPOOL_SUCCESS)
        return status;
    if (indices &&
        (status = clpool__check_buffer(indices, indices_offset, n_out, sizeof(cl_long), fn, "indices", NULL)) !=
            CLPOOL_SUCCESS)
        return status;
    if (n_out == 0) return clpool__enqueue_nothing(q, num_wait, wait, event);

    desc.in_off = (int64_t)(input_offset / esize);
    desc.out_off = (int64_t)(output_offset / esize);
    desc.idx_off = (int64_t)(indices_offset / sizeof(cl_long));
    desc.in_limit = (int64_t)(in_bytes / esize);
    clpool__device_caps caps;
    device_caps(ctx, &caps);
    clpool__maxpool_plan plan;
    clpool__maxpool_plan_call(&caps, &desc, &plan);
    if ((uint64_t)n_in * esize <= CLPOOL__FIRST_TIER_MAX_BYTES && !plan_programs_wanted(ctx, &plan, dtype))
        clpool__maxpool_plan_generic(&desc, &plan);
    cl_mem mems[CLPOOL__MP_SCRATCH + 1] = {NULL, input, output, indices, NULL};
    switch (plan.path) {
    case CLPOOL__MP_GLOBAL_MAX:
        return clpool__launch_global_max(ctx, q, dtype, plan.planes, plan.plane_size, input, input_offset, output,
                                         output_offset, num_wait, wait, event, fn);
    case CLPOOL__MP_GLOBAL_MAX_INDICES:
        return clpool__launch_global_max_indices(ctx, q, dtype, plan.planes, plan.plane_size, input, input_offset,
                                                 output, output_offset, indices, indices_offset, plan.col_major,
                                                 plan.dims, num_wait, wait, event);
    case CLPOOL__MP_3D_TWO_PASS:
        return run_two_passes(ctx, q, &plan, mems, num_wait, wait, event, fn);
    default:
        return run_launch(ctx, q, &plan.launch[0], mems, num_wait, wait, event);
    }
}

clpool_status clpool__maxpool_first_tier(clpool_context *ctx, cl_command_queue q, clpool_dtype dtype, cl_mem input,
                                         cl_mem output, cl_mem indices)
{
    static const int64_t k3[2] = {3, 3};
    const clpool_shape shape = {4, {1, 1, 8, 8}};
    clpool_maxpool_params p;
    clpool_status status = clpool_maxpool_params_init(&p, 2, k3);
    clpool__maxpool_desc desc;
    if (status == CLPOOL_SUCCESS)
        status = clpool__maxpool_describe(&shape, &p, dtype, 1, "clpool_context_warm_up", &desc);
    if (status != CLPOOL_SUCCESS) return status;
    clpool__maxpool_plan plan;
    clpool__maxpool_plan_generic(&desc, &plan);
    const cl_mem mems[CLPOOL__MP_SCRATCH + 1] = {NULL, input, output, indices, NULL};
    return run_launch(ctx, q, &plan.launch[0], mems, 0, NULL, NULL);
}
