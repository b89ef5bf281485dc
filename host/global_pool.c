/* GlobalMaxPool / GlobalAveragePool / GlobalLpPool: validation, shape
 * inference, strategy choice and launch (kernels/global_max_pool.cl and
 * kernels/global_sum_pool.cl). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "../kernels/args.h"

typedef enum global_op { GLOBAL_MAX = 1, GLOBAL_AVG = 2, GLOBAL_LP = 3 } global_op;

static const char *op_name(global_op op)
{
    return op == GLOBAL_MAX ? "GlobalMaxPool" : op == GLOBAL_AVG ? "GlobalAveragePool" : "GlobalLpPool";
}

/* Planes shorter than this are never split: a split only pays off for long loops. */
#define MIN_ELEMENTS_PER_PART 1024

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

/* How many partial results per plane: 1 (direct kernel) when the planes alone fill the device. */
static int64_t choose_parts(const clpool_context *ctx, int64_t planes, int64_t plane_size)
{
    const int64_t target_items = (int64_t)ctx->info.compute_units * (int64_t)ctx->local_size * 4;
    if (planes >= target_items || plane_size < 2 * MIN_ELEMENTS_PER_PART) return 1;
    int64_t parts = (target_items + planes - 1) / planes;
    const int64_t max_parts = plane_size / MIN_ELEMENTS_PER_PART;
    return parts < max_parts ? parts : max_parts;
}

int clpool__global_pool_dtype_ok(clpool_dtype dtype)
{
    return dtype == CLPOOL_FLOAT32 || dtype == CLPOOL_FLOAT64 || dtype == CLPOOL_FLOAT16 || dtype == CLPOOL_BFLOAT16;
}

/* Whether a CPU takes 16 planes per work-item (global_pool_grouped in
 * kernels/global_max_pool.cl, global_sum_pool.cl): float32/float64 planes of 16 or more; the sums
 * only up to the kernel's SHORT_SUM (256) and for p with a vector form (not
 * lp_kind 0). */
#define GROUPED_SUM_MAX_ELEMENTS 256
static int grouped_ok(const clpool_context *ctx, clpool_dtype dtype, global_op op, int lp_kind, int64_t plane_size)
{
    if (!ctx->cpu || plane_size < 16 ||
        (dtype != CLPOOL_FLOAT32 && dtype != CLPOOL_FLOAT64))
        return 0;
    return op == GLOBAL_MAX || (plane_size <= GROUPED_SUM_MAX_ELEMENTS && (op == GLOBAL_AVG || lp_kind != 0));
}

/* The programs: GlobalMaxPool's kernels, and the sums of the other two. */
static const char *const max_parts[] = {"global_pool.h", "global_max_pool.cl", NULL};
static const char *const sum_parts[] = {"global_pool.h", "global_sum_pool.cl", NULL};
#define GLOBAL_PARTS(op) ((op) == GLOBAL_MAX ? max_parts : sum_parts)

/* The program's options: the dtype, the op, the Lp kind, the lane split. */
static void global_options(clpool_dtype dtype, global_op op, int lp_kind, int chunked, clpool__options *o)
{
    clpool__options_start(o, dtype);
    clpool__options_define(o, "OP", (int64_t)op);
    clpool__options_define(o, "LP_KIND", lp_kind);
    clpool__options_define(o, "CHUNKED", chunked);
}

/* The kernels of a validated call: `planes` planes of `plane_size` elements. */
static clpool_status launch_global(clpool_context *ctx, cl_command_queue q, global_op op, double p, clpool_dtype dtype,
                                   int64_t planes, int64_t plane_size, cl_mem input, size_t input_offset,
                                   cl_mem output, size_t output_offset, cl_uint num_wait, const cl_event *wait,
                                   cl_event *event, const char *fn)
{
    clpool_status status = CLPOOL_SUCCESS;
    const size_t esize = clpool_dtype_size(dtype);
    clpool__options options;
    /* p = 1 and 2 get closed forms, other integers repeated squaring, the rest pow. */
    const int lp_kind = op != GLOBAL_LP ? 0 : p == 1.0 ? 1 : p == 2.0 ? 2 : (p <= 64 && p == (double)(int)p) ? 3 : 0;
    /* CPUs stream one contiguous chunk per work-item; GPUs interleave for coalescing. */
    const int chunked = ctx->cpu;
    global_options(dtype, op, lp_kind, chunked, &options);
    /* p travels as the accumulation type: double for float64, else float. */
    const cl_double p_double = p;
    const cl_float p_float = (cl_float)p;
    const size_t p_size = dtype == CLPOOL_FLOAT64 ? sizeof p_double : sizeof p_float;
    const void *p_arg = dtype == CLPOOL_FLOAT64 ? (const void *)&p_double : (const void *)&p_float;
    int64_t parts = choose_parts(ctx, planes, plane_size);
    int grouped = parts == 1 && grouped_ok(ctx, dtype, op, lp_kind, plane_size);
    /* Tiers: a key's first call runs global_pool_direct, one work-item per
     * plane, of the same program: its cheapest kernel to compile. */
    const char *kernel = parts > 1 ? "global_pool_partial" : grouped ? "global_pool_grouped" : NULL;
    if (kernel && (uint64_t)(planes * plane_size) * esize <= CLPOOL__FIRST_TIER_MAX_BYTES &&
        !clpool__program_wanted(ctx, GLOBAL_PARTS(op), &options, kernel))
        parts = 1, grouped = 0;
    const clpool__global_sizes sizes = {.planes = planes,
                                        .plane_size = plane_size,
                                        .parts = parts,
                                        .in_offset = (cl_long)(input_offset / esize),
                                        .out_offset = (cl_long)(output_offset / esize)};

    clpool__kernel k1 = {0}, k2 = {0};
    clpool__scratch_lease partials = {NULL, -1};
    cl_event first = NULL, last = NULL;
    if (parts == 1) {
        /* CPUs: 16 planes per work-item (see grouped_ok). */
        CLPOOL_TRY(clpool__kernel_get(ctx, GLOBAL_PARTS(op), &options,
                                      grouped ? "global_pool_grouped" : "global_pool_direct", &k1));
        const clpool__arg args[] = {CLPOOL_BUFFER_ARG(input), CLPOOL_BUFFER_ARG(output), CLPOOL_ARG(sizes),
                                    {p_size, p_arg, 0}};
        CLPOOL_TRY(clpool__set_args(&k1, 0, args, sizeof args / sizeof args[0]));
        const uint64_t items = grouped ? (uint64_t)((planes + 15) / 16) : (uint64_t)planes;
        CLPOOL_TRY(clpool__launch_1d(ctx, q, &k1, items, CLPOOL__LOCAL_BUDGET, num_wait, wait, event));
        goto cleanup;
    }
    /* Two passes through a context scratch buffer; the second waits on the
     * first's event so out-of-order queues work. Max partials are element
     * indices, sum partials (value, correction) pairs. */
    const size_t partial_size = op == GLOBAL_MAX ? sizeof(cl_long)
                              : 2 * (dtype == CLPOOL_FLOAT64 ? sizeof(cl_double) : sizeof(cl_float));
    CLPOOL_TRY(clpool__scratch_get(ctx, q, (size_t)(planes * parts) * partial_size, fn, "global pool partials", &partials));
    CLPOOL_TRY(clpool__kernel_get(ctx, GLOBAL_PARTS(op), &options, "global_pool_partial", &k1));
    CLPOOL_TRY(clpool__kernel_get(ctx, GLOBAL_PARTS(op), &options, "global_pool_final", &k2));
    const clpool__arg args1[] = {CLPOOL_BUFFER_ARG(input), CLPOOL_BUFFER_ARG(partials.mem), CLPOOL_ARG(sizes),
                                 {p_size, p_arg, 0}};
    const clpool__arg args2[] = {CLPOOL_BUFFER_ARG(partials.mem), CLPOOL_BUFFER_ARG(input), CLPOOL_BUFFER_ARG(output),
                                 CLPOOL_ARG(sizes), {p_size, p_arg, 0}};
    CLPOOL_TRY(clpool__set_args(&k1, 0, args1, sizeof args1 / sizeof args1[0]));
    CLPOOL_TRY(clpool__set_args(&k2, 0, args2, sizeof args2 / sizeof args2[0]));
    CLPOOL_TRY(clpool__launch_1d(ctx, q, &k1, (uint64_t)(planes * parts), 1, num_wait, wait, &first));
    CLPOOL_TRY(clpool__launch_1d(ctx, q, &k2, (uint64_t)planes, CLPOOL__LOCAL_BUDGET, 1, &first, &last));
cleanup:
    clpool__scratch_done(ctx, &partials, first, last, event);
    clpool__kernel_put(ctx, &k1);
    clpool__kernel_put(ctx, &k2);
    return status;
}

static clpool_status enqueue_global(clpool_context *ctx, cl_command_queue queue, global_op op, double p,
                                    clpool_dtype dtype, const clpool_shape *input_shape, cl_mem input,
                                    size_t input_offset, cl_mem output, size_t output_offset, cl_uint num_wait,
                                    const cl_event *wait, cl_event *event, const char *fn)
{
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    if (!clpool__global_pool_dtype_ok(dtype))
        return clpool__fail(CLPOOL_ERROR_UNSUPPORTED_DTYPE,
                            "%s: dtype %s (%d) is not supported by %s (float32, float64, float16, bfloat16)", fn,
                            clpool_dtype_name(dtype), (int)dtype, op_name(op));
    if (op == GLOBAL_LP && !(p > 0 && isfinite(p)))
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: p = %g must be finite and > 0", fn, p);
    int64_t planes, plane_size;
    clpool_status status = check_input(input_shape, fn, &planes, &plane_size);
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
    return launch_global(ctx, q, op, p, dtype, planes, plane_size, input, input_offset, output, output_offset, num_wait,
                         wait, event, fn);
}

clpool_status clpool__launch_global_max(clpool_context *ctx, cl_command_queue q, clpool_dtype dtype, int64_t planes,
                                        int64_t plane_size, cl_mem input, size_t input_offset, cl_mem output,
                                        size_t output_offset, cl_uint num_wait, const cl_event *wait, cl_event *event,
                                        const char *fn)
{
    return launch_global(ctx, q, GLOBAL_MAX, 0.0, dtype, planes, plane_size, input, input_offset, output,
                         output_offset, num_wait, wait, event, fn);
}

int clpool__global_max_indices_wanted(clpool_context *ctx, clpool_dtype dtype)
{
    clpool__options options;
    global_options(dtype, GLOBAL_MAX, 0, 1, &options);
    return clpool__program_wanted(ctx, max_parts, &options, "global_max_pool_indices");
}

clpool_status clpool__launch_global_max_indices(clpool_context *ctx, cl_command_queue q, clpool_dtype dtype,
                                                int64_t planes, int64_t plane_size, cl_mem input, size_t input_offset,
                                                cl_mem output, size_t output_offset, cl_mem indices,
                                                size_t indices_offset, int col_major, const int64_t dims[3],
                                                cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    clpool_status status = CLPOOL_SUCCESS;
    const size_t esize = clpool_dtype_size(dtype);
    clpool__options options;
    global_options(dtype, GLOBAL_MAX, 0, 1, &options);
    clpool__kernel k = {0};
    CLPOOL_TRY(clpool__kernel_get(ctx, max_parts, &options, "global_max_pool_indices", &k));
    const clpool__global_sizes sizes = {.planes = planes,
                                        .plane_size = plane_size,
                                        .parts = 1,
                                        .in_offset = (cl_long)(input_offset / esize),
                                        .out_offset = (cl_long)(output_offset / esize),
                                        .idx_offset = (cl_long)(indices_offset / sizeof(cl_long)),
                                        .col_major = col_major,
                                        .d0 = dims[0],
                                        .d1 = dims[1],
                                        .d2 = dims[2]};
    const clpool__arg args[] = {CLPOOL_BUFFER_ARG(input), CLPOOL_BUFFER_ARG(output), CLPOOL_BUFFER_ARG(indices),
                                CLPOOL_ARG(sizes)};
    CLPOOL_TRY(clpool__set_args(&k, 0, args, sizeof args / sizeof args[0]));
    CLPOOL_TRY(clpool__launch_1d(ctx, q, &k, (uint64_t)((planes + 15) / 16), CLPOOL__LOCAL_BUDGET, num_wait, wait, event));
cleanup:
    clpool__kernel_put(ctx, &k);
    return status;
}

clpool_status clpool_enqueue_global_max_pool(clpool_context *ctx, cl_command_queue queue, clpool_dtype dtype,
                                             const clpool_shape *input_shape, cl_mem input, size_t input_offset,
                                             cl_mem output, size_t output_offset, cl_uint num_wait,
                                             const cl_event *wait, cl_event *event)
{
    return enqueue_global(ctx, queue, GLOBAL_MAX, 0.0, dtype, input_shape, input, input_offset, output, output_offset,
                          num_wait, wait, event, "clpool_enqueue_global_max_pool");
}

clpool_status clpool_enqueue_global_average_pool(clpool_context *ctx, cl_command_queue queue, clpool_dtype dtype,
                                                 const clpool_shape *input_shape, cl_mem input, size_t input_offset,
                                                 cl_mem output, size_t output_offset, cl_uint num_wait,
                                                 const cl_event *wait, cl_event *event)
{
    return enqueue_global(ctx, queue, GLOBAL_AVG, 0.0, dtype, input_shape, input, input_offset, output, output_offset,
                          num_wait, wait, event, "clpool_enqueue_global_average_pool");
}

clpool_status clpool_enqueue_global_lp_pool(clpool_context *ctx, cl_command_queue queue, double p, clpool_dtype dtype,
                                            const clpool_shape *input_shape, cl_mem input, size_t input_offset,
                                            cl_mem output, size_t output_offset, cl_uint num_wait,
                                            const cl_event *wait, cl_event *event)
{
    return enqueue_global(ctx, queue, GLOBAL_LP, p, dtype, input_shape, input, input_offset, output, output_offset,
                          num_wait, wait, event, "clpool_enqueue_global_lp_pool");
}
