/*
 * The windowed ops' first tier: window_first_tier, one output per work-item,
 * every attribute (rank, window, strides, pads, dilations, Indices, storage
 * order) run-time data and the reduction -DOP the one constant beside the
 * dtype, so one small program per (op, dtype) serves every call and compiles
 * in a fraction of a specialised kernel's time. It answers a key's first call
 * while that key's specialised program is not built; results are
 * bit-identical to every other path (same taps in the same order, the same
 * reduction). OP_REDUCE_MAX: MaxPool (reduce_max.h's MAX_BETTER, Indices);
 * OP_REDUCE_AVG, OP_REDUCE_LP: AveragePool, LpPool (reduce_sum.h's windowed
 * sum of the contributions, the divisor counted per dim, p the last argument).
 * Each tensor is read and written through its element strides (window_tier.h):
 * one kernel for contiguous calls and for views of any strides.
 */
#if OP == CLPOOL__OP_REDUCE_MAX
#define SUM_ARG
#else
#define SUM_ARG , const AT p
#endif

__kernel void window_first_tier(__global const T *in, __global T *out, __global long *indices,
                                const clpool__window_first_tier_geom g SUM_ARG)
{
    const long item = get_global_id(0);
    const int ns = (int)g.ns;
    tier_geom t;
    TIER_GEOM_LOAD(t, g, TIER_S);
    const long in_plane = g.w.in_plane, channels = g.channels;
    const int with_indices = g.with_indices != 0, col_major = g.col_major != 0;
#if OP != CLPOOL__OP_REDUCE_MAX
    const long count_pad = g.w.count_pad;
#endif
    if (item >= g.outputs) return;
    /* The output's position: each spatial dim, then its plane (n * C + c). */
    long start[TIER_S], lo[TIER_S], hi[TIER_S], j[TIER_S];
    long out_at = 0, idx_at = 0;
    const long plane = tier_position(&t, ns, item, start, lo, hi, j, &out_at, &idx_at);
    const long n = plane / channels, c = plane % channels;
    __global const T *src = in + g.in_offset + n * t.is[0] + c * t.is[1];
    out_at += g.out_offset + n * t.os[0] + c * t.os[1];
#if OP != CLPOOL__OP_REDUCE_MAX
    /* Window rows in row-major order, summed by reduce_sum.h's CLPOOL__SUM_CHUNK rule (pads add nothing). */
    kahan acc = {0, 0, 0};
    const long count = tier_count(&t, ns, start, count_pad);
    const int last = ns - 1;
    const long dw = t.dilations[last] * t.is[2 + last], row_taps = t.kernel_shape[last],
               per_group = sum_group_rows(row_taps);
    AT group = 0;
    long group_at = -1; /* the group summed in `group` */
    /* no tap inside the input: the sum is 0 */
    if (!tier_empty(lo, hi, ns)) do {
        long at, r; /* the row's place among the window's rows */
        const long row = tier_tap(&t, last, start, j, &at, &r) + start[last] * t.is[2 + last];
        if (row_taps <= CLPOOL__SUM_CHUNK && r / per_group != group_at) { /* (longer rows add by chunk) */
            if (group_at >= 0) kahan_add(&acc, group);
            group = 0;
            group_at = r / per_group;
        }
        for (long kw = lo[last]; kw < hi[last];) { /* a row longer than CLPOOL__SUM_CHUNK: its chunks one by one */
            const long chunk_end = min(hi[last], (kw / CLPOOL__SUM_CHUNK + 1) * CLPOOL__SUM_CHUNK);
            AT s = 0;
            for (; kw < chunk_end; ++kw) s += contribution((AT)LOAD(src, row + kw * dw), p);
            if (row_taps > CLPOOL__SUM_CHUNK)
                kahan_add(&acc, s);
            else
                group += s;
        }
    } while (tier_next(lo, hi, j, last));
    if (group_at >= 0 && row_taps <= CLPOOL__SUM_CHUNK) kahan_add(&acc, group);
    STORE(out, out_at, finish(kahan_value(acc), (AT)count, p));
    (void)indices, (void)with_indices, (void)col_major, (void)idx_at, (void)in_plane;
#else
    /* Taps inside the input in row-major order; the host guarantees one. */
    max_acc acc = max_acc_start();
    do {
        long at, r;
        const long addr = tier_tap(&t, ns, start, j, &at, &r);
        max_acc_tap(&acc, LOAD(src, addr), src[addr], at);
    } while (tier_next(lo, hi, j, ns));
    out[out_at] = acc.bits;
    if (!with_indices) return;
    indices[g.idx_offset + idx_at + n * t.xs[0] + c * t.xs[1]] = tier_index(&t, ns, plane, in_plane, acc.at, col_major);
#endif
}
