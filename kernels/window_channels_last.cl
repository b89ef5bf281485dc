/*
 * The windowed ops on channels-last views (C innermost, stride 1):
 * window_channels_last, the first tier's walk (window_tier.h) with VW
 * neighbouring channels as the lanes of a vector, so each tap is one vector
 * load. Every lane takes the first tier's taps in its order with its
 * reduction: results bit-identical to every other path. The same run-time
 * geometry as the first tier; a work-item takes one output position and
 * g.item_blocks blocks of VW channels (`outputs`: positions x runs of
 * blocks), so the position's windows are resolved once for all of them. The
 * host plans it for C >= VW: a position's last block ends at C, overlapping
 * its neighbour, and both write the same values. -DVW lanes, -DNS the
 * spatial rank (the walk's loops unrolled), -DCB blocks per walk, -DONE_GROUP
 * the sums' windows of one row group, -DSTRIP outputs down the first of two
 * spatial dims per work-item (the sums whose windows overlap there),
 * -DPREFETCH_AHEAD the positions ahead whose new window columns are
 * prefetched (short taps, where the hardware prefetcher loses the many rows).
 */
#ifndef NS
#error "window_channels_last.cl: -DNS (spatial rank) and -DVW (lanes)"
#endif
#ifndef ONE_GROUP
#define ONE_GROUP 0
#endif
#ifndef STRIP
#define STRIP 0
#endif
#ifndef PREFETCH_AHEAD
#define PREFETCH_AHEAD 0
#endif
#if OP == CLPOOL__OP_REDUCE_MAX
#define SUM_ARG
#define SUM_PARAM
#else
#define SUM_ARG , p
#define SUM_PARAM , const AT p
#endif

/* -DCB: blocks of VW channels a work-item walks the windows with at most, each tap's blocks one after the
 * other: a tap's channels are read in address order (the hardware prefetcher loses a walk that goes back
 * within a tap's row for each block of a few), the walk is shared, and the blocks' chains are independent.
 * The loops over them unroll, so each block's accumulator has a register where CB allows. */
#define CL_BLOCKS CB
#define FOR_BLOCKS(q, nb) _Pragma("unroll") for (int q = 0; q < CL_BLOCKS; ++q) if (q < (nb))

/* A position's windows: what every block of its channels walks. */
typedef struct position {
    long start[NS], lo[NS], hi[NS];
} position;

/* The window rows' walk: each row inside the input (the taps on every dim but the last) in row-major
 * order, with `row` its first tap's input offset from the plane's and `r` its place among the window's
 * rows; at (logical in-plane offset of the row's tap 0) for the Indices. */
#define ROWS_BEGIN(t, w, row, r, at)                                                       \
    {                                                                                      \
        long j_[NS];                                                                       \
        for (int d_ = 0; d_ < NS; ++d_) j_[d_] = (w)->lo[d_];                              \
        const long first_ = (w)->start[NS - 1] * (t)->is[NS + 1];                          \
        if (!tier_empty((w)->lo, (w)->hi, NS)) do {                                        \
            long at_row_, r;                                                               \
            const long row = tier_tap((t), NS - 1, (w)->start, j_, &at_row_, &r) + first_; \
            const long at = at_row_ * (t)->in_dims[NS - 1] + (w)->start[NS - 1];
#define ROWS_END(w)                                              \
            (void)at, (void)r;                                   \
        } while (tier_next((w)->lo, (w)->hi, j_, NS - 1));       \
    }

#if OP != CLPOOL__OP_REDUCE_MAX
/* The sums of nb blocks of VW channels (block q at c0 + q * VW, the last ending at C) over the position's
 * windows, reduce_sum.h's order per lane as window_first_tier's (lane_add's Kahan steps, a plain shadow
 * sum), finished and stored. */
static inline void blocks_sum(const tier_geom *t, const position *w, __global const T *src, __global T *dst,
                              long c0, long channels, int nb, long count SUM_PARAM)
{
    ATV sum[CL_BLOCKS], comp[CL_BLOCKS], plain[CL_BLOCKS], group[CL_BLOCKS], s[CL_BLOCKS];
    long cq[CL_BLOCKS];
    FOR_BLOCKS(q, nb) {
        sum[q] = comp[q] = plain[q] = group[q] = 0;
        cq[q] = min(c0 + q * VW, channels - VW);
    }
    const int last = NS - 1;
    const long dw = t->dilations[last] * t->is[2 + last], row_taps = t->kernel_shape[last],
               per_group = sum_group_rows(row_taps);
    /* -DONE_GROUP: the window's rows are one group (rows of at most CLPOOL__SUM_CHUNK taps, at most a group
     * of them), so the accumulators across groups stay 0 in the walk (no registers) until the one Kahan add */
    const int long_rows = !ONE_GROUP && row_taps > CLPOOL__SUM_CHUNK;
    long group_end = -1; /* the rows of the group summed in `group` end here (a division per group, not per row) */
    int grouped = 0;
    ROWS_BEGIN(t, w, row, r, at)
        if (!long_rows && r >= group_end) {
            FOR_BLOCKS(q, !ONE_GROUP && grouped ? nb : 0) {
                lane_add(&sum[q], &comp[q], group[q], 0), plain[q] += group[q], group[q] = 0;
            }
            grouped = 1;
            group_end = ONE_GROUP ? LONG_MAX : (r / per_group + 1) * per_group;
        }
        for (long kw = w->lo[last]; kw < w->hi[last];) {
            const long chunk_end =
                ONE_GROUP ? w->hi[last] : min(w->hi[last], (kw / CLPOOL__SUM_CHUNK + 1) * CLPOOL__SUM_CHUNK);
            FOR_BLOCKS(q, nb) { s[q] = 0; }
            for (; kw < chunk_end; ++kw) {
                __global const T *tap = src + row + kw * dw;
                FOR_BLOCKS(q, nb) { s[q] += contribution_v(TO_CTV(VW, VLOADV(VW, tap + cq[q])), p); }
            }
            FOR_BLOCKS(q, nb) {
                if (long_rows)
                    lane_add(&sum[q], &comp[q], s[q], 0), plain[q] += s[q];
                else
                    group[q] += s[q];
            }
        }
    ROWS_END(w)
    FOR_BLOCKS(q, nb) {
        if (!long_rows && grouped) lane_add(&sum[q], &comp[q], group[q], 0), plain[q] += group[q];
        /* kahan_value per lane: the compensated sum where the plain one is finite */
        finish_store(dst + cq[q], select(plain[q], sum[q] - comp[q], AT_MASK(isfinite(plain[q]))), (ATV)(AT)count, p,
                     VW);
    }
}
#if STRIP
/* blocks_sum for the nout (<= STRIP) outputs down the first of two spatial dims from the position w (no
 * dilation there, a stride below the window, one row group): each input row's sums over the columns are
 * taken once and added to the group of every output whose window holds the row, in row order, as
 * blocks_sum adds its rows; an output's window rows are those of its own walk. */
static inline void strip_sum(const tier_geom *t, const position *w, int nout, __global const T *src,
                             __global T *dst, long c0, long channels, int nb, long count_pad SUM_PARAM)
{
    ATV group[STRIP][CL_BLOCKS], s[CL_BLOCKS];
    long cq[CL_BLOCKS];
    FOR_BLOCKS(q, nb) { cq[q] = min(c0 + q * VW, channels - VW); }
    _Pragma("unroll") for (int i = 0; i < STRIP; ++i) FOR_BLOCKS(q, nb) { group[i][q] = 0; }
    const long sh = t->strides[0], kh = t->kernel_shape[0], top = w->start[0], dw = t->dilations[1] * t->is[3];
    const long r_end = min(top + (nout - 1) * sh + kh, t->in_dims[0]);
    __global const T *const first = src + w->start[1] * t->is[3];
    for (long ih = max(top, 0L); ih < r_end; ++ih) {
        FOR_BLOCKS(q, nb) { s[q] = 0; }
        __global const T *const row = first + ih * t->is[2];
        for (long kw = w->lo[1]; kw < w->hi[1]; ++kw) {
            __global const T *tap = row + kw * dw;
            FOR_BLOCKS(q, nb) { s[q] += contribution_v(TO_CTV(VW, VLOADV(VW, tap + cq[q])), p); }
        }
        _Pragma("unroll") for (int i = 0; i < STRIP; ++i) {
            const long r = ih - (top + i * sh); /* the row's place in output i's window */
            if (i < nout && r >= 0 && r < kh) FOR_BLOCKS(q, nb) { group[i][q] += s[q]; }
        }
    }
    _Pragma("unroll") for (int i = 0; i < STRIP; ++i) {
        const long start[2] = {top + i * sh, w->start[1]};
        const long count = tier_count(t, 2, start, count_pad);
        /* the one group's Kahan add; a window without taps adds +0 (row sums start at +0), the bits of
         * blocks_sum's adding none */
        FOR_BLOCKS(q, i < nout ? nb : 0) {
            ATV sum = 0, comp = 0, plain = 0;
            lane_add(&sum, &comp, group[i][q], 0), plain += group[i][q];
            finish_store(dst + i * t->os[2] + cq[q], select(plain, sum - comp, AT_MASK(isfinite(plain))),
                         (ATV)(AT)count, p, VW);
        }
    }
}
#endif
#else
/* float32/float64 maxima without Indices take each tap by value (MAX_KEEP_FIRST keeps the first of equal
 * ones) and note NaN beside it: where there was none the maxima are exact, else the blocks are walked
 * again by the rule (maxpool_nd.cl's value path). */
#if defined(DT_FLOAT32) || defined(DT_FLOAT64)
#define VALUE_PATH 1
#else
#define VALUE_PATH 0
#endif

/* The maxima of nb blocks of VW channels (as blocks_sum's) over the position's windows, stored; with
 * Indices (idx not NULL) their places, ONNX's for planes first_plane + c on. */
static inline void blocks_max(const tier_geom *t, const position *w, __global const T *src, __global T *dst,
                              __global long *idx, long first_plane, long in_plane, int col_major, long c0,
                              long channels, int nb)
{
    const int last = NS - 1;
    const long dw = t->dilations[last] * t->is[2 + last], dil = t->dilations[last];
    long j[NS], at0, r0, cq[CL_BLOCKS];
    for (int d = 0; d < NS; ++d) j[d] = w->lo[d];
    FOR_BLOCKS(q, nb) { cq[q] = min(c0 + q * VW, channels - VW); }
    /* Every lane starts at the first tap (the host guarantees one), which the walk then meets again and
     * never takes: not better than itself, NaN included. */
    __global const T *const first = src + tier_tap(t, NS, w->start, j, &at0, &r0);
    TV(VW) best_bits[CL_BLOCKS];
    KTV(VW) best[CL_BLOCKS];
    LONGV(VW) best_at[CL_BLOCKS];
    for (int exact = !VALUE_PATH || idx;; exact = 1) {
        MASKV(VW) nan = 0;
        FOR_BLOCKS(q, nb) {
            best_bits[q] = VLOADV(VW, first + cq[q]);
            best[q] = KEYV(VW, best_bits[q]);
            best_at[q] = (LONGV(VW))at0;
        }
        ROWS_BEGIN(t, w, row, r, at)
            for (long kw = w->lo[last]; kw < w->hi[last]; ++kw) {
                __global const T *tap = src + row + kw * dw;
#if VALUE_PATH
                if (!exact) {
                    FOR_BLOCKS(q, nb) {
                        const TV(VW) bits = VLOADV(VW, tap + cq[q]);
                        best_bits[q] = MAX_KEEP_FIRST(best_bits[q], bits);
                        nan |= isnan(bits);
                    }
                    continue;
                }
#endif
                FOR_BLOCKS(q, nb) {
                    const TV(VW) bits = VLOADV(VW, tap + cq[q]);
                    const KTV(VW) k = KEYV(VW, bits);
                    const MASKV(VW) take = BETTERV(VW, k, best[q]);
                    best[q] = select(best[q], k, take);
                    best_bits[q] = select(best_bits[q], bits, take);
                    if (idx) best_at[q] = select(best_at[q], (LONGV(VW))(at + kw * dil), LONG_MASKV(VW, take));
                }
            }
        ROWS_END(w)
        if (exact || !MASK_ANY(nan)) break;
    }
    FOR_BLOCKS(q, nb) { VSTOREV(VW, best_bits[q], dst + cq[q]); }
    for (int q = 0; idx && q < nb; ++q) {
        long at_lanes[VW];
        VSTOREV(VW, best_at[q], at_lanes);
        for (int l = 0; l < VW; ++l)
            idx[cq[q] + l] = tier_index(t, NS, first_plane + cq[q] + l, in_plane, at_lanes[l], col_major);
    }
}
#endif

CLPOOL_WIDE_VECTORS
__kernel void window_channels_last(__global const T *in, __global T *out, __global long *indices,
                                   const clpool__window_first_tier_geom g SUM_PARAM)
{
    const long item = get_global_id(0);
    tier_geom t;
    TIER_GEOM_LOAD(t, g, NS);
    const long channels = g.channels, blocks = (channels + VW - 1) / VW, per_item = g.item_blocks,
               runs = (blocks + per_item - 1) / per_item;
    const int col_major = g.col_major != 0;
    __global long *const with_idx = g.with_indices ? indices : NULL;
#if OP != CLPOOL__OP_REDUCE_MAX
    const long count_pad = g.w.count_pad;
#endif
    if (item >= g.outputs) return;
    /* the work-item's positions (strips), item_positions in a row, and its run of channel blocks [b0, b_end) */
    const long u_end = min(g.positions, (item / runs + 1) * g.item_positions);
    const long b0 = item % runs * per_item, b_end = min(blocks, b0 + per_item);
    for (long u = item / runs * g.item_positions; u < u_end; ++u) {
        position w;
        long j[NS], out_at = 0, idx_at = 0;
#if STRIP
        /* a strip of STRIP outputs down the first spatial dim (NS 2): its first position */
        const long strips = (t.out_dims[0] + STRIP - 1) / STRIP, rest = u / t.out_dims[1];
        const long top = rest % strips * STRIP;
        const long pos = (rest / strips * t.out_dims[0] + top) * t.out_dims[1] + u % t.out_dims[1];
        const int nout = (int)min((long)STRIP, t.out_dims[0] - top);
#else
        const long pos = u;
#endif
        const long n = tier_position(&t, NS, pos, w.start, w.lo, w.hi, j, &out_at, &idx_at);
        __global const T *src = in + g.in_offset + n * t.is[0];
        out_at += g.out_offset + n * t.os[0];
        idx_at += g.idx_offset + n * t.xs[0];
#if OP != CLPOOL__OP_REDUCE_MAX && !STRIP
        const long count = tier_count(&t, NS, w.start, count_pad);
#endif
#if PREFETCH_AHEAD
        /* the new columns of the window rows of the position PREFETCH_AHEAD on along the last dim */
        if (u + PREFETCH_AHEAD < u_end) {
            const long step = t.strides[NS - 1] * t.is[NS + 1],
                       reach = (t.kernel_shape[NS - 1] - 1) * t.dilations[NS - 1] * t.is[NS + 1];
            const long lead = PREFETCH_AHEAD * step + reach - step + t.is[NS + 1];
            ROWS_BEGIN(&t, &w, row, r, at)
                prefetch_bytes(src + row + lead, step * (long)sizeof(T));
            ROWS_END(&w)
        }
#endif
        /* the work-item's blocks, CL_BLOCKS at a time */
        for (long b = b0; b < b_end; b += CL_BLOCKS) {
            const int nb = (int)min((long)CL_BLOCKS, b_end - b);
#if STRIP
            strip_sum(&t, &w, nout, src, out + out_at, b * VW, channels, nb, count_pad SUM_ARG);
#elif OP != CLPOOL__OP_REDUCE_MAX
            blocks_sum(&t, &w, src, out + out_at, b * VW, channels, nb, count SUM_ARG);
#else
            blocks_max(&t, &w, src, out + out_at, with_idx ? with_idx + idx_at : NULL, n * channels, g.w.in_plane,
                       col_major, b * VW, channels, nb);
#endif
        }
        (void)idx_at;
    }
    (void)indices, (void)col_major, (void)with_idx;
}
