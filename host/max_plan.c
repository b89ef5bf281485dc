/* Max's planner (planners.h): lanes, blocks per work-item, store kind and the passes of a collapsed call. */
#include <string.h>

#include "planners.h"

#define MAX_ARITY CLPOOL__ARGS_MAX_ARITY
/* Output bytes per work-item on CPUs (16 KiB when streaming: a work-item ends with a fence), to spread its
 * fixed cost; halved while fewer than CLPOOL__ITEMS_PER_CU work-items per compute unit would remain. */
#define ITEM_BYTES 4096
#define ITEM_BYTES_STREAMED 16384

/* Blocks of vw lanes per work-item along the innermost dim: one on GPUs (neighbours read neighbouring blocks). */
static int blocks_per_item(const clpool__device_caps *caps, const clpool__max_desc *d, int vw, int stream)
{
    if (!caps->cpu) return 1;
    const int64_t n0 = d->dims[d->rank - 1];
    int64_t rows = 1;
    for (int32_t i = 0; i + 1 < d->rank; ++i) rows *= d->dims[i];
    int nb = (int)((stream ? ITEM_BYTES_STREAMED : ITEM_BYTES) / ((int64_t)vw * d->esize));
    const int64_t want = CLPOOL__ITEMS_PER_CU * (int64_t)caps->compute_units;
    while (nb > 1 && rows * ((n0 + (int64_t)vw * nb - 1) / ((int64_t)vw * nb)) < want) nb /= 2;
    return nb;
}

void clpool__max_plan_call(const clpool__device_caps *caps, const clpool__max_desc *d, clpool__max_plan *plan)
{
    plan->vw = d->esize >= 8 ? 8 : 16; /* lanes per block: 16, or 8 for 8-byte types */
    plan->stream = clpool__stream_stores_for(caps->cpu_simd, caps->cache_bytes, d->moved); /* see max.cl */
    plan->blocks = blocks_per_item(caps, d, plan->vw, plan->stream);
    /* the contiguous form: every input's innermost stride 1 or 0, the output dense (row-major); a call of
     * one element (collapsed to one dim of 1, strides 0) is in it */
    const int32_t r = d->rank;
    const int64_t *out_strides = d->strides[d->inputs];
    plan->view = d->dims[r - 1] > 1 && out_strides[r - 1] != 1;
    for (int32_t i = 0; i + 1 < r; ++i) plan->view |= out_strides[i] != out_strides[i + 1] * d->dims[i + 1];
    for (size_t k = 0; k < d->inputs; ++k) plan->view |= d->dims[r - 1] > 1 && d->strides[k][r - 1] > 1;
    for (size_t k = 0; k < d->inputs; ++k) plan->view |= d->strides[k][r - 1] < 0;
    plan->passes = d->inputs <= MAX_ARITY ? 1 : 1 + (d->inputs - MAX_ARITY + MAX_ARITY - 2) / (MAX_ARITY - 1);
}

void clpool__max_plan_pass(const clpool__max_desc *d, const clpool__max_plan *plan, size_t pass, clpool__launch *l,
                           size_t first[MAX_ARITY], int *arity)
{
    /* Pass 0 takes inputs 0..3; later passes take the output plus 3 more. */
    size_t next = pass == 0 ? 0 : MAX_ARITY + (pass - 1) * (MAX_ARITY - 1);
    int a = 0;
    if (pass > 0) first[a++] = d->inputs; /* d->inputs stands for the output */
    while (a < MAX_ARITY && next < d->inputs) first[a++] = next++;
    *arity = a;
    clpool__launch_start(l, CLPOOL__PATH_MAX, clpool__families[CLPOOL__PATH_MAX].kernels[a - 1]);
    clpool__options_start(&l->options, d->dtype);
    clpool__options_define(&l->options, "VW", plan->vw);
    clpool__options_define(&l->options, "STREAM_STORES", plan->stream);
    if (plan->view) clpool__options_define(&l->options, "VIEW", 1); /* a program of its own, views only */
    clpool__launch_buffer(l, CLPOOL__ROLE_OUTPUT);
    /* unused slots repeat input 0: a valid buffer the kernel never reads */
    for (int k = 0; k < MAX_ARITY; ++k) clpool__launch_buffer(l, (clpool__role)(CLPOOL__ROLE_INPUTS + (k < a ? k : 0)));
    clpool__launch_block(l, sizeof l->block.max);
    clpool__max_geom *g = &l->block.max;
    /* right-aligned: leading dims of 1 with strides 0 (max.cl) */
    const int32_t lead = CLPOOL__ARGS_MAX_RANK - d->rank;
    for (int32_t i = 0; i < CLPOOL__ARGS_MAX_RANK; ++i) g->out_dims[i] = i < lead ? 1 : d->dims[i - lead];
    for (int k = 0; k < a; ++k) {
        const size_t in = first[k];
        for (int32_t i = 0; i < d->rank; ++i) g->strides[k * CLPOOL__ARGS_MAX_RANK + lead + i] = d->strides[in][i];
        g->inner_mask |= (int64_t)(d->strides[in][d->rank - 1] == 1) << k; /* contiguous, else broadcast or gathered */
        g->aliased |= in == d->inputs || (in < MAX_ARITY && (d->aliased >> in & 1));
        g->in_offset[k] = in == d->inputs ? d->out_off : (int64_t)d->offsets[in] / d->esize;
    }
    for (int32_t i = 0; i < d->rank; ++i) g->out_strides[lead + i] = d->strides[d->inputs][i];
    g->out_offset = d->out_off;
    g->blocks = plan->blocks;
    /* blocks of vw along the innermost dim x the next dim x everything outside */
    const int64_t span = (int64_t)plan->vw * plan->blocks;
    l->items[0] = (uint64_t)((d->dims[d->rank - 1] + span - 1) / span);
    l->items[1] = d->rank >= 2 ? (uint64_t)d->dims[d->rank - 2] : 1;
    l->items[2] = 1;
    for (int32_t i = 0; i + 2 < d->rank; ++i) l->items[2] *= (uint64_t)d->dims[i];
    l->dims = d->rank >= 3 ? 3 : (uint32_t)d->rank;
    l->cpu_local = 1;
}
