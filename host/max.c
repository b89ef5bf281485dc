/* Variadic Max: broadcasting shape inference, dim collapsing, fast-path
 * choice and the chain of passes (kernels/max.cl). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../kernels/args.h"

/* Max's program: kernels/max.cl alone. */
static const char *const max_parts[] = {"max.cl", NULL};

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

/* Blocks of vw lanes per work-item along the innermost dim: one on GPUs (neighbours read neighbouring blocks);
 * on CPUs about 4 KiB of output (16 KiB when streaming: a work-item ends with a fence), to spread its fixed
 * cost, halved while fewer than 8 work-items per compute unit would remain. */
static int blocks_per_item(const clpool_context *ctx, const max_layout *L, int vw, size_t es, int stream)
{
    if (!ctx->cpu) return 1;
    const int64_t n0 = L->dims[L->rank - 1];
    int64_t rows = 1;
    for (int32_t d = 0; d + 1 < L->rank; ++d) rows *= L->dims[d];
    int nb = (int)((stream ? 16384 : 4096) / ((size_t)vw * es));
    while (nb > 1 && rows * ((n0 + (int64_t)vw * nb - 1) / ((int64_t)vw * nb)) < 8 * (int64_t)ctx->info.compute_units)
        nb /= 2;
    return nb;
}

/* One program per dtype and store kind: a kernel per input count of a pass (max.cl). */
static const char *const max_kernels[MAX_ARITY] = {"max_of_1", "max_of_2", "max_of_3", "max_of_4"};

static int ranges_overlap(size_t a, size_t alen, size_t b, size_t blen)
{
    return alen && blen && a < b + blen && b < a + alen;
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
    const int vw = es >= 8 ? 8 : 16; /* lanes per block: 16, or 8 for 8-byte types */
    const int64_t n_out = clpool_shape_elements(&out);
    if ((status = clpool__check_buffer(output, output_offset, n_out, es, fn, "output", NULL)) != CLPOOL_SUCCESS)
        return status;
    uint64_t moved = (uint64_t)n_out * es; /* bytes of all inputs and the output */
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
        }
    }
    if (n_out == 0) return clpool__enqueue_nothing(q, num_wait, wait, event);
    const int stream = clpool__stream_stores(ctx, moved); /* see max.cl */

    /* Layout over all inputs plus the output itself (used as input 0 of later passes). */
    max_layout L;
    int64_t (*all)[CLPOOL_MAX_RANK] = calloc(n + 1, sizeof *all);
    if (!all) return clpool__fail(CLPOOL_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
    for (size_t i = 0; i < n; ++i) broadcast_strides(&shapes[i], &out, all[i]);
    broadcast_strides(&out, &out, all[n]);
    L.strides = all;
    collapse(n + 1, &out, &L);
    const int nb = blocks_per_item(ctx, &L, vw, es, stream);

    cl_event prev = NULL, next = NULL;
    clpool__kernel k = {0};
    size_t done = 0;
    for (int pass = 0; done < n; ++pass) {
        /* Pass 0 takes inputs 0..3; later passes take the output plus 3 more. */
        size_t idx[MAX_ARITY];
        int arity = 0;
        if (pass > 0) idx[arity++] = n; /* n stands for the output */
        while (arity < MAX_ARITY && done < n) idx[arity++] = done++;
        clpool__max_geom g;
        memset(&g, 0, sizeof g);
        /* right-aligned: leading dims of 1 with strides 0 (max.cl) */
        const int32_t lead = CLPOOL__ARGS_MAX_RANK - L.rank;
        for (int32_t d = 0; d < CLPOOL__ARGS_MAX_RANK; ++d) g.out_dims[d] = d < lead ? 1 : L.dims[d - lead];
        for (int a = 0; a < arity; ++a) {
            for (int32_t d = 0; d < L.rank; ++d) g.strides[a * CLPOOL__ARGS_MAX_RANK + lead + d] = all[idx[a]][d];
            g.inner_mask |= (cl_long)(all[idx[a]][L.rank - 1] == 1) << a; /* contiguous, else broadcast */
            g.aliased |= idx[a] == n || (inputs[idx[a]] == output && offsets[idx[a]] == output_offset);
            g.in_offset[a] = (cl_long)((idx[a] == n ? output_offset : offsets[idx[a]]) / es);
        }
        g.out_offset = (cl_long)(output_offset / es);
        g.blocks = nb;
        clpool__options options;
        clpool__options_start(&options, dtype);
        clpool__options_define(&options, "VW", vw);
        clpool__options_define(&options, "STREAM_STORES", stream);
        CLPOOL_TRY(clpool__kernel_get(ctx, max_parts, &options, max_kernels[arity - 1], &k));
        CLPOOL_TRY(clpool__set_buffer_arg(&k, 0, output));
        for (int a = 0; a < MAX_ARITY; ++a) {
            /* Unused slots repeat input 0: a valid buffer the kernel never reads. */
            const size_t which = idx[a < arity ? a : 0];
            const cl_mem m = which == n ? output : inputs[which];
            CLPOOL_TRY(clpool__set_buffer_arg(&k, (cl_uint)(1 + a), m));
        }
        CLPOOL_TRY(clpool__set_arg(&k, 5, sizeof g, &g));
        /* nb blocks of vw along the innermost dim x the next dim x everything outside. */
        const int64_t span = (int64_t)vw * nb;
        uint64_t items[3] = {(uint64_t)((L.dims[L.rank - 1] + span - 1) / span), 1, 1};
        if (L.rank >= 2) items[1] = (uint64_t)L.dims[L.rank - 2];
        for (int32_t d = 0; d + 2 < L.rank; ++d) items[2] *= (uint64_t)L.dims[d];
        const int last = done == n;
        CLPOOL_TRY(clpool__launch(ctx, q, &k, L.rank >= 3 ? 3 : (cl_uint)L.rank, items, 1, prev ? 1 : num_wait,
                                  prev ? &prev : wait, last ? event : &next));
        clpool__kernel_put(ctx, &k);
        if (prev) clReleaseEvent(prev);
        prev = next;
        next = NULL;
    }
cleanup:
    if (prev) clReleaseEvent(prev);
    clpool__kernel_put(ctx, &k);
    free(all);
    return status;
}
