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
    /* Private copies, loaded at constant indices outside any branch: rusticl
     * (Mesa 22.3) crashes on run-time indices into a by-value struct argument. */
    long in_dims[CLPOOL__ARGS_MAX_SPATIAL], out_dims[CLPOOL__ARGS_MAX_SPATIAL], kernel_shape[CLPOOL__ARGS_MAX_SPATIAL],
        strides[CLPOOL__ARGS_MAX_SPATIAL], pad_begin[CLPOOL__ARGS_MAX_SPATIAL], pad_end[CLPOOL__ARGS_MAX_SPATIAL],
        dilations[CLPOOL__ARGS_MAX_SPATIAL];
#pragma unroll
    for (int d = 0; d < CLPOOL__ARGS_MAX_SPATIAL; ++d) {
        in_dims[d] = g.w.in_dims[d];
        out_dims[d] = g.w.out_dims[d];
        kernel_shape[d] = g.w.kernel_shape[d];
        strides[d] = g.w.strides[d];
        pad_begin[d] = g.w.pad_begin[d];
        pad_end[d] = g.w.pad_end[d];
        dilations[d] = g.w.dilations[d];
    }
    const long in_plane = g.w.in_plane, in_offset = g.in_offset, out_offset = g.out_offset, idx_offset = g.idx_offset;
    const int with_indices = g.with_indices != 0, col_major = g.col_major != 0;
#if OP != CLPOOL__OP_REDUCE_MAX
    const long count_pad = g.w.count_pad;
#endif
    if (item >= g.outputs) return;
    /* The output's position: plane (n * C + c), then each spatial dim. */
    long start[CLPOOL__ARGS_MAX_SPATIAL], lo[CLPOOL__ARGS_MAX_SPATIAL], hi[CLPOOL__ARGS_MAX_SPATIAL],
        j[CLPOOL__ARGS_MAX_SPATIAL];
    long rem = item;
#if OP != CLPOOL__OP_REDUCE_MAX
    long count = 1; /* the divisor's taps */
#endif
    for (int d = ns - 1; d >= 0; --d) {
        const long o = rem % out_dims[d];
        rem /= out_dims[d];
        const long s = o * strides[d] - pad_begin[d];
        start[d] = s;
        lo[d] = window_tap_lo(s, dilations[d]);
        hi[d] = window_tap_hi(s, in_dims[d], dilations[d], kernel_shape[d]);
        j[d] = lo[d];
#if OP != CLPOOL__OP_REDUCE_MAX
        count *= window_taps_counted(s, in_dims[d], pad_end[d], dilations[d], kernel_shape[d], count_pad);
#endif
    }
    const long plane = rem;
    __global const T *src = in + in_offset + plane * in_plane;
#if OP != CLPOOL__OP_REDUCE_MAX
    /* Window rows in row-major order, summed by reduce_sum.h's CLPOOL__SUM_CHUNK rule (pads add nothing). */
    kahan acc = {0, 0, 0};
    int empty = 0; /* no tap inside the input: the sum is 0 */
    for (int d = 0; d < ns; ++d) empty |= lo[d] >= hi[d];
    const int last = ns - 1;
    const long dw = dilations[last], row_taps = kernel_shape[last], per_group = sum_group_rows(row_taps);
    AT group = 0;
    long group_at = -1; /* the group summed in `group` */
    while (!empty) {
        long row = 0, r = 0; /* the row's first element and its place among the window's rows */
        for (int d = 0; d < last; ++d) {
            row = row * in_dims[d] + start[d] + j[d] * dilations[d];
            r = r * kernel_shape[d] + j[d];
        }
        row = row * in_dims[last] + start[last];
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
        int d = last - 1;
        while (d >= 0 && ++j[d] >= hi[d]) j[d] = lo[d], --d;
        if (d < 0) break;
    }
    if (group_at >= 0 && row_taps <= CLPOOL__SUM_CHUNK) kahan_add(&acc, group);
    STORE(out + out_offset, item, finish(kahan_value(acc), (AT)count, p));
    (void)indices, (void)with_indices, (void)col_major, (void)idx_offset;
#else
    /* Taps inside the input in row-major order; the host guarantees one. */
    max_acc acc = max_acc_start();
    for (;;) {
        long at = 0;
        for (int d = 0; d < ns; ++d) at = at * in_dims[d] + start[d] + j[d] * dilations[d];
        max_acc_tap(&acc, LOAD(src, at), src[at], at);
        int d = ns - 1;
        while (d >= 0 && ++j[d] >= hi[d]) j[d] = lo[d], --d;
        if (d < 0) break;
    }
    out[out_offset + item] = acc.bits;
    if (!with_indices) return;
    long best_at = acc.at;
    if (col_major) { /* the first spatial dim fastest */
        long coord[CLPOOL__ARGS_MAX_SPATIAL], at = best_at;
        for (int d = ns - 1; d >= 0; --d) {
            coord[d] = at % in_dims[d];
            at /= in_dims[d];
        }
        for (int d = ns - 1; d >= 0; --d) at = at * in_dims[d] + coord[d];
        best_at = at;
    }
    indices[idx_offset + item] = plane * in_plane + best_at;
#endif
}
