/*
 * Window taps, for every window kernel: window o of a dim starts at
 * s = o * stride - pad_begin, tap j sits at s + j * dilation, and the taps
 * inside the input [0, in) are j in [window_tap_lo, window_tap_hi).
 */

/* ceil(a / d) for d >= 1, 0 for a <= 0, without the overflow of (a + d - 1) / d
 * (dilations and pads may be near 2^63). */
static inline long tap_ceil_div(long a, long d) { return a > 0 ? (a - 1) / d + 1 : 0; }

/* The first tap at >= 0. */
static inline long window_tap_lo(long s, long dilation) { return tap_ceil_div(-s, dilation); }

/* The first tap at >= in, at most the window's `taps` (its kernel_shape; "kernel" is an OpenCL C keyword). */
static inline long window_tap_hi(long s, long in, long dilation, long taps)
{
    return min(tap_ceil_div(in - s, dilation), taps);
}
