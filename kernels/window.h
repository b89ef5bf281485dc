/*
 * Window taps, for every window kernel: window o of a dim starts at
 * s = o * stride - pad_begin, tap j sits at s + j * dilation, and the taps
 * inside the input [0, in) are j in [window_tap_lo, window_tap_hi).
 */

/* ceil(a / d) for d >= 1, 0 for a <= 0, without the overflow of (a + d - 1) / d
 * (dilations and pads may be near 2^63). */
static inline long tap_ceil_div(long a, long d)
{
    if (d == 1) return a > 0 ? a : 0; /* no dilation: no 64-bit division (tens of cycles) */
    return a > 0 ? (a - 1) / d + 1 : 0;
}

/* The first tap at >= 0. */
static inline long window_tap_lo(long s, long dilation) { return tap_ceil_div(-s, dilation); }

/* The first tap at >= in, at most the window's `taps` (its kernel_shape; "kernel" is an OpenCL C keyword). */
static inline long window_tap_hi(long s, long in, long dilation, long taps)
{
    return min(tap_ceil_div(in - s, dilation), taps);
}

/* The taps a window's divisor counts along a dim (AveragePool): those inside
 * the input, or with count_pad those inside [-pad_begin, in + pad_end); a
 * window starts at s >= -pad_begin, so only the end bound cuts. */
static inline long window_taps_counted(long s, long in, long pad_end, long dilation, long taps, long count_pad)
{
    if (count_pad) return window_tap_hi(s, in + pad_end, dilation, taps);
    return max(window_tap_hi(s, in, dilation, taps) - window_tap_lo(s, dilation), 0L);
}

#ifdef NS
/* The N-D kernels (-DNS): a work-item's row of outputs along the last dim,
 * its taps on the other dims walked as an odometer. */
#define LAST (NS - 1)
#define OUTER_SLOTS (NS > 1 ? NS - 1 : 1) /* no zero-length arrays */

/* The taps on every dim but the last of output row `out_row` (a position in
 * N, C and those dims): start[d] (tap 0's coordinate), the taps [lo[d],
 * hi[d]) inside the input, j[d] = lo[d]. Returns the row's plane (n * C + c). */
static inline long outer_taps(const clpool__window_geom *w, long out_row, long *start, long *lo, long *hi, long *j)
{
    long rem = out_row;
    for (int d = LAST - 1; d >= 0; --d) {
        const long o = rem % w->out_dims[d];
        rem /= w->out_dims[d];
        const long s = o * w->strides[d] - w->pad_begin[d], dl = w->dilations[d];
        start[d] = s;
        lo[d] = window_tap_lo(s, dl);
        hi[d] = window_tap_hi(s, w->in_dims[d], dl, w->kernel_shape[d]);
        j[d] = lo[d];
    }
    return rem;
}

/* The input row (within the plane) of taps j[] on every dim but the last. */
static inline long tap_row(const clpool__window_geom *w, const long *start, const long *j)
{
    long row = 0;
    for (int d = 0; d < LAST; ++d) row = row * w->in_dims[d] + start[d] + j[d] * w->dilations[d];
    return row;
}

/* The place of the tap row j[] among the window's rows (row-major over the outer dims' taps). */
static inline long window_row_at(const clpool__window_geom *w, const long *j)
{
    long r = 0;
    for (int d = 0; d < LAST; ++d) r = r * w->kernel_shape[d] + j[d];
    return r;
}

/* Steps j[] to the next row of taps in row-major order; 0 after the last
 * (j[] is then back at lo[]). */
static inline int next_tap_row(const long *lo, const long *hi, long *j)
{
#if NS > 1
    for (int d = LAST - 1; d >= 0; --d) {
        if (++j[d] < hi[d]) return 1;
        j[d] = lo[d];
    }
#else
    (void)lo;
    (void)hi;
    (void)j;
#endif
    return 0;
}
#endif
