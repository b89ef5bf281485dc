/* Running plans (plan.h): the one way every op turns a planned launch into a
 * program lookup, its arguments and an enqueue, and chains a plan's launches. */
#include <string.h>

#include "planners.h"

void clpool__device_caps_of(const clpool_context *ctx, clpool__device_caps *caps)
{
    caps->cpu = ctx->cpu;
    caps->cpu_simd = ctx->cpu_simd;
    caps->vector_bytes = ctx->vector_bytes;
    caps->cache_bytes = ctx->info.cache_bytes;
    caps->compute_units = ctx->info.compute_units;
    caps->local_size = (uint32_t)ctx->local_size;
}

void clpool__launch_start(clpool__launch *l, clpool__path path, const char *kernel)
{
    memset(l, 0, sizeof *l);
    l->path = path;
    l->parts = clpool__families[path].parts;
    l->kernel = kernel;
}

static void add_arg(clpool__launch *l, clpool__arg_kind kind, clpool__role role)
{
    if (l->nargs < CLPOOL__LAUNCH_ARGS) l->args[l->nargs++] = (clpool__launch_arg){kind, role};
}

void clpool__launch_buffer(clpool__launch *l, clpool__role role) { add_arg(l, CLPOOL__ARG_BUFFER, role); }

void clpool__launch_block(clpool__launch *l, size_t size)
{
    l->block_size = size;
    add_arg(l, CLPOOL__ARG_BLOCK, CLPOOL__ROLE_NONE);
}

void clpool__launch_scalar(clpool__launch *l, size_t size)
{
    l->scalar_size = size;
    add_arg(l, CLPOOL__ARG_SCALAR, CLPOOL__ROLE_NONE);
}

clpool_status clpool__launch_run(clpool_context *ctx, cl_command_queue q, const clpool__launch *l, const cl_mem *mems,
                                 cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    clpool__kernel k = {0};
    clpool_status status = clpool__kernel_get(ctx, l->parts, &l->options, l->kernel, &k);
    for (int a = 0; status == CLPOOL_SUCCESS && a < l->nargs; ++a) {
        if (l->args[a].kind == CLPOOL__ARG_BUFFER)
            status = clpool__set_buffer_arg(&k, (cl_uint)a, mems[l->args[a].role]);
        else if (l->args[a].kind == CLPOOL__ARG_BLOCK)
            status = clpool__set_arg(&k, (cl_uint)a, l->block_size, &l->block);
        else
            status = clpool__set_arg(&k, (cl_uint)a, l->scalar_size, &l->scalar);
    }
    if (status == CLPOOL_SUCCESS)
        status = clpool__enqueue_kernel(ctx, q, &k, l->dims, l->items, l->cpu_local, num_wait, wait, event);
    clpool__kernel_put(ctx, &k);
    return status;
}

clpool_status clpool__plan_run(clpool_context *ctx, cl_command_queue q, const clpool__plan *plan, cl_mem *mems,
                               cl_uint num_wait, const cl_event *wait, cl_event *event, const char *fn)
{
    if (plan->launches == 1 && plan->scratch_bytes == 0)
        return clpool__launch_run(ctx, q, &plan->launch[0], mems, num_wait, wait, event);
    clpool__scratch_lease lease = {NULL, -1};
    clpool_status status = CLPOOL_SUCCESS;
    if (plan->scratch_bytes > 0) {
        status = clpool__scratch_get(ctx, q, plan->scratch_bytes, fn, plan->scratch_purpose, &lease);
        if (status == CLPOOL_ERROR_OPENCL && plan->has_fallback)
            return clpool__launch_run(ctx, q, &plan->fallback, mems, num_wait, wait, event);
        if (status != CLPOOL_SUCCESS) return status;
        mems[CLPOOL__ROLE_SCRATCH] = lease.mem;
    }
    /* each launch waits on the one before (out-of-order queues) */
    cl_event first = NULL, last = NULL;
    status = clpool__launch_run(ctx, q, &plan->launch[0], mems, num_wait, wait, &first);
    if (status == CLPOOL_SUCCESS && plan->launches == 2)
        status = clpool__launch_run(ctx, q, &plan->launch[1], mems, 1, &first, &last);
    if (plan->launches == 1) last = first, first = NULL;
    clpool__scratch_done(ctx, &lease, first, last, event);
    return status;
}

/* A windowed call's checks before its buffers: the device takes the dtype, the wait list, the queue. */
static clpool_status call_checks(clpool_context *ctx, cl_command_queue queue, const clpool__pool_desc *desc,
                                 cl_uint num_wait, const cl_event *wait, const char *fn, cl_command_queue *q)
{
    clpool_status status;
    if ((status = clpool__check_dtype_device(ctx, desc->dtype, fn)) != CLPOOL_SUCCESS) return status;
    if ((status = clpool__check_wait_list(num_wait, wait, fn)) != CLPOOL_SUCCESS) return status;
    return clpool__resolve_queue(ctx, queue, fn, q);
}

/* A described windowed call's plan (`planner`'s, or while the tiers say so for `input_bytes` the first
 * tier's), run on the buffers. */
static clpool_status plan_and_run(clpool_context *ctx, cl_command_queue q, const clpool__pool_desc *desc,
                                  clpool__window_planner planner, uint64_t input_bytes, cl_mem input, cl_mem output,
                                  cl_mem indices, cl_uint num_wait, const cl_event *wait, cl_event *event,
                                  const char *fn)
{
    clpool__device_caps caps;
    clpool__device_caps_of(ctx, &caps);
    clpool__plan plan;
    planner(&caps, desc, &plan);
    cl_mem mems[CLPOOL__ROLES] = {[CLPOOL__ROLE_INPUT] = input, [CLPOOL__ROLE_OUTPUT] = output,
                                  [CLPOOL__ROLE_INDICES] = indices};
    clpool__tier_job *job;
    if (!clpool__plan_now(ctx, &plan, input_bytes, mems, &job)) clpool__window_plan_first_tier(&caps, desc, &plan);
    return clpool__plan_run_tiered(ctx, q, &plan, mems, job, num_wait, wait, event, fn);
}

clpool_status clpool__window_enqueue(clpool_context *ctx, cl_command_queue queue, clpool__pool_desc *desc,
                                     clpool__window_planner planner, const clpool_shape *input_shape, cl_mem input,
                                     size_t input_offset, cl_mem output, size_t output_offset, cl_mem indices,
                                     size_t indices_offset, cl_uint num_wait, const cl_event *wait, cl_event *event,
                                     const char *fn)
{
    const size_t esize = (size_t)desc->esize;
    const int64_t n_out = clpool__window_out_elements(&desc->w);
    const int64_t n_in = clpool_shape_elements(input_shape);
    clpool_status status;
    cl_command_queue q;
    if ((status = call_checks(ctx, queue, desc, num_wait, wait, fn, &q)) != CLPOOL_SUCCESS) return status;
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

    desc->in_off = (int64_t)(input_offset / esize);
    desc->out_off = (int64_t)(output_offset / esize);
    desc->idx_off = (int64_t)(indices_offset / sizeof(cl_long));
    desc->in_limit = (int64_t)(in_bytes / esize);
    return plan_and_run(ctx, q, desc, planner, (uint64_t)n_in * esize, input, output, indices, num_wait, wait, event,
                        fn);
}

clpool_status clpool__window_enqueue_view(clpool_context *ctx, cl_command_queue queue, clpool__pool_desc *desc,
                                          clpool__window_planner planner, const clpool_view *input,
                                          const clpool_view *output, const clpool_view *indices, cl_uint num_wait,
                                          const cl_event *wait, cl_event *event, const char *fn)
{
    const size_t esize = (size_t)desc->esize;
    clpool_shape in_shape, out_shape;
    clpool__view_shape(input, &in_shape);
    clpool__window_output_shape(&in_shape, &desc->w, &out_shape);
    clpool_status status;
    if ((status = clpool__view_check(input, esize, NULL, 0, fn, "input")) != CLPOOL_SUCCESS) return status;
    if ((status = clpool__view_check(output, esize, &out_shape, 1, fn, "output")) != CLPOOL_SUCCESS) return status;
    if (indices && (status = clpool__view_check(indices, sizeof(cl_long), &out_shape, 1, fn, "indices")) !=
                       CLPOOL_SUCCESS)
        return status;
    if (clpool__view_contiguous(input) && clpool__view_contiguous(output) &&
        (!indices || clpool__view_contiguous(indices)))
        return clpool__window_enqueue(ctx, queue, desc, planner, &in_shape, input->mem, input->offset, output->mem,
                                      output->offset, indices ? indices->mem : NULL, indices ? indices->offset : 0,
                                      num_wait, wait, event, fn);
    cl_command_queue q;
    if ((status = call_checks(ctx, queue, desc, num_wait, wait, fn, &q)) != CLPOOL_SUCCESS) return status;
    const int64_t n_out = clpool__window_out_elements(&desc->w);
    if (n_out == 0) return clpool__enqueue_nothing(q, num_wait, wait, event);
    desc->strided = 1;
    desc->channels = in_shape.dims[1];
    desc->in_off = (int64_t)(input->offset / esize);
    desc->out_off = (int64_t)(output->offset / esize);
    desc->idx_off = indices ? (int64_t)(indices->offset / sizeof(cl_long)) : 0;
    for (int32_t d = 0; d < in_shape.rank; ++d) {
        /* a dim of one element is never stepped along: its stride may be anything */
        desc->in_strides[d] = input->dims[d] == 1 ? 0 : input->strides[d];
        desc->out_strides[d] = output->dims[d] == 1 ? 0 : output->strides[d];
        desc->idx_strides[d] = !indices || indices->dims[d] == 1 ? 0 : indices->strides[d];
    }
    return plan_and_run(ctx, q, desc, clpool__window_plan_view, (uint64_t)clpool_shape_elements(&in_shape) * esize,
                        input->mem, output->mem, indices ? indices->mem : NULL, num_wait, wait, event, fn);
}
