/*
 * MaxUnpool (clpool__max_unpool_sizes): the output zero-filled, then each X element stored at its index. T is
 * the unsigned type of the element's size: values move as bits. An index outside its own (n, c) plane of the
 * output is skipped and, with count_skipped, counted into *skipped (saturating), so no write leaves the plane.
 * y: the output; x: X; idx: the Indices, X's shape; skipped: the counter (the output where none is counted).
 */

/* Add n > 0 to the counter at `offset`, saturating at UINT_MAX: a compare-exchange loop. */
static void add_skipped(__global uint *skipped, long offset, ulong n)
{
    volatile __global uint *c = skipped + offset;
    uint seen = 0;
    for (;;) {
        const ulong sum = (ulong)seen + n;
        const uint want = sum > UINT_MAX ? UINT_MAX : (uint)sum;
        const uint was = atomic_cmpxchg(c, seen, want);
        if (was == seen) return;
        seen = was;
    }
}

/* Position k of an index plane of dims `idx` as an element offset from the output plane's start, the plane's
 * dims `y` with strides `y_strides` (NULL: dense), or -1 where its coordinates lie outside the output. */
static long plane_position(const long *idx, const long *y, const long *y_strides, int ns, long k)
{
    long offset = 0, stride = 1;
    for (int d = ns - 1; d >= 0; --d) {
        const long c = k % idx[d];
        k /= idx[d];
        if (c >= y[d]) return -1;
        offset += c * (y_strides ? y_strides[d] : stride);
        stride *= y[d];
    }
    return offset;
}

#ifndef VIEW
#define VIEW 0
#endif
#if VIEW
/* -DVIEW=1: views of any strides (clpool__max_unpool_view_geom), both passes walking memory in order. The
 * walked dims as private copies, loaded at constant indices: rusticl (Mesa 22.3) crashes on run-time indices
 * into a by-value struct argument. */
typedef struct walk {
    long dims[CLPOOL__ARGS_MAX_RANK], xs[CLPOOL__ARGS_MAX_RANK], is[CLPOOL__ARGS_MAX_RANK];
    long qs[CLPOOL__ARGS_MAX_RANK], ys[CLPOOL__ARGS_MAX_RANK];
    long idx_dims[CLPOOL__ARGS_MAX_SPATIAL], y_dims[CLPOOL__ARGS_MAX_SPATIAL], y_strides[CLPOOL__ARGS_MAX_SPATIAL];
} walk;

#define LOAD_WALK(w, g)                                                                                                \
    walk w;                                                                                                            \
    _Pragma("unroll") for (int d_ = 0; d_ < CLPOOL__ARGS_MAX_RANK; ++d_)                                              \
    {                                                                                                                  \
        w.dims[d_] = (g).dims[d_], w.xs[d_] = (g).xs[d_], w.is[d_] = (g).is[d_];                                       \
        w.qs[d_] = (g).qs[d_], w.ys[d_] = (g).ys[d_];                                                                  \
    }                                                                                                                  \
    _Pragma("unroll") for (int d_ = 0; d_ < CLPOOL__ARGS_MAX_SPATIAL; ++d_)                                           \
    {                                                                                                                  \
        w.idx_dims[d_] = (g).idx_dims[d_], w.y_dims[d_] = (g).y_dims[d_], w.y_strides[d_] = (g).y_strides[d_];         \
    }

/* A walk's position: its coordinates and, along them, the offsets of X, the Indices, the plane number and the
 * output plane's start (the zeroes: the output element in xo). */
typedef struct place {
    long c[CLPOOL__ARGS_MAX_RANK];
    long xo, io, q, yo;
} place;

/* Element e of the walk, outermost dim first. */
static void place_at(const walk *w, int rank, long e, place *p)
{
    p->xo = p->io = p->q = p->yo = 0;
    for (int d = rank - 1; d >= 0; --d) {
        p->c[d] = e % w->dims[d];
        e /= w->dims[d];
        p->xo += p->c[d] * w->xs[d], p->io += p->c[d] * w->is[d];
        p->q += p->c[d] * w->qs[d], p->yo += p->c[d] * w->ys[d];
    }
}

/* `n` elements on along the innermost dim (at most the rest of its row), carrying outwards. */
static void place_step(const walk *w, int rank, place *p, long n)
{
    for (int d = rank - 1; d >= 0; --d, n = 1) {
        p->xo += n * w->xs[d], p->io += n * w->is[d], p->q += n * w->qs[d], p->yo += n * w->ys[d];
        if ((p->c[d] += n) < w->dims[d]) return;
        p->c[d] = 0;
        p->xo -= w->dims[d] * w->xs[d], p->io -= w->dims[d] * w->is[d];
        p->q -= w->dims[d] * w->qs[d], p->yo -= w->dims[d] * w->ys[d];
    }
}

/* plane_position through the view's strides; k * unit where the output's spatial dims are dense in order. */
static long view_position(const walk *w, const clpool__max_unpool_view_geom g, long k)
{
    if (g.unit > 0) return k * g.unit;
    return plane_position(w->idx_dims, w->y_dims, w->y_strides, (int)g.ns, k);
}

/* A work-item's elements of the walk, [e, end), and the place of e; work-items past the work return. */
#define WALK_START(w, g, p, e, end)                                                                                    \
    LOAD_WALK(w, g)                                                                                                    \
    const long item_ = get_global_id(0);                                                                               \
    if (item_ >= (g).items) return;                                                                                    \
    long e = item_ * (g).per_item;                                                                                     \
    const long end = min(e + (g).per_item, (g).elements);                                                              \
    place p;                                                                                                           \
    place_at(&w, (int)(g).rank, e, &p);

/* First pass: the output's elements [item * per_item, +per_item), in memory order, set to 0. */
__kernel void max_unpool_zero(__global T *y, const clpool__max_unpool_view_geom g)
{
    WALK_START(w, g, p, e, end)
    const int rank = (int)g.rank;
    const long s = w.xs[rank - 1];
    while (e < end) { /* a run along the innermost dim at a time: a dense one is a plain loop */
        const long run = min(end - e, w.dims[rank - 1] - p.c[rank - 1]);
        __global T *row = y + g.y_offset + p.xo;
        if (s == 1)
            for (long i = 0; i < run; ++i) row[i] = 0;
        else
            for (long i = 0; i < run; ++i) row[i * s] = 0;
        e += run;
        place_step(&w, rank, &p, run);
    }
}

/* Second pass: X's elements [item * per_item, +per_item), in X's memory order, each into its own plane. */
__kernel void max_unpool_scatter(__global T *y, __global const T *x, __global const long *idx,
                                 __global uint *skipped, const clpool__max_unpool_view_geom g)
{
    WALK_START(w, g, p, e, end)
    const int rank = (int)g.rank;
    const int last = rank - 1;
    const long xs = w.xs[last], is = w.is[last], qs = w.qs[last], ys = w.ys[last];
    ulong bad = 0;
    while (e < end) { /* a run along the innermost dim at a time */
        const long run = min(end - e, w.dims[last] - p.c[last]);
        for (long i = 0; i < run; ++i) {
            const long k = idx[g.idx_offset + p.io + i * is] - (p.q + i * qs) * g.idx_plane;
            const long at = (ulong)k < (ulong)g.idx_plane ? view_position(&w, g, k) : -1;
            if (at < 0) {
                ++bad;
                continue;
            }
            y[g.y_offset + p.yo + i * ys + at] = x[g.x_offset + p.xo + i * xs];
        }
        e += run;
        place_step(&w, rank, &p, run);
    }
    if (g.count_skipped && bad > 0) add_skipped(skipped, g.skip_offset, bad);
}
#else
/* The remap's dims as private copies, loaded at constant indices outside any branch: rusticl (Mesa 22.3)
 * crashes on run-time indices into a by-value struct argument. */
typedef struct remap_dims {
    long idx[CLPOOL__ARGS_MAX_SPATIAL], y[CLPOOL__ARGS_MAX_SPATIAL];
} remap_dims;

#define LOAD_REMAP_DIMS(r, s)                                                                                          \
    remap_dims r;                                                                                                      \
    _Pragma("unroll") for (int d_ = 0; d_ < CLPOOL__ARGS_MAX_SPATIAL; ++d_)                                           \
    {                                                                                                                  \
        r.idx[d_] = (s).idx_dims[d_];                                                                                  \
        r.y[d_] = (s).y_dims[d_];                                                                                      \
    }

/* plane_position in a dense output plane. */
static long remap_position(const remap_dims *r, int ns, long k) { return plane_position(r->idx, r->y, NULL, ns, k); }

/* X elements and indices move 16 at a time: vector loads, one bounds test for all 16, then these stores. */
static void store16(__global T *yp, const long16 k, const T16 v)
{
    yp[k.s0] = v.s0, yp[k.s1] = v.s1, yp[k.s2] = v.s2, yp[k.s3] = v.s3;
    yp[k.s4] = v.s4, yp[k.s5] = v.s5, yp[k.s6] = v.s6, yp[k.s7] = v.s7;
    yp[k.s8] = v.s8, yp[k.s9] = v.s9, yp[k.sa] = v.sa, yp[k.sb] = v.sb;
    yp[k.sc] = v.sc, yp[k.sd] = v.sd, yp[k.se] = v.se, yp[k.sf] = v.sf;
}

/* Zeroes ahead of the stores, at least this many bytes at a time (a few lines, well inside L1). */
#define ZERO_AHEAD (4096 / (long)sizeof(T))

/* Zeroes the plane from *frontier past position k (ZERO_AHEAD at least), where k has reached the frontier. */
static void zero_ahead(__global T *yp, long *frontier, const long k, const long plane)
{
    if (k < *frontier) return;
    const long to = min(max(k + 1, *frontier + ZERO_AHEAD), plane);
    for (long i = *frontier; i < to; ++i) yp[i] = 0;
    *frontier = to;
}

/* Store X elements [e, end) of plane q at their indices; returns the count of those skipped. Elements of the
 * plane from *frontier on are zeroed before the first store reaches them (the whole-plane kernel); a
 * frontier at the plane's end zeroes nothing (the output zeroed already). With MaxPool's Indices, which grow
 * with X, the zeroes are still in L1 when the stores land; any order stays exact: a store goes below the
 * frontier, and zeroes only ever go above it. */
static ulong store_run(__global T *y, __global const T *x, __global const long *idx,
                       const clpool__max_unpool_sizes s, const remap_dims *r, long q, long e, long end, long *frontier)
{
    __global T *yp = y + s.y_offset + q * s.y_plane;
    const long base = q * s.idx_plane;
    ulong bad = 0;
    for (; !s.remap && e + 16 <= end; e += 16) {
        const long16 k = vload16(0, idx + s.idx_offset + e) - base;
        if (MASK_ANY(convert_ulong16(k) >= (ulong)s.idx_plane)) break; /* the scalar loop sorts them out */
        const long8 m8 = max(k.lo, k.hi);
        const long4 m4 = max(m8.lo, m8.hi);
        const long2 m2 = max(m4.lo, m4.hi);
        zero_ahead(yp, frontier, max(m2.lo, m2.hi), s.y_plane);
        store16(yp, k, vload16(0, x + s.x_offset + e));
    }
    for (; e < end; ++e) {
        long k = idx[s.idx_offset + e] - base;
        if ((ulong)k >= (ulong)s.idx_plane || (s.remap && (k = remap_position(r, (int)s.ns, k)) < 0)) {
            ++bad;
            continue;
        }
        zero_ahead(yp, frontier, k, s.y_plane);
        yp[k] = x[s.x_offset + e];
    }
    return bad;
}

/* A work-item owns per_item whole planes. Indices never leave their plane, so work-items never share an
 * element. */
__kernel void max_unpool_planes(__global T *y, __global const T *x, __global const long *idx,
                                __global uint *skipped, const clpool__max_unpool_sizes s)
{
    LOAD_REMAP_DIMS(r, s)
    const long item = get_global_id(0);
    if (item >= s.items) return;
    const long q0 = item * s.per_item, q1 = min(q0 + s.per_item, s.planes);
    ulong bad = 0;
    for (long q = q0; q < q1; ++q) {
        long frontier = 0;
        bad += store_run(y, x, idx, s, &r, q, q * s.x_plane, (q + 1) * s.x_plane, &frontier);
        zero_ahead(y + s.y_offset + q * s.y_plane, &frontier, s.y_plane - 1, s.y_plane); /* the rest */
    }
    if (s.count_skipped && bad > 0) add_skipped(skipped, s.skip_offset, bad);
}

/* The two-pass route, first pass: output elements [item * per_item, +per_item) set to 0. */
__kernel void max_unpool_zero(__global T *y, const clpool__max_unpool_sizes s)
{
    const long item = get_global_id(0);
    if (item >= s.items) return;
    const long n = s.planes * s.y_plane, e0 = item * s.per_item, e1 = min(e0 + s.per_item, n);
    __global T *yp = y + s.y_offset;
    for (long e = e0; e < e1; ++e) yp[e] = 0;
}

/* Second pass: X elements [item * per_item, +per_item), each into its own plane. */
__kernel void max_unpool_scatter(__global T *y, __global const T *x, __global const long *idx,
                                 __global uint *skipped, const clpool__max_unpool_sizes s)
{
    LOAD_REMAP_DIMS(r, s)
    const long item = get_global_id(0);
    if (item >= s.items) return;
    const long n = s.planes * s.x_plane;
    long e = item * s.per_item;
    const long end = min(e + s.per_item, n);
    ulong bad = 0;
    while (e < end) { /* a run per plane the range touches */
        const long q = e / s.x_plane, run_end = min(end, (q + 1) * s.x_plane);
        long frontier = s.y_plane; /* zeroed by the first pass */
        bad += store_run(y, x, idx, s, &r, q, e, run_end, &frontier);
        e = run_end;
    }
    if (s.count_skipped && bad > 0) add_skipped(skipped, s.skip_offset, bad);
}
#endif
