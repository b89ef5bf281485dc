/* Variadic Max: broadcasting shape inference, dim collapsing, and the
 * chain of passes host/max_plan.c plans (kernels/max.cl). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planners.h"

/* Inputs per pass: the kernel's bound (args.h). */
#define MAX_ARITY CLPOOL__ARGS_MAX_ARITY

_Static_assert(CLPOOL__ARGS_MAX_RANK == CLPOOL_MAX_RANK, "the kernel's geometry holds every dim");

/* Broadcast shape of the inputs; `fn` names the public caller in messages. */
static clpool_status broadcast_shape(size_t num_inputs, const clpool_shape *shapes, clpool_shape *output,
                                     const char *fn)
{
    if (num_inputs == 0) return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: Max needs at least one input", fn);
    CLPOOL_REQUIRE_NOT_NULL(shapes, fn);
    clpool_shape out = {0, {0}};
    for (size_t i = 0; i < num_inputs; ++i) {
        char what[48];
        snprintf(what, sizeof what, "input_shapes[%zu]", i);
        clpool_status status = clpool__check_shape(&shapes[i], fn, what, NULL);
        if (status != CLPOOL_SUCCESS) return status;
        if (shapes[i].rank > out.rank) {
            /* Right-align: shift what we have so far and pad with 1s. */
            const int32_t grow = shapes[i].rank - out.rank;
            memmove(out.dims + grow, out.dims, (size_t)out.rank * sizeof out.dims[0]);
            for (int32_t d = 0; d < grow; ++d) out.dims[d] = 1;
            out.rank = shapes[i].rank;
        }
    }
    for (size_t i = 0; i < num_inputs; ++i) {
        const int32_t lead = out.rank - shapes[i].rank;
        for (int32_t d = 0; d < shapes[i].rank; ++d) {
            const int64_t have = out.dims[lead + d], dim = shapes[i].dims[d];
            if (dim == have || dim == 1) continue;
            if (have == 1) {
                out.dims[lead + d] = dim;
                continue;
            }
            char a[160], b[160];
            return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE,
                                "%s: input %zu shape %s does not broadcast: dim %d is %lld where other inputs have %lld "
                                "(so far %s)",
                                fn, i, clpool__shape_str(&shapes[i], a, sizeof a), (int)d, (long long)dim,
                                (long long)have, clpool__shape_str(&out, b, sizeof b));
        }
    }
    /* Every dim fits and the product was checked per input; the output's product
     * is at most the product of the inputs' maxima, check it anyway. */
    clpool_status status = clpool__check_shape(&out, fn, "output shape", NULL);
    if (status != CLPOOL_SUCCESS) return status;
    *output = out;
    return CLPOOL_SUCCESS;
}

clpool_status clpool_max_output_shape(size_t num_inputs, const clpool_shape *shapes, clpool_shape *output)
{
    CLPOOL_REQUIRE_NOT_NULL(output, "clpool_max_output_shape");
    return broadcast_shape(num_inputs, shapes, output, "clpool_max_output_shape");
}

/* Broadcast strides of every input against `out`, then merge dims that are
 * contiguous for every input and drop size-1 dims. */
typedef struct max_layout {
    int32_t rank;
    int64_t dims[CLPOOL_MAX_RANK];
    int64_t (*strides)[CLPOOL_MAX_RANK]; /* [num_inputs][rank] */
} max_layout;

static void broadcast_strides(const clpool_shape *in, const clpool_shape *out, int64_t *strides)
{
    const int32_t lead = out->rank - in->rank;
    int64_t step = 1;
    for (int32_t d = out->rank - 1; d >= 0; --d) {
        const int32_t id = d - lead;
        if (id < 0 || in->dims[id] == 1) {
            strides[d] = 0;
        } else {
            strides[d] = step;
            step *= in->dims[id];
        }
    }
}

static void collapse(size_t n, const clpool_shape *out, max_layout *L)
{
    int32_t r = 0;
    for (int32_t d = 0; d < out->rank; ++d) {
        if (out->dims[d] == 1) continue; /* size-1 dims contribute nothing */
        int merge = r > 0;
        for (size_t i = 0; merge && i < n; ++i)
            merge = L->strides[i][r - 1] == L->strides[i][d] * out->dims[d];
        if (merge) {
            L->dims[r - 1] *= out->dims[d];
            for (size_t i = 0; i < n; ++i) L->strides[i][r - 1] = L->strides[i][d];
        } else {
            L->dims[r] = out->dims[d];
            for (size_t i = 0; i < n; ++i) L->strides[i][r] = L->strides[i][d];
            ++r;
        }
    }
    if (r == 0) { /* all ones: one element */
        L->dims[0] = 1;
        for (size_t i = 0; i < n; ++i) L->strides[i][0] = 0;
        r = 1;
    }
    L->rank = r;
}

static int ranges_overlap(size_t a, size_t alen, size_t b, size_t blen)
{
    return alen && blen && a < b + blen && b < a + alen;
}

/* A checked call's buffers and what the passes need of them. */
typedef struct max_call {
    clpool_dtype dtype;
    size_t es;
    size_t n;
    const cl_mem *inputs;
    const size_t *offsets; /* bytes, of each input's element 0 */
    cl_mem output;
    size_t output_offset;
    unsigned aliased; /* bit i: input i is the output */
    uint64_t moved;   /* bytes of all inputs and the output */
} max_call;

/* Collapse the call's layout (all: every input's strides over `out`'s dims, then the output's) and run
 * its passes, each waiting on the one before (out-of-order queues). */
static clpool_status run_max(clpool_context *ctx, cl_command_queue q, const max_call *c, const clpool_shape *out,
                             int64_t (*all)[CLPOOL_MAX_RANK], cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    clpool_status status = CLPOOL_SUCCESS;
    max_layout L;
    L.strides = all;
    collapse(c->n + 1, out, &L);
    clpool__max_desc desc = {.dtype = c->dtype, .esize = (int64_t)c->es, .inputs = c->n, .rank = L.rank,
                             .strides = (const int64_t(*)[CLPOOL_MAX_RANK])all, .offsets = c->offsets,
                             .aliased = c->aliased, .out_off = (int64_t)(c->output_offset / c->es),
                             .moved = c->moved};
    memcpy(desc.dims, L.dims, sizeof desc.dims);
    clpool__device_caps caps;
    clpool__device_caps_of(ctx, &caps);
    clpool__max_plan plan;
    clpool__max_plan_call(&caps, &desc, &plan);
    cl_event prev = NULL, next = NULL;
    for (size_t pass = 0; pass < plan.passes; ++pass) {
        clpool__launch l;
        size_t first[MAX_ARITY];
        int arity;
        clpool__max_plan_pass(&desc, &plan, pass, &l, first, &arity);
        cl_mem mems[CLPOOL__ROLES] = {[CLPOOL__ROLE_OUTPUT] = c->output};
        for (int a = 0; a < arity; ++a) mems[CLPOOL__ROLE_INPUTS + a] = first[a] == c->n ? c->output : c->inputs[first[a]];
        const int last = pass + 1 == plan.passes;
        CLPOOL_TRY(clpool__launch_run(ctx, q, &l, mems, prev ? 1 : num_wait, prev ? &prev : wait,
                                      last ? event : &next));
        if (prev) clReleaseEvent(prev);
        prev = next;
        next = NULL;
    }
cleanup:
    if (prev) clReleaseEvent(prev);
    return status;
}

clpool_status clpool_enqueue_max(clpool_context *ctx, cl_command_queue queue, clpool_dtype dtype, size_t n,
                                 const clpool_shape *shapes, const cl_mem *inputs, const size_t *offsets,
                                 cl_mem output, size_t output_offset, cl_uint num_wait, const cl_event *wait,
                                 cl_event *event)
{
    static const char *fn = "clpool_enqueue_max";
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    const clpool__dtype_info *dt = clpool__dtype_lookup(dtype);
    if (!dt) return clpool__fail(CLPOOL_ERROR_UNSUPPORTED_DTYPE, "%s: dtype %d is not a clpool_dtype", fn, (int)dtype);
    clpool_shape out;
    clpool_status status = broadcast_shape(n, shapes, &out, fn);
    if (status != CLPOOL_SUCCESS) return status;
    CLPOOL_REQUIRE_NOT_NULL(inputs, fn);
    CLPOOL_REQUIRE_NOT_NULL(offsets, fn);
    if ((status = clpool__check_dtype_device(ctx, dtype, fn)) != CLPOOL_SUCCESS) return status;
    if ((status = clpool__check_wait_list(num_wait, wait, fn)) != CLPOOL_SUCCESS) return status;
    cl_command_queue q;
    if ((status = clpool__resolve_queue(ctx, queue, fn, &q)) != CLPOOL_SUCCESS) return status;
    const size_t es = dt->size;
    const int64_t n_out = clpool_shape_elements(&out);
    if ((status = clpool__check_buffer(output, output_offset, n_out, es, fn, "output", NULL)) != CLPOOL_SUCCESS)
        return status;
    uint64_t moved = (uint64_t)n_out * es; /* bytes of all inputs and the output */
    unsigned aliased = 0;                  /* bit i: input i is the output */
    for (size_t i = 0; i < n; ++i) {
        char what[32];
        snprintf(what, sizeof what, "inputs[%zu]", i);
        const int64_t n_in = clpool_shape_elements(&shapes[i]);
        if ((status = clpool__check_buffer(inputs[i], offsets[i], n_in, es, fn, what, NULL)) != CLPOOL_SUCCESS)
            return status;
        moved += (uint64_t)n_in * es;
        /* In place is fine element for element; any other overlap would read
         * elements another work-item already wrote. Later passes read the
         * output as the running maximum, so an aliased input must be in pass 1. */
        if (inputs[i] == output && ranges_overlap(offsets[i], (size_t)n_in * es, output_offset, (size_t)n_out * es)) {
            int same = offsets[i] == output_offset && shapes[i].rank == out.rank;
            for (int32_t d = 0; same && d < out.rank; ++d) same = shapes[i].dims[d] == out.dims[d];
            if (!same)
                return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                                    "%s: inputs[%zu] overlaps the output without being the same region and shape "
                                    "(only exact in-place use is supported)",
                                    fn, i);
            if (i >= MAX_ARITY)
                return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                                    "%s: in-place output aliases inputs[%zu]; only inputs 0..%d may be the output "
                                    "(later inputs are folded after the output is first written)",
                                    fn, i, MAX_ARITY - 1);
            aliased |= 1u << i;
        }
    }
    if (n_out == 0) return clpool__enqueue_nothing(q, num_wait, wait, event);

    /* Layout over all inputs plus the output itself (input 0 of later passes). */
    int64_t (*all)[CLPOOL_MAX_RANK] = calloc(n + 1, sizeof *all);
    if (!all) return clpool__fail(CLPOOL_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
    for (size_t i = 0; i < n; ++i) broadcast_strides(&shapes[i], &out, all[i]);
    broadcast_strides(&out, &out, all[n]);
    const max_call call = {dtype, es, n, inputs, offsets, output, output_offset, aliased, moved};
    status = run_max(ctx, q, &call, &out, all, num_wait, wait, event);
    free(all);
    return status;
}

/* Whether two views are the same elements in the same logical places. */
static int same_view(const clpool_view *a, const clpool_view *b)
{
    if (a->mem != b->mem || a->offset != b->offset || a->rank != b->rank) return 0;
    for (int32_t d = 0; d < a->rank; ++d)
        if (a->dims[d] != b->dims[d] || (a->dims[d] > 1 && a->strides[d] != b->strides[d])) return 0;
    return 1;
}

clpool_status clpool_enqueue_max_view(clpool_context *ctx, cl_command_queue queue, clpool_dtype dtype, size_t n,
                                      const clpool_view *inputs, const clpool_view *output, cl_uint num_wait,
                                      const cl_event *wait, cl_event *event)
{
    static const char *fn = "clpool_enqueue_max_view";
    CLPOOL_REQUIRE_NOT_NULL(ctx, fn);
    const clpool__dtype_info *dt = clpool__dtype_lookup(dtype);
    if (!dt) return clpool__fail(CLPOOL_ERROR_UNSUPPORTED_DTYPE, "%s: dtype %d is not a clpool_dtype", fn, (int)dtype);
    if (n == 0) return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: Max needs at least one input", fn);
    CLPOOL_REQUIRE_NOT_NULL(inputs, fn);
    CLPOOL_REQUIRE_NOT_NULL(output, fn);
    const size_t es = dt->size;
    clpool_status status = CLPOOL_SUCCESS;
    clpool_shape *shapes = malloc(n * sizeof *shapes);
    size_t *offsets = malloc(n * sizeof *offsets);
    cl_mem *mems = malloc(n * sizeof *mems);
    int64_t (*all)[CLPOOL_MAX_RANK] = calloc(n + 1, sizeof *all);
    if (!shapes || !offsets || !mems || !all) { /* LCOV_EXCL_START: allocation failure, not injected */
        status = clpool__fail(CLPOOL_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
        goto cleanup;
    } /* LCOV_EXCL_STOP */
    for (size_t i = 0; i < n; ++i) {
        char what[32];
        snprintf(what, sizeof what, "inputs[%zu]", i);
        CLPOOL_TRY(clpool__view_check(&inputs[i], es, NULL, 0, fn, what));
        clpool__view_shape(&inputs[i], &shapes[i]);
        offsets[i] = inputs[i].offset;
        mems[i] = inputs[i].mem;
    }
    clpool_shape out;
    CLPOOL_TRY(broadcast_shape(n, shapes, &out, fn));
    CLPOOL_TRY(clpool__view_check(output, es, &out, 1, fn, "output"));
    CLPOOL_TRY(clpool__check_dtype_device(ctx, dtype, fn));
    CLPOOL_TRY(clpool__check_wait_list(num_wait, wait, fn));
    cl_command_queue q;
    CLPOOL_TRY(clpool__resolve_queue(ctx, queue, fn, &q));
    /* In place is fine element for element (the same view); any other overlap would read elements another
     * work-item already wrote, and later passes read the output as the running maximum. */
    unsigned aliased = 0;
    uint64_t moved = (uint64_t)clpool_shape_elements(&out) * es;
    size_t out_lo, out_len, lo, len;
    clpool__view_bytes(output, es, &out_lo, &out_len);
    for (size_t i = 0; i < n; ++i) {
        moved += (uint64_t)clpool_shape_elements(&shapes[i]) * es;
        clpool__view_bytes(&inputs[i], es, &lo, &len);
        if (inputs[i].mem != output->mem || !ranges_overlap(lo, len, out_lo, out_len)) continue;
        if (!same_view(&inputs[i], output)) {
            status = clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                                  "%s: inputs[%zu] overlaps the output without being the same view (only exact "
                                  "in-place use is supported)",
                                  fn, i);
            goto cleanup;
        }
        if (i >= MAX_ARITY) {
            status = clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                                  "%s: the output is inputs[%zu]; only inputs 0..%d may be the output (later inputs "
                                  "are folded after the output is first written)",
                                  fn, i, MAX_ARITY - 1);
            goto cleanup;
        }
        aliased |= 1u << i;
    }
    if (clpool_shape_elements(&out) == 0) {
        status = clpool__enqueue_nothing(q, num_wait, wait, event);
        goto cleanup;
    }
    /* Strides over the output's dims (inputs right-aligned, stretched dims 0), then the dims in the order of
     * the output's strides, largest first: a channels-last output is then row-major, and so are the inputs
     * laid out as it is, which the kernel loads as vectors. */
    int32_t order[CLPOOL_MAX_RANK];
    for (int32_t d = 0; d < out.rank; ++d) {
        order[d] = d;
        all[n][d] = out.dims[d] == 1 ? 0 : output->strides[d];
        for (size_t i = 0; i < n; ++i) {
            const int32_t id = d - (out.rank - shapes[i].rank);
            all[i][d] = id < 0 || shapes[i].dims[id] == 1 ? 0 : inputs[i].strides[id];
        }
    }
    clpool__order_by_stride(order, out.rank, all[n], 1);
    clpool_shape sorted = {out.rank, {0}};
    int64_t row[CLPOOL_MAX_RANK];
    for (size_t i = 0; i <= n; ++i) {
        for (int32_t d = 0; d < out.rank; ++d) row[d] = all[i][order[d]];
        memcpy(all[i], row, sizeof row);
    }
    for (int32_t d = 0; d < out.rank; ++d) sorted.dims[d] = out.dims[order[d]];
    const max_call call = {dtype, es, n, mems, offsets, output->mem, output->offset, aliased, moved};
    status = run_max(ctx, q, &call, &sorted, all, num_wait, wait, event);
cleanup:
    free(shapes);
    free(offsets);
    free(mems);
    free(all);
    return status;
}
