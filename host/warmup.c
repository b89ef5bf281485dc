/*
 * clpool_context_warm_up: run tiny real ops so the programs later first calls
 * use are built now. With tiers on, those are the first tiers (the windowed
 * ops' window_first_tier, the global pools' direct kernels) and Max's and MaxUnpool's programs, and
 * no specialised key is asked for (that would make its first call build it);
 * with tiers off, the programs of the common cases. Going through the
 * enqueue paths (rather than a list of build options) keeps the warmed
 * programs identical to the ones later calls look up.
 */
#include <stdio.h>
#include <string.h>

#include "planners.h"

static int is_float(clpool_dtype d)
{
    return d == CLPOOL_FLOAT32 || d == CLPOOL_FLOAT64 || d == CLPOOL_FLOAT16 || d == CLPOOL_BFLOAT16;
}

static int maxpool_dtype(clpool_dtype d)
{
    return is_float(d) || d == CLPOOL_INT8 || d == CLPOOL_UINT8;
}

/* With tiers on: the windowed ops' first tiers (3x3 over 1x1x8x8: MaxPool with Indices, AveragePool,
 * LpPool p = 2), planned directly so that no specialised key is asked for. */
static clpool_status windowed_first_tiers(clpool_context *ctx, cl_command_queue q, clpool_dtype dtype, cl_mem input,
                                          cl_mem output, cl_mem indices)
{
    static const char *fn = "clpool_context_warm_up";
    static const int64_t k3[2] = {3, 3};
    const clpool_shape shape = {4, {1, 1, 8, 8}};
    clpool_maxpool_params mp;
    clpool_average_pool_params avg;
    clpool_lp_pool_params lp;
    /* constant, valid attributes: these inits cannot fail */
    clpool_maxpool_params_init(&mp, 2, k3);
    clpool_average_pool_params_init(&avg, 2, k3);
    clpool_lp_pool_params_init(&lp, 2, k3);
    clpool_status status = CLPOOL_SUCCESS;
    clpool__device_caps caps;
    clpool__device_caps_of(ctx, &caps);
    cl_mem mems[CLPOOL__ROLES] = {[CLPOOL__ROLE_INPUT] = input, [CLPOOL__ROLE_OUTPUT] = output,
                                  [CLPOOL__ROLE_INDICES] = indices};
    for (int op = 0; op < 3 && status == CLPOOL_SUCCESS; ++op) {
        clpool__pool_desc desc;
        if (op == 0 && !maxpool_dtype(dtype)) continue;
        if (op > 0 && !is_float(dtype)) break;
        status = op == 0   ? clpool__maxpool_describe(&shape, &mp, dtype, 1, fn, &desc)
                 : op == 1 ? clpool__sum_pool_describe(&shape, &avg, NULL, dtype, fn, &desc)
                           : clpool__sum_pool_describe(&shape, NULL, &lp, dtype, fn, &desc);
        if (status != CLPOOL_SUCCESS) break;
        clpool__plan plan;
        clpool__window_plan_first_tier(&caps, &desc, &plan);
        status = clpool__plan_run(ctx, q, &plan, mems, 0, NULL, NULL, fn);
    }
    return status;
}

clpool_status clpool_context_warm_up(clpool_context *ctx, clpool_dtype dtype)
{
    static const char *fn = "clpool_context_warm_up";
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    const clpool__dtype_info *dt = clpool__dtype_lookup(dtype);
    if (!dt) return clpool__fail(CLPOOL_ERROR_UNSUPPORTED_DTYPE, "%s: dtype %d is not a clpool_dtype", fn, (int)dtype);
    if (dtype == CLPOOL_FLOAT64 && !ctx->info.has_fp64) return CLPOOL_SUCCESS; /* nothing can run */

    /* Scratch big enough for every case below: a 1x1x2x4096 plane (two-pass global pool). */
    enum { SCRATCH_ELEMENTS = 2 * 4096 };
    clpool_status status = CLPOOL_SUCCESS;
    cl_int err;
    cl_mem a = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, SCRATCH_ELEMENTS * 8, NULL, &err);
    cl_mem b = a ? clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, SCRATCH_ELEMENTS * 8, NULL, &err) : NULL;
    cl_mem idx = b ? clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, SCRATCH_ELEMENTS * 8, NULL, &err) : NULL;
    if (!idx) {
        char what[96];
        snprintf(what, sizeof what, "%s: clCreateBuffer(scratch, %d bytes)", fn, SCRATCH_ELEMENTS * 8);
        status = clpool__cl_fail(err, what);
        goto cleanup;
    }
    cl_command_queue q;
    CLPOOL_TRY(clpool__resolve_queue(ctx, NULL, fn, &q));
    /* Contents do not matter for building; zero them so no NaN/denormal games. */
    const cl_uchar zero = 0;
    err = clEnqueueFillBuffer(q, a, &zero, 1, 0, SCRATCH_ELEMENTS * 8, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clEnqueueFillBuffer(q, idx, &zero, 1, 0, SCRATCH_ELEMENTS * 8, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        status = clpool__cl_fail(err, "clpool_context_warm_up: clEnqueueFillBuffer");
        goto cleanup;
    }

    if (ctx->tiered) {
        CLPOOL_TRY(windowed_first_tiers(ctx, q, dtype, a, b, idx));
    } else if (maxpool_dtype(dtype)) {
        static const struct { int32_t ns; int64_t k, s, p; } cases[] = {
            {2, 3, 2, 1}, {2, 2, 2, 0}, {1, 3, 1, 1}, {2, 9, 1, 4}, {3, 2, 2, 0}};
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
            const int64_t ks[3] = {cases[c].k, cases[c].k, cases[c].k};
            clpool_maxpool_params p;
            clpool_maxpool_params_init(&p, cases[c].ns, ks); /* constant, valid attributes */
            clpool_shape in = {cases[c].ns + 2, {1, 1}};
            for (int32_t d = 0; d < cases[c].ns; ++d) {
                in.dims[2 + d] = 16;
                p.strides[d] = cases[c].s;
                p.pads[d] = p.pads[cases[c].ns + d] = cases[c].p;
            }
            for (int with_idx = 0; with_idx < 2; ++with_idx)
                CLPOOL_TRY(clpool_enqueue_maxpool(ctx, q, &p, dtype, &in, a, 0, b, 0, with_idx ? idx : NULL, 0, 0,
                                                  NULL, NULL));
        }
    }
    if (is_float(dtype) && !ctx->tiered) {
        /* AveragePool 3x3/s1/p1 (Inception) and 2x2/s2 (DenseNet), LpPool p = 2 3x3/s2 */
        static const int64_t k3[2] = {3, 3}, k2[2] = {2, 2};
        const clpool_shape in = {4, {1, 1, 16, 16}};
        clpool_average_pool_params avg;
        clpool_lp_pool_params lp;
        /* constant, valid attributes: the inits cannot fail */
        clpool_average_pool_params_init(&avg, 2, k3);
        for (int i = 0; i < 4; ++i) avg.window.pads[i] = 1;
        CLPOOL_TRY(clpool_enqueue_average_pool(ctx, q, &avg, dtype, &in, a, 0, b, 0, 0, NULL, NULL));
        clpool_average_pool_params_init(&avg, 2, k2);
        avg.window.strides[0] = avg.window.strides[1] = 2;
        CLPOOL_TRY(clpool_enqueue_average_pool(ctx, q, &avg, dtype, &in, a, 0, b, 0, 0, NULL, NULL));
        clpool_lp_pool_params_init(&lp, 2, k3);
        lp.window.strides[0] = lp.window.strides[1] = 2;
        CLPOOL_TRY(clpool_enqueue_lp_pool(ctx, q, &lp, dtype, &in, a, 0, b, 0, 0, NULL, NULL));
    }
    if (is_float(dtype)) {
        /* Planes under 16 elements take the direct kernel (the first tier) whatever the tiers. */
        const clpool_shape small = {4, {1, 1, 3, 5}}, large = {4, {1, 1, 2, 4096}};
        for (int s = 0; s < (ctx->tiered ? 1 : 2); ++s) {
            const clpool_shape *in = s ? &large : &small;
            CLPOOL_TRY(clpool_enqueue_global_max_pool(ctx, q, dtype, in, a, 0, b, 0, 0, NULL, NULL));
            CLPOOL_TRY(clpool_enqueue_global_average_pool(ctx, q, dtype, in, a, 0, b, 0, 0, NULL, NULL));
            CLPOOL_TRY(clpool_enqueue_global_lp_pool(ctx, q, 2.0, dtype, in, a, 0, b, 0, 0, NULL, NULL));
        }
    }
    if (maxpool_dtype(dtype)) {
        /* MaxUnpool: one program per element size serves every call; few planes and many reach both kernels
         * a CPU runs (zero then scatter, whole planes). Zeroed indices: plane 0's first element. */
        static const int64_t k2[2] = {2, 2};
        const clpool_shape few = {4, {1, 1, 2, 2}}, many = {4, {1, 256, 1, 1}};
        clpool_max_unpool_params up;
        clpool_max_unpool_params_init(&up, 2, k2); /* constant, valid attributes */
        up.window.strides[0] = up.window.strides[1] = 2;
        for (int s = 0; s < 2; ++s)
            CLPOOL_TRY(clpool_enqueue_max_unpool(ctx, q, &up, dtype, s ? &many : &few, a, 0, idx, 0, b, 0, NULL, 0, 0,
                                                 NULL, NULL));
    }
    /* Max of two inputs: one program serves every shape and broadcast. */
    const clpool_shape bcast[2] = {{4, {2, 4, 8, 8}}, {4, {1, 4, 1, 1}}};
    const cl_mem mems[2] = {a, idx};
    const size_t offs[2] = {0, 0};
    CLPOOL_TRY(clpool_enqueue_max(ctx, q, dtype, 2, bcast, mems, offs, b, 0, 0, NULL, NULL));
    err = clFinish(q);
    if (err != CL_SUCCESS) status = clpool__cl_fail(err, "clpool_context_warm_up: clFinish");
cleanup:
    if (a) clReleaseMemObject(a);
    if (b) clReleaseMemObject(b);
    if (idx) clReleaseMemObject(idx);
    return status;
}
