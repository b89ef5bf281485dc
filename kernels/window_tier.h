/*
 * The first tiers' walk (window_first_tier.cl, window_channels_last.cl): the
 * run-time geometry in private memory, an output position's windows, and
 * each tensor's element offsets through its strides (args.h's
 * clpool__window_first_tier_geom: dense for a contiguous call, a view's own).
 */
#define TIER_S CLPOOL__ARGS_MAX_SPATIAL
#define TIER_R CLPOOL__ARGS_MAX_RANK

/* Strides per logical dim (N, C, spatial): is input, os output, xs Indices. */
typedef struct tier_geom {
    long in_dims[TIER_S], out_dims[TIER_S], kernel_shape[TIER_S], strides[TIER_S], pad_begin[TIER_S],
        pad_end[TIER_S], dilations[TIER_S];
    long is[TIER_R], os[TIER_R], xs[TIER_R];
} tier_geom;

/* Private copies of the first `ns_` (a constant) spatial dims, loaded at constant indices outside any
 * branch: rusticl (Mesa 22.3) crashes on run-time indices into a by-value struct argument. */
#define TIER_GEOM_LOAD(t, g, ns_)                                \
    do {                                                         \
        _Pragma("unroll") for (int d_ = 0; d_ < (ns_); ++d_)     \
        {                                                        \
            (t).in_dims[d_] = (g).w.in_dims[d_];                 \
            (t).out_dims[d_] = (g).w.out_dims[d_];               \
            (t).kernel_shape[d_] = (g).w.kernel_shape[d_];       \
            (t).strides[d_] = (g).w.strides[d_];                 \
            (t).pad_begin[d_] = (g).w.pad_begin[d_];             \
            (t).pad_end[d_] = (g).w.pad_end[d_];                 \
            (t).dilations[d_] = (g).w.dilations[d_];             \
        }                                                        \
        _Pragma("unroll") for (int d_ = 0; d_ < (ns_) + 2; ++d_) \
        {                                                        \
            (t).is[d_] = (g).in_strides[d_];                     \
            (t).os[d_] = (g).out_strides[d_];                    \
            (t).xs[d_] = (g).idx_strides[d_];                    \
        }                                                        \
    } while (0)

/* The windows of spatial output position `pos` (row-major over the output's
 * spatial dims; what lies left of them is returned: the plane, or n): per dim
 * tap 0's coordinate start[d], the taps inside the input [lo[d], hi[d]),
 * j[d] = lo[d]; the position's output and Indices offsets added to *out_at, *idx_at. */
static inline long tier_position(const tier_geom *t, int ns, long pos, long *start, long *lo, long *hi, long *j,
                                 long *out_at, long *idx_at)
{
    for (int d = ns - 1; d >= 0; --d) {
        const long o = pos % t->out_dims[d];
        pos /= t->out_dims[d];
        const long s = o * t->strides[d] - t->pad_begin[d];
        start[d] = s;
        lo[d] = window_tap_lo(s, t->dilations[d]);
        hi[d] = window_tap_hi(s, t->in_dims[d], t->dilations[d], t->kernel_shape[d]);
        j[d] = lo[d];
        *out_at += o * t->os[2 + d];
        *idx_at += o * t->xs[2 + d];
    }
    return pos;
}

/* AveragePool's divisor: the taps counted along every dim (window.h). */
static inline long tier_count(const tier_geom *t, int ns, const long *start, long count_pad)
{
    long count = 1;
    for (int d = 0; d < ns; ++d)
        count *= window_taps_counted(start[d], t->in_dims[d], t->pad_end[d], t->dilations[d], t->kernel_shape[d],
                                     count_pad);
    return count;
}

/* Tap j[]'s input element offset from the plane's (is), its place in a contiguous plane (at, for the
 * Indices) and, of the dims but the last, its window row (r, for the sums' groups). */
static inline long tier_tap(const tier_geom *t, int dims, const long *start, const long *j, long *at, long *r)
{
    long addr = 0, a = 0, row = 0;
    for (int d = 0; d < dims; ++d) {
        const long x = start[d] + j[d] * t->dilations[d];
        a = a * t->in_dims[d] + x;
        row = row * t->kernel_shape[d] + j[d];
        addr += x * t->is[2 + d];
    }
    *at = a;
    *r = row;
    return addr;
}

/* Steps j[] over dims [0, dims) to the next tap in row-major order; 0 after the last. */
static inline int tier_next(const long *lo, const long *hi, long *j, int dims)
{
    int d = dims - 1;
    while (d >= 0 && ++j[d] >= hi[d]) j[d] = lo[d], --d;
    return d >= 0;
}

/* Any dim without a tap inside the input. */
static inline int tier_empty(const long *lo, const long *hi, int ns)
{
    int empty = 0;
    for (int d = 0; d < ns; ++d) empty |= lo[d] >= hi[d];
    return empty;
}

/* A plane's index (n * C + c) in logical order and its offset at `at` in a contiguous plane, with
 * storage_order 1 (col_major) the first spatial dim fastest: ONNX's Indices, whatever the layout. */
static inline long tier_index(const tier_geom *t, int ns, long plane, long in_plane, long at, int col_major)
{
    if (col_major) {
        long coord[TIER_S];
        for (int d = ns - 1; d >= 0; --d) {
            coord[d] = at % t->in_dims[d];
            at /= t->in_dims[d];
        }
        for (int d = ns - 1; d >= 0; --d) at = at * t->in_dims[d] + coord[d];
    }
    return plane * in_plane + at;
}
