#ifndef FLAT_ELEMS
#error "maxpool2d_flat.cl: -DFLAT_ELEMS=<array elements>"
#endif
/*
 * Flat path (-DFLAT_ELEMS=n; types of at most 4 bytes
 * at stride 1 without Indices on CPUs with 512-bit vectors, 1- and 2-byte
 * types widened as on the fast path, windows whose output rows are
 * as wide as the input's, OW == W: "same" padding, where column blocks would
 * idle, as SPPF's 5x5/p2 on 20-wide rows, and SPP's 9x9 and 13x13; the host
 * chooses, flat_path in host/maxpool.c). A work-item owns a band of `band_rows` output
 * rows of one plane and runs over it as one flat run of elements, FVW at a
 * time whatever the row width: an input position's window maximum across
 * (taps dc = kw - pad_w apart, a lane's tap taken where its column plus dc
 * stays in the row) goes to a private array, then the maximum down (taps W
 * apart, the array's rows outside the plane the lowest value) straight to the
 * output. Column blocks had left 12 of 32 lanes idle on 20-wide rows and
 * capped every tap of their edge blocks. Ties keep the first in tap order
 * (across in column order, then down in row order): the row-major first
 * maximum. A NaN in the band's input (a 16-bit float's -0 too, or a NaN
 * key on top of an output: the keys rank unlike NaNs) sends it to the exact path.
 */
/* The tap vector at `at` (elements from `plane`); through a private copy
 * where it would leave the buffer (elements outside it the lowest value:
 * they lie outside the row, so the column masks drop them). */
__attribute__((always_inline)) static inline fast_bits flat_load(__global const T *plane, const long at, const int guarded,
                                                          const long buf_lo, const long buf_hi)
{
    if (guarded && (at < buf_lo || at + FVW > buf_hi)) {
        T copy[FVW];
        for (int e = 0; e < FVW; ++e) copy[e] = at + e >= buf_lo && at + e < buf_hi ? plane[at + e] : LOWEST_BITS;
        return FAST_LOAD(__private, copy);
    }
    return FAST_LOAD(__global, plane + at);
}

/* The first maximum of v[0..n) in order, as a tree: each combine keeps its
 * first operand on ties, and its first operand's taps come first. */
#define FIRST_MAX_TREE(v, n)                                                                       \
    do {                                                                                           \
        _Pragma("unroll") for (int span_ = 1; span_ < (n); span_ *= 2)                           \
            _Pragma("unroll") for (int i_ = 0; i_ + span_ < (n); i_ += 2 * span_)                 \
                (v)[i_] = MAX_KEEP_FIRST((v)[i_], (v)[i_ + span_]);                                \
    } while (0)

/* v = MAX_KEEP_FIRST(v, t) in the lanes `inside`: one masked vmaxps where clang
 * compiles float32 for AVX-512 (x86 maxps(t, v) keeps v on ties); LLVM had
 * made the select a compare and a masked move. */
#if defined(__clang__) && defined(__x86_64__) && defined(__AVX512F__) && defined(DT_FLOAT32) && FVW == 16
#define FLAT_TAKE(v, t, inside) ((v) = (inside) ? __builtin_ia32_maxps512((t), (v), 4) : (v))
#else
#define FLAT_TAKE(v, t, inside) ((v) = (inside) ? MAX_KEEP_FIRST((v), (t)) : (v))
#endif

/* Lane columns, unsigned and as wide as the compared values, so that a
 * compare gives a fast_mask in one instruction: 1-byte types take rows of
 * at most 127 (col + step < 2W; the host checks). */
#define FLAT_COL_ELEM CLPOOL_XPASTE(u, MASK_SCALAR)
#if WIDE_VECTORS
typedef FLAT_COL_ELEM flat_col __attribute__((ext_vector_type(FVW)));
#else
typedef CLPOOL_XPASTE(FLAT_COL_ELEM, VW) flat_col;
#endif

/* a[q..q+FVW) = the windows' maxima across of elements q.. (the plane's
 * at0 + q..), whose columns are *col; steps *col on to element q + FVW.
 * The dc = 0 tap, which reads each element once, is watched. */
__attribute__((always_inline)) static inline void flat_across(FAST_ELEM *a, const int q, __global const T *plane,
                                                       const long at0, const int guarded, const long buf_lo,
                                                       const long buf_hi, const int w, flat_col *col, const int step,
                                                       fast_watch *ok, const int PAD_W)
{
    fast_vec v = (fast_vec)(FAST_LOWEST);
#pragma unroll
    for (int kw = 0; kw < KW; ++kw) {
        const int dc = kw - PAD_W;
        const fast_bits raw = flat_load(plane, at0 + q + dc, guarded, buf_lo, buf_hi);
        if (dc == 0) FAST_WATCH(ok, raw, raw);
        const fast_vec t = FAST_KEY(raw);
        /* no lane's tap at dc >= w lies in its row (w - dc is not a column then) */
        const fast_mask inside = dc < 0   ? *col >= (FLAT_COL_ELEM)(-dc)
                                 : dc > 0 ? (w > dc ? *col < (FLAT_COL_ELEM)(w - dc) : (fast_mask)0)
                                          : (fast_mask)(-1);
        FLAT_TAKE(v, t, inside);
    }
    PLANE_AT(a, q) = v;
    *col += (FLAT_COL_ELEM)step;
    *col = *col >= (FLAT_COL_ELEM)w ? *col - (FLAT_COL_ELEM)w : *col;
}

/* A work-item of the kernel for left pad PAD_W (a constant in each). */
SHARED_ITEM void flat_band(__global const T *in, __global T *out, const clpool__maxpool2d_sizes sz, const int PAD_W)
{
    const long H = sz.H, W = sz.W, OH = sz.OH, OW = sz.OW, pad_h = sz.pad_h, pad_w = sz.pad_w, in_offset = sz.in_offset,
               out_offset = sz.out_offset, in_limit = sz.in_limit, planes = sz.planes, band_rows = sz.rows;
    const long nc = (long)get_global_id(0), oh0 = (long)get_global_id(1) * band_rows;
    if (nc >= planes || oh0 >= OH) return;
    __global const T *plane = in + in_offset + nc * H * W;
    const long o = out_offset + (nc * OH + oh0) * OW; /* the band's first output */
    const int rows = (int)min(OH - oh0, band_rows), in_rows = rows + KH - 1, w = (int)W;
    const long h0 = oh0 - pad_h; /* the array's first row */
    const long buf_lo = -(in_offset + nc * H * W), buf_hi = in_limit + buf_lo;
    /* the array's rows inside the plane: [i_lo, i_hi) */
    const int i_lo = (int)max(-h0, 0L), i_hi = (int)min((long)in_rows, H - h0);
    const int q_lo = i_lo * w, q_hi = i_hi * w;
    const long at0 = h0 * W; /* the array's element q is the plane's at0 + q */
    const int guarded = at0 + q_lo - PAD_W < buf_lo || at0 + q_hi + FVW + KW > buf_hi;
    FAST_ELEM a[FLAT_ELEMS] __attribute__((aligned(64)));
    /* The next plane's band, which is mostly this thread's next work-item
     * (PoCL hands a thread consecutive work-groups): its input, and its
     * output lines for writing. SPPF's 20x20 planes are 1.6 KiB apiece, too
     * short a run for the hardware prefetcher. */
    if ((q_hi - q_lo) * (long)sizeof(T) <= PREFETCH_PLANE_BYTES) {
        prefetch_bytes(plane + H * W + at0 + q_lo, (q_hi - q_lo) * (long)sizeof(T));
        prefetch_write_bytes(out + o + OH * OW, rows * OW * (long)sizeof(T));
    }

    for (int q = 0; q < q_lo; q += FVW) PLANE_AT(a, q) = (fast_vec)(FAST_LOWEST);
    fast_watch ok = FAST_WATCH_INIT;
    /* per lane the column of element q (the run starts at a row's first) */
    flat_col col = (flat_col)(LANES(LANE_ID, FVW, 0, 0));
    for (int k = w; k < FVW; k += w) col = col >= (FLAT_COL_ELEM)w ? col - (FLAT_COL_ELEM)w : col;
    const int step = FVW % w;
    if (guarded)
        for (int q = q_lo; q < q_hi; q += FVW) flat_across(a, q, plane, at0, 1, buf_lo, buf_hi, w, &col, step, &ok, PAD_W);
    else
        for (int q = q_lo; q < q_hi; q += FVW) flat_across(a, q, plane, at0, 0, 0, 0, w, &col, step, &ok, PAD_W);
    for (int q = q_hi; q < in_rows * w + FVW; q += FVW) PLANE_AT(a, q) = (fast_vec)(FAST_LOWEST);
    /* down, straight to the output */
    const int n = rows * w;
    for (int p = 0; p < n; p += FVW) {
        fast_vec v[KH];
#pragma unroll
        for (int kh = 0; kh < KH; ++kh) v[kh] = PLANE_AT(a, p + kh * w);
        FIRST_MAX_TREE(v, KH);
        WATCH_OUTPUT(&ok, v[0]);
        STORE_FAST(FAST_BITS(v[0]), min(n - p, FVW), out + o + p);
    }
    band_redo_if_watched(ok, plane, out, H, W, h0, pad_w, OW, rows, o, nc, buf_lo, buf_hi);
}

/* maxpool2d_flat_p<n>: a kernel per left pad n (OW == W holds for pads 0 to
 * KW - 1 only), one program for them all, so that every pad shares it. */
#define FLAT_ARGS __global const T *in, __global T *out, const clpool__maxpool2d_sizes sz
__kernel CLPOOL_WIDE_VECTORS void maxpool2d_flat_p0(FLAT_ARGS) { flat_band(in, out, sz, 0); }
#if KW > 1
__kernel CLPOOL_WIDE_VECTORS void maxpool2d_flat_p1(FLAT_ARGS) { flat_band(in, out, sz, 1); }
#endif
#if KW > 2
__kernel CLPOOL_WIDE_VECTORS void maxpool2d_flat_p2(FLAT_ARGS) { flat_band(in, out, sz, 2); }
#endif
#if KW > 3
__kernel CLPOOL_WIDE_VECTORS void maxpool2d_flat_p3(FLAT_ARGS) { flat_band(in, out, sz, 3); }
#endif
#if KW > 4
__kernel CLPOOL_WIDE_VECTORS void maxpool2d_flat_p4(FLAT_ARGS) { flat_band(in, out, sz, 4); }
#endif
#if KW > 5
__kernel CLPOOL_WIDE_VECTORS void maxpool2d_flat_p5(FLAT_ARGS) { flat_band(in, out, sz, 5); }
#endif
#if KW > 6
__kernel CLPOOL_WIDE_VECTORS void maxpool2d_flat_p6(FLAT_ARGS) { flat_band(in, out, sz, 6); }
#endif
#if KW > 7
__kernel CLPOOL_WIDE_VECTORS void maxpool2d_flat_p7(FLAT_ARGS) { flat_band(in, out, sz, 7); }
#endif
#if KW > 8
__kernel CLPOOL_WIDE_VECTORS void maxpool2d_flat_p8(FLAT_ARGS) { flat_band(in, out, sz, 8); }
#endif
#if KW > 9
__kernel CLPOOL_WIDE_VECTORS void maxpool2d_flat_p9(FLAT_ARGS) { flat_band(in, out, sz, 9); }
#endif
#if KW > 10
__kernel CLPOOL_WIDE_VECTORS void maxpool2d_flat_p10(FLAT_ARGS) { flat_band(in, out, sz, 10); }
#endif
#if KW > 11
__kernel CLPOOL_WIDE_VECTORS void maxpool2d_flat_p11(FLAT_ARGS) { flat_band(in, out, sz, 11); }
#endif
#if KW > 12
__kernel CLPOOL_WIDE_VECTORS void maxpool2d_flat_p12(FLAT_ARGS) { flat_band(in, out, sz, 12); }
#endif
