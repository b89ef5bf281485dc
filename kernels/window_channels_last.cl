/*
 * The windowed ops on channels-last views (C innermost, stride 1):
 * window_channels_last, the first tier's walk (window_tier.h) with VW
 * neighbouring channels as the lanes of a vector, so each tap is one vector
 * load. Every lane takes the first tier's taps in its order with its
 * reduction: results bit-identical to every other path. The same run-time
 * geometry as the first tier; `outputs` counts positions x channel blocks.
 * The host plans it for C >= VW: a position's last block ends at C,
 * overlapping its neighbour, and both write the same values. -DVW lanes.
 */
#if OP == CLPOOL__OP_REDUCE_MAX
#define SUM_ARG
#else
#define SUM_ARG , const AT p
#endif

CLPOOL_WIDE_VECTORS
__kernel void window_channels_last(__global const T *in, __global T *out, __global long *indices,
                                   const clpool__window_first_tier_geom g SUM_ARG)
{
    const long item = get_global_id(0);
    const int ns = (int)g.ns;
    tier_geom t;
    TIER_GEOM_LOAD(t, g);
    const long in_plane = g.w.in_plane, channels = g.channels, blocks = (channels + VW - 1) / VW;
    const int with_indices = g.with_indices != 0, col_major = g.col_major != 0;
#if OP != CLPOOL__OP_REDUCE_MAX
    const long count_pad = g.w.count_pad;
#endif
    if (item >= g.outputs) return;
    const long c0 = min(item % blocks * VW, channels - VW);
    long start[TIER_S], lo[TIER_S], hi[TIER_S], j[TIER_S];
    long out_at = 0, idx_at = 0;
    const long n = tier_position(&t, ns, item / blocks, start, lo, hi, j, &out_at, &idx_at);
    __global const T *src = in + g.in_offset + n * t.is[0] + c0;
    out_at += g.out_offset + n * t.os[0] + c0;
#if OP != CLPOOL__OP_REDUCE_MAX
    /* reduce_sum.h's order per lane: as window_first_tier, with lane_add's Kahan steps and a plain shadow sum */
    ATV sum = 0, comp = 0, plain = 0;
    const long count = tier_count(&t, ns, start, count_pad);
    const int last = ns - 1;
    const long dw = t.dilations[last] * t.is[2 + last], row_taps = t.kernel_shape[last],
               per_group = sum_group_rows(row_taps);
    ATV group = 0;
    long group_at = -1;
    if (!tier_empty(lo, hi, ns)) do {
        long at, r;
        const long row = tier_tap(&t, last, start, j, &at, &r) + start[last] * t.is[2 + last];
        if (row_taps <= CLPOOL__SUM_CHUNK && r / per_group != group_at) {
            if (group_at >= 0) lane_add(&sum, &comp, group, 0), plain += group;
            group = 0;
            group_at = r / per_group;
        }
        for (long kw = lo[last]; kw < hi[last];) {
            const long chunk_end = min(hi[last], (kw / CLPOOL__SUM_CHUNK + 1) * CLPOOL__SUM_CHUNK);
            ATV s = 0;
            for (; kw < chunk_end; ++kw) s += contribution_v(TO_CTV(VW, VLOADV(VW, src + row + kw * dw)), p);
            if (row_taps > CLPOOL__SUM_CHUNK)
                lane_add(&sum, &comp, s, 0), plain += s;
            else
                group += s;
        }
    } while (tier_next(lo, hi, j, last));
    if (group_at >= 0 && row_taps <= CLPOOL__SUM_CHUNK) lane_add(&sum, &comp, group, 0), plain += group;
    /* kahan_value per lane: the compensated sum where the plain one is finite */
    const ATV value = select(plain, sum - comp, AT_MASK(isfinite(plain)));
    finish_store(out + out_at, value, (ATV)(AT)count, p, VW);
    (void)indices, (void)with_indices, (void)col_major, (void)idx_at, (void)in_plane;
#else
    /* Taps inside the input in row-major order; the host guarantees one. The first takes every lane. */
    long at, r;
    long addr = tier_tap(&t, ns, start, j, &at, &r);
    TV(VW) best_bits = VLOADV(VW, src + addr);
    KTV(VW) best = KEYV(VW, best_bits);
    LONGV(VW) best_at = (LONGV(VW))at;
    while (tier_next(lo, hi, j, ns)) {
        addr = tier_tap(&t, ns, start, j, &at, &r);
        const TV(VW) bits = VLOADV(VW, src + addr);
        const KTV(VW) k = KEYV(VW, bits);
        const MASKV(VW) take = BETTERV(VW, k, best);
        best = select(best, k, take);
        best_bits = select(best_bits, bits, take);
        best_at = select(best_at, (LONGV(VW))at, LONG_MASKV(VW, take));
    }
    VSTOREV(VW, best_bits, out + out_at);
    if (!with_indices) return;
    long at_lanes[VW];
    VSTOREV(VW, best_at, at_lanes);
    __global long *idx = indices + g.idx_offset + idx_at + n * t.xs[0] + c0;
    for (int l = 0; l < VW; ++l)
        idx[l] = tier_index(&t, ns, n * channels + c0 + l, in_plane, at_lanes[l], col_major);
#endif
}
