/*
 * clpool_context_warm_up: run tiny real ops so the programs later first calls
 * use are built now. With tiers on, those are the first tiers (MaxPool's
 * window_first_tier, the global pools' direct kernels) and Max's programs, and
 * no specialised key is asked for (that would make its first call build it);
 * with tiers off, the programs of the common cases. Going through the
 * enqueue paths (rather than a list of build options) keeps the warmed
 * programs identical to the ones later calls look up.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static int is_float(clpool_dtype d)
{
    return d == CLPOOL_FLOAT32 || d == CLPOOL_FLOAT64 || d == CLPOOL_FLOAT16 || d == CLPOOL_BFLOAT16;
}

static int maxpool_dtype(clpool_dtype d)
{
    return is_float(d) || d == CLPOOL_INT8 || d == CLPOOL_UINT8;
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

    if (maxpool_dtype(dtype) && ctx->tiered) {
        CLPOOL_TRY(clpool__maxpool_first_tier(ctx, q, dtype, a, b, idx));
    } else if (maxpool_dtype(dtype)) {
        static const struct { int32_t ns; int64_t k, s, p; } cases[] = {
            {2, 3, 2, 1}, {2, 2, 2, 0}, {1, 3, 1, 1}, {2, 9, 1, 4}, {3, 2, 2, 0}};
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
            const int64_t ks[3] = {cases[c].k, cases[c].k, cases[c].k};
            clpool_maxpool_params p;
            CLPOOL_TRY(clpool_maxpool_params_init(&p, cases[c].ns, ks));
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
