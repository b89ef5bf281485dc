/* MaxUnpool's planner (planners.h): whole planes per work-item on CPUs, else a zero pass and a scatter pass
 * over every work-item (kernels/max_unpool.cl). */
#include "planners.h"

/* CPUs: output bytes per work-item, to spread a work-item's fixed cost, while at least CLPOOL__ITEMS_PER_CU
 * work-items per compute unit remain; fewer planes than that take the two passes. */
#define ITEM_BYTES 16384
/* CPUs: output elements per zeroing work-item and X elements per scattering one, at least. */
#define ZERO_MIN 256
#define SCATTER_MIN 1024

/* Elements moved as bits: the unsigned dtype of the element's size. */
static clpool_dtype bits_dtype(int64_t esize)
{
    return esize == 1 ? CLPOOL_UINT8 : esize == 2 ? CLPOOL_UINT16 : esize == 4 ? CLPOOL_UINT32 : CLPOOL_UINT64;
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* `per` units per work-item, halved while fewer than `want` work-items would do work, never below `least`. */
static int64_t spread(int64_t units, int64_t per, int64_t want, int64_t least)
{
    while (per > least && ceil_div(units, per) < want) per /= 2;
    return per < least ? least : per;
}

/* A launch of `kernel` over `units` (planes or elements), `per_item` each, one work-item per work-group on CPUs:
 * its options (-DVIEW=1 for views), its buffers (the zero pass takes only the output) and its block's size; the
 * caller fills the block. Returns the work-items. */
static int64_t start_launch(const clpool__max_unpool_desc *d, clpool__path path, const char *kernel, int zero_pass,
                            size_t block_size, int64_t units, int64_t per_item, clpool__launch *l)
{
    clpool__launch_start(l, path, kernel);
    clpool__options_start(&l->options, bits_dtype(d->esize));
    if (path == CLPOOL__PATH_MAX_UNPOOL_VIEW) clpool__options_define(&l->options, "VIEW", 1);
    clpool__launch_buffer(l, CLPOOL__ROLE_OUTPUT);
    if (!zero_pass) {
        clpool__launch_buffer(l, CLPOOL__ROLE_INPUT);
        clpool__launch_buffer(l, CLPOOL__ROLE_INDICES);
        clpool__launch_buffer(l, CLPOOL__ROLE_COUNTER);
    }
    clpool__launch_block(l, block_size);
    const int64_t items = ceil_div(units, per_item);
    l->dims = 1;
    l->items[0] = (uint64_t)items;
    l->items[1] = l->items[2] = 1;
    l->cpu_local = 1;
    return items;
}

/* A launch of the contiguous kernels. */
static void start(const clpool__max_unpool_desc *d, clpool__path path, const char *kernel, int zero_pass,
                  int64_t units, int64_t per_item, clpool__launch *l)
{
    clpool__max_unpool_sizes *s = &l->block.unpool;
    const int64_t items = start_launch(d, path, kernel, zero_pass, sizeof *s, units, per_item, l);
    s->planes = d->planes;
    s->x_plane = d->x_plane;
    s->y_plane = d->y_plane;
    s->x_offset = d->x_off;
    s->idx_offset = d->idx_off;
    s->y_offset = d->y_off;
    s->skip_offset = d->skip_off;
    s->count_skipped = d->count_skipped;
    s->per_item = per_item;
    s->idx_plane = d->idx_plane;
    s->remap = d->remap;
    s->ns = d->ns;
    for (int32_t i = 0; i < d->ns; ++i) {
        s->idx_dims[i] = d->idx_dims[i];
        s->y_dims[i] = d->y_dims[i];
    }
    s->items = items;
}

void clpool__max_unpool_plan_call(const clpool__device_caps *caps, const clpool__max_unpool_desc *d,
                                  clpool__plan *plan)
{
    const int64_t want = CLPOOL__ITEMS_PER_CU * (int64_t)(caps->compute_units ? caps->compute_units : 1);
    plan->scratch_bytes = 0;
    plan->scratch_purpose = NULL;
    plan->has_fallback = 0;
    plan->first_tier = 1;
    if (caps->cpu && d->planes >= want) {
        /* a plane's zeroes are still in cache when its X elements land */
        const int64_t plane_bytes = d->y_plane * d->esize;
        const int64_t per = spread(d->planes, plane_bytes >= ITEM_BYTES ? 1 : ITEM_BYTES / plane_bytes, want, 1);
        plan->path = CLPOOL__PATH_MAX_UNPOOL_PLANES;
        plan->launches = 1;
        start(d, plan->path, "max_unpool_planes", 0, d->planes, per, &plan->launch[0]);
        return;
    }
    /* GPUs: an element per work-item, neighbours on neighbouring addresses; CPUs: contiguous runs */
    const int64_t n_y = d->planes * d->y_plane, n_x = d->planes * d->x_plane;
    const int64_t zero_per = caps->cpu ? spread(n_y, ITEM_BYTES / d->esize, want, ZERO_MIN) : 1;
    const int64_t scatter_per = caps->cpu ? spread(n_x, 16 * SCATTER_MIN, want, SCATTER_MIN) : 1;
    plan->path = CLPOOL__PATH_MAX_UNPOOL_SCATTER;
    plan->launches = 2;
    start(d, plan->path, "max_unpool_zero", 1, n_y, zero_per, &plan->launch[0]);
    start(d, plan->path, "max_unpool_scatter", 0, n_x, scatter_per, &plan->launch[1]);
}

/* The walk over dims (outermost first) of `n` arrays of strides: dims of one element dropped, the rest sorted
 * by the first array's strides, largest magnitude first (memory order), and neighbours merged where every
 * array steps over the inner one's whole span. At least one dim. */
static void walk_dims(int32_t rank, const int64_t *dims, const int64_t *const *strides, int n,
                      clpool__max_unpool_view_geom *g, int64_t *const *out)
{
    int32_t order[CLPOOL_MAX_RANK], k = 0;
    for (int32_t d = 0; d < rank; ++d)
        if (dims[d] != 1) order[k++] = d;
    clpool__order_by_stride(order, k, strides[0], 1);
    int32_t w = 0;
    for (int32_t i = 0; i < k; ++i) {
        const int32_t d = order[i];
        int merge = w > 0;
        for (int a = 0; a < n && merge; ++a) merge = out[a][w - 1] == strides[a][d] * dims[d];
        if (merge) { /* the outer dim is a whole number of this one: one dim of both */
            g->dims[w - 1] *= dims[d];
            for (int a = 0; a < n; ++a) out[a][w - 1] = strides[a][d];
            continue;
        }
        g->dims[w] = dims[d];
        for (int a = 0; a < n; ++a) out[a][w] = strides[a][d];
        ++w;
    }
    if (w == 0) g->dims[w++] = 1; /* one element: strides 0 */
    g->rank = w;
}

/* A launch of a view pass over `elements`, per_item each. */
static void start_view(const clpool__max_unpool_view_desc *v, int zero_pass, int64_t elements, int64_t per_item,
                       clpool__launch *l)
{
    const clpool__max_unpool_desc *d = &v->call;
    clpool__max_unpool_view_geom *g = &l->block.unpool_view;
    g->items = start_launch(d, CLPOOL__PATH_MAX_UNPOOL_VIEW,
                            clpool__families[CLPOOL__PATH_MAX_UNPOOL_VIEW].kernels[zero_pass ? 0 : 1], zero_pass,
                            sizeof *g, elements, per_item, l);
    g->x_offset = d->x_off;
    g->idx_offset = d->idx_off;
    g->y_offset = d->y_off;
    g->skip_offset = d->skip_off;
    g->count_skipped = d->count_skipped;
    g->idx_plane = d->idx_plane;
    g->ns = d->ns;
    g->elements = elements;
    g->per_item = per_item;
}

void clpool__max_unpool_plan_view(const clpool__device_caps *caps, const clpool__max_unpool_view_desc *v,
                                  clpool__plan *plan)
{
    const clpool__max_unpool_desc *d = &v->call;
    const int64_t want = CLPOOL__ITEMS_PER_CU * (int64_t)(caps->compute_units ? caps->compute_units : 1);
    const int64_t n_y = d->planes * d->y_plane, n_x = d->planes * d->x_plane;
    plan->scratch_bytes = 0;
    plan->scratch_purpose = NULL;
    plan->has_fallback = 0;
    plan->first_tier = 1;
    plan->path = CLPOOL__PATH_MAX_UNPOOL_VIEW;
    plan->launches = 2;
    clpool__launch *zero = &plan->launch[0], *scatter = &plan->launch[1];
    start_view(v, 1, n_y, caps->cpu ? spread(n_y, ITEM_BYTES / d->esize, want, ZERO_MIN) : 1, zero);
    const int64_t *ys[] = {v->y_strides};
    int64_t *zs[] = {zero->block.unpool_view.xs};
    walk_dims(v->rank, v->y_dims, ys, 1, &zero->block.unpool_view, zs);

    start_view(v, 0, n_x, caps->cpu ? spread(n_x, 16 * SCATTER_MIN, want, SCATTER_MIN) : 1, scatter);
    clpool__max_unpool_view_geom *g = &scatter->block.unpool_view;
    /* the plane number and the output plane's start step along N and C only */
    int64_t qs[CLPOOL_MAX_RANK] = {v->x_dims[1], 1}, yq[CLPOOL_MAX_RANK] = {v->y_strides[0], v->y_strides[1]};
    const int64_t *xs[] = {v->x_strides, v->idx_strides, qs, yq};
    int64_t *walked[] = {g->xs, g->is, g->qs, g->ys};
    walk_dims(v->rank, v->x_dims, xs, 4, g, walked);
    /* positions, dim by dim, unless the output's spatial dims are dense in order at one unit */
    const int32_t ns = d->ns;
    int64_t unit = d->remap ? 0 : v->y_strides[2 + ns - 1], span = 1;
    for (int32_t i = ns - 1; i >= 0; --i) {
        g->idx_dims[i] = d->idx_dims[i];
        g->y_dims[i] = d->y_dims[i];
        g->y_strides[i] = v->y_strides[2 + i];
        if (d->y_dims[i] > 1 && v->y_strides[2 + i] != unit * span) unit = 0;
        span *= d->y_dims[i];
    }
    g->unit = unit;
}
