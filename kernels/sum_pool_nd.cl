/*
 * The sum pools' general kernels (AveragePool, LpPool: -DOP=CLPOOL__OP_REDUCE_AVG
 * or CLPOOL__OP_REDUCE_LP with -DLP_KIND, reduce_sum.h): any rank (-DNS), any
 * attributes as run-time data (clpool__window_nd_geom), -DVW lanes and the
 * last dim's stride class -DSW as MaxPool's maxpool_nd. A work-item owns NB
 * blocks of VW neighbouring outputs along the last dim of g.rows output rows;
 * lane l's tap kw reads column (ow0 + l) * stride - pad + kw * dilation. Each
 * lane keeps a Kahan sum of its taps' contributions in the accumulation type,
 * in row-major tap order, with the same operations as the first tier's scalar
 * sum (reduce_sum.h), so both paths give the same bits. Taps in the padding
 * add nothing; where a lane's sum is not finite the work-item sums again
 * plainly, which gives IEEE's inf or NaN. The divisor counts taps per dim
 * (window_taps_counted). Built after reduce_sum.h, window.h and window_lanes.h.
 */
#ifndef NS
#error "sum_pool_nd.cl: -DNS=<spatial rank>"
#endif
#ifndef NB_MAX
#define NB_MAX 1
#endif

/* The accumulation type's VW-lane vector, an element's contribution and the
 * finish in it; a mask of AT's width (long lanes for double). */
typedef CTV(VW) ATV;
typedef CLPOOL_XPASTE(uint, VW) UINTV;
CLPOOL_DEFINE_CONTRIBUTION(ATV, _v)
CLPOOL_DEFINE_FINISH(ATV, _v)
#if defined(DT_FLOAT64)
#define AT_MASK(m) CONVERT_LONGV(VW, m)
#else
#define AT_MASK(m) (m)
#endif

/* Lane sums: Kahan (plain = 0) or plain (the second pass). */
static inline void lane_add(ATV *sum, ATV *comp, ATV c, int plain)
{
    if (plain) {
        *sum += c;
        return;
    }
    const ATV y = c - *comp;
    const ATV t = *sum + y;
    *comp = (t - *sum) - y;
    *sum = t;
}

/* VW outputs' rounding to T and store: whole blocks as vectors (float16: vstore_halfN_rte, core OpenCL C;
 * bfloat16: float_to_bfloat16's rounding lane-wise), a partial block element by element. */
static inline void store_block(__global T *out, ATV r, int lanes)
{
    if (lanes == VW) {
#if defined(DT_FLOAT32) || defined(DT_FLOAT64)
        VSTOREV(VW, r, out);
#elif defined(DT_FLOAT16)
        CLPOOL_XPASTE(CLPOOL_XPASTE(vstore_half, VW), _rte)(r, 0, (__global half *)out);
#else
        const UINTV u = CLPOOL_XPASTE(as_uint, VW)(r);
        const UINTV rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
        const UINTV quiet = (u >> 16) | 0x40u; /* NaN: quieted, as float_to_bfloat16 */
        VSTOREV(VW, CLPOOL_XPASTE(convert_ushort, VW)(select(rounded, quiet, (u & 0x7fffffffu) > 0x7f800000u)), out);
#endif
        return;
    }
    AT v[VW];
    VSTOREV(VW, r, v);
    for (int l = 0; l < lanes; ++l) STORE(out, l, v[l]);
}

#define CONVERT_ATV(x) CLPOOL_XPASTE(CLPOOL_XPASTE(convert_, AT_NAME), VW)(x)

/* A work-item: NB (a constant in each kernel) blocks of VW outputs of g.rows consecutive output rows. What
 * depends only on the columns (lane offsets, the last dim's tap counts and tap ranges) is set up once. */
__attribute__((always_inline)) static inline void sum_blocks(__global const T *in, __global T *out,
                                                             const clpool__window_nd_geom g, const AT p, const int NB)
{
    const long gid = (long)get_global_id(0);
    if (gid >= g.items) return;
    const long OW = g.w.out_dims[LAST], row_items = (OW + NB * VW - 1) / (NB * VW);
    const long group = gid / row_items, ow0 = (gid - group * row_items) * (NB * VW);
    const long first_row = group * g.rows, end_row = min(first_row + g.rows, g.out_rows);

    /* Along the last dim: lane l's tap kw is column col0 + lane_at[l] + kw * DW. */
    const long W = g.w.in_dims[LAST], KW = g.w.kernel_shape[LAST], DW = g.w.dilations[LAST];
    const long col0 = ow0 * STRIDE_W - g.w.pad_begin[LAST];
    const int live = (int)min((long)(NB * VW), OW - ow0); /* lanes with an output */
    long lane_at[NB_MAX * VW], lane_taps[NB_MAX * VW];
    for (int l = 0; l < NB * VW; ++l) {
        lane_at[l] = (VECTOR_TAPS ? l : min(l, live - 1)) * STRIDE_W;
        const long c = col0 + l * STRIDE_W;
        /* a window inside the row counts every tap; only those at its ends need the divisions */
        lane_taps[l] = c >= 0 && c + (KW - 1) * DW < W ? KW : window_taps_counted(c, W, g.w.pad_end[LAST], DW, KW, g.w.count_pad);
    }
    const row_taps taps = row_taps_of(col0, col0 + (live - 1) * STRIDE_W, W, KW, DW);

    for (long out_row = first_row; out_row < end_row; ++out_row) {
        long start[OUTER_SLOTS], lo[OUTER_SLOTS], hi[OUTER_SLOTS], j[OUTER_SLOTS];
        const long nc = outer_taps(&g.w, out_row, start, lo, hi, j);
        const long plane_at = g.in_offset + nc * g.w.in_plane;
        __global const T *plane = in + plane_at;
        long outer_count = 1;
        int empty = 0; /* no tap inside the input on some outer dim: every lane's sum is 0 */
        for (int d = 0; d < LAST; ++d) {
            outer_count *= window_taps_counted(start[d], g.w.in_dims[d], g.w.pad_end[d], g.w.dilations[d],
                                               g.w.kernel_shape[d], g.w.count_pad);
            empty |= lo[d] >= hi[d];
        }
        ATV sum[NB_MAX], comp[NB_MAX];
        for (int plain = 0;; plain = 1) {
#pragma unroll
            for (int b = 0; b < NB; ++b) sum[b] = comp[b] = 0;
            for (; !empty;) { /* j[] holds each dim's first tap (the odometer ends where it starts) */
                const long row_at = tap_row(&g.w, start, j) * W;
#if VECTOR_TAPS /* the vector loads stay inside the input buffer */
                const long fast_hi = vector_taps_end(taps, g.in_limit - (plane_at + row_at + col0 + NB * TAP_SPAN), DW);
#else
                const long fast_hi = taps.in_hi;
#endif
                for (long kw = taps.any_lo; kw < taps.any_hi; ++kw) {
                    const long c = col0 + kw * DW; /* lane 0's column */
                    const long at = row_at + c;
                    if (kw >= taps.in_lo && kw < fast_hi) {
#pragma unroll
                        for (int b = 0; b < NB; ++b)
                            lane_add(&sum[b], &comp[b], contribution_v(TO_CTV(VW, INSIDE_TAP(plane, at, b, lane_at)), p),
                                     plain);
                    } else { /* lanes in the padding add nothing */
                        const long stride = STRIDE_W;
                        const int first = (int)min(tap_ceil_div(-c, stride), (long)(NB * VW));
                        const int end = (int)min(tap_ceil_div(W - c, stride), (long)(NB * VW));
#pragma unroll
                        for (int b = 0; b < NB; ++b) {
                            const INTV(VW) lane = LANE_IDS + b * VW;
                            const TV(VW) v = edge_tap(in, plane_at, row_at, c, b, lane_at, W, g.in_limit);
                            /* padding lanes keep their state: a Kahan add of 0 would fold the correction in */
                            ATV s = sum[b], k = comp[b];
                            lane_add(&s, &k, contribution_v(TO_CTV(VW, v), p), plain);
                            const INTV(VW) inside = (lane >= first) & (lane < end);
                            sum[b] = select(sum[b], s, AT_MASK(inside));
                            comp[b] = select(comp[b], k, AT_MASK(inside));
                        }
                    }
                }
                if (!next_tap_row(lo, hi, j)) break;
            }
            if (plain) break;
            int finite = 1;
#pragma unroll
            for (int b = 0; b < NB; ++b) finite &= MASK_ALL(isfinite(sum[b] - comp[b]));
            if (finite) break;
        }

#pragma unroll
        for (int b = 0; b < NB; ++b) {
            const int lanes = min(live - b * VW, VW);
            if (lanes <= 0) break;
            ATV r = sum[b] - comp[b];
#if OP == CLPOOL__OP_REDUCE_LP && (LP_KIND == 0 || LP_KIND == 3)
            /* pow per lane: PoCL 3.1's double8 pow returns wrong values (reduce_sum.h); Lp needs no count */
            (void)outer_count;
            AT v[VW];
            VSTOREV(VW, r, v);
            for (int l = 0; l < VW; ++l) v[l] = finish(v[l], 0, p);
            r = VLOADV(VW, v);
#else
            r = finish_v(r, CONVERT_ATV(VLOADV(VW, lane_taps + b * VW) * outer_count), p);
#endif
            store_block(out + g.out_offset + out_row * OW + ow0 + b * VW, r, lanes);
        }
    }
}

#define SUM_ARGS __global const T *in, __global T *out, const clpool__window_nd_geom g, const AT p
__kernel CLPOOL_WIDE_VECTORS void sum_pool_nd(SUM_ARGS) { sum_blocks(in, out, g, p, 1); }
#if NB_MAX >= 2
__kernel CLPOOL_WIDE_VECTORS void sum_pool_nd_nb2(SUM_ARGS) { sum_blocks(in, out, g, p, 2); }
#endif
#if NB_MAX >= 3
__kernel CLPOOL_WIDE_VECTORS void sum_pool_nd_nb3(SUM_ARGS) { sum_blocks(in, out, g, p, 3); }
#endif
#if NB_MAX >= 4
__kernel CLPOOL_WIDE_VECTORS void sum_pool_nd_nb4(SUM_ARGS) { sum_blocks(in, out, g, p, 4); }
#endif
