/*
 * The sum pools' row kernels (AveragePool, LpPool; reduce_sum.h's -DOP, -DLP_KIND): sum_pool_2d for 2-D
 * windows, sum_pool_3d (-DKD -DSD given) for 3-D ones, without dilation. -DKH -DKW (KW at most
 * CLPOOL__SUM_CHUNK) -DSH -DSW are compiled in (run-time windows took twice the time); -DVW lanes, SW at
 * most 4 (2 with 8 lanes off CPU SIMD). A work-item owns VW neighbouring outputs of g.rows consecutive
 * output rows of one output plane (and depth). An input row's window sums are taken once, for every
 * column from the block's first (SW dense vectors, then every SW-th lane), and output rows sharing input
 * rows (SH < KH) take them from a ring; the window's rows, row-major over depth and height, then add in
 * reduce_sum.h's groups, Kahan across groups: the first tier's order, so the same bits.
 */
#ifdef KD /* 3-D windows */
#define SUM_3D 1
#define DIM_H 1 /* the geometry's index of the height dim */
#else
#define SUM_3D 0
#define DIM_H 0
#define KD 1
#define SD 1
#endif
#define DIM_W (DIM_H + 1)
/* Whether a depth lies inside the input; 2-D windows compile the test out, as rusticl (Mesa 22.3)
 * compiled their test against D = 1 to zeros. */
#if SUM_3D
#define DEPTH_INSIDE(depth) ((depth) >= 0 && (depth) < D)
#else
#define DEPTH_INSIDE(depth) 1
#endif
#ifndef OVERLAP_BLOCKS
#define OVERLAP_BLOCKS 0
#endif
#ifndef NB_MAX /* column blocks per work-item (-DNB_MAX where output rows share no input rows), else 1 */
#define NB_MAX 1
#endif
#define WINDOW_ROWS (KD * KH)
#if KW > CLPOOL__SUM_CHUNK
#error "sum_pool_rows.cl: KW at most CLPOOL__SUM_CHUNK"
#endif
#define GROUP_ROWS ((int)sum_group_rows(KW)) /* reduce_sum.h's rule; a constant */
#define GROUPS ((WINDOW_ROWS + GROUP_ROWS - 1) / GROUP_ROWS)
#define RING_SHARES (SH < KH) /* output rows share input rows */
/* Output rows that share input rows carry them in the ring, one block's (a ring per block would not stay in
 * registers). */
#if RING_SHARES && NB_MAX > 1
#error "sum_pool_rows.cl: one column block per work-item where output rows share input rows"
#endif
#define DENSE_SPAN (SW * VW + KW - 1) /* elements an input row's dense sums read from the block's first column */

/* Every SW-th lane of SW dense vectors: the outputs' window sums. */
static inline ATV pick(const ATV *d)
{
#if SW == 1
    return d[0];
#elif defined(__clang__) && SW == 2
    return __builtin_shufflevector(d[0], d[1], LANES(EVEN_SRC, VW, 0, 0));
#elif defined(__clang__) && (SW == 3 || SW == 4)
    const ATV lo = __builtin_shufflevector(d[0], d[1], LANES(STRIDED_LO, VW, SW, 0));
    const ATV hi = __builtin_shufflevector(d[2], d[SW - 1], LANES(STRIDED_HI, VW, SW, 0));
    return __builtin_shufflevector(lo, hi, LANES(STRIDED_PICK, VW, SW, 0));
#else
    AT all[SW * VW], o[VW];
    for (int m = 0; m < SW; ++m) VSTOREV(VW, d[m], all + m * VW);
    for (int l = 0; l < VW; ++l) o[l] = all[l * SW];
    return VLOADV(VW, o);
#endif
}

#if OP == CLPOOL__OP_REDUCE_AVG && (defined(DT_FLOAT32) || defined(DT_FLOAT64))
#define DIRECT_TAPS 1 /* a tap's contribution is the element: inner blocks load each tap */
#else
#define DIRECT_TAPS 0 /* elements convert or square once, into STAGED vectors */
#endif
#define STAGED ((DENSE_SPAN + VW - 1) / VW)

/* A whole vector of VW elements at p, in AT: float16 through vload_halfN (10-15 % faster here than TO_CTV's
 * bit arithmetic). */
#if defined(DT_FLOAT16)
#define ROW_VECTOR(p) CLPOOL_XPASTE(vload_half, VW)(0, (__global const half *)(p))
#else
#define ROW_VECTOR(p) TO_CTV(VW, VLOADV(VW, (p)))
#endif

/* Lanes k .. k + VW - 1 of a and b end to end (k < VW; a constant once the loops unroll). */
#if defined(__clang__)
#define SHIFT_SRC(j, n, k, p) ((j) + (k))
#define SHIFT_CASE(k) \
    case k:           \
        return __builtin_shufflevector(a, b, LANES(SHIFT_SRC, VW, k, 0));
static inline ATV shifted(ATV a, ATV b, int k)
{
    switch (k) {
        SHIFT_CASE(1) SHIFT_CASE(2) SHIFT_CASE(3) SHIFT_CASE(4) SHIFT_CASE(5) SHIFT_CASE(6) SHIFT_CASE(7)
#if VW == 16
        SHIFT_CASE(8) SHIFT_CASE(9) SHIFT_CASE(10) SHIFT_CASE(11) SHIFT_CASE(12) SHIFT_CASE(13) SHIFT_CASE(14)
        SHIFT_CASE(15)
#endif
    }
    return a;
}
#else
static inline ATV shifted(ATV a, ATV b, int k)
{
    AT t[2 * VW];
    VSTOREV(VW, a, t);
    VSTOREV(VW, b, t + VW);
    return VLOADV(VW, t + k);
}
#endif

/* The window sums of the staged vectors v (every SW-th of the dense sums; lanes past `span` elements 0). */
__attribute__((always_inline)) static inline ATV dense_sums(const ATV *v, int span)
{
    ATV d[SW];
#pragma unroll
    for (int m = 0; m < SW; ++m) {
        d[m] = 0;
        if (m * VW >= span) continue;
#pragma unroll
        for (int kw = 0; kw < KW; ++kw) {
            const int at = m * VW + kw;
            d[m] += shifted(v[at / VW], v[at / VW + 1], at % VW);
        }
    }
    return pick(d);
}

/* The window sums along the input row at row_at (inside the input) of the block whose first tap is
 * column col0: each window's taps inside the row summed plainly in tap order (reduce_sum.h), taps in the
 * padding adding 0. `inner`: every dense lane's taps are inside the row; the live lanes use `span`
 * columns from col0. */
/* Inlined: as calls, their argument passing took a third of the kernel's time. */
__attribute__((always_inline)) static inline ATV row_sums(__global const T *in, long row_at, long col0, long W,
                                                          long in_limit, int inner, int span, const AT p)
{
    const long from = row_at + col0;
#if DIRECT_TAPS
    if (inner) {
        ATV d[SW];
#pragma unroll
        for (int m = 0; m < SW; ++m) {
            d[m] = 0;
#pragma unroll
            for (int kw = 0; kw < KW; ++kw) d[m] += TO_CTV(VW, VLOADV(VW, in + from + m * VW + kw));
        }
        return pick(d);
    }
#endif
    /* the row's elements from col0, converted, contributed and masked once */
    ATV v[STAGED + 1];
    const int whole = from >= 0 && from + STAGED * VW <= in_limit; /* else clamped loads near the buffer's ends */
    if (inner && whole) { /* every staged vector loads whole and lies inside the row: no test per vector */
#pragma unroll
        for (int q = 0; q < STAGED; ++q) v[q] = contribution_v(ROW_VECTOR(in + from + q * VW), p);
        v[STAGED] = 0;
        return dense_sums(v, SW * VW);
    }
    const INTV(VW) lane = LANE_IDS;
#pragma unroll
    for (int q = 0; q <= STAGED; ++q) {
        v[q] = 0;
        if (q == STAGED || q * VW >= span) continue;
        if (whole) {
            v[q] = contribution_v(ROW_VECTOR(in + from + q * VW), p);
        } else {
            T e[VW];
            for (int l = 0; l < VW; ++l) e[l] = in[clamp(from + q * VW + l, 0L, in_limit - 1)];
            v[q] = contribution_v(TO_CTV(VW, VLOADV(VW, e)), p);
        }
        if (!inner) {
            const INTV(VW) col = lane + (int)(col0 + q * VW);
            v[q] = select((ATV)0, v[q], AT_MASK((col >= 0) & (col < (int)W)));
        }
    }
    return dense_sums(v, span);
}

/* A ring entry: row_sums of input row `row`, 0 outside the input. */
__attribute__((always_inline)) static inline ATV ring_row(__global const T *in, long row, long H, long W, long col0,
                                                          long in_limit, int inner, int span, const AT p)
{
    if (row < 0 || row >= H) return 0;
    return row_sums(in, row * W, col0, W, in_limit, inner, span, p);
}

/* A work-item (the file's comment); planes of depth-slices for 3-D windows. */
__attribute__((always_inline)) static inline void sum_rows(__global const T *in, __global T *out,
                                                          const clpool__window_nd_geom g, const AT p)
{
    const long gid = (long)get_global_id(0);
    if (gid >= g.items) return;
    const long H = g.w.in_dims[DIM_H], W = g.w.in_dims[DIM_W], OH = g.w.out_dims[DIM_H], OW = g.w.out_dims[DIM_W];
#if SUM_3D
    const long D = g.w.in_dims[0], OD = g.w.out_dims[0], pad_d = g.w.pad_begin[0], pad_d_end = g.w.pad_end[0];
#else
    const long D = 1, OD = 1, pad_d = 0, pad_d_end = 0;
#endif
    /* NB_MAX neighbouring column blocks per work-item (the last work-item of a row fewer), walked row by
     * row: the input is read along whole rows, as it lies in memory */
    const long col_items = (OW + VW - 1) / VW, chunks = (col_items + NB_MAX - 1) / NB_MAX;
    const long bands = (OH + g.rows - 1) / g.rows;
    const long chunk = gid % chunks, band = gid / chunks % bands, slice = gid / chunks / bands;
    const long plane = slice / OD, od = slice - plane * OD;
    /* the work-item's blocks: a constant where it has one */
    const int nb = NB_MAX == 1 ? 1 : (int)min((long)NB_MAX, col_items - chunk * NB_MAX);
    const long oh0 = band * g.rows, oh_end = min(oh0 + g.rows, OH), pad_h = g.w.pad_begin[DIM_H];
    __global const T *plane_in = in + g.in_offset + plane * g.w.in_plane;
    const long in_limit = g.in_limit - (g.in_offset + plane * g.w.in_plane);
    const long depth0 = od * SD - pad_d; /* the window's first depth */
    const AT depth_count = (AT)window_taps_counted(depth0, D, pad_d_end, 1, KD, g.w.count_pad);

    /* each block's columns: its first output, first tap and live lanes; whether its dense lanes' taps lie
     * inside the row; and each lane's taps the divisor counts along the row (window_taps_counted in int
     * lanes: a scalar loop was a fifth of the kernel's time on short planes), times the depth's */
    long ow0[NB_MAX], col0[NB_MAX];
    int lanes[NB_MAX], inner[NB_MAX], span[NB_MAX];
    ATV counts_w[NB_MAX];
    for (int b = 0; b < nb; ++b) {
        const long cb = chunk * NB_MAX + b;
        /* -DOVERLAP_BLOCKS (CPUs): a row's last block ends at its end, overlapping its neighbour (same
         * values, written twice), so every store is a whole vector */
        ow0[b] = OVERLAP_BLOCKS && OW >= VW ? min(cb * VW, OW - VW) : cb * VW;
        col0[b] = ow0[b] * SW - g.w.pad_begin[DIM_W];
        lanes[b] = (int)min((long)VW, OW - ow0[b]);
        inner[b] = col0[b] >= 0 && col0[b] + DENSE_SPAN <= W;
        span[b] = (lanes[b] - 1) * SW + KW;
        const INTV(VW) cols = (int)col0[b] + LANE_IDS * SW;
        const INTV(VW) zero = 0, taps = KW; /* vector-vector min/max: Oclgrind 21.10 miscomputes (vector, scalar) */
        const INTV(VW) inside_w = max(min((int)W - cols, taps) - max(-cols, zero), zero);
        const INTV(VW) padded_w = min(max((int)(W + g.w.pad_end[DIM_W]) - cols, zero), taps);
        counts_w[b] = CONVERT_ATV(g.w.count_pad ? padded_w : inside_w) * depth_count;
    }

    /* ring[kd][k]: the block's sums along input row oh * SH - pad_h + k of depth depth0 + kd (0 outside the
     * input); it carries rows to the next output row only where the work-item has one block */
    ATV ring[KD][KH];
    for (long oh = oh0; oh < oh_end; ++oh) {
        const long row0 = oh * SH - pad_h;
        /* a window inside the rows counts all KH of them */
        const AT rows_counted = row0 >= 0 && row0 + KH <= H
                                    ? (AT)KH
                                    : (AT)window_taps_counted(row0, H, g.w.pad_end[DIM_H], 1, KH, g.w.count_pad);
        for (int b = 0; b < nb; ++b) {
#pragma unroll
            for (int kd = 0; kd < KD; ++kd) {
                const long depth = depth0 + kd;
#if SUM_3D /* a depth outside the input: its rows are 0 */
                const long rows_h = DEPTH_INSIDE(depth) ? H : 0, slice_at = rows_h ? depth * H * W : 0;
#else
                const long rows_h = H, slice_at = 0;
                (void)depth;
#endif
                __global const T *slice_in = plane_in + slice_at;
                if (RING_SHARES && oh > oh0) { /* the rows shared with the previous output row move down the ring */
#pragma unroll
                    for (int k = 0; k + SH < KH; ++k) ring[kd][k] = ring[kd][k + SH];
#pragma unroll
                    for (int k = KH - SH; k < KH; ++k)
                        ring[kd][k] = ring_row(slice_in, row0 + k, rows_h, W, col0[b], in_limit - slice_at, inner[b],
                                                  span[b], p);
                } else {
#pragma unroll
                    for (int k = 0; k < KH; ++k)
                        ring[kd][k] = ring_row(slice_in, row0 + k, rows_h, W, col0[b], in_limit - slice_at, inner[b],
                                                  span[b], p);
                }
            }
            /* groups of rows, plain; Kahan across groups that hold a row inside the input */
            ATV sum = 0, comp = 0, plain = 0;
#pragma unroll
            for (int gi = 0; gi < GROUPS; ++gi) {
                ATV s = 0;
                int inside = 0;
#pragma unroll
                for (int k = 0; k < GROUP_ROWS; ++k) {
                    const int r = gi * GROUP_ROWS + k, kd = r / KH, kh = r - kd * KH;
                    if (r >= WINDOW_ROWS) break;
                    s += ring[kd][kh];
                    inside |= DEPTH_INSIDE(depth0 + kd) && row0 + kh >= 0 && row0 + kh < H;
                }
                if (GROUPS == 1) {
                    sum = s;
                } else if (inside) {
                    plain += s;
                    lane_add(&sum, &comp, s, 0);
                }
            }
            ATV r = sum - comp;
            if (GROUPS > 1) r = select(plain, r, AT_MASK(isfinite(plain)));
            finish_store(out + g.out_offset + (slice * OH + oh) * OW + ow0[b], r, counts_w[b] * rows_counted, p,
                         lanes[b]);
        }
    }
}

#define SUM_ARGS __global const T *in, __global T *out, const clpool__window_nd_geom g, const AT p
#if SUM_3D
__kernel CLPOOL_WIDE_VECTORS void sum_pool_3d(SUM_ARGS) { sum_rows(in, out, g, p); }
#else
__kernel CLPOOL_WIDE_VECTORS void sum_pool_2d(SUM_ARGS) { sum_rows(in, out, g, p); }
#endif
