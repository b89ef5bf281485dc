#ifndef PLANE_ELEMS
#error "maxpool2d_plane.cl: -DPLANE_ELEMS=<array elements>"
#endif
/*
 * Plane path (-DPLANE_ELEMS=n; CPUs with 512-bit vectors, stride 1 without
 * Indices: SPP and SPPF windows, 5x5 to 13x13 on rows as narrow as 20). A
 * work-item owns a band of `band_rows` output rows of one plane. It copies
 * the band's input rows into a private array as compared values (keys), each
 * row followed by `gap` lowest values (at least the windows' reach past
 * either end of a row, so the gap serves as the right padding of one row and
 * the left padding of the next) and rows outside the plane all lowest. The
 * window maximum is then separable and, the array being flat, each direction
 * runs over the whole band at full vector width whatever the row width:
 * across (taps 1 apart) into a second array, then down (taps P = W + gap
 * apart) straight into the output rows, tap by tap or by the log-step
 * (PLANE_LOG_STEP). Column blocks (the 2-D path's) had left 12 of 32 lanes
 * idle on 20-wide rows and capped every tap of their edge blocks.
 *
 * Exactness: every combine keeps its first operand on ties and the first
 * operand's range starts first, so the result is the row-major first
 * maximum (ranges may overlap: the first maximum lies in the first range, or
 * the first range holds nothing as high). NaN and, for float16/bfloat16,
 * -0 are watched as on the fast path, and such a band is redone by the exact
 * path. The host sizes the band so the arrays fit PLANE_ELEMS elements.
 */

/* dst[x] = the first maximum of src[x + j * step], j < taps, for x in [0, n)
 * in FVW steps. */
__attribute__((always_inline)) static inline void plane_pass(FAST_ELEM *dst, const FAST_ELEM *src, const int n, const int taps,
                                                      const int step)
{
    for (int x = 0; x < n; x += FVW) {
        fast_vec v = PLANE_AT(src, x);
#pragma unroll
        for (int j = 1; j < taps; ++j) v = MAX_KEEP_FIRST(v, PLANE_AT(src, x + j * step));
        PLANE_AT(dst, x) = v;
    }
}

/* a[from, to) = the lowest value (vector stores; may write up to FVW - 1 past `to`). */
__attribute__((always_inline)) static inline void plane_fill(FAST_ELEM *a, const int from, const int to)
{
    for (int x = from; x < to; x += FVW) PLANE_AT(a, x) = (fast_vec)(FAST_LOWEST);
}

/* Windows of up to 11 taps a side are combined tap by tap; 12 and 13 (the
 * 2-D path's limit) by the log-step: 4 taps, then 8 (pairs 4 apart), then
 * the pair 8 - k apart. A 512-bit store costs about two loads, so an extra
 * pass (two loads and a store) pays only for the longest windows. */
#define PLANE_LOG_STEP(k) ((k) > 11)
/* Taps of the last vertical combine (the one into the output rows), P apart
 * times PLANE_V_STEP. */
#define PLANE_V_TAPS (PLANE_LOG_STEP(KH) ? 2 : KH)
#define PLANE_V_STEP (PLANE_LOG_STEP(KH) ? KH - 8 : 1)

__kernel CLPOOL_WIDE_VECTORS void maxpool2d_plane(__global const T *in, __global T *out, const clpool__maxpool2d_sizes sz)
{
    const long H = sz.H, W = sz.W, OH = sz.OH, OW = sz.OW, pad_h = sz.pad_h, pad_w = sz.pad_w, in_offset = sz.in_offset,
               out_offset = sz.out_offset, in_limit = sz.in_limit, planes = sz.planes, band_rows = sz.rows, gap = sz.gap;
    const long nc = (long)get_global_id(0), oh0 = (long)get_global_id(1) * band_rows;
    if (nc >= planes || oh0 >= OH) return;
    __global const T *plane = in + in_offset + nc * H * W;
    out += out_offset;
    const long o = (nc * OH + oh0) * OW; /* the band's first output */
    const int rows = (int)min(OH - oh0, band_rows), in_rows = rows + KH - 1;
    const int P = (int)(W + gap), lead = (int)gap, w = (int)W;
    const long h0 = oh0 - pad_h;
    const long buf_lo = -(in_offset + nc * H * W), buf_hi = in_limit + buf_lo;
    const int n = lead + in_rows * P, n_up = (n + FVW - 1) / FVW * FVW;
    /* 64-byte aligned: the passes store whole cache lines */
    FAST_ELEM a[PLANE_ELEMS] __attribute__((aligned(64))), b[PLANE_ELEMS] __attribute__((aligned(64)));

    /* The band's rows as keys, gaps and rows outside the plane lowest, and
     * the arrays' tails (read by the passes' last vectors) lowest too. */
    fast_watch ok = FAST_WATCH_INIT;
    plane_fill(a, 0, lead);
    for (int i = 0; i < in_rows; ++i) {
        const long h = h0 + i;
        const int at = lead + i * P;
        if (!row_inside_plane(h, (int)H)) {
            plane_fill(a, at, at + P);
            continue;
        }
        if (w >= FVW) {
            for (int j = 0; j < w; j += FVW) {
                const int jj = min(j, w - FVW); /* the last vector ends at the row's end */
                const fast_bits raw = FAST_LOAD(__global, plane + h * W + jj);
                FAST_WATCH(&ok, raw, raw);
                PLANE_AT(a, at + jj) = FAST_KEY(raw);
            }
        } else { /* one vector reaching past the row (the gap fill overwrites the rest) */
            fast_bits raw;
            if (h * W + FVW <= buf_hi) {
                raw = FAST_LOAD(__global, plane + h * W);
            } else {
                T copy[FVW];
                for (int e = 0; e < FVW; ++e) copy[e] = h * W + e < buf_hi ? plane[h * W + e] : LOWEST_BITS;
                raw = FAST_LOAD(__private, copy);
            }
            FAST_WATCH(&ok, raw, raw);
            PLANE_AT(a, at) = FAST_KEY(raw);
        }
        plane_fill(a, at + w, at + P);
    }
    plane_fill(a, n, n_up + 2 * FVW + KW);
    plane_fill(b, n_up, n_up + 2 * FVW + KW);

    /* across: the windows' maxima of each row into b */
    if (PLANE_LOG_STEP(KW)) {
        plane_pass(b, a, n_up, 4, 1);
        plane_pass(a, b, n_up, 2, 4);
        plane_pass(b, a, n_up, 2, KW - 8);
    } else {
        plane_pass(b, a, n_up, KW, 1);
    }
    /* down, in b too: the last combine goes straight to the output rows */
    if (PLANE_LOG_STEP(KH)) {
        plane_pass(a, b, n - 3 * P, 4, P);
        plane_pass(b, a, n - 7 * P, 2, 4 * P);
    }
    const int first_col = lead - (int)pad_w, step = PLANE_V_STEP * P;
    for (int r = 0; r < rows; ++r) {
        for (long ow = 0; ow < OW; ow += FVW) {
            const long col = block_start(ow, OW, FVW);
            const int x = first_col + r * P + (int)col, lanes = (int)min(OW - col, (long)FVW);
            fast_vec v = PLANE_AT(b, x);
#pragma unroll
            for (int j = 1; j < PLANE_V_TAPS; ++j) v = MAX_KEEP_FIRST(v, PLANE_AT(b, x + j * step));
            WATCH_OUTPUT(&ok, v);
            STORE_FAST(FAST_BITS(v), lanes, out + o + r * OW + col);
        }
    }
    band_redo_if_watched(ok, plane, out, H, W, h0, pad_w, OW, rows, o, nc, buf_lo, buf_hi);
}
