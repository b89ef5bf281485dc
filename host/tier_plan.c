/*
 * The first tiers' plans (planners.h): window_first_tier, which takes any windowed call with every
 * attribute and every tensor's strides at run time, and the views' window_channels_last, the same walk
 * with channels as vector lanes. Both read args.h's clpool__window_first_tier_geom.
 */
#include <string.h>

#include "planners.h"

/* window_channels_last's blocks of VW channels per walk of the windows on CPU SIMD (-DCB): a power of
 * two from 4, up to 16 for the maxima without Indices and the sums of one row group (a register or two
 * each), else 8 (five accumulators, or a value and its place); the maxima round a position's blocks up,
 * the sums down (fewer blocks than CB cost their guards at every tap, and more registers). Elsewhere 1. */
#define CHANNELS_LAST_BLOCKS_MIN 4
#define CHANNELS_LAST_BLOCKS_MAX 16
#define CHANNELS_LAST_BLOCKS_WIDE 8
/* CPU SIMD: the outputs down the first of two spatial dims a sums' work-item takes where windows overlap
 * there (-DSTRIP): each input row's sums are taken once for them all; its groups (STRIP x CB registers)
 * cap CB at CHANNELS_LAST_STRIP_BLOCKS. */
#define CHANNELS_LAST_STRIP 4
#define CHANNELS_LAST_STRIP_BLOCKS 4
/* CPU SIMD: output bytes a work-item covers at least, positions (strips) in a row, while
 * CLPOOL__ITEMS_PER_CU work-items per compute unit remain: the driver's cost per work-group (one
 * work-item each) spread over them (docs/performance.md, channels-last views). */
#define CHANNELS_LAST_ITEM_BYTES 4096
/* CPU SIMD: where a tap's channels span at most this many bytes a work-item prefetches the new window
 * columns of the position CHANNELS_LAST_PREFETCH_AHEAD on (-DPREFETCH_AHEAD): a window's many short rows
 * are more streams than the hardware prefetcher follows; longer taps it follows, and the prefetches cost.
 * A position's step along the last dim (the bytes prefetched per row) is at most _STEP_BYTES. Windows over
 * 3 or more dims (three times the rows) and MaxPool with Indices (a position takes longer) prefetch further
 * ahead (docs/performance.md, channels-last views). */
#define CHANNELS_LAST_PREFETCH_TAP_BYTES 512
#define CHANNELS_LAST_PREFETCH_STEP_BYTES 4096
#define CHANNELS_LAST_PREFETCH_AHEAD 2
#define CHANNELS_LAST_PREFETCH_AHEAD_INDICES 3
#define CHANNELS_LAST_PREFETCH_AHEAD_3D 4

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* The first tiers' argument block (args.h) and work: `items` work-items in one dim. A contiguous call's
 * strides are dense, its planes one "channel" each (C = 1): n is the plane. */
static void tier_block(const clpool__pool_desc *d, int64_t items, clpool__launch *l)
{
    clpool__launch_block(l, sizeof l->block.first_tier);
    clpool__window_first_tier_geom *g = &l->block.first_tier;
    g->ns = d->w.ns;
    g->with_indices = d->indices;
    g->col_major = d->storage_order != 0;
    clpool__window_geom_of(d, &g->w);
    g->outputs = items;
    g->in_offset = d->in_off;
    g->out_offset = d->out_off;
    g->idx_offset = d->idx_off;
    if (d->strided) {
        g->channels = d->channels;
        memcpy(g->in_strides, d->in_strides, sizeof g->in_strides);
        memcpy(g->out_strides, d->out_strides, sizeof g->out_strides);
        memcpy(g->idx_strides, d->idx_strides, sizeof g->idx_strides);
    } else {
        g->channels = 1;
        int64_t in = 1, out = 1;
        for (int32_t i = d->w.ns - 1; i >= 0; --i) {
            g->in_strides[2 + i] = in;
            g->out_strides[2 + i] = g->idx_strides[2 + i] = out;
            in *= d->w.in[i];
            out *= d->w.out[i];
        }
        g->in_strides[0] = in;
        g->out_strides[0] = g->idx_strides[0] = out;
    }
    if (d->op != CLPOOL__OP_MAXPOOL) clpool__launch_p(l, d->dtype, d->p);
    l->dims = 1;
    l->items[0] = (uint64_t)items;
    l->cpu_local = CLPOOL__LOCAL_BUDGET;
}

void clpool__window_plan_first_tier(const clpool__device_caps *caps, const clpool__pool_desc *d,
                                     clpool__plan *plan)
{
    clpool__global_desc global;
    if (!d->strided && !d->indices && clpool__window_as_global(d, &global)) {
        clpool__global_plan_first_tier(caps, &global, plan);
        return;
    }
    memset(plan, 0, sizeof *plan);
    plan->path = CLPOOL__PATH_WINDOW_FIRST_TIER;
    plan->launches = 1;
    plan->first_tier = 1;
    clpool__launch *l = &plan->launch[0];
    clpool__launch_start(l, CLPOOL__PATH_WINDOW_FIRST_TIER, "window_first_tier");
    clpool__window_reduce_options(d, &l->options); /* the dtype and the reduction; the rest is run-time data */
    /* Without Indices the output stands in for them (never written): no NULL buffer argument. */
    clpool__launch_buffer(l, d->input);
    clpool__launch_buffer(l, d->output);
    clpool__launch_buffer(l, d->indices ? d->index_buf : d->output);
    tier_block(d, clpool__window_out_elements(&d->w), l);
}

/* Channels-last views: C's stride 1 in every tensor, at least a vector of channels, and a reduction the
 * lanes take (general p's pow stays scalar, reduce_sum.h). */
static int channels_last(const clpool__device_caps *caps, const clpool__pool_desc *d)
{
    return d->strided && d->in_strides[1] == 1 && d->out_strides[1] == 1 && (!d->indices || d->idx_strides[1] == 1) &&
           d->channels >= clpool__window_lanes(caps, d) &&
           !(d->op == CLPOOL__OP_LP_POOL && clpool__lp_kind(d->p) == 0);
}

/* Whether a sum's window rows (its taps on every dim but the last) are one group of reduce_sum.h's order. */
static int one_row_group(const clpool__pool_desc *d)
{
    const int64_t row_taps = d->w.kernel_shape[d->w.ns - 1];
    if (row_taps > CLPOOL__SUM_CHUNK) return 0;
    int64_t rows = 1;
    for (int32_t i = 0; i + 1 < d->w.ns; ++i) {
        rows *= d->w.kernel_shape[i];
        if (rows > CLPOOL__SUM_CHUNK / row_taps) return 0;
    }
    return 1;
}

void clpool__window_plan_view(const clpool__device_caps *caps, const clpool__pool_desc *d, clpool__plan *plan)
{
    if (!channels_last(caps, d)) {
        clpool__window_plan_first_tier(caps, d, plan);
        plan->first_tier = 0; /* the plan itself, not a stand-in for one */
        return;
    }
    memset(plan, 0, sizeof *plan);
    plan->path = CLPOOL__PATH_WINDOW_CHANNELS_LAST;
    plan->launches = 1;
    clpool__launch *l = &plan->launch[0];
    const int vw = clpool__window_lanes(caps, d);
    clpool__launch_start(l, CLPOOL__PATH_WINDOW_CHANNELS_LAST, "window_channels_last");
    clpool__window_reduce_options(d, &l->options);
    clpool__options_define(&l->options, "VW", vw);
    clpool__options_define(&l->options, "NS", d->w.ns);
    /* CPU SIMD: a position's blocks per work-item, CB at a time; elsewhere a block per work-item, so
     * neighbouring work-items read neighbouring channels (llvmpipe's lanes are work-items) */
    const int sums = d->op != CLPOOL__OP_MAXPOOL, one_group = sums && one_row_group(d);
    const int strip = caps->cpu_simd && one_group && d->w.ns == 2 && d->w.dilations[0] == 1 &&
                      d->w.strides[0] < d->w.kernel_shape[0] && d->w.out[0] > 1;
    const int64_t blocks = ceil_div(d->channels, vw),
                  cap = strip ? CHANNELS_LAST_STRIP_BLOCKS
                        : (!sums && !d->indices) || one_group ? CHANNELS_LAST_BLOCKS_MAX
                                                              : CHANNELS_LAST_BLOCKS_WIDE;
    int64_t cb = caps->cpu_simd ? CHANNELS_LAST_BLOCKS_MIN : 1;
    while (caps->cpu_simd && cb < blocks && cb < cap && (!sums || 2 * cb <= blocks)) cb *= 2;
    clpool__options_define(&l->options, "CB", cb);
    /* a row sum and the group per block: a register saving for CPU SIMD's block runs */
    if (sums) clpool__options_define(&l->options, "ONE_GROUP", caps->cpu_simd && one_group);
    if (strip) clpool__options_define(&l->options, "STRIP", CHANNELS_LAST_STRIP);
    const int64_t tap_bytes = d->channels * d->esize, last = d->w.ns - 1;
    if (caps->cpu_simd && !strip && tap_bytes <= CHANNELS_LAST_PREFETCH_TAP_BYTES &&
        d->w.strides[last] <= CHANNELS_LAST_PREFETCH_STEP_BYTES / tap_bytes)
        clpool__options_define(&l->options, "PREFETCH_AHEAD",
                               d->w.ns >= 3 ? CHANNELS_LAST_PREFETCH_AHEAD_3D
                               : d->indices ? CHANNELS_LAST_PREFETCH_AHEAD_INDICES
                                            : CHANNELS_LAST_PREFETCH_AHEAD);
    clpool__launch_buffer(l, d->input);
    clpool__launch_buffer(l, d->output);
    clpool__launch_buffer(l, d->indices ? d->index_buf : d->output);
    /* positions, or strips of them down the first spatial dim */
    int64_t positions = clpool__window_out_elements(&d->w) / d->channels;
    if (strip) positions = positions / d->w.out[0] * ceil_div(d->w.out[0], CHANNELS_LAST_STRIP);
    int64_t per_item = caps->cpu_simd ? blocks : 1;
    const int64_t want = CLPOOL__ITEMS_PER_CU * (int64_t)caps->compute_units;
    while (per_item > 1 && positions * ceil_div(blocks, per_item) < want) per_item = (per_item + 1) / 2;
    const int64_t unit_bytes = per_item * vw * d->esize * (strip ? CHANNELS_LAST_STRIP : 1);
    int64_t item_positions = caps->cpu_simd && unit_bytes < CHANNELS_LAST_ITEM_BYTES
                                 ? CHANNELS_LAST_ITEM_BYTES / unit_bytes : 1;
    while (item_positions > 1 && ceil_div(positions, item_positions) * ceil_div(blocks, per_item) < want)
        item_positions = (item_positions + 1) / 2;
    tier_block(d, ceil_div(positions, item_positions) * ceil_div(blocks, per_item), l);
    l->block.first_tier.item_blocks = per_item;
    l->block.first_tier.item_positions = item_positions;
    l->block.first_tier.positions = positions;
    /* a work-item's loop is long (all of a position's channels): a work-group each on CPU SIMD */
    l->cpu_local = caps->cpu_simd ? 1 : CLPOOL__LOCAL_BUDGET;
}
