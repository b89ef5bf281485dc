/*
 * The sum pools' general kernels (AveragePool, LpPool: -DOP=CLPOOL__OP_REDUCE_AVG
 * or CLPOOL__OP_REDUCE_LP with -DLP_KIND, reduce_sum.h): any rank (-DNS), any
 * attributes as run-time data (clpool__window_nd_geom), -DVW lanes and the
 * last dim's stride class -DSW as MaxPool's maxpool_nd. A work-item owns NB
 * blocks of VW neighbouring outputs along the last dim of g.rows output rows;
 * lane l's tap kw reads column (ow0 + l) * stride - pad + kw * dilation. Each
 * lane sums its taps' contributions in the accumulation type in the order of
 * reduce_sum.h's CLPOOL__SUM_CHUNK rule (plain rows and groups, Kahan-added), with
 * the first tier's operations, so both paths give the same bits. Taps in the
 * padding add 0; where a lane's sum is not finite the work-item sums again
 * plainly, and such lanes take the plain sum (IEEE's inf or NaN), as the
 * first tier's kahan_value does. The divisor counts taps per dim
 * (window_taps_counted). Built after reduce_sum.h, window.h and window_lanes.h.
 */
#ifndef NS
#error "sum_pool_nd.cl: -DNS=<spatial rank>"
#endif
#ifndef NB_MAX
#define NB_MAX 1
#endif

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
    long lane_first[NB_MAX * VW], lane_end[NB_MAX * VW]; /* each lane's taps inside the row */
    for (int l = 0; l < NB * VW; ++l) {
        lane_at[l] = (VECTOR_TAPS ? l : min(l, live - 1)) * STRIDE_W;
        const long c = col0 + l * STRIDE_W;
        lane_first[l] = min(tap_ceil_div(-c, DW), KW);
        lane_end[l] = min(tap_ceil_div(W - c, DW), KW);
        /* a window inside the row counts every tap; only those at its ends need the divisions */
        lane_taps[l] = c >= 0 && c + (KW - 1) * DW < W ? KW : window_taps_counted(c, W, g.w.pad_end[LAST], DW, KW, g.w.count_pad);
    }
    const row_taps taps = row_taps_of(col0, col0 + (live - 1) * STRIDE_W, W, KW, DW);
    const long per_group = sum_group_rows(KW);

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
        ATV sum[NB_MAX], comp[NB_MAX], group[NB_MAX], kahan[NB_MAX];
        for (int plain = 0;; plain = 1) {
#pragma unroll
            for (int b = 0; b < NB; ++b) sum[b] = comp[b] = group[b] = 0;
            long group_at = -1; /* the group of rows summed in group[] (rows of at most CLPOOL__SUM_CHUNK taps) */
            for (; !empty;) { /* j[] holds each dim's first tap (the odometer ends where it starts) */
                const long row_at = tap_row(&g.w, start, j) * W;
#if VECTOR_TAPS /* the vector loads stay inside the input buffer */
                const long fast_hi = vector_taps_end(taps, g.in_limit - (plane_at + row_at + col0 + NB * TAP_SPAN), DW);
#else
                const long fast_hi = taps.in_hi;
#endif
                const long row_at_window = window_row_at(&g.w, j);
                const long at_group = per_group == 1 ? row_at_window : row_at_window / per_group;
                if (KW <= CLPOOL__SUM_CHUNK && at_group != group_at) {
#pragma unroll
                    for (int b = 0; b < NB; ++b) {
                        if (group_at >= 0) lane_add(&sum[b], &comp[b], group[b], plain);
                        group[b] = 0;
                    }
                    group_at = at_group;
                }
                for (long kw = taps.any_lo; kw < taps.any_hi;) { /* the row's chunks */
                    const long chunk_at = kw;
                    const long chunk_end = min(taps.any_hi, (kw / CLPOOL__SUM_CHUNK + 1) * CLPOOL__SUM_CHUNK);
                    ATV s[NB_MAX];
#pragma unroll
                    for (int b = 0; b < NB; ++b) s[b] = 0;
                    for (; kw < chunk_end; ++kw) {
                        const long c = col0 + kw * DW; /* lane 0's column */
                        const long at = row_at + c;
                        if (kw >= taps.in_lo && kw < fast_hi) {
#pragma unroll
                            for (int b = 0; b < NB; ++b)
                                s[b] += contribution_v(TO_CTV(VW, INSIDE_TAP(plane, at, b, lane_at)), p);
                        } else { /* lanes in the padding add 0 */
#pragma unroll
                            for (int b = 0; b < NB; ++b) {
                                const TV(VW) v = edge_tap(in, plane_at, row_at, c, b, lane_at, W, g.in_limit);
                                const INTV(VW) inside = edge_lanes_inside(c, W, STRIDE_W, b, NB * VW);
                                s[b] += select((ATV)0, contribution_v(TO_CTV(VW, v), p), AT_MASK(inside));
                            }
                        }
                    }
#pragma unroll
                    for (int b = 0; b < NB; ++b) {
                        if (KW <= CLPOOL__SUM_CHUNK) { /* a lane without taps inside has none in any row: its sums stay 0 */
                            group[b] += s[b];
                            continue;
                        }
                        ATV t = sum[b], k = comp[b];
                        lane_add(&t, &k, s[b], plain);
                        /* lanes whose chunk has no tap inside keep their state */
                        const INTV(VW) chunk = CONVERT_INTV(VW, (VLOADV(VW, lane_first + b * VW) < chunk_end) &
                                                                    (VLOADV(VW, lane_end + b * VW) > chunk_at));
                        sum[b] = select(sum[b], t, AT_MASK(chunk));
                        comp[b] = select(comp[b], k, AT_MASK(chunk));
                    }
                }
                if (!next_tap_row(lo, hi, j)) break;
            }
#pragma unroll
            for (int b = 0; b < NB; ++b)
                if (group_at >= 0) lane_add(&sum[b], &comp[b], group[b], plain);
            if (plain) { /* per lane, as kahan_value: the plain sum where it is not finite */
#pragma unroll
                for (int b = 0; b < NB; ++b) kahan[b] = select(sum[b], kahan[b], AT_MASK(isfinite(sum[b])));
                break;
            }
            int finite = 1;
#pragma unroll
            for (int b = 0; b < NB; ++b) {
                kahan[b] = sum[b] - comp[b];
                finite &= MASK_ALL(isfinite(kahan[b]));
            }
            if (finite) break;
        }

#pragma unroll
        for (int b = 0; b < NB; ++b) {
            const int lanes = min(live - b * VW, VW);
            if (lanes <= 0) break;
            finish_store(out + g.out_offset + out_row * OW + ow0 + b * VW, kahan[b],
                         CONVERT_ATV(VLOADV(VW, lane_taps + b * VW) * outer_count), p, lanes);
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
