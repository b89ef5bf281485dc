/*
 * The convenience layer for simple users: tensors that own a cl_mem, blocking
 * upload/download, and blocking "run on host arrays" calls built on the
 * enqueue API (so they share all its validation).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct clpool_tensor {
    clpool_context *ctx;
    cl_mem mem;
    clpool_dtype dtype;
    clpool_shape shape;
    size_t bytes;
};

clpool_status clpool_tensor_create(clpool_context *ctx, clpool_dtype dtype, const clpool_shape *shape,
                                   clpool_tensor **out)
{
    static const char *fn = "clpool_tensor_create";
    CLPOOL_REQUIRE_NOT_NULL(out, fn);
    *out = NULL;
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    const clpool__dtype_info *d = clpool__dtype_lookup(dtype);
    if (!d) return clpool__fail(CLPOOL_ERROR_UNSUPPORTED_DTYPE, "%s: dtype %d is not a clpool_dtype", fn, (int)dtype);
    int64_t n = 0;
    clpool_status status = clpool__check_shape(shape, fn, "shape", &n);
    if (status != CLPOOL_SUCCESS) return status;
    clpool_tensor *t = calloc(1, sizeof *t);
    if (!t) return clpool__fail(CLPOOL_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
    t->ctx = ctx;
    t->dtype = dtype;
    t->shape = *shape;
    t->bytes = (size_t)n * d->size;
    cl_int err;
    /* OpenCL has no empty buffers; an empty tensor still gets one element. */
    t->mem = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, t->bytes ? t->bytes : d->size, NULL, &err);
    if (!t->mem) {
        char what[200];
        snprintf(what, sizeof what, "%s: clCreateBuffer(%zu bytes; the device allows %llu per buffer)", fn,
                 t->bytes ? t->bytes : d->size, (unsigned long long)ctx->info.max_alloc_bytes);
        free(t);
        return clpool__cl_fail(err, what);
    }
    *out = t;
    return CLPOOL_SUCCESS;
}

void clpool_tensor_release(clpool_tensor *t)
{
    if (!t) return;
    clReleaseMemObject(t->mem);
    free(t);
}

cl_mem clpool_tensor_mem(const clpool_tensor *t) { return t ? t->mem : NULL; }
clpool_dtype clpool_tensor_dtype(const clpool_tensor *t) { return t ? t->dtype : (clpool_dtype)0; }
const clpool_shape *clpool_tensor_shape(const clpool_tensor *t) { return t ? &t->shape : NULL; }
size_t clpool_tensor_bytes(const clpool_tensor *t) { return t ? t->bytes : 0; }

/* Blocking transfer of the whole tensor in either direction. */
static clpool_status transfer(const clpool_tensor *t, void *host, size_t bytes, int upload, const char *fn)
{
    CLPOOL_REQUIRE_NOT_NULL(t, fn);
    if (bytes != t->bytes)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: bytes = %zu but the tensor holds %zu", fn, bytes, t->bytes);
    if (bytes == 0) return CLPOOL_SUCCESS;
    CLPOOL_REQUIRE_NOT_NULL(host, fn);
    cl_command_queue q;
    clpool_status status = clpool__resolve_queue(t->ctx, NULL, fn, &q);
    if (status != CLPOOL_SUCCESS) return status;
    cl_int err = upload ? clEnqueueWriteBuffer(q, t->mem, CL_TRUE, 0, bytes, host, 0, NULL, NULL)
                        : clEnqueueReadBuffer(q, t->mem, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    if (err != CL_SUCCESS) return clpool__cl_fail(err, upload ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer");
    return CLPOOL_SUCCESS;
}

clpool_status clpool_tensor_upload(clpool_tensor *t, const void *host, size_t bytes)
{
    return transfer(t, (void *)host, bytes, 1, "clpool_tensor_upload");
}

clpool_status clpool_tensor_download(const clpool_tensor *t, void *host, size_t bytes)
{
    return transfer(t, host, bytes, 0, "clpool_tensor_download");
}

/* Create a tensor and, if `host` is given, fill it. */
static clpool_status tensor_from_host(clpool_context *ctx, clpool_dtype dtype, const clpool_shape *shape,
                                      const void *host, clpool_tensor **out)
{
    clpool_status status = clpool_tensor_create(ctx, dtype, shape, out);
    if (status == CLPOOL_SUCCESS && host) {
        status = clpool_tensor_upload(*out, host, (*out)->bytes);
        if (status != CLPOOL_SUCCESS) {
            clpool_tensor_release(*out);
            *out = NULL;
        }
    }
    return status;
}

/* Block until an op's event completes, then drop it (a successful enqueue always returns one). */
static clpool_status wait_and_release(cl_event *ev)
{
    const cl_int err = clWaitForEvents(1, ev);
    clReleaseEvent(*ev);
    *ev = NULL;
    return err == CL_SUCCESS ? CLPOOL_SUCCESS : clpool__cl_fail(err, "clWaitForEvents");
}

/*
 * A failed op may leave earlier passes queued (clpool.h). A blocking helper
 * waits for them before it releases its tensors and returns, so that nothing
 * it enqueued still runs once it returns and the caller may release the
 * context and exit at once (PoCL 3.1 compiles a kernel on its worker thread
 * at the first launch; exiting under that compile crashed in LLVM's
 * teardown). The original error stays the answer.
 */
static void finish_after_failure(clpool_context *ctx, clpool_status status, int enqueued)
{
    if (status == CLPOOL_SUCCESS || !enqueued) return;
    pthread_mutex_lock(&ctx->lock);
    const cl_command_queue q = ctx->queue; /* set by the enqueue */
    pthread_mutex_unlock(&ctx->lock);
    if (q) clFinish(q);
}

clpool_status clpool_maxpool_host(clpool_context *ctx, const clpool_maxpool_params *params, clpool_dtype dtype,
                                  const clpool_shape *input_shape, const void *input, void *output, int64_t *indices)
{
    static const char *fn = "clpool_maxpool_host";
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    CLPOOL_REQUIRE_NOT_NULL(input, fn);
    CLPOOL_REQUIRE_NOT_NULL(output, fn);
    clpool_shape out_shape;
    clpool_tensor *tin = NULL, *tout = NULL, *tidx = NULL;
    cl_event done = NULL;
    int enqueued = 0;
    clpool_status status = clpool_maxpool_output_shape(input_shape, params, &out_shape);
    if (status != CLPOOL_SUCCESS) return status;
    CLPOOL_TRY(tensor_from_host(ctx, dtype, input_shape, input, &tin));
    CLPOOL_TRY(tensor_from_host(ctx, dtype, &out_shape, NULL, &tout));
    if (indices) CLPOOL_TRY(tensor_from_host(ctx, CLPOOL_INT64, &out_shape, NULL, &tidx));
    enqueued = 1;
    CLPOOL_TRY(clpool_enqueue_maxpool(ctx, NULL, params, dtype, input_shape, tin->mem, 0, tout->mem, 0,
                                      tidx ? tidx->mem : NULL, 0, 0, NULL, &done));
    CLPOOL_TRY(wait_and_release(&done)); /* an adopted queue may be out-of-order */
    CLPOOL_TRY(clpool_tensor_download(tout, output, tout->bytes));
    if (tidx) CLPOOL_TRY(clpool_tensor_download(tidx, indices, tidx->bytes));
cleanup:
    finish_after_failure(ctx, status, enqueued);
    clpool_tensor_release(tin);
    clpool_tensor_release(tout);
    clpool_tensor_release(tidx);
    return status;
}

/* The single-input ops' blocking path (the global pools, AveragePool, LpPool): `op` picks the shape
 * inference and the enqueue, with p (GlobalLpPool) or the params (AveragePool, LpPool). */
typedef enum { HOST_GLOBAL_MAX, HOST_GLOBAL_AVG, HOST_GLOBAL_LP, HOST_AVERAGE_POOL, HOST_LP_POOL } host_op;
typedef struct host_call {
    host_op op;
    double p;
    const clpool_average_pool_params *avg;
    const clpool_lp_pool_params *lp;
} host_call;

static clpool_status output_shape_of(const host_call *c, const clpool_shape *input_shape, clpool_shape *out)
{
    switch (c->op) {
    case HOST_AVERAGE_POOL: return clpool_average_pool_output_shape(input_shape, c->avg, out);
    case HOST_LP_POOL: return clpool_lp_pool_output_shape(input_shape, c->lp, out);
    default: return clpool_global_pool_output_shape(input_shape, out);
    }
}

static clpool_status enqueue_of(clpool_context *ctx, const host_call *c, clpool_dtype dtype,
                                const clpool_shape *input_shape, cl_mem in, cl_mem out, cl_event *done)
{
    switch (c->op) {
    case HOST_GLOBAL_MAX: return clpool_enqueue_global_max_pool(ctx, NULL, dtype, input_shape, in, 0, out, 0, 0, NULL, done);
    case HOST_GLOBAL_AVG:
        return clpool_enqueue_global_average_pool(ctx, NULL, dtype, input_shape, in, 0, out, 0, 0, NULL, done);
    case HOST_GLOBAL_LP:
        return clpool_enqueue_global_lp_pool(ctx, NULL, c->p, dtype, input_shape, in, 0, out, 0, 0, NULL, done);
    case HOST_AVERAGE_POOL:
        return clpool_enqueue_average_pool(ctx, NULL, c->avg, dtype, input_shape, in, 0, out, 0, 0, NULL, done);
    case HOST_LP_POOL: return clpool_enqueue_lp_pool(ctx, NULL, c->lp, dtype, input_shape, in, 0, out, 0, 0, NULL, done);
    }
    return CLPOOL_ERROR_INVALID_ARGUMENT; /* LCOV_EXCL_LINE: every host op returns in the switch */
}

static clpool_status single_input_host(clpool_context *ctx, const host_call *c, clpool_dtype dtype,
                                       const clpool_shape *input_shape, const void *input, void *output, const char *fn)
{
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    CLPOOL_REQUIRE_NOT_NULL(input, fn);
    CLPOOL_REQUIRE_NOT_NULL(output, fn);
    clpool_shape out_shape;
    clpool_tensor *tin = NULL, *tout = NULL;
    cl_event done = NULL;
    int enqueued = 0;
    clpool_status status = output_shape_of(c, input_shape, &out_shape);
    if (status != CLPOOL_SUCCESS) return status;
    CLPOOL_TRY(tensor_from_host(ctx, dtype, input_shape, input, &tin));
    CLPOOL_TRY(tensor_from_host(ctx, dtype, &out_shape, NULL, &tout));
    enqueued = 1;
    CLPOOL_TRY(enqueue_of(ctx, c, dtype, input_shape, tin->mem, tout->mem, &done));
    CLPOOL_TRY(wait_and_release(&done));
    CLPOOL_TRY(clpool_tensor_download(tout, output, tout->bytes));
cleanup:
    finish_after_failure(ctx, status, enqueued);
    clpool_tensor_release(tin);
    clpool_tensor_release(tout);
    return status;
}

clpool_status clpool_global_max_pool_host(clpool_context *ctx, clpool_dtype dtype, const clpool_shape *input_shape,
                                          const void *input, void *output)
{
    const host_call c = {HOST_GLOBAL_MAX, 0.0, NULL, NULL};
    return single_input_host(ctx, &c, dtype, input_shape, input, output, "clpool_global_max_pool_host");
}

clpool_status clpool_global_average_pool_host(clpool_context *ctx, clpool_dtype dtype, const clpool_shape *input_shape,
                                              const void *input, void *output)
{
    const host_call c = {HOST_GLOBAL_AVG, 0.0, NULL, NULL};
    return single_input_host(ctx, &c, dtype, input_shape, input, output, "clpool_global_average_pool_host");
}

clpool_status clpool_global_lp_pool_host(clpool_context *ctx, double p, clpool_dtype dtype,
                                         const clpool_shape *input_shape, const void *input, void *output)
{
    const host_call c = {HOST_GLOBAL_LP, p, NULL, NULL};
    return single_input_host(ctx, &c, dtype, input_shape, input, output, "clpool_global_lp_pool_host");
}

clpool_status clpool_max_host(clpool_context *ctx, clpool_dtype dtype, size_t num_inputs,
                              const clpool_shape *input_shapes, const void *const *inputs, void *output)
{
    static const char *fn = "clpool_max_host";
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    CLPOOL_REQUIRE_NOT_NULL(inputs, fn);
    CLPOOL_REQUIRE_NOT_NULL(output, fn);
    clpool_shape out_shape;
    clpool_status status = clpool_max_output_shape(num_inputs, input_shapes, &out_shape);
    if (status != CLPOOL_SUCCESS) return status;
    clpool_tensor **tin = calloc(num_inputs, sizeof *tin);
    cl_mem *mems = calloc(num_inputs, sizeof *mems);
    size_t *offsets = calloc(num_inputs, sizeof *offsets);
    clpool_tensor *tout = NULL;
    cl_event done = NULL;
    int enqueued = 0;
    if (!tin || !mems || !offsets) { /* LCOV_EXCL_START: allocation failure (not injected: ASan owns malloc) */
        status = clpool__fail(CLPOOL_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
        goto cleanup;
    } /* LCOV_EXCL_STOP */
    for (size_t i = 0; i < num_inputs; ++i) {
        if (!inputs[i] && clpool_shape_elements(&input_shapes[i]) > 0) {
            status = clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: inputs[%zu] is NULL", fn, i);
            goto cleanup;
        }
        CLPOOL_TRY(tensor_from_host(ctx, dtype, &input_shapes[i], inputs[i], &tin[i]));
        mems[i] = tin[i]->mem;
    }
    CLPOOL_TRY(tensor_from_host(ctx, dtype, &out_shape, NULL, &tout));
    enqueued = 1;
    CLPOOL_TRY(clpool_enqueue_max(ctx, NULL, dtype, num_inputs, input_shapes, mems, offsets, tout->mem, 0, 0, NULL,
                                  &done));
    CLPOOL_TRY(wait_and_release(&done));
    CLPOOL_TRY(clpool_tensor_download(tout, output, tout->bytes));
cleanup:
    finish_after_failure(ctx, status, enqueued);
    for (size_t i = 0; tin && i < num_inputs; ++i) clpool_tensor_release(tin[i]);
    clpool_tensor_release(tout);
    free(tin);
    free(mems);
    free(offsets);
    return status;
}

clpool_status clpool_average_pool_host(clpool_context *ctx, const clpool_average_pool_params *params, clpool_dtype dtype,
                                       const clpool_shape *input_shape, const void *input, void *output)
{
    static const char *fn = "clpool_average_pool_host";
    CLPOOL_REQUIRE_NOT_NULL(params, fn);
    const host_call c = {HOST_AVERAGE_POOL, 0.0, params, NULL};
    return single_input_host(ctx, &c, dtype, input_shape, input, output, fn);
}

clpool_status clpool_lp_pool_host(clpool_context *ctx, const clpool_lp_pool_params *params, clpool_dtype dtype,
                                  const clpool_shape *input_shape, const void *input, void *output)
{
    static const char *fn = "clpool_lp_pool_host";
    CLPOOL_REQUIRE_NOT_NULL(params, fn);
    const host_call c = {HOST_LP_POOL, 0.0, NULL, params};
    return single_input_host(ctx, &c, dtype, input_shape, input, output, fn);
}

clpool_status clpool_max_unpool_host(clpool_context *ctx, const clpool_max_unpool_params *params, clpool_dtype dtype,
                                     const clpool_shape *x_shape, const void *x, const int64_t *indices, void *output,
                                     uint32_t *skipped)
{
    static const char *fn = "clpool_max_unpool_host";
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    CLPOOL_REQUIRE_NOT_NULL(x, fn);
    CLPOOL_REQUIRE_NOT_NULL(indices, fn);
    CLPOOL_REQUIRE_NOT_NULL(output, fn);
    clpool_shape out_shape;
    const clpool_shape one = {1, {1}};
    const uint32_t zero = 0;
    clpool_tensor *tx = NULL, *tidx = NULL, *tout = NULL, *tskip = NULL;
    cl_event done = NULL;
    int enqueued = 0;
    clpool_status status = clpool_max_unpool_output_shape(x_shape, params, &out_shape);
    if (status != CLPOOL_SUCCESS) return status;
    CLPOOL_TRY(tensor_from_host(ctx, dtype, x_shape, x, &tx));
    CLPOOL_TRY(tensor_from_host(ctx, CLPOOL_INT64, x_shape, indices, &tidx));
    CLPOOL_TRY(tensor_from_host(ctx, dtype, &out_shape, NULL, &tout));
    if (skipped) CLPOOL_TRY(tensor_from_host(ctx, CLPOOL_UINT32, &one, &zero, &tskip));
    enqueued = 1;
    CLPOOL_TRY(clpool_enqueue_max_unpool(ctx, NULL, params, dtype, x_shape, tx->mem, 0, tidx->mem, 0, tout->mem, 0,
                                         tskip ? tskip->mem : NULL, 0, 0, NULL, &done));
    CLPOOL_TRY(wait_and_release(&done));
    CLPOOL_TRY(clpool_tensor_download(tout, output, tout->bytes));
    if (tskip) CLPOOL_TRY(clpool_tensor_download(tskip, skipped, sizeof *skipped));
cleanup:
    finish_after_failure(ctx, status, enqueued);
    clpool_tensor_release(tx);
    clpool_tensor_release(tidx);
    clpool_tensor_release(tout);
    clpool_tensor_release(tskip);
    return status;
}
