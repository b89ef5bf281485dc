/*
 * 3-D MaxPool in one pass (float32, row-major Indices or none, no dilation, CPUs; host/maxpool.c, fused_3d): -DKD
 * -DKH -DKW (unrolled), -DSH, -DSW (1 or 2), -DWITH_INDICES; depth stride and pads are run-time. A work-item runs
 * down a band of one plane's output rows in 16-column strips, rows in (d, h) and taps in w order, the earlier kept on
 * ties (+0/-0 too); a strip that loaded a NaN is redone by a scalar scan (first NaN wins). Unlike the two-pass form
 * it writes and reads no intermediate tensor.
 */
#if !defined(DT_FLOAT32)
#error "maxpool3d.cl: float32 only"
#endif
#ifndef WITH_INDICES
#define WITH_INDICES 0
#endif
#define VW 16
typedef float16 V;
typedef int16 VMASK;

/* Elements a tap's load reads from its first column: 16, or 32 whose even
 * lanes are the taps at stride 2. */
#define TAP_SPAN (SW * VW)

/* Element-aligned 16-float loads (common.h's T16_elem_aligned): one 512-bit
 * load each (vload16 pairs were split into 256-bit halves and inserts). */
#define LOAD16(space, p) (*(space const T16_elem_aligned *)(p))

static inline V tap_from(const V a, const V b)
{
#if SW == 1
    (void)b;
    return a;
#elif defined(__clang__)
    return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
#else
    return (V)(a.even, b.even);
#endif
}

/* The tap vector whose lane 0 reads element `at` of `in` (lanes SW apart);
 * `guarded`: through a private copy, elements outside the buffer lowest
 * (they lie outside the row, so the column masks drop them). */
__attribute__((always_inline)) static inline V tap_load(__global const float *in, const long at, const int guarded,
                                                 const long in_limit)
{
    if (guarded && (at < 0 || at + TAP_SPAN > in_limit)) {
        float copy[TAP_SPAN];
        for (int e = 0; e < TAP_SPAN; ++e) copy[e] = at + e >= 0 && at + e < in_limit ? in[at + e] : -INFINITY;
        return tap_from(LOAD16(__private, copy), LOAD16(__private, copy + (SW - 1) * VW));
    }
    return tap_from(LOAD16(__global, in + at), LOAD16(__global, in + at + (SW - 1) * VW));
}

/* The exact result of the output whose window starts at (d0, h0, w0): the
 * first NaN, else the first maximum, in (d, h, w) order; *at = its offset
 * in the plane. */
__attribute__((always_inline)) static inline float exact_output(__global const float *in, const long plane_at, const long d0,
                                                         const long h0, const long w0, const clpool__maxpool3d_sizes *s,
                                                         long *at)
{
    float best = 0;
    int have = 0;
    for (long d = max(d0, 0L); d < min(d0 + KD, s->D); ++d)
        for (long h = max(h0, 0L); h < min(h0 + KH, s->H); ++h)
            for (long w = max(w0, 0L); w < min(w0 + KW, s->W); ++w) {
                const long e = (d * s->H + h) * s->W + w;
                const float v = in[plane_at + e];
                if (!have || MAX_BETTER(v, best)) best = v, *at = e;
                have = 1;
            }
    return best;
}

/* A row's (or a window's) first maximum per lane and, with Indices, its tap:
 * kw within a row, (kd * KH + kh) * KW + kw within a window. */
typedef struct lane_best {
    V v;
    VMASK tap;
} lane_best;

/* best = the first maximum of best (earlier taps) and t (later ones): ties keep best. */
__attribute__((always_inline)) static inline void take_later(lane_best *best, const lane_best t, const int tap_base)
{
#if WITH_INDICES
    const VMASK later = isgreater(t.v, best->v);
    best->v = select(best->v, t.v, later);
    best->tap = select(best->tap, tap_base + t.tap, later);
#else
    (void)tap_base;
    best->v = MAX_KEEP_FIRST(best->v, t.v);
#endif
}

/* The first maximum of a row's KW taps for 16 outputs (lane 0's first tap
 * at element row_at), taps outside the row (edge strips: *inside) lowest
 * (with Indices they never win: the window's first tap starts the
 * comparison, see output_strip); clears lanes of *ordered where a tap is NaN. */
__attribute__((always_inline)) static inline lane_best row_max(__global const float *in, const long row_at, const int guarded,
                                                        const long in_limit, const int edge, const VMASK *inside,
                                                        VMASK *ordered)
{
    lane_best m = {(V)(-INFINITY), (VMASK)0};
#pragma unroll
    for (int kw = 0; kw < KW; ++kw) {
        V v = tap_load(in, row_at + kw, guarded, in_limit);
        *ordered &= v == v;
        if (edge) v = select((V)(-INFINITY), v, inside[kw]);
        if (kw == 0)
            m.v = v;
        else
            take_later(&m, (lane_best){v, (VMASK)kw}, 0);
    }
    return m;
}

/* Rows a window shares with the next output row's (KH - SH where SH < KH),
 * whose maxima a column strip carries down instead of loading again. */
#define CARRY (KH > SH ? KH - SH : 0)
#define CARRY_SLOTS (CARRY > 0 ? CARRY : 1)

/*
 * Output rows [oh_from, oh_to) of the 16-column strip from output column
 * ow0 (`lanes` of them) of output depth slice `slice` (first input slice
 * d0): down the strip, each output row loads the SH new rows of each of its
 * KD slices and carries the rest. A NaN anywhere in the strip's taps sends
 * the whole strip to exact_output. With Indices (row-major), a lane's window
 * starts from its first tap inside the input, the lowest value, and takes
 * only strictly greater ones; its winner's tap gives the flat index.
 */
__attribute__((always_inline)) static inline void output_strip(__global const float *in, __global float *out,
                                                        __global long *indices, const long nc, const long plane_at,
                                                        const long slice, const long d0, const long oh_from,
                                                        const long oh_to, const long ow0, const int lanes,
                                                        const int guarded, const int edge, const clpool__maxpool3d_sizes *s)
{
    const long H = s->H, W = s->W, w0 = ow0 * SW - s->pad_w; /* lane 0's first tap column */
    VMASK inside[KW];
    const VMASK lane_col = (int)w0 + (VMASK)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) * SW;
    VMASK first_kw = (VMASK)(KW - 1); /* a lane's first tap inside the row */
#pragma unroll
    for (int kw = KW - 1; kw >= 0; --kw) {
        inside[kw] = lane_col + kw >= 0 && lane_col + kw < (int)W;
        first_kw = select(first_kw, (VMASK)kw, inside[kw]);
    }
    int slice_in[KD];
#pragma unroll
    for (int kd = 0; kd < KD; ++kd) slice_in[kd] = d0 + kd >= 0 && d0 + kd < s->D;
    const int first_kd = (int)max(-d0, 0L); /* the window's first slice inside the input */
    VMASK ordered = (VMASK)(-1); /* lanes that loaded no NaN */
    /* the row maximum of input row h of slice kd (lowest outside the input) */
#define ROW(kd, h)                                                                                   \
    (slice_in[kd] && (h) >= 0 && (h) < H                                                            \
         ? row_max(in, plane_at + ((d0 + (kd)) * H + (h)) * W + w0, guarded, s->in_limit, edge, inside, \
                   &ordered)                                                                         \
         : (lane_best){(V)(-INFINITY), (VMASK)0})
    lane_best carry[KD][CARRY_SLOTS];
    const long h_first = oh_from * SH - s->pad_h;
#pragma unroll
    for (int kd = 0; kd < KD; ++kd)
#pragma unroll
        for (int j = 0; j < CARRY; ++j) carry[kd][j] = ROW(kd, h_first + j);
    for (long oh = oh_from; oh < oh_to; ++oh) {
        const long h0 = oh * SH - s->pad_h;
        if (ow0 == 0) /* the first strip: this output row's rows of the next depth window's new slices */
            for (long d = max(d0 + s->stride_d, d0 + KD); d < d0 + s->stride_d + KD; ++d)
#pragma unroll
                for (int kh = 0; kh < KH; ++kh)
                    if (oh == oh_from || kh >= CARRY)
                        prefetch_bytes(in + plane_at + (d * H + h0 + kh) * W, W * (long)sizeof(float));
        const int first_kh = (int)max(-h0, 0L);
        lane_best best = {(V)(-INFINITY), (first_kd * KH + first_kh) * KW + first_kw};
#pragma unroll
        for (int kd = 0; kd < KD; ++kd) {
            lane_best rows[KH];
#pragma unroll
            for (int kh = 0; kh < KH; ++kh) rows[kh] = kh < CARRY ? carry[kd][kh] : ROW(kd, h0 + kh);
            /* (d, h) order: the row-major first maximum */
#pragma unroll
            for (int kh = 0; kh < KH; ++kh) take_later(&best, rows[kh], (kd * KH + kh) * KW);
#pragma unroll
            for (int j = 0; j < CARRY; ++j) carry[kd][j] = rows[SH + j];
        }
        const long o = (slice * s->OH + oh) * s->OW + ow0;
        STORE_LANES(T, STORE_BITSV, best.v, lanes, out + s->out_offset + o);
#if WITH_INDICES
        /* the winner's (d, h, w) in the plane, then the plane's first element's flat index */
        const VMASK kd = best.tap / (KH * KW), kh = best.tap / KW % KH, kw = best.tap % KW;
        const VMASK at = (((int)d0 + kd) * (int)H + (int)h0 + kh) * (int)W + lane_col + kw;
        STORE_LANES(long, STORE_LONGV, convert_long16(at) + nc * s->D * H * W, lanes, indices + s->idx_offset + o);
#endif
    }
#undef ROW
    if (all(ordered)) return;
    for (long oh = oh_from; oh < oh_to; ++oh) {
        const long o = (slice * s->OH + oh) * s->OW + ow0;
        for (int l = 0; l < lanes; ++l) {
            long at = 0;
            out[s->out_offset + o + l] = exact_output(in, plane_at, d0, oh * SH - s->pad_h, w0 + l * SW, s, &at);
#if WITH_INDICES
            indices[s->idx_offset + o + l] = nc * s->D * H * W + at;
#endif
        }
    }
}

#if WITH_INDICES
#define INDICES_ARG __global long *indices,
#else
#define INDICES_ARG
#endif
__kernel CLPOOL_WIDE_VECTORS void maxpool3d(__global const float *in, __global float *out, INDICES_ARG const clpool__maxpool3d_sizes sz)
{
#if !WITH_INDICES
    __global long *indices = 0;
#endif
    const long item = (long)get_global_id(0);
    const long band = item % sz.bands, nc = item / sz.bands;
    if (nc >= sz.planes) return;
    const long plane_elems = sz.D * sz.H * sz.W, plane_at = sz.in_offset + nc * plane_elems;
    const long oh_from = band * sz.band_rows, oh_to = min(oh_from + sz.band_rows, sz.OH);
    if (oh_from >= sz.OH) return;
    /* Loads reach at most pad_w (< the window) before a row, and past the
     * plane's last row at most 2 * TAP_SPAN + the window (a block's 16 lanes
     * from the row's last window, or from column -pad_w on rows narrower
     * than a block); only planes at either end of the buffer can leave it. */
    const long reach = 2 * TAP_SPAN + (KW - 1);
    const int guarded = plane_at - sz.pad_w < 0 || plane_at + plane_elems + reach > sz.in_limit;
    const int lanes = (int)min(sz.OW, (long)VW);
    for (long od = 0; od < sz.OD; ++od) {
        const long d0 = od * sz.stride_d - sz.pad_d, slice = nc * sz.OD + od;
        for (long ow = 0; ow < sz.OW; ow += VW) {
            /* the last strip ends at the row's end (overlapping the one before) */
            const long ow0 = sz.OW >= VW ? min(ow, sz.OW - VW) : 0;
            /* edge strips mask the taps outside the row; specialised on that and on guarded */
            const long w0 = ow0 * SW - sz.pad_w;
            const int edge = w0 < 0 || w0 + (VW - 1) * SW + (KW - 1) >= sz.W;
            if (guarded)
                output_strip(in, out, indices, nc, plane_at, slice, d0, oh_from, oh_to, ow0, lanes, 1, 1, &sz);
            else if (edge)
                output_strip(in, out, indices, nc, plane_at, slice, d0, oh_from, oh_to, ow0, lanes, 0, 1, &sz);
            else
                output_strip(in, out, indices, nc, plane_at, slice, d0, oh_from, oh_to, ow0, lanes, 0, 0, &sz);
        }
    }
}
