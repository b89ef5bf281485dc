/* The window layer (window.h): the rules of ONNX's windowed ops written once. */
#include <string.h>

#include "window.h"

clpool_status clpool__window_params_init(clpool_window_params *w, int32_t spatial_rank, const int64_t *kernel_shape,
                                         const char *fn)
{
    CLPOOL_REQUIRE_NOT_NULL(kernel_shape, fn);
    if (spatial_rank < 1 || spatial_rank > CLPOOL_MAX_SPATIAL)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: spatial_rank %d is outside 1..%d", fn,
                            (int)spatial_rank, CLPOOL_MAX_SPATIAL);
    memset(w, 0, sizeof *w);
    w->struct_size = sizeof *w;
    w->spatial_rank = spatial_rank;
    for (int32_t i = 0; i < spatial_rank; ++i) {
        w->kernel_shape[i] = kernel_shape[i];
        w->strides[i] = 1;
        w->dilations[i] = 1;
    }
    return CLPOOL_SUCCESS;
}

clpool_status clpool_window_params_init(clpool_window_params *params, int32_t spatial_rank, const int64_t *kernel_shape)
{
    CLPOOL_REQUIRE_NOT_NULL(params, "clpool_window_params_init");
    return clpool__window_params_init(params, spatial_rank, kernel_shape, "clpool_window_params_init");
}

clpool_status clpool__window_check(const clpool_window_params *p, const char *fn)
{
    const int32_t ns = p->spatial_rank;
    if (ns < 1 || ns > CLPOOL_MAX_SPATIAL)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: spatial_rank %d is outside 1..%d", fn, (int)ns,
                            CLPOOL_MAX_SPATIAL);
    for (int32_t i = 0; i < ns; ++i) {
        if (p->kernel_shape[i] < 1)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: kernel_shape[%d] = %lld must be >= 1", fn, (int)i,
                                (long long)p->kernel_shape[i]);
        if (p->strides[i] < 1)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: strides[%d] = %lld must be >= 1", fn, (int)i,
                                (long long)p->strides[i]);
        if (p->dilations[i] < 1)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: dilations[%d] = %lld must be >= 1", fn, (int)i,
                                (long long)p->dilations[i]);
    }
    for (int32_t i = 0; i < 2 * ns; ++i) {
        if (p->pads[i] < 0)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: pads[%d] = %lld must be >= 0", fn, (int)i,
                                (long long)p->pads[i]);
        if (p->pads[i] != 0 && p->auto_pad != CLPOOL_AUTO_PAD_NOTSET)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: pads must be 0 when auto_pad is not NOTSET (pads[%d] = %lld)",
                                fn, (int)i, (long long)p->pads[i]);
    }
    if (p->ceil_mode != 0 && p->ceil_mode != 1)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: ceil_mode = %d must be 0 or 1", fn, (int)p->ceil_mode);
    if (p->auto_pad < CLPOOL_AUTO_PAD_NOTSET || p->auto_pad > CLPOOL_AUTO_PAD_VALID)
        return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT, "%s: auto_pad = %d is not a clpool_auto_pad value", fn,
                            (int)p->auto_pad);
    return CLPOOL_SUCCESS;
}

/* Does window `o` of a dim hold at least one tap inside [0, in)? */
static int window_has_tap(int64_t o, int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb)
{
    const int64_t start = o * s - pb;
    const int64_t lo = start < 0 ? (-start - 1) / d + 1 : 0; /* ceil(-start / d), no overflow */
    return lo < k && start + lo * d < in;
}

/* x mod m in [0, m), m > 0. */
static int64_t mod_floor(__int128 x, int64_t m)
{
    const __int128 r = x % m;
    return (int64_t)(r < 0 ? r + m : r);
}

/* The least x >= 0 with L <= (A * x) mod M <= R, or -1 if none (0 <= A < M, 0 <= L <= R < M): the
 * least multiple of A at or past L if it is at most R, else the same question one level down (Euclid's
 * steps on A and M), in 128-bit products (gcc and clang). */
static int64_t first_multiple_in(int64_t A, int64_t M, int64_t L, int64_t R)
{
    if (L == 0) return 0;
    if (A == 0) return -1;
    __int128 x = ((__int128)L + A - 1) / A;
    if ((__int128)A * x <= R) return (int64_t)x;
    /* no multiple of A in [L, R]: A x - M y lands in it for the least y with (M y) mod A in
     * [(-R) mod A, (-L) mod A], an interval that does not wrap */
    const int64_t y = first_multiple_in(M % A, A, (A - R % A) % A, (A - L % A) % A);
    if (y < 0) return -1;
    x = ((__int128)M * y + L + A - 1) / A;
    return (__int128)A * x - (__int128)M * y <= R ? (int64_t)x : -1;
}

/* Under CLPOOL__WINDOW_NEEDS_TAP: the first output of a dim whose window has
 * no tap inside the input, or -1. A window starting inside [0, in) holds its
 * first tap and one starting at or past `in` none. Of those starting in the
 * begin padding, window o's first tap at or past 0 comes no later in its
 * window than window 0's and lies at (o * s - pb) mod d: where d <= in always
 * inside the input, else the first o whose residue reaches `in` is the first
 * empty window (first_multiple_in: pads and dilations near 2^63 stay quick). */
static int64_t first_empty_window(int64_t in, int64_t out, int64_t k, int64_t s, int64_t d, int64_t pb)
{
    const int64_t first_inside = pb / s + (pb % s != 0); /* first o with start >= 0 */
    const int64_t first_after = (in + pb) / s + ((in + pb) % s != 0); /* first o with start >= in */
    if (!window_has_tap(0, in, k, s, d, pb)) return 0;
    const int64_t padded = first_inside < out ? first_inside : out; /* windows 1 .. padded - 1 in the padding */
    if (d > in && padded > 1) {
        /* window 1 + x: residue (x * s + c) mod d, empty where it is in [in, d) */
        const int64_t A = s % d, c = mod_floor((__int128)s - pb, d);
        const int64_t lo = mod_floor((__int128)in - c, d), hi = mod_floor((__int128)d - 1 - c, d);
        int64_t x = -1;
        if (lo <= hi) {
            x = first_multiple_in(A, d, lo, hi);
        } else { /* the interval wraps: [lo, d) and [0, hi] */
            const int64_t x1 = first_multiple_in(A, d, lo, d - 1), x2 = first_multiple_in(A, d, 0, hi);
            x = x1 < 0 ? x2 : x2 < 0 ? x1 : x1 < x2 ? x1 : x2;
        }
        if (x >= 0 && x < padded - 1) return 1 + x;
    }
    return first_after < out ? first_after : -1;
}

clpool_status clpool__window_size(const clpool_shape *input, const clpool_window_params *p, unsigned rules,
                                  const char *fn, clpool__window *w)
{
    clpool_status status = clpool__check_shape(input, fn, "input shape", NULL);
    if (status != CLPOOL_SUCCESS) return status;
    if ((status = clpool__window_check(p, fn)) != CLPOOL_SUCCESS) return status;
    if (input->rank < 3)
        return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE, "%s: input rank %d must be >= 3 (N x C x D1 ...)", fn,
                            (int)input->rank);
    const int32_t ns = input->rank - 2;
    if (p->spatial_rank != ns)
        return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE,
                            "%s: kernel_shape has %d dims but the input has %d spatial dims", fn, (int)p->spatial_rank,
                            (int)ns);
    memset(w, 0, sizeof *w);
    w->ns = ns;
    w->planes = input->dims[0] * input->dims[1];
    for (int32_t i = 0; i < ns; ++i) {
        const int64_t in = input->dims[2 + i], k = p->kernel_shape[i], s = p->strides[i], d = p->dilations[i];
        int64_t e, pb = p->pads[i], pe = p->pads[ns + i], out, span;
        /* e = (k-1)*d + 1; every later sum must also stay in range. */
        if (__builtin_mul_overflow(k - 1, d, &e) || __builtin_add_overflow(e, 1, &e) ||
            __builtin_add_overflow(in, pb, &span) || __builtin_add_overflow(span, pe, &span) ||
            __builtin_add_overflow(span, s, &out))
            return clpool__fail(CLPOOL_ERROR_OVERFLOW, "%s: kernel/dilation/pads along spatial axis %d overflow int64", fn,
                                (int)i);
        if (p->auto_pad == CLPOOL_AUTO_PAD_SAME_UPPER || p->auto_pad == CLPOOL_AUTO_PAD_SAME_LOWER) {
            out = in / s + (in % s != 0);
            /* the last window's end, (out - 1) * s <= in: the padded input, which must stay in range too */
            int64_t reach = 0;
            if (out > 0 && __builtin_add_overflow((out - 1) * s, e, &reach))
                return clpool__fail(CLPOOL_ERROR_OVERFLOW, "%s: kernel/dilation/pads along spatial axis %d overflow int64",
                                    fn, (int)i);
            int64_t total = out > 0 ? reach - in : 0;
            if (total < 0) total = 0;
            const int64_t small = total / 2;
            pb = p->auto_pad == CLPOOL_AUTO_PAD_SAME_UPPER ? small : total - small;
            pe = total - pb;
        } else {
            /* NOTSET and VALID (pads are 0) share the floor/ceil formula. */
            if (span < e)
                return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE,
                                    "%s: along spatial axis %d the padded input (%lld) is smaller than the dilated kernel (%lld)",
                                    fn, (int)i, (long long)span, (long long)e);
            out = (span - e) / s + 1;
            if (p->ceil_mode) {
                out += (span - e) % s != 0;
                /* A window may not start in the right padding (onnx PR 5741). */
                if ((out - 1) * s >= in + pb) --out;
            }
        }
        if (in == 0 || out <= 0)
            return clpool__fail(CLPOOL_ERROR_INVALID_SHAPE, "%s: spatial axis %d has size %lld, giving output size %lld", fn,
                                (int)i, (long long)in, (long long)out);
        const int64_t empty = rules & CLPOOL__WINDOW_NEEDS_TAP ? first_empty_window(in, out, k, s, d, pb) : -1;
        if (empty >= 0)
            return clpool__fail(CLPOOL_ERROR_INVALID_ARGUMENT,
                                "%s: output position %lld along spatial axis %d has a window with no input element "
                                "(pads/dilations too large for kernel_shape)",
                                fn, (long long)empty, (int)i);
        w->in[i] = in;
        w->out[i] = out;
        w->kernel_shape[i] = k;
        w->strides[i] = s;
        w->dilations[i] = d;
        w->pad_begin[i] = pb;
        w->pad_end[i] = pe;
    }
    /* The output's element count and bytes must fit as the input's do: pads can make it the larger. */
    clpool_shape out;
    clpool__window_output_shape(input, w, &out);
    return clpool__check_shape(&out, fn, "output shape", NULL);
}

void clpool__window_copy_dim(clpool__window *w, int32_t to, const clpool__window *from, int32_t i)
{
    w->in[to] = from->in[i];
    w->out[to] = from->out[i];
    w->kernel_shape[to] = from->kernel_shape[i];
    w->strides[to] = from->strides[i];
    w->dilations[to] = from->dilations[i];
    w->pad_begin[to] = from->pad_begin[i];
    w->pad_end[to] = from->pad_end[i];
}

void clpool__window_tap_dim(clpool__window *w, int32_t to, int64_t n)
{
    w->in[to] = w->out[to] = n;
    w->kernel_shape[to] = w->strides[to] = w->dilations[to] = 1;
    w->pad_begin[to] = w->pad_end[to] = 0;
}

/* Whether spatial dim i passes its input through: a window of one tap at each element. */
static int passes_through(const clpool__window *w, int32_t i)
{
    return w->kernel_shape[i] == 1 && w->pad_begin[i] == 0 && w->out[i] == w->in[i] &&
           (w->strides[i] == 1 || w->in[i] == 1);
}

int clpool__window_fold(const clpool__window *w, clpool__window *out)
{
    const int32_t ns = w->ns;
    int folds = ns == 1; /* (calls ask on every enqueue: most have no one-tap dim, so no copy then) */
    for (int32_t i = 0; i < ns && !folds; ++i) folds = passes_through(w, i);
    if (!folds) return 0;
    /* the leading dims that fold: those ahead of the first window wider than a tap */
    int32_t lead = 0;
    while (lead < ns && passes_through(w, lead)) ++lead;
    if (lead == ns) lead = ns > 2 ? ns - 2 : 0;
    clpool__window kept = *w; /* the dims that stay, a run of one-tap windows as one */
    kept.ns = 0;
    for (int32_t i = 0; i < ns; ++i) {
        const int pass = passes_through(w, i);
        if (i < lead)
            kept.planes *= w->in[i];
        else if (pass && kept.ns > 0 && passes_through(&kept, kept.ns - 1))
            kept.in[kept.ns - 1] = kept.out[kept.ns - 1] *= w->in[i];
        else if (pass)
            clpool__window_tap_dim(&kept, kept.ns++, w->in[i]);
        else
            clpool__window_copy_dim(&kept, kept.ns++, w, i);
    }
    if (kept.ns == ns && ns > 1) return 0;
    *out = kept;
    out->ns = 0;
    while (out->ns + kept.ns < 2) clpool__window_tap_dim(out, out->ns++, 1); /* rank 2: dims of one element ahead */
    for (int32_t i = 0; i < kept.ns; ++i) clpool__window_copy_dim(out, out->ns++, &kept, i);
    return 1;
}

void clpool__window_output_shape(const clpool_shape *input, const clpool__window *w, clpool_shape *output)
{
    memset(output, 0, sizeof *output);
    output->rank = input->rank;
    output->dims[0] = input->dims[0];
    output->dims[1] = input->dims[1];
    for (int32_t i = 0; i < w->ns; ++i) output->dims[2 + i] = w->out[i];
}

int64_t clpool__window_in_elements(const clpool__window *w)
{
    int64_t n = w->planes;
    for (int32_t i = 0; i < w->ns; ++i) n *= w->in[i];
    return n;
}

int64_t clpool__window_out_elements(const clpool__window *w)
{
    int64_t n = w->planes;
    for (int32_t i = 0; i < w->ns; ++i) n *= w->out[i];
    return n;
}
