/*
 * MaxPool: the general kernels (-DNS=<spatial rank>, any attributes) and the
 * 2-D kernels (-DKH.., the common windows), all with -DVW (a work-item's
 * vector lanes: outputs side by side along a row, or in maxpool_window a
 * window's taps), -DWITH_INDICES=0|1,
 * -DSTORAGE_ORDER=0|1 and a DT_* dtype macro (common.h). No barriers: on
 * PoCL a work-item's vectors are its SIMD, on GPUs neighbouring work-items
 * read neighbouring input. The host rejects attributes that leave a window
 * without a tap inside the input.
 */

/* Constant lane lists for __builtin_shufflevector and vector literals:
 * LANES(f, n, m, p) = f(0, n, m, p), ..., f(n - 1, n, m, p) for n = 8, 16, 32, 64. */
#define LANES8(f, b, n, m, p)                                                                           \
    f((b) + 0, n, m, p), f((b) + 1, n, m, p), f((b) + 2, n, m, p), f((b) + 3, n, m, p), f((b) + 4, n, m, p), \
        f((b) + 5, n, m, p), f((b) + 6, n, m, p), f((b) + 7, n, m, p)
#define LANES_8(f, n, m, p) LANES8(f, 0, n, m, p)
#define LANES_16(f, n, m, p) LANES8(f, 0, n, m, p), LANES8(f, 8, n, m, p)
#define LANES_32(f, n, m, p) LANES_16(f, n, m, p), LANES8(f, 16, n, m, p), LANES8(f, 24, n, m, p)
#define LANES_64(f, n, m, p) \
    LANES_32(f, n, m, p), LANES8(f, 32, n, m, p), LANES8(f, 40, n, m, p), LANES8(f, 48, n, m, p), LANES8(f, 56, n, m, p)
#define LANES(f, n, m, p) CLPOOL_XPASTE(LANES_, n)(f, n, m, p)
#define LANE_ID(j, n, m, p) (j)
#define EVEN_SRC(j, n, m, p) (2 * (j))
#define ODD_SRC(j, n, m, p) (2 * (j) + 1)
#define LANE_IDS ((INTV(VW))(LANES(LANE_ID, VW, 0, 0)))

/* Every SW-th of 16 * SW elements from p (SW 3 or 4, 16 lanes, clang):
 * lanes below element 32 from the first two vectors, the rest from the
 * third and fourth. Where x86 has 512-bit registers an empty asm keeps each
 * load whole: LLVM had split them into a dozen narrow loads and inserts
 * per tap. */
#define STRIDED_LO(j, n, s, p) ((j) * (s) < 32 ? (j) * (s) : 0)
#define STRIDED_HI(j, n, s, p) ((j) * (s) >= 32 ? (j) * (s) - 32 : 0)
#define STRIDED_PICK(j, n, s, p) ((j) * (s) < 32 ? (j) : 16 + (j))
#if defined(__x86_64__) && defined(__AVX512F__) && !defined(DT_FLOAT64) /* a register holds 16 lanes */
#define WHOLE_LOAD(v) __asm__("" : "+v"(v))
#else
#define WHOLE_LOAD(v) (void)0
#endif
#if defined(__clang__) && VW == 16 && (SW == 3 || SW == 4)
#define STRIDED16_TAPS 1 /* both kernels' taps at strides 3 and 4 */
__attribute__((always_inline)) inline T16 strided16(T16 v0, T16 v1, T16 v2, T16 v3)
{
    WHOLE_LOAD(v0);
    WHOLE_LOAD(v1);
    WHOLE_LOAD(v2);
    WHOLE_LOAD(v3);
    const T16 lo = __builtin_shufflevector(v0, v1, LANES(STRIDED_LO, 16, SW, 0));
    const T16 hi = __builtin_shufflevector(v2, v3, LANES(STRIDED_HI, 16, SW, 0));
    return __builtin_shufflevector(lo, hi, LANES(STRIDED_PICK, 16, SW, 0));
}
/* (any address space) */
#define STRIDED_LOAD16(p) strided16(vload16(0, (p)), vload16(1, (p)), vload16(2, (p)), vload16(SW == 4 ? 3 : 2, (p)))
#else
#define STRIDED16_TAPS 0
#endif

#if defined(NS)
/*
 * The general kernel: any rank, kernel, stride, dilation and padding as run-time data (maxpool_geom), so one program
 * per rank, dtype, Indices variant, lanes (-DVW, -DNB) and last-dim stride class (-DSW) serves every attribute set.
 * A work-item owns NB blocks of VW outputs of one output row; taps load as vectors where the stride allows and update
 * the best with a select, never a data-dependent branch (those mispredict on random data). Each lane starts from its
 * first tap inside the input and takes only strictly better taps: padding never wins, ties keep the first tap.
 */

/* Mirrors clpool__maxpool_geom in host/maxpool.c (all 64-bit, no padding). */
typedef struct maxpool_geom {
    long in_dims[CLPOOL_KERNEL_MAX_SPATIAL];
    long out_dims[CLPOOL_KERNEL_MAX_SPATIAL];
    long ksize[CLPOOL_KERNEL_MAX_SPATIAL]; /* "kernel" is an OpenCL C keyword */
    long stride[CLPOOL_KERNEL_MAX_SPATIAL];
    long pad_begin[CLPOOL_KERNEL_MAX_SPATIAL];
    long dilation[CLPOOL_KERNEL_MAX_SPATIAL];
    long in_plane;  /* elements of one (n, c) input plane */
    long items;     /* work-items that do work: column blocks x output rows */
    long in_offset; /* element offsets into the buffers */
    long out_offset;
    long idx_offset;
    long in_limit; /* elements in the input cl_mem: vector loads may read up to here */
} maxpool_geom;

#define LAST (NS - 1)
#define OUTER_SLOTS (NS > 1 ? NS - 1 : 1) /* no zero-length arrays */
/* VW elements base[at[0]], ..., base[at[VW - 1]] (at: a private long array). */
#define GATHER_SRC(j, n, base, at) ((base)[(at)[j]])
#define GATHER(base, at) ((TV(VW))(LANES(GATHER_SRC, VW, base, at)))
/* SW = 1 to 4 (the last dim's stride; 3 and 4 only with 16 lanes, through
 * clang's shuffles): a tap's VW lanes load as vectors from lane 0's element
 * p, reading TAP_SPAN elements; VW loads of single elements otherwise (x86's
 * gathers ran stride 3 at a third of the speed). */
#if SW == 1 || SW == 2 || STRIDED16_TAPS
#define VECTOR_TAPS 1
#define TAP_SPAN (SW * VW)
#if SW == 1
#define TAP_LOAD(p) VLOADV(VW, p)
#elif SW == 2 && VW == 16
#define TAP_LOAD(p) ((T16)(vload16(0, (p)).even, vload16(1, (p)).even))
#elif SW == 2
#define TAP_LOAD(p) (vload16(0, (p)).even)
#else
#define TAP_LOAD(p) STRIDED_LOAD16(p)
#endif
#else
#define VECTOR_TAPS 0
#endif
/* The last dim's stride: a constant where taps load as vectors. */
#if VECTOR_TAPS
#define STRIDE_W SW
#else
#define STRIDE_W g.stride[LAST]
#endif
/* float16/bfloat16 compare order keys kept beside the bits; the other types
 * compare the bits themselves. */
#if defined(DT_FLOAT16) || defined(DT_BFLOAT16)
#define SEPARATE_KEYS 1
#else
#define SEPARATE_KEYS 0
#endif
#define ALL_LANES ((MASKV(VW))(-1))

/* float32/float64 without Indices first try the value path: a plain max
 * per tap (x86's maxps keeps the first of equal values and a NaN already
 * taken) and, beside it, watch += v - v, which turns NaN at a NaN or an
 * infinity. Where the watch stays clean the maxima are exact; otherwise the
 * work-item starts over on the exact path (strict compares, the NaN rule).
 * The exact path's three compares per tap had kept x86's one compare port
 * busy. */
#if !WITH_INDICES && (defined(DT_FLOAT32) || defined(DT_FLOAT64))
#define VALUE_PATH 1
#else
#define VALUE_PATH 0
#endif

/* The best taps so far of a work-item's NB blocks of VW lanes. NB blocks
 * side by side keep NB compare-select chains in flight: one block's chain,
 * a compare and a select per tap, had left the core waiting on it. */
typedef struct maxpool_best {
    TV(VW) bits[NB];
#if SEPARATE_KEYS
    KTV(VW) key[NB];
#endif
#if WITH_INDICES
    LONGV(VW) at[NB]; /* in-plane offsets */
#endif
#if VALUE_PATH
    TV(VW) watch[NB];
#endif
} maxpool_best;

/* Block b's lanes take tap v (storage bits) where it is strictly better and
 * `inside` is set; at + cols: the lanes' in-plane offsets. */
inline void take_tap(maxpool_best *best, int b, TV(VW) v, MASKV(VW) inside, long at, LONGV(VW) cols, int exact)
{
#if VALUE_PATH
    if (!exact) {
        const TV(VW) u = select(best->bits[b], v, inside); /* padding lanes offer the best itself */
        best->bits[b] = MAX_KEEP_FIRST(best->bits[b], u);
        best->watch[b] += u - u;
        return;
    }
#else
    (void)exact;
#endif
    const KTV(VW) k = KEYV(VW, v);
#if SEPARATE_KEYS
    const MASKV(VW) take = BETTERV(VW, k, best->key[b]) & inside;
    best->key[b] = select(best->key[b], k, take);
#else
    const MASKV(VW) take = BETTERV(VW, k, best->bits[b]) & inside;
#endif
    best->bits[b] = select(best->bits[b], v, take);
#if WITH_INDICES
    best->at[b] = select(best->at[b], at + cols, LONG_MASKV(VW, take));
#else
    (void)at;
    (void)cols;
#endif
}

/* ceil(a / d) for a >= 0, d >= 1, without the overflow of (a + d - 1) / d
 * (dilations and pads may be near 2^63). */
inline long ceil_div(long a, long d) { return a > 0 ? (a - 1) / d + 1 : 0; }

/* The taps on every dim but the last of output row `out_row` (a position in
 * N, C and those dims): start[d] (tap 0's coordinate), the taps [lo[d],
 * hi[d]) inside the input, j[d] = lo[d]. Returns the row's plane (n * C + c). */
inline long outer_taps(const maxpool_geom *g, long out_row, long *start, long *lo, long *hi, long *j)
{
    long rem = out_row;
    for (int d = LAST - 1; d >= 0; --d) {
        const long o = rem % g->out_dims[d];
        rem /= g->out_dims[d];
        const long s = o * g->stride[d] - g->pad_begin[d], dl = g->dilation[d];
        start[d] = s;
        lo[d] = ceil_div(-s, dl);                                  /* first tap at >= 0 */
        hi[d] = min(ceil_div(g->in_dims[d] - s, dl), g->ksize[d]); /* first tap at >= in */
        j[d] = lo[d];
    }
    return rem;
}

/* The input row (within the plane) of taps j[] on every dim but the last. */
inline long tap_row(const maxpool_geom *g, const long *start, const long *j)
{
    long row = 0;
    for (int d = 0; d < LAST; ++d) row = row * g->in_dims[d] + start[d] + j[d] * g->dilation[d];
    return row;
}

/* Steps j[] to the next row of taps in row-major order; 0 after the last
 * (j[] is then back at lo[]). */
inline int next_tap_row(const long *lo, const long *hi, long *j)
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

/* An in-plane offset as the Indices count it: column-major (the first
 * spatial dim fastest) with storage_order 1. */
inline long spatial_index(const maxpool_geom *g, long at)
{
#if STORAGE_ORDER == 1
    long coord[NS];
    for (int d = NS - 1; d >= 0; --d) {
        coord[d] = at % g->in_dims[d];
        at /= g->in_dims[d];
    }
    for (int d = NS - 1; d >= 0; --d) at = at * g->in_dims[d] + coord[d];
#else
    (void)g;
#endif
    return at;
}

/* Both general kernels' arguments: input, output, Indices (if wanted), geometry. */
#if WITH_INDICES
#define GENERAL_ARGS __global const T *in, __global T *out, __global long *indices, const maxpool_geom g
#else
#define GENERAL_ARGS __global const T *in, __global T *out, const maxpool_geom g
#endif

__kernel CLPOOL_WIDE_VECTORS void maxpool(GENERAL_ARGS)
{
    const long gid = (long)get_global_id(0);
    if (gid >= g.items) return;
    const long OW = g.out_dims[LAST], row_items = (OW + NB * VW - 1) / (NB * VW);
    const long out_row = gid / row_items, ow0 = (gid - out_row * row_items) * (NB * VW);

    long start[OUTER_SLOTS], lo[OUTER_SLOTS], hi[OUTER_SLOTS], j[OUTER_SLOTS];
    const long nc = outer_taps(&g, out_row, start, lo, hi, j);
    const long plane_at = g.in_offset + nc * g.in_plane;
    __global const T *plane = in + plane_at;

    /* Along the last dim: lane l's tap kw is column col0 + lane_at[l] + kw * DW. */
    const long W = g.in_dims[LAST], KW = g.ksize[LAST], DW = g.dilation[LAST];
    const long col0 = ow0 * STRIDE_W - g.pad_begin[LAST];
    const int live = (int)min((long)(NB * VW), OW - ow0); /* lanes with an output */
    long lane_at[NB * VW], first_col[NB * VW];
    for (int l = 0; l < NB * VW; ++l) {
        lane_at[l] = (VECTOR_TAPS ? l : min(l, live - 1)) * STRIDE_W;
        const long c = col0 + lane_at[l];
        first_col[l] = min(c + ceil_div(-c, DW) * DW, W - 1); /* the lane's first tap inside */
    }
    LONGV(VW) lane_cols[NB];
#pragma unroll
    for (int b = 0; b < NB; ++b) lane_cols[b] = VLOADV(VW, lane_at + b * VW);
    /* Taps [in_lo, in_hi) have every live lane inside the row. */
    const long last_col = col0 + (live - 1) * STRIDE_W;
    const long in_lo = min(ceil_div(-col0, DW), KW);
    const long in_hi = max(min(KW, ceil_div(W - last_col, DW)), in_lo);
    /* Taps [any_lo, any_hi) have some live lane inside; the rest are all padding. */
    const long any_lo = min(ceil_div(-last_col, DW), in_lo), any_hi = max(min(KW, ceil_div(W - col0, DW)), in_hi);

    const long first_row = tap_row(&g, start, j);
    maxpool_best best;
    for (int exact = !VALUE_PATH;; exact = 1) {
#pragma unroll
        for (int b = 0; b < NB; ++b) {
            best.bits[b] = GATHER(plane + first_row * W, first_col + b * VW);
#if SEPARATE_KEYS
            best.key[b] = KEYV(VW, best.bits[b]);
#endif
#if WITH_INDICES
            best.at[b] = first_row * W + VLOADV(VW, first_col + b * VW);
#endif
#if VALUE_PATH
            best.watch[b] = best.bits[b] - best.bits[b];
#endif
        }
        /* j[] holds each dim's first tap (the odometer ends where it starts) */
        for (;;) {
            const long row_at = tap_row(&g, start, j) * W;
            long fast_hi = in_hi;
#if VECTOR_TAPS /* the vector loads stay inside the input buffer */
            const long room = g.in_limit - (plane_at + row_at + col0 + NB * TAP_SPAN);
            fast_hi = room < 0 ? in_lo : max(min(fast_hi, room / DW + 1), in_lo);
#endif
            for (long kw = any_lo; kw < any_hi; ++kw) {
                const long c = col0 + kw * DW; /* lane 0's column */
                const long at = row_at + c;
                if (kw >= in_lo && kw < fast_hi) {
#pragma unroll
                    for (int b = 0; b < NB; ++b) {
#if VECTOR_TAPS
                        const TV(VW) v = TAP_LOAD(plane + at + b * VW * SW);
#else
                        const TV(VW) v = GATHER(plane + at, lane_at + b * VW);
#endif
                        take_tap(&best, b, v, ALL_LANES, at, lane_cols[b], exact);
                    }
                } else { /* lanes in the padding: masked out */
                    /* The columns grow with the lane: lanes [first, end) are inside. */
                    const long stride = STRIDE_W;
                    const int first = (int)min(ceil_div(-c, stride), (long)(NB * VW));
                    const int end = (int)min(ceil_div(W - c, stride), (long)(NB * VW));
#pragma unroll
                    for (int b = 0; b < NB; ++b) {
                        const INTV(VW) lane = LANE_IDS + b * VW;
                        const MASKV(VW) inside = TO_MASKV(VW, (lane >= first) & (lane < end));
                        TV(VW) v;
#if VECTOR_TAPS /* the neighbouring rows' elements, where the vector stays in the buffer */
                        const long from = plane_at + at + b * VW * SW;
                        if (from >= 0 && from + TAP_SPAN <= g.in_limit) {
                            v = TAP_LOAD(in + from);
                        } else
#endif
                        {
                            long clamped[VW];
                            for (int l = 0; l < VW; ++l) clamped[l] = clamp(c + lane_at[b * VW + l], 0L, W - 1);
                            v = GATHER(plane + row_at, clamped);
                        }
                        take_tap(&best, b, v, inside, at, lane_cols[b], exact);
                    }
                }
            }
            if (!next_tap_row(lo, hi, j)) break;
        }
#if VALUE_PATH
        int clean = 1;
#pragma unroll
        for (int b = 0; b < NB; ++b) clean &= MASK_ALL(best.watch[b] == best.watch[b]);
        if (clean) break;
#endif
        if (exact) break;
    }

#pragma unroll
    for (int b = 0; b < NB; ++b) {
        const int lanes = min(live - b * VW, VW);
        if (lanes <= 0) break;
        const long out_at = out_row * OW + ow0 + b * VW;
        STORE_LANES(T, STORE_BITSV, best.bits[b], lanes, out + g.out_offset + out_at);
#if WITH_INDICES && STORAGE_ORDER == 1
        long at[VW];
        VSTOREV(VW, best.at[b], at);
        for (int l = 0; l < lanes; ++l) indices[g.idx_offset + out_at + l] = nc * g.in_plane + spatial_index(&g, at[l]);
#elif WITH_INDICES
        STORE_LANES(long, STORE_LONGV, nc * g.in_plane + best.at[b], lanes, indices + g.idx_offset + out_at);
#endif
    }
}

/*
 * The window kernel (maxpool_window): rows of few outputs under wide windows
 * (a window over a whole plane, as in CBAM's channel attention; SPP's bins),
 * where the row kernel's lanes, one per output, would mostly idle (a 28x28
 * window over 28x28 planes: 1 lane of 16). A work-item owns one output; its
 * lanes are WCHUNKS * VW consecutive taps of the window along the last dim,
 * for every row of taps on the other dims in turn. Every lane starts from
 * the window's first tap inside the input and keeps its first strictly
 * better tap and that tap's in-plane offset; the lanes are then reduced to
 * the best, ties to the smaller offset, which is the first in row-major
 * order (the NaN rule: any NaN is best, the first of them wins).
 */
#define WCHUNKS 2 /* chunks of VW taps side by side: two compare-select chains */
/* A lane's best tap, as its offset in the plane: an int where the host
 * knows planes hold at most INT_MAX elements (-DWINDOW_INT_AT=1), so one
 * select and one add per chunk, not two of each (long vectors fill two
 * registers). */
#if defined(WINDOW_INT_AT) && WINDOW_INT_AT
#define WINDOW_AT int
#define WINDOW_ATV INTV(VW)
#define WINDOW_CONVERT_AT(x) (x)
#define WINDOW_AT_MASK(m) CONVERT_INTV(VW, m)
#else
#define WINDOW_AT long
#define WINDOW_ATV LONGV(VW)
#define WINDOW_CONVERT_AT(x) CONVERT_LONGV(VW, x)
#define WINDOW_AT_MASK(m) LONG_MASKV(VW, m)
#endif
#if SEPARATE_KEYS
#define BITS_BETTER(x, y) (ORDER_KEY(x) > ORDER_KEY(y))
#else
#define BITS_BETTER(x, y) MAX_BETTER(x, y)
#endif

__kernel CLPOOL_WIDE_VECTORS void maxpool_window(GENERAL_ARGS)
{
    const long gid = (long)get_global_id(0);
    if (gid >= g.items) return;
    const long OW = g.out_dims[LAST], out_row = gid / OW, ow = gid - out_row * OW;
    long start[OUTER_SLOTS], lo[OUTER_SLOTS], hi[OUTER_SLOTS], j[OUTER_SLOTS];
    const long nc = outer_taps(&g, out_row, start, lo, hi, j);
    const long plane_at = g.in_offset + nc * g.in_plane;
    __global const T *plane = in + plane_at;

    /* Along the last dim: tap t (0..taps-1) inside the input is column c_first + t * DW. */
    const long W = g.in_dims[LAST], KW = g.ksize[LAST], DW = g.dilation[LAST];
    const long s = ow * g.stride[LAST] - g.pad_begin[LAST];
    const long klo = ceil_div(-s, DW);
    const long taps = min(ceil_div(W - s, DW), KW) - klo, c_first = s + klo * DW;
    const INTV(VW) lane = LANE_IDS;
    const WINDOW_ATV lane_cols = WINDOW_CONVERT_AT(min(lane, (int)min(taps - 1, (long)VW - 1))) * (WINDOW_AT)DW; /* in range */

    const long first_at = tap_row(&g, start, j) * W + c_first;
    TV(VW) bits[WCHUNKS];
    WINDOW_ATV at[WCHUNKS];
#if SEPARATE_KEYS
    KTV(VW) key[WCHUNKS];
#define CHUNK_KEY(a) key[a]
#else
#define CHUNK_KEY(a) bits[a]
#endif
#pragma unroll
    for (int a = 0; a < WCHUNKS; ++a) {
        bits[a] = (TV(VW))(plane[first_at]);
        at[a] = (WINDOW_ATV)((WINDOW_AT)first_at);
#if SEPARATE_KEYS
        key[a] = KEYV(VW, bits[a]);
#endif
    }
    for (;;) {
        const long row_at = tap_row(&g, start, j) * W + c_first;
        for (long t = 0; t < taps; t += WCHUNKS * VW) {
#pragma unroll
            for (int a = 0; a < WCHUNKS; ++a) {
                const long t0 = t + a * VW;
                if (t0 >= taps) break;
                const int n = (int)min((long)VW, taps - t0); /* taps in this chunk */
                const long at0 = row_at + t0 * DW;
                TV(VW) v;
                if (DW == 1 && plane_at + at0 + VW <= g.in_limit) {
                    v = VLOADV(VW, plane + at0);
                } else {
                    long tap_at[VW];
                    for (int l = 0; l < VW; ++l) tap_at[l] = min(l, n - 1) * DW;
                    v = GATHER(plane + at0, tap_at);
                }
                const KTV(VW) k = KEYV(VW, v);
                const MASKV(VW) take = BETTERV(VW, k, CHUNK_KEY(a)) & TO_MASKV(VW, lane < n);
#if SEPARATE_KEYS
                key[a] = select(key[a], k, take);
#endif
                bits[a] = select(bits[a], v, take);
                at[a] = select(at[a], (WINDOW_AT)at0 + lane_cols, WINDOW_AT_MASK(take));
            }
        }
        if (!next_tap_row(lo, hi, j)) break;
    }

    T lane_bits[WCHUNKS * VW];
    WINDOW_AT lane_at[WCHUNKS * VW];
#pragma unroll
    for (int a = 0; a < WCHUNKS; ++a) {
        VSTOREV(VW, bits[a], lane_bits + a * VW);
        VSTOREV(VW, at[a], lane_at + a * VW);
    }
    T win = lane_bits[0];
    long win_at = (long)lane_at[0];
    for (int l = 1; l < WCHUNKS * VW; ++l) {
        const T x = lane_bits[l];
        if (BITS_BETTER(x, win) || (!BITS_BETTER(win, x) && lane_at[l] < win_at)) {
            win = x;
            win_at = (long)lane_at[l];
        }
    }
    out[g.out_offset + gid] = win;
#if WITH_INDICES
    indices[g.idx_offset + gid] = nc * g.in_plane + spatial_index(&g, win_at);
#endif
}
#endif /* NS */

/* Mirrors clpool__maxpool2d_sizes in host/maxpool.c (all 64-bit, no
 * padding): the 2-D kernels' run-time sizes as one by-value argument, since
 * PoCL copies every argument (an aligned malloc each) at every enqueue. */
typedef struct maxpool2d_sizes {
    long H, W, OH, OW; /* input and output plane */
    long pad_h, pad_w; /* padding before the first row and column */
    long in_offset, out_offset, idx_offset; /* element offsets into the buffers */
    long in_limit; /* elements in the input cl_mem: vector loads may read up to here */
    long planes;   /* N x C (plane and flat kernels) */
    long rows;     /* output rows per work-item */
    long gap;      /* plane kernel: fill elements between its array's rows */
} maxpool2d_sizes;

#if defined(KH)
/*
 * 2-D fast path for the common windows: kernel up to 13x13, strides 1 or 2 (3 and 4 with 16 lanes),
 * no dilation (other attributes take the general kernel above). Specialised
 * on kernel and stride (-DKH -DKW -DSH -DSW: small constants, loops fully
 * unrolled) over a 3-D NDRange (column block, row group, n*C), so no
 * work-item divides.
 *
 * A work-item owns VW (16, or 8 for 8-byte types) neighbouring outputs of
 * each of `block_rows` rows (a kernel argument) and loads each tap as one vector (vloadVW, or the even
 * lanes of wider loads at stride 2), with padding masked per lane: explicit
 * SIMD, which PoCL does not get from its work-item loops, and wide loads on
 * GPUs. A row whose vector loads would leave the input buffer itself
 * (first/last rows of a tensor at the very start/end of its cl_mem) is read
 * through a private copy (READ_ROW). in_limit = elements in the input
 * cl_mem; H and W must fit in int (the host checks).
 */

/*
 * Where a work-item's Indices go. -DINDEX_MAP=1 (with Indices, row-major):
 * the input is the first pass of 3-D pooling in two passes, and the flat
 * index of each winner, an offset into that pass's output, is mapped
 * through the first pass's own Indices (index_map) as it is stored, so that
 * every writer of an output (blocks shifted to a row's end overlap) writes
 * the same final index.
 */
#if !defined(INDEX_MAP)
#define INDEX_MAP 0
#endif
#if INDEX_MAP
typedef struct index_sink {
    __global long *at;
    __global const long *map;
} index_sink;
#else
typedef __global long *index_sink;
#endif

/*
 * Three paths: the fast path (no Indices), the argmax path (Indices) and
 * the exact path, which redoes the blocks the other two hand back (NaN, and
 * for the fast path float16/bfloat16 -0). The argmax and exact paths cover
 * VW outputs per row, ROWS and EXACT_ROWS rows. Without Indices a work-item covers
 * WIDEN * VW outputs per row (-DWIDEN, 1 unless the host asks for more:
 * 2 for 2-byte and 4 for 1-byte types on CPUs, so a vector fills a 512-bit
 * register). Where clang compiles straight to the CPU's own instruction set
 * (PoCL defines __x86_64__ or __aarch64__) the fast path runs on
 * FVW = WIDEN * VW lanes at once; elsewhere, SPIR/SPIR-V above all (rusticl
 * defines neither, nor always __SPIR__, and its backend rejects vectors of
 * more than 16 lanes), it runs WIDEN blocks of VW lanes one after another
 * (FAST_SUBBLOCKS). So do windows wider than 7 at stride 2 (their taps are
 * loaded one by one as the even lanes of vload16 pairs, VW lanes at most)
 * and strides 3 and 4 (four loads and shuffles per tap, 16 lanes).
 */
#ifndef WIDEN
#define WIDEN 1
#endif
#ifndef EXACT_ROWS
#error "-DEXACT_ROWS: output rows per exact-path block"
#endif
#if WIDEN > 1 && VW == 16 && defined(__clang__) && (defined(__x86_64__) || defined(__aarch64__)) && \
    (SW == 1 || (SW == 2 && KW <= 7))
#define WIDE_VECTORS 1
#define FAST_SUBBLOCKS 1
#if WIDEN == 2
#define FVW 32
#elif WIDEN == 4
#define FVW 64
#else
#error "WIDEN must be 1, 2 or 4"
#endif
#else
#define WIDE_VECTORS 0
#define FAST_SUBBLOCKS WIDEN
#define FVW VW
#endif

/* Tap kw = 2m + p of lane j: lane j + m of the even (p = 0) or odd (p = 1)
 * elements while it exists, then the third load's element 2(j - (n - m)) + p. */
#define TAP_SRC(j, n, m, p) ((j) < (n) - (m) ? (j) + (m) : (n) + 2 * ((j) - ((n) - (m))) + (p))
/* Lane j - 1 of the odd elements, lane 0 from the element before them. */
#define PREV_SRC(j, n, m, p) ((j) == 0 ? (n) : (j) - 1)

/*
 * Storage bits of the taps of n outputs at stride SW. ROW_TAPS (stride 2,
 * dilation 1, 16 lanes or more, clang): a kernel row's loads are shared by
 * all its taps: the row's even and odd elements (one two-source permute
 * each), and for kw >= 2 those shifted down by kw/2 lanes with the top lanes
 * from a third load. Separate loads per tap would each extract the even
 * lanes of two vectors, which LLVM turns into piecemeal loads for 1- and
 * 2-byte types. The loads start at the block's first output column times 2,
 * a multiple of 2n (aligned where rows are): an odd left pad (-DODD_START=1,
 * 3x3/s2/p1) puts the first window's column 1 before that, and its tap 0 is
 * the odd elements moved up a lane under that one element (a broadcast).
 * Loads from the window's column had split a cache line each: float32
 * 3x3/s2/p1 spent a fifth of its time on it. SPAN(n) = elements read from a
 * block's first window's column on one row.
 */
#ifndef ODD_START
#define ODD_START 0
#endif
#if SW == 2 && VW == 16 && KW <= 7 && defined(__clang__)
#define ROW_TAPS 1
#define THIRD_LOAD (KW - ODD_START > 2) /* a tap 2 or more past the loads' first column */
#define BEFORE_LOAD (2 + THIRD_LOAD)                 /* where the element before the loads goes (ODD_START) */
#define ROW_LOADS (BEFORE_LOAD + ODD_START)          /* vectors a row's loads fill (DEFINE_ROW_LOADS_IN) */
#define SPAN(n) (ODD_START + (THIRD_LOAD ? 3 : 2) * (n))
#define ROW_TAP(v, r2, n, m, p) __builtin_shufflevector(v, r2, LANES(TAP_SRC, n, m, p))
#else
#define ROW_TAPS 0
#define SPAN(n) ((KW - 1) + SW * (n))
#if SW == 1
#define TAPV(load, space, p) load(space, p)
#elif SW == 2 && VW == 8
#define TAPV(load, space, p) (vload16(0, (p)).even)
#elif SW == 2
#define TAPV(load, space, p) ((T16)(vload16(0, (p)).even, vload16(1, (p)).even))
#elif STRIDED16_TAPS
#define TAPV(load, space, p) STRIDED_LOAD16(p)
#else /* strides 3 and 4 element by element: compilers other than clang */
#define STRIDE_SRC(j, n, s, p) (p)[(j) * (s)]
#define TAPV(load, space, p) ((TV(VW))(LANES(STRIDE_SRC, VW, SW, p)))
#endif
#endif
/* The fast and argmax paths stream over a block's output rows: the next
 * output row's window shares CARRY input rows with this one's and adds NEW. */
#define CARRY (KH > SH ? KH - SH : 0)
#define NEW (KH - CARRY)
#define CARRY_SLOTS (CARRY > 0 ? CARRY : 1) /* no zero-length arrays */
/* Elements a block reads from its first column on one row: the fast path's
 * FAST_SUBBLOCKS loads or the exact path's WIDEN ones, whichever reach further. */
#define BLOCK_SPAN                                                                  \
    max(SPAN(FVW) + (FAST_SUBBLOCKS - 1) * FVW * SW, SPAN(VW) + (WIDEN - 1) * VW * SW)
#define VLOAD_VW(space, p) VLOADV(VW, p)

/* The storage bits of the type's lowest value (-inf for floats): what a
 * padding tap reads as when no Indices are wanted. It never beats a real tap,
 * and where it ties one the bits are the same. */
#if defined(DT_FLOAT32)
#define LOWEST_BITS (-INFINITY)
#elif defined(DT_FLOAT64)
#define LOWEST_BITS (-(double)INFINITY)
#elif defined(DT_FLOAT16)
#define LOWEST_BITS ((ushort)0xfc00)
#elif defined(DT_BFLOAT16)
#define LOWEST_BITS ((ushort)0xff80)
#elif defined(DT_INT8)
#define LOWEST_BITS ((char)-128)
#else
#define LOWEST_BITS ((uchar)0)
#endif

/*
 * DEFINE_ROW_TAPS(name, raw, type, n, watch_t, load, convert, watch):
 * `void name(row, taps, ok)` loads the KW tap vectors (n lanes) of one input
 * row as `type` from __global memory, `name_private` the same from a private
 * copy (READ_ROW); `load(space, p)` reads n storage elements (`raw`), `convert`
 * (lane-wise on the storage bits, so it commutes with the lane shuffles) is
 * applied once per loaded vector, and `watch(ok, a, b)` folds two loaded
 * vectors' storage bits into *ok (watch_t): the fast and argmax paths use it
 * to notice input the exact path must redo (NaN, float16/bfloat16 -0); the
 * exact path watches nothing. Under ODD_START it is given the converted taps
 * instead: only float32's fast path watches there, whose `convert` is the
 * identity.
 */
#if ROW_TAPS
/* name_loads(row, r, ok): a row's ROW_LOADS vectors, converted: its loads in
 * r[0..1] (r[2] too with THIRD_LOAD) and under ODD_START the element before
 * them, broadcast, in r[BEFORE_LOAD]. Under ODD_START it watches nothing:
 * name (below) watches the taps; its other caller, COLUMNS_FIRST, runs only
 * for types whose loads are not watched (integers, 16-bit floats). */
#define DEFINE_ROW_LOADS_IN(name, space, raw, type, n, watch_t, load, convert, watch)             \
    __attribute__((always_inline)) inline void name(space const T *row, type *r, watch_t *ok)      \
    {                                                                                              \
        space const T *from = row + ODD_START;                                                     \
        const raw a0 = load(space, from), a1 = load(space, from + (n));                            \
        /* without a tap 2 past `from` the third load is not made (SPAN) */                        \
        const raw a2 = THIRD_LOAD ? load(space, from + 2 * (n)) : a0;                              \
        const raw before = ODD_START ? (raw)(row[0]) : a0; /* the element before `from` */         \
        if (!ODD_START) { /* under ODD_START name (below) watches the taps */                     \
            watch(ok, a0, a1);                                                                     \
            if (THIRD_LOAD) watch(ok, a2, a2);                                                     \
        }                                                                                          \
        r[0] = convert(a0);                                                                        \
        r[1] = convert(a1);                                                                        \
        if (THIRD_LOAD) r[2] = convert(a2);                                                        \
        if (ODD_START) r[BEFORE_LOAD] = convert(before);                                           \
    }
/* The KW taps of n lanes from a row's loads r (name_loads), lane-wise
 * functions of the loaded elements taken before the shuffles. */
#define ROW_TAPS_OF_LOADS(type, n, r, taps)                                                        \
    do {                                                                                           \
        const type even = __builtin_shufflevector((r)[0], (r)[1], LANES(EVEN_SRC, n, 0, 0));       \
        const type odd = __builtin_shufflevector((r)[0], (r)[1], LANES(ODD_SRC, n, 0, 0));         \
        _Pragma("unroll") for (int kw = 0; kw < KW; ++kw)                                          \
        {                                                                                          \
            switch (kw - ODD_START) { /* a constant after unrolling: the tap's column past `from` */ \
            case -1: (taps)[kw] = __builtin_shufflevector(odd, (r)[BEFORE_LOAD], LANES(PREV_SRC, n, 0, 0)); break; \
            case 0: (taps)[kw] = even; break;                                                      \
            case 1: (taps)[kw] = odd; break;                                                       \
            case 2: (taps)[kw] = ROW_TAP(even, (r)[2], n, 1, 0); break;                            \
            case 3: (taps)[kw] = ROW_TAP(odd, (r)[2], n, 1, 1); break;                             \
            case 4: (taps)[kw] = ROW_TAP(even, (r)[2], n, 2, 0); break;                            \
            case 5: (taps)[kw] = ROW_TAP(odd, (r)[2], n, 2, 1); break;                             \
            default: (taps)[kw] = ROW_TAP(even, (r)[2], n, 3, 0); break;                           \
            }                                                                                      \
        }                                                                                          \
    } while (0)
#define DEFINE_ROW_TAPS_IN(name, loads, space, raw, type, n, watch_t, load, convert, watch)       \
    DEFINE_ROW_LOADS_IN(loads, space, raw, type, n, watch_t, load, convert, watch)                 \
    __attribute__((always_inline)) inline void name(space const T *row, type *taps, watch_t *ok)   \
    {                                                                                              \
        type r[4];                                                                                 \
        loads(row, r, ok);                                                                         \
        ROW_TAPS_OF_LOADS(type, n, r, taps);                                                       \
        /* Under ODD_START the taps are watched, in pairs, rather than the loads and `before`:   \
         * a compare of the splat or of tap 0 alone compiles to extra moves and shuffles. */      \
        if (ODD_START)                                                                             \
            _Pragma("unroll") for (int kw = 0; kw < KW; kw += 2) watch(ok, taps[kw], taps[min(kw + 1, KW - 1)]); \
    }
#else
#define DEFINE_ROW_TAPS_IN(name, loads, space, raw, type, n, watch_t, load, convert, watch)       \
    __attribute__((always_inline)) inline void name(space const T *row, type *taps, watch_t *ok)   \
    {                                                                                              \
        /* in pairs: one ordered compare watches two loads */                                      \
        _Pragma("unroll") for (int kw = 0; kw < KW; kw += 2)                                       \
        {                                                                                          \
            const raw a = TAPV(load, space, row + kw), b = TAPV(load, space, row + min(kw + 1, KW - 1)); \
            watch(ok, a, b);                                                                       \
            taps[kw] = convert(a);                                                                 \
            if (kw + 1 < KW) taps[kw + 1] = convert(b);                                            \
        }                                                                                          \
    }
#endif
#define DEFINE_ROW_TAPS(name, ...)                                  \
    DEFINE_ROW_TAPS_IN(name, name##_loads, __global, __VA_ARGS__)   \
    DEFINE_ROW_TAPS_IN(name##_private, name##_loads_private, __private, __VA_ARGS__)

/*
 * READ_ROW(fn, n, h, w0): fn(row h from column w0, taps, &ok), reading the
 * SPAN(n) elements fn's loads cover. In a block whose loads may leave the
 * input buffer (`guarded`: only blocks at the very start or end of the
 * cl_mem) a row that would is copied first, elements outside the buffer
 * (offsets from `plane` outside [buf_lo, buf_hi)) as the lowest value: they
 * lie outside the row, so they are masked like padding. Needs `plane`,
 * `guarded`, `buf_lo`, `buf_hi`, `taps` and `ok` in scope.
 */
#define READ_ROW(fn, n, h, w0)                                                                     \
    do {                                                                                           \
        const long at_ = (long)(h) * W + (w0);                                                     \
        if (guarded && (at_ < buf_lo || at_ + SPAN(n) > buf_hi)) {                                 \
            T copy_[SPAN(n)];                                                                      \
            for (int e_ = 0; e_ < SPAN(n); ++e_)                                                   \
                copy_[e_] = at_ + e_ >= buf_lo && at_ + e_ < buf_hi ? plane[at_ + e_] : LOWEST_BITS; \
            fn##_private(copy_, taps, &ok);                                                        \
        } else {                                                                                   \
            fn(plane + at_, taps, &ok);                                                            \
        }                                                                                          \
    } while (0)

/* Whether input row h lies inside the plane (uniform for the work-item).
 * Compared as int (the host keeps H in int): llvmpipe (Mesa 22.3) got the
 * long compares wrong in the streamed paths and read the row above a plane
 * as inside it. */
__attribute__((always_inline)) inline int row_inside_plane(const long h, const int H)
{
    const int row = (int)h;
    return row >= 0 && row < H;
}

#define ROW_BITS(v) (v)
#define WATCH_NOTHING(ok, a, b) ((void)(ok))
/* *ok (a 0/-1 mask) keeps the lanes where a and b hold no NaN: x == x is one
 * ordered compare (isunordered() lowers to integer bit tests on PoCL). */
#define WATCH_ORDERED(ok, a, b) (*(ok) &= ((a) == (a)) & ((b) == (b)))
DEFINE_ROW_TAPS(row_taps_bits, TV(VW), TV(VW), VW, MASKV(VW), VLOAD_VW, ROW_BITS, WATCH_NOTHING)
/* The Indices path's row taps (argmax_row): float32/float64
 * compare values with a plain `>`, exact only while the input holds no NaN
 * (WATCH_ORDERED checks); the other types' keys rank NaN themselves. */
#if WITH_INDICES
#if defined(DT_FLOAT32) || defined(DT_FLOAT64)
#define ARGMAX_FALLBACK 1
#define ARGMAX_WATCH WATCH_ORDERED
#else
#define ARGMAX_FALLBACK 0
#define ARGMAX_WATCH WATCH_NOTHING
#endif
DEFINE_ROW_TAPS(row_taps_argmax, TV(VW), TV(VW), VW, MASKV(VW), VLOAD_VW, ROW_BITS, ARGMAX_WATCH)
/* Blocks the exact path may have to redo: with Indices, float32/float64 ones
 * with a NaN; without, those of every floating type (see the fast path). */
#define EXACT_PATH ARGMAX_FALLBACK
#else
#define EXACT_PATH IS_FLOAT_TYPE
#endif

/* DEFINE_LANES_INSIDE_ROW(name, mask, ints, n, to_mask): `void name(valid, W,
 * w0, interior)` sets, per kernel column, which of n lanes' taps fall inside
 * a row (all rows alike); `ints` holds lane columns, `to_mask` turns their
 * int comparison into `mask`. */
#define DEFINE_LANES_INSIDE_ROW(name, mask, ints, n, to_mask)                                           \
    __attribute__((always_inline)) inline void name(mask *valid, const int W, const int w0, const int interior) \
    {                                                                                                   \
        _Pragma("unroll") for (int kw = 0; kw < KW; ++kw)                                               \
        {                                                                                               \
            const ints col = w0 + kw + (ints)(LANES(LANE_ID, n, 0, 0)) * SW;                            \
            valid[kw] = interior ? (mask)(-1) : to_mask((col >= 0) & (col < W));                        \
        }                                                                                               \
    }
#define TO_MASK_VW(m) TO_MASKV(VW, m)
DEFINE_LANES_INSIDE_ROW(lanes_inside_row, MASKV(VW), INTV(VW), VW, TO_MASK_VW)


#if !WITH_INDICES
/*
 * The fast path's FVW-lane types, written with operators only (OpenCL's
 * built-ins stop at 16 lanes): fast_vec (compared values: keys for
 * float16/bfloat16), fast_bits (storage), fast_mask (fast_vec's element
 * width), fast_int (lane columns).
 */
#if defined(DT_FLOAT16) || defined(DT_BFLOAT16)
#define FAST_ELEM short
#else
#define FAST_ELEM CLPOOL_SCALAR
#endif
#if WIDE_VECTORS
typedef FAST_ELEM fast_vec __attribute__((ext_vector_type(FVW)));
typedef T fast_bits __attribute__((ext_vector_type(FVW)));
typedef MASK_SCALAR fast_mask __attribute__((ext_vector_type(FVW)));
typedef int fast_int __attribute__((ext_vector_type(FVW)));
typedef T __attribute__((ext_vector_type(FVW), aligned(sizeof(T)))) fast_bits_elem_aligned;
#define AS_FAST_VEC(x) __builtin_astype((x), fast_vec)
#define AS_FAST_BITS(x) __builtin_astype((x), fast_bits)
#define TO_FAST_MASK(m) __builtin_convertvector((m), fast_mask)
#else
typedef CLPOOL_XPASTE(FAST_ELEM, VW) fast_vec;
typedef TV(VW) fast_bits;
typedef MASKV(VW) fast_mask;
typedef INTV(VW) fast_int;
typedef TV(VW) __attribute__((aligned(sizeof(T)))) fast_bits_elem_aligned;
#define AS_FAST_VEC(x) CLPOOL_XPASTE(CLPOOL_XPASTE(as_, FAST_ELEM), VW)(x)
#define AS_FAST_BITS(x) CLPOOL_XPASTE(as_ushort, VW)(x)
#define TO_FAST_MASK(m) TO_MASKV(VW, m)
#endif
#define FAST_LOAD(space, p) (*(space const fast_bits_elem_aligned *)(p))

/*
 * Fast path without Indices: a window's maximum is the maximum of its rows'
 * maxima (separable: KW - 1 + KH - 1 combines per output instead of KH * KW
 * - 1), and each combine is one instruction, `b > a ? b : a`:
 *  - integers: max;
 *  - float32/float64: x86 maxps/maxpd, which keeps the earlier of two equal
 *    values, so +-0 ties go to the first in tap order;
 *  - float16/bfloat16: max of order keys (below).
 * Combining row maxima in row order keeps the row-major first-wins rule. It
 * is exact unless a block's input holds a NaN (maxps drops it) or, for the
 * 16-bit floats, a -0 (the tie rule wants the first zero's bits, and the
 * keys rank -0 below +0): then the exact path redoes the block, overwriting
 * what it stored. The block's watch (fast_watch: folded per loaded vector
 * and, for the 16-bit floats, per output vector) says whether it must.
 */
#if defined(DT_FLOAT16) || defined(DT_BFLOAT16)
/*
 * 16-bit float keys, in 16-bit wrap-around arithmetic on the storage bits b:
 * b itself for a clear sign bit, INF - b for a set one (the same function
 * turns keys back into bits). Finite values and infinities keep their order
 * from -inf (SHRT_MIN) to +inf (KEY_OF_INF), -0 ranks below +0, and every
 * NaN, of either sign, lies above +inf: a NaN in a window surfaces in its
 * maximum, so one check per output vector finds it. -0 is watched on the
 * raw bits (their signed minimum). Non-negative bits are their own keys:
 * a block converts (and watches) only from its first row that holds a set
 * sign bit on (signed_rows, fast_row_max), so the non-negative input of a
 * ReLU skips both. Two instructions where clang compiles for AVX-512BW
 * (sign mask, masked subtract, in inline assembly: LLVM turns the select
 * into four).
 */
#define FAST_LOWEST ((short)SHRT_MIN)
#define FAST_HIGHEST ((short)SHRT_MAX)
#define KEY_OF_INF KEY_INF
#if WIDE_VECTORS && FVW == 32 && defined(__clang__) && defined(__x86_64__) && defined(__AVX512BW__)
__attribute__((always_inline)) inline fast_vec key_flip(const fast_vec b)
{
    fast_vec k = b;
    __asm__("vpmovw2m %1, %%k1\n\tvpsubw %1, %2, %0 %{%%k1%}" : "+v"(k) : "v"(b), "v"((fast_vec)KEY_INF) : "k1");
    return k;
}
#define ANY_SIGN_BIT(v) (__builtin_ia32_cvtw2mask512(v) != 0)
#else
#define key_flip(b) ((b) < (short)0 ? (fast_vec)KEY_INF - (b) : (b))
#if WIDE_VECTORS
#define ANY_SIGN_BIT(v) (__builtin_reduce_or((v) < (short)0) != 0)
#else
#define ANY_SIGN_BIT(v) any(v)
#endif
#endif
#define FAST_KEY(b) key_flip(AS_FAST_VEC(b))
#define FAST_BITS(k) AS_FAST_BITS(key_flip(k))
/* per lane the lowest storage bits seen, as short: SHRT_MIN is a -0 (or a NaN output, WATCH_OUTPUT) */
typedef fast_vec fast_watch;
#define FAST_WATCH_INIT ((fast_vec)SHRT_MAX)
#define FAST_WATCH(ok, a, b) (*(ok) = MIN_KEEP_FIRST(*(ok), MIN_KEEP_FIRST(AS_FAST_VEC(a), AS_FAST_VEC(b))))
#define WATCHES_OUTPUT 1
#else
#define FAST_LOWEST LOWEST_BITS
#if defined(DT_FLOAT32)
#define FAST_HIGHEST INFINITY
#elif defined(DT_FLOAT64)
#define FAST_HIGHEST ((double)INFINITY)
#elif defined(DT_INT8)
#define FAST_HIGHEST ((char)127)
#else
#define FAST_HIGHEST ((uchar)255)
#endif
#define FAST_KEY(v) (v)
#define FAST_BITS(k) (k)
typedef fast_mask fast_watch; /* lanes with no NaN seen */
#define FAST_WATCH_INIT ((fast_mask)-1)
#if IS_FLOAT_TYPE
#define FAST_WATCH WATCH_ORDERED
#else
#define FAST_WATCH WATCH_NOTHING
#endif
#define WATCHES_OUTPUT 0
#endif
#if WATCHES_OUTPUT /* the 16-bit floats' taps stay bits: fast_row_max makes keys where it must */
#define BITS_AS_FAST_VEC(b) AS_FAST_VEC(b)
DEFINE_ROW_TAPS(row_taps_fast, fast_bits, fast_vec, FVW, fast_watch, FAST_LOAD, BITS_AS_FAST_VEC, WATCH_NOTHING)
#else
DEFINE_ROW_TAPS(row_taps_fast, fast_bits, fast_vec, FVW, fast_watch, FAST_LOAD, FAST_KEY, FAST_WATCH)
#endif
DEFINE_LANES_INSIDE_ROW(fast_lanes_inside_row, fast_mask, fast_int, FVW, TO_FAST_MASK)

/* Outside the interior each tap is min()-ed with its kernel column's cap:
 * per lane the highest value where the tap lies inside the row, the lowest
 * where it is padding. A min keeps the taps in the compared type, so the
 * maxima stay x86 maxps; a mask select had turned every combine after it
 * into a compare and a blend. (min() turns a NaN tap into its cap, but the
 * block's NaN check sends it to the exact path anyway.) */
typedef struct block_edges {
    fast_vec cap[KW];
} block_edges;
#define INTERIOR_NEEDS_ROWS 0 /* fast_row_max checks every row */

__attribute__((always_inline)) inline void block_edges_init(block_edges *e, const int W, const int w0,
                                                            const int interior)
{
    fast_mask valid[KW];
    fast_lanes_inside_row(valid, W, w0, interior);
#pragma unroll
    for (int kw = 0; kw < KW; ++kw) e->cap[kw] = valid[kw] ? (fast_vec)(FAST_HIGHEST) : (fast_vec)(FAST_LOWEST);
}
#define CAPPED(tap, cap) MIN_KEEP_FIRST(cap, tap) /* x86 minps */

/* Stores `lanes` (1..FVW) lanes of v at p. A partial block (a row shorter
 * than FVW): on x86 with AVX-512 (PoCL there) one byte-masked store;
 * elsewhere through a private copy, as VW-lane stores, the last one ending at
 * `lanes` (overlapping the one before), single elements only below VW lanes.
 * The copy had cost a store-forwarding stall per VW lanes: a fifth of int8
 * 3x3/s2's time on 56-wide rows (FVW 64). A macro, not a function: a wide
 * vector argument would change the ABI (-Wpsabi) on targets without AVX-512. */
#if defined(DT_FLOAT64)
#define T_BYTES 8
#elif defined(DT_FLOAT32)
#define T_BYTES 4
#elif defined(DT_FLOAT16) || defined(DT_BFLOAT16)
#define T_BYTES 2
#else
#define T_BYTES 1
#endif
#define FAST_BYTES (FVW * T_BYTES)
#if defined(__clang__) && defined(__x86_64__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
    (FAST_BYTES == 16 || FAST_BYTES == 32 || FAST_BYTES == 64)
typedef char fast_bytes __attribute__((ext_vector_type(FAST_BYTES)));
#if FAST_BYTES == 64
#define MASKED_STORE_BYTES __builtin_ia32_storedquqi512_mask
#define BYTE_MASK(n) ((n) >= 64 ? ~0ul : (1ul << (n)) - 1)
#elif FAST_BYTES == 32
#define MASKED_STORE_BYTES __builtin_ia32_storedquqi256_mask
#define BYTE_MASK(n) ((n) >= 32 ? ~0u : (1u << (n)) - 1)
#else
#define MASKED_STORE_BYTES __builtin_ia32_storedquqi128_mask
#define BYTE_MASK(n) ((ushort)((1u << min((n), 16)) - 1))
#endif
#define STORE_PARTIAL(v, lanes, p) \
    MASKED_STORE_BYTES((__global fast_bytes *)(p), __builtin_astype((v), fast_bytes), BYTE_MASK((lanes) * T_BYTES))
#else
#define STORE_PARTIAL(v, lanes, p)                                                           \
    do {                                                                                     \
        T lane_[FVW]; /* no run-time vector subscripts in OpenCL C 1.2 */                     \
        *(fast_bits_elem_aligned *)lane_ = (v);                                              \
        if ((lanes) < VW) {                                                                  \
            for (int j_ = 0; j_ < (lanes); ++j_) (p)[j_] = lane_[j_];                        \
        } else {                                                                             \
            for (int j_ = 0; j_ < (lanes); j_ += VW) {                                       \
                const int at_ = min(j_, (lanes) - VW);                                       \
                STORE_BITSV(VW, VLOADV(VW, lane_ + at_), (p) + at_);                         \
            }                                                                                \
        }                                                                                    \
    } while (0)
#endif
/* A whole fast-path output vector; under -DSTREAM_STORES (common.h) around
 * the cache where aligned. The exact path's redo of a block stores again
 * from the same thread; two work-items' overlapping edge blocks store the
 * same values. */
#define STORE_WHOLE(v, p) STORE_STREAMED(fast_bits, v, p, *(__global fast_bits_elem_aligned *)(p) = (v))
#define STORE_FAST(v, lanes, p)                                                              \
    do {                                                                                     \
        if ((lanes) == FVW)                                                                  \
            STORE_WHOLE(v, p);                                                               \
        else                                                                                 \
            STORE_PARTIAL(v, lanes, p);                                                      \
    } while (0)

/* *m = the maximum of input row h's KW taps per lane (padding taps are the
 * lowest value, a row outside the plane all lowest); folds the row's loads
 * into *ok. `interior` is about columns only (no caps, no guard): every
 * row is checked, so the first and last row groups of a plane stay interior.
 * 16-bit floats: taps with a set sign bit set *signed_rows, and from then on
 * the block's taps are made keys and watched for -0 (non-negative bits are
 * their own keys and hold no -0; a NaN among them surfaces in the output). */
__attribute__((always_inline)) inline void fast_row_max(__global const T *plane, const int H, const int W, const long h,
                                                        const int w0, const fast_vec *cap, const int interior,
                                                        const int guarded, const long buf_lo, const long buf_hi,
                                                        fast_watch *row_ok, int *signed_rows, fast_vec *m)
{
    if (!row_inside_plane(h, H)) {
        *m = (fast_vec)(FAST_LOWEST);
        return;
    }
    fast_vec taps[KW];
    fast_watch ok = *row_ok;
    READ_ROW(row_taps_fast, FVW, h, w0);
#if WATCHES_OUTPUT
    if (!*signed_rows) {
        fast_vec any_bits = taps[0];
#pragma unroll
        for (int kw = 1; kw < KW; ++kw) any_bits |= taps[kw];
        *signed_rows = ANY_SIGN_BIT(any_bits);
    }
    if (*signed_rows) {
        fast_vec lowest = taps[0];
#pragma unroll
        for (int kw = 1; kw < KW; ++kw) lowest = MIN_KEEP_FIRST(lowest, taps[kw]);
        ok = MIN_KEEP_FIRST(ok, lowest);
#pragma unroll
        for (int kw = 0; kw < KW; ++kw) taps[kw] = key_flip(taps[kw]);
    }
#else
    (void)signed_rows;
#endif
    *row_ok = ok;
#pragma unroll
    for (int kw = 0; kw < KW; ++kw)
        if (!interior) taps[kw] = CAPPED(taps[kw], cap[kw]);
    /* from the first term, not from the lowest value (the compiler cannot drop a max with -inf: NaN) */
    fast_vec row_max = taps[0];
#pragma unroll
    for (int kw = 1; kw < KW; ++kw) row_max = MAX_KEEP_FIRST(row_max, taps[kw]);
    *m = row_max;
}

/*
 * Columns first (COLUMNS_FIRST: the row taps' stride-2 shuffles, 2- and
 * 1-byte types, at most one carried input row): an output row's input rows
 * are combined lane-wise as loaded, and the KW taps are shuffled out of that
 * column maximum once, not out of every row: half the shuffles and caps of
 * 3x3/s2. Its tap order is column-major, so only types whose ties are
 * exact (integers; 16-bit float keys, whose -0 and NaN the watch sends to
 * the exact path) take it: float32/float64 keep row-major order for +-0.
 * Under ODD_START the broadcast element is one more load (ROW_LOADS), so tap
 * 0's one-lane shift is made once per output row (the host asks for it for
 * 16-bit floats).
 */
#if ROW_TAPS && CARRY <= 1 && NEW <= 4 && !defined(DT_FLOAT32) && !defined(DT_FLOAT64)
#define COLUMNS_FIRST 1
#define CARRIED_VECTORS ROW_LOADS /* a row's loads */
#else
#define COLUMNS_FIRST 0
#define CARRIED_VECTORS CARRY_SLOTS
#endif
/* What a block carries from one output row to the next, and its NaN check. */
typedef struct block_carry {
    fast_vec max[CARRIED_VECTORS]; /* row maxima of the carried input rows, or (COLUMNS_FIRST) its loads */
    int signed_rows;               /* 16-bit floats: a set sign bit met (fast_row_max) */
} block_carry;
/* No struct: rusticl (Mesa 22.3) crashed compiling a block state that wrapped
 * the watch in one. For the 16-bit floats a NaN output folds SHRT_MIN into
 * the watch, as a -0 input does. */
typedef fast_watch block_ok;
#define BLOCK_OK_INIT FAST_WATCH_INIT
#if WATCHES_OUTPUT
/* C - key saturates at SHRT_MIN exactly for the keys above +inf's (NaN), C =
 * SHRT_MIN + KEY_OF_INF + 1: one vpsubsw. OpenCL's sub_sat stops at 16 lanes;
 * clang before 15 has no __builtin_elementwise_sub_sat (a compare then). */
#if !WIDE_VECTORS
#define NAN_OUT_TO_MIN(key) sub_sat((fast_vec)(SHRT_MIN + KEY_OF_INF + 1), key)
#elif defined(__has_builtin)
#if __has_builtin(__builtin_elementwise_sub_sat)
#define NAN_OUT_TO_MIN(key) __builtin_elementwise_sub_sat((fast_vec)(SHRT_MIN + KEY_OF_INF + 1), key)
#endif
#endif
#ifndef NAN_OUT_TO_MIN
#define NAN_OUT_TO_MIN(key) ((fast_vec)SHRT_MIN & ((key) > KEY_OF_INF))
#endif
#define WATCH_OUTPUT(ok, key) (*(ok) = MIN_KEEP_FIRST(*(ok), NAN_OUT_TO_MIN(key)))
#define BLOCK_DONE(ok) MASK_ALL((ok) != (short)SHRT_MIN) /* no -0 in, no NaN out */
#else
#define WATCH_OUTPUT(ok, key) ((void)(ok))
#define BLOCK_DONE(ok) MASK_ALL(ok) /* no NaN seen */
#endif

#if COLUMNS_FIRST
/* Input rows h .. h + count - 1 (count <= NEW, a constant once inlined):
 * m[i] = per lane the maximum of their i-th loads (as keys; the lowest key
 * where no row is inside the plane) and last[i] row h + count - 1's. The
 * 16-bit floats check the rows' sign bits together (fast_row_max). */
__attribute__((always_inline)) inline void fast_rows_columns(__global const T *plane, const int H, const int W,
                                                             const long h, const int count, const int w0,
                                                             const int guarded, const long buf_lo, const long buf_hi,
                                                             fast_watch *row_ok, int *signed_rows, fast_vec *m,
                                                             fast_vec *last)
{
    fast_vec rows[NEW][4];
    int inside[NEW];
    fast_watch ok = *row_ok;
#pragma unroll
    for (int j = 0; j < NEW; ++j) { /* a constant bound: unrolled before `count` is known */
        fast_vec *const taps = rows[j]; /* READ_ROW's destination */
        inside[j] = j < count && row_inside_plane(h + j, H);
        if (inside[j]) {
            READ_ROW(row_taps_fast_loads, FVW, h + j, w0);
        } else {
#pragma unroll
            for (int i = 0; i < ROW_LOADS; ++i) taps[i] = (fast_vec)0; /* no sign bit, no -0; dropped below */
        }
    }
#if WATCHES_OUTPUT
    if (!*signed_rows) {
        fast_vec any_bits = rows[0][0];
#pragma unroll
        for (int j = 0; j < NEW; ++j)
#pragma unroll
            for (int i = 0; i < ROW_LOADS; ++i) any_bits |= rows[j][i];
        *signed_rows = ANY_SIGN_BIT(any_bits);
    }
    if (*signed_rows) {
        fast_vec lowest = rows[0][0];
#pragma unroll
        for (int j = 0; j < NEW; ++j)
#pragma unroll
            for (int i = 0; i < ROW_LOADS; ++i) {
                lowest = MIN_KEEP_FIRST(lowest, rows[j][i]);
                rows[j][i] = key_flip(rows[j][i]);
            }
        ok = MIN_KEEP_FIRST(ok, lowest);
    }
#else
    (void)signed_rows;
#endif
    *row_ok = ok;
#pragma unroll
    for (int i = 0; i < ROW_LOADS; ++i) {
        fast_vec col = (fast_vec)(FAST_LOWEST);
#pragma unroll
        for (int j = 0; j < NEW; ++j) {
            const fast_vec v = inside[j] ? rows[j][i] : (fast_vec)(FAST_LOWEST);
            if (j < count) col = MAX_KEEP_FIRST(col, v);
            if (j == count - 1) last[i] = v;
        }
        m[i] = col;
    }
}
#endif

/* A block's first CARRY input rows from h0: the row maxima the first output
 * row's window carries in. */
__attribute__((always_inline)) inline void block_prime(__global const T *plane, const int H, const int W,
                                                       const long h0, const int w0, const block_edges *e,
                                                       const int interior, const int guarded, const long buf_lo,
                                                       const long buf_hi, block_ok *ok, block_carry *c)
{
    c->signed_rows = 0;
#if COLUMNS_FIRST
    fast_vec m[4];
    (void)e, (void)interior;
    if (CARRY) fast_rows_columns(plane, H, W, h0, 1, w0, guarded, buf_lo, buf_hi, ok, &c->signed_rows, m, c->max);
#else
#pragma unroll
    for (int i = 0; i < CARRY; ++i)
        fast_row_max(plane, H, W, h0 + i, w0, e->cap, interior, guarded, buf_lo, buf_hi, ok, &c->signed_rows,
                     &c->max[i]);
#endif
}

/*
 * One output row of a block by the fast path, streamed: its window (first
 * input row h) keeps the CARRY row maxima it shares with the output row above
 * and reads NEW = min(SH, KH) more, so every input row is read once per block
 * whatever the window's height. Stores the row and leaves its last CARRY row
 * maxima in *c for the next. Only KH row maxima and one row's taps are live:
 * unrolling rows x input rows had kept every loaded vector live until the
 * NaN check at the end (register spills).
 */
__attribute__((always_inline)) inline void block_output_row(__global const T *plane, __global T *out,
                                                            index_sink indices, const int H, const int W,
                                                            const long nc, const long h, const int w0,
                                                            const block_edges *e, const int lanes, const long o,
                                                            const int interior, const int guarded,
                                                            const long buf_lo, const long buf_hi, block_carry *c,
                                                            block_ok *ok)
{
    (void)indices, (void)nc;
#if COLUMNS_FIRST
    fast_vec col[4], last[4], taps[KW];
    fast_rows_columns(plane, H, W, h + CARRY, NEW, w0, guarded, buf_lo, buf_hi, ok, &c->signed_rows, col, last);
#pragma unroll
    for (int i = 0; i < ROW_LOADS * CARRY; ++i) {
        col[i] = MAX_KEEP_FIRST(c->max[i], col[i]);
        c->max[i] = last[i];
    }
    ROW_TAPS_OF_LOADS(fast_vec, FVW, col, taps);
    fast_vec best = interior ? taps[0] : CAPPED(taps[0], e->cap[0]);
#pragma unroll
    for (int kw = 1; kw < KW; ++kw) best = MAX_KEEP_FIRST(best, interior ? taps[kw] : CAPPED(taps[kw], e->cap[kw]));
#else
    fast_vec win[KH];
#pragma unroll
    for (int i = 0; i < CARRY; ++i) win[i] = c->max[i];
#pragma unroll
    for (int j = 0; j < NEW; ++j)
        fast_row_max(plane, H, W, h + CARRY + j, w0, e->cap, interior, guarded, buf_lo, buf_hi, ok,
                     &c->signed_rows, &win[CARRY + j]);
    /* in row order: keeps the row-major first-wins rule */
    fast_vec best = win[0];
#pragma unroll
    for (int i = 1; i < KH; ++i) best = MAX_KEEP_FIRST(best, win[i]);
#endif
    WATCH_OUTPUT(ok, best);
#if WATCHES_OUTPUT
    /* before the block's first set sign bit every key is the bits themselves */
    if (!c->signed_rows)
        STORE_FAST(AS_FAST_BITS(best), lanes, out + o);
    else
#endif
        STORE_FAST(FAST_BITS(best), lanes, out + o);
#if !COLUMNS_FIRST
#pragma unroll
    for (int i = 0; i < CARRY; ++i) c->max[i] = win[NEW + i];
#endif
}
#endif

#if WITH_INDICES
#if INDEX_MAP
#if KW != 1 || SW != 1
#error "-DINDEX_MAP: windows of one column at stride 1 only"
#endif
/* -DINDEX_MAP (KW = SW = 1: the second pass of 3-D pooling): lane l's winner
 * idx is element (h + r, w0 + l) of plane nc for some r < KH. The map's KH
 * candidate rows load as vectors and each lane takes its row's: a gather per
 * lane had waited on memory for most of the pass. Lanes past a row's end
 * read on into the next row or, after the last, into VW elements the host
 * leaves past the map. */
__attribute__((always_inline)) inline LONGV(VW) mapped_indices(const __global long *map, const LONGV(VW) idx,
                                                               const int H, const int W, const long nc, const int h,
                                                               const int w0)
{
    const LONGV(VW) lane_cols = CONVERT_LONGV(VW, LANE_IDS);
    LONGV(VW) mapped = 0;
#pragma unroll
    for (int r = 0; r < KH; ++r) {
        const long at = (nc * H + clamp(h + r, 0, H - 1)) * W + w0; /* rows in the padding never win */
        mapped = select(mapped, VLOADV(VW, map + at), idx == at + lane_cols);
    }
    return mapped;
}
#endif

/* Stores `lanes` (1..VW) outputs' bits and flat indices idx at output row
 * offset orow (windows of lane 0: first row h, first column w0, plane nc). */
__attribute__((always_inline)) inline void store_lanes_and_indices(__global T *out, index_sink indices,
                                                                   const TV(VW) bits, const LONGV(VW) idx,
                                                                   const int lanes, const long orow, const int H,
                                                                   const int W, const long nc, const int h,
                                                                   const int w0)
{
#if INDEX_MAP
    STORE_LANES(long, STORE_LONGV, mapped_indices(indices.map, idx, H, W, nc, h, w0), lanes, indices.at + orow);
#else
    (void)H, (void)W, (void)nc, (void)h, (void)w0;
    STORE_LANES(long, STORE_LONGV, idx, lanes, indices + orow);
#endif
    STORE_LANES(T, STORE_BITSV, bits, lanes, out + orow);
}
#endif

/* Stores one output row's `lanes` (1..VW) outputs of a VW-lane block: the
 * winners' bits and, with Indices, their flat indices from the lanes' best
 * taps (row kh, column kw of the window whose first input row is h and first
 * column w0 + lane * SW). Row and column come apart: one tap number
 * kh * KW + kw cost a vector division by KW per output row. */
__attribute__((always_inline)) inline void store_block_row(__global T *out, index_sink indices,
                                                           const TV(VW) bits, const MASKV(VW) tap_kh,
                                                           const MASKV(VW) tap_kw, const int lanes, const long orow,
                                                           const int H, const int W, const long nc, const int h,
                                                           const int w0)
{
#if WITH_INDICES
    const LONGV(VW) ih = CONVERT_LONGV(VW, h + CONVERT_INTV(VW, tap_kh));
    const LONGV(VW) iw = CONVERT_LONGV(VW, w0 + LANE_IDS * SW + CONVERT_INTV(VW, tap_kw));
#if STORAGE_ORDER == 1
    const LONGV(VW) idx = nc * H * W + iw * H + ih;
#else
    const LONGV(VW) idx = nc * H * W + ih * W + iw;
#endif
    store_lanes_and_indices(out, indices, bits, idx, lanes, orow, H, W, nc, h, w0);
#else
    (void)indices, (void)tap_kh, (void)tap_kw, (void)H, (void)W, (void)nc, (void)h, (void)w0;
    STORE_LANES(T, STORE_BITSV, bits, lanes, out + orow);
#endif
}

#if WITH_INDICES
/* A flat index's steps along a window's rows and columns (storage_order 0:
 * row-major, 1: column-major). */
#if STORAGE_ORDER == 1
#define INDEX_ROW_STEP(H, W) 1
#define INDEX_COL_STEP(H, W) (H)
#else
#define INDEX_ROW_STEP(H, W) (W)
#define INDEX_COL_STEP(H, W) 1
#endif
/*
 * ARGMAX_OFFSETS (float32/float64, whose compare masks hold 32/64 bits): the
 * argmax path tracks each lane's best tap as its flat index's offset from
 * the index of its window's first element (kh * row step + kw * column
 * step), one select per combine where the tap's row and column took
 * two, and the index is one add away (float32 3x3/s2 with Indices, one
 * thread: the row and column selects and the index arithmetic were a quarter
 * of the time). The host keeps the offsets within int (use_2d_fast_path).
 * Narrower types keep row and column apart in their narrower masks.
 */
#if defined(DT_FLOAT32) || defined(DT_FLOAT64)
#define ARGMAX_OFFSETS 1
#else
#define ARGMAX_OFFSETS 0
#endif
#if ARGMAX_OFFSETS
/* Stores one output row's `lanes` outputs: bits and, from the winners'
 * offsets `off`, their flat indices (window of lane 0: first row h, first
 * column w0). */
__attribute__((always_inline)) inline void store_block_row_offsets(__global T *out, index_sink indices,
                                                                   const TV(VW) bits, const MASKV(VW) off,
                                                                   const int lanes, const long orow, const int H,
                                                                   const int W, const long nc, const int h,
                                                                   const int w0)
{
    const long first = nc * H * W + (long)h * INDEX_ROW_STEP(H, W) + (long)w0 * INDEX_COL_STEP(H, W);
#if defined(DT_FLOAT64)
    const LONGV(VW) idx = first + off + CONVERT_LONGV(VW, LANE_IDS) * (long)(SW * INDEX_COL_STEP(H, W));
#else
    const LONGV(VW) idx = first + CONVERT_LONGV(VW, off + LANE_IDS * (SW * INDEX_COL_STEP(H, W)));
#endif
    store_lanes_and_indices(out, indices, bits, idx, lanes, orow, H, W, nc, h, w0);
}
#endif
#endif

#if EXACT_PATH
/*
 * The exact path: VW outputs (lanes) of each of EXACT_ROWS consecutive
 * output rows (`rows` of them real, the rest are computed and dropped),
 * under the full NaN rule; it redoes the blocks the faster paths hand back.
 * It unrolls rows x taps (the faster paths loop over rows), so it covers
 * fewer rows at a time than a work-item's block. Every input row the group needs is
 * loaded once and folded into each output row whose window holds it, in
 * (kh, kw) order per output row (the first-wins order). Rows outside the
 * plane are skipped and taps outside a row are masked per lane (`valid`):
 * without Indices a masked tap reads as the lowest value, with Indices
 * `have` lets each lane's first valid tap take its slot. A tap's vector load
 * may touch elements outside the plane (READ_ROW keeps it inside the buffer)
 * but masked lanes never win.
 */
__attribute__((always_inline)) inline void maxpool2d_block_exact(__global const T *plane, __global T *out,
                                                                 index_sink indices, const int H, const int W,
                                                                 const int h0, const int w0, const int lanes,
                                                                 const int rows, const long o, const long OW,
                                                                 const long nc, const int guarded,
                                                                 const long buf_lo, const long buf_hi)
{
    MASKV(VW) valid[KW];
    lanes_inside_row(valid, W, w0, 0);
    KTV(VW) best[EXACT_ROWS];
    TV(VW) best_bits[EXACT_ROWS];
    MASKV(VW) best_tap[EXACT_ROWS], ok = -1;
#if WITH_INDICES
    MASKV(VW) have[EXACT_ROWS];
#endif
#pragma unroll
    for (int r = 0; r < EXACT_ROWS; ++r) {
        best_bits[r] = (TV(VW))(LOWEST_BITS);
        best[r] = KEYV(VW, best_bits[r]);
        best_tap[r] = 0;
#if WITH_INDICES
        have[r] = 0;
#endif
    }
#pragma unroll
    for (int ih = 0; ih < (EXACT_ROWS - 1) * SH + (KH - 1) + 1; ++ih) {
        const int h = h0 + ih;
        if (!row_inside_plane(h, H)) continue;
        TV(VW) taps[KW];
        READ_ROW(row_taps_bits, VW, h, w0);
#pragma unroll
        for (int r = 0; r < EXACT_ROWS; ++r) {
            const int dh = ih - r * SH; /* this row's offset in output row r's window */
            if (dh < 0 || dh >= KH) continue; /* constants after unrolling */
#pragma unroll
            for (int kw = 0; kw < KW; ++kw) {
                const TV(VW) bits = taps[kw];
                const KTV(VW) k = KEYV(VW, bits);
                const MASKV(VW) better = BETTERV(VW, k, best[r]);
#if WITH_INDICES
                const MASKV(VW) take = valid[kw] & (~have[r] | better);
                best_tap[r] = select(best_tap[r], (MASKV(VW))(dh * KW + kw), take);
                have[r] |= valid[kw];
#else
                const MASKV(VW) take = valid[kw] & better; /* a masked tap is the lowest value: never better */
#endif
                best[r] = select(best[r], k, take);
                best_bits[r] = select(best_bits[r], bits, take);
            }
        }
    }
#pragma unroll
    for (int r = 0; r < EXACT_ROWS; ++r)
        if (r < rows) /* not break: a loop with an early exit is not unrolled */
            store_block_row(out, indices, best_bits[r], best_tap[r] / (MASKV(VW))(KW), best_tap[r] % (MASKV(VW))(KW),
                            lanes, o + r * OW, H, W, nc, h0 + r * SH, w0);
}

/* Values the fast paths cannot combine exactly: NaN and, for the 16-bit
 * floats (their fast path compares order keys, which rank -0 below +0), -0.
 * On a tap's storage bits; a 0/-1 mask. */
#if defined(DT_FLOAT16) || defined(DT_BFLOAT16)
#define NEEDS_EXACT(bits) \
    ((((bits) & (TV(VW))0x7fff) > (TV(VW))KEY_INF) | ((bits) == (TV(VW))0x8000))
#else
#define NEEDS_EXACT(v) ((v) != (v))
#endif

/* Which lanes' taps a row scan looks at, per kernel column: of the `lanes`
 * outputs whose first window starts at column w0, those whose tap lies
 * inside the row (the same for every row). */
__attribute__((always_inline)) inline void lanes_to_scan(MASKV(VW) *watched, const int W, const int w0,
                                                         const int lanes)
{
    lanes_inside_row(watched, W, w0, 0);
    const MASKV(VW) stored = TO_MASKV(VW, LANE_IDS < lanes);
#pragma unroll
    for (int kw = 0; kw < KW; ++kw) watched[kw] &= stored;
}

/* Whether input row h holds, among the taps the exact path would read from
 * it at column w0 on (the `watched` lanes, lanes_to_scan), a value the fast
 * paths cannot combine exactly. */
__attribute__((always_inline)) inline int row_needs_exact(__global const T *plane, const int H, const int W,
                                                          const int h, const int w0, const MASKV(VW) *watched,
                                                          const int guarded, const long buf_lo, const long buf_hi)
{
    if (!row_inside_plane(h, H)) return 0;
    MASKV(VW) ok = -1, need = 0; /* ok: READ_ROW's watch, unused */
    TV(VW) taps[KW];
    READ_ROW(row_taps_bits, VW, h, w0);
#pragma unroll
    for (int kw = 0; kw < KW; ++kw) need |= watched[kw] & NEEDS_EXACT(taps[kw]);
    return MASK_ANY(need);
}

/*
 * Redoes a block of `rows` x `lanes` outputs on the exact path, EXACT_ROWS x VW at a time, only for the groups whose
 * windows hold a value the fast path could not combine (NEEDS_EXACT): the others keep what it stored. Each input row
 * is scanned at most once per VW lanes, so a NaN costs its own groups, not every row of its block.
 */
__attribute__((always_inline)) inline void maxpool2d_redo_exact(__global const T *plane, __global T *out,
                                                                index_sink indices, const int H, const int W,
                                                                const int h0, const int w0, const int lanes,
                                                                const int rows, const long o, const long OW,
                                                                const long nc, const int guarded, const long buf_lo,
                                                                const long buf_hi, const int block_lanes)
{
    for (int e = 0; e < block_lanes / VW && e * VW < lanes; ++e) {
        const int ew0 = w0 + e * VW * SW, e_lanes = min(lanes - e * VW, VW);
        MASKV(VW) watched[KW];
        lanes_to_scan(watched, W, ew0, e_lanes);
        int scanned = 0, last_needing = -1; /* input rows from h0 */
        for (int g = 0; g < rows; g += EXACT_ROWS) {
            const int n = min(rows - g, EXACT_ROWS), first = g * SH, last = (g + n - 1) * SH + KH - 1;
            for (; scanned <= last && last_needing < first; ++scanned)
                if (row_needs_exact(plane, H, W, h0 + scanned, ew0, watched, guarded, buf_lo, buf_hi))
                    last_needing = scanned;
            if (last_needing < first) continue;
            maxpool2d_block_exact(plane, out, indices, H, W, h0 + first, ew0, e_lanes, n, o + g * OW + e * VW, OW,
                                  nc, guarded, buf_lo, buf_hi);
            scanned = max(scanned, first + EXACT_ROWS * SH); /* the rows only this group reads need no scan */
        }
    }
}

#endif /* EXACT_PATH */

#if WITH_INDICES
/*
 * Indices: a separable argmax over VW outputs of each of `rows` rows. Each
 * input row's taps give, per lane, the row's maximum and the first column
 * holding it (strict `>` in kw order); each output row then takes, in kh
 * order, a row whose maximum is strictly greater than its best so far. Both
 * keep the first of equal values, so the winner is the window's row-major
 * first maximum: KW - 1 compares per input row and KH - 1 per output row,
 * not KH * KW - 1. The compares run on keys: float16/bfloat16 order keys rank
 * NaN and +-0 as the NaN rule does, so the result is exact for any input;
 * float32/float64 compare values, and a block whose input holds a NaN returns
 * 0 for the exact path to redo (overwriting what it stored). Outside the
 * interior a lane's first tap inside the row takes the row's slot whatever
 * its value (`have`), and a row outside the plane never wins (`inside`: the
 * host rejects windows without a row inside). Streamed over the output rows
 * like the fast path: the window's row results (key, bits, column) carry
 * over, NEW more input rows per output row.
 */
/* Row h's per-lane best (key, bits, first column holding it) of its KW taps, and whether the row lies inside
 * the plane (*inside: if not, nothing else is set). Here `interior` also means every row of the block is inside
 * the plane (INTERIOR_NEEDS_ROWS), which spares interior blocks a check per row. */
#define INTERIOR_NEEDS_ROWS 1
__attribute__((always_inline)) inline void argmax_row(__global const T *plane, const int H, const int W, const long h,
                                                      const int w0, const MASKV(VW) *valid, const int interior,
                                                      const int guarded, const long buf_lo, const long buf_hi,
                                                      MASKV(VW) *row_ok, KTV(VW) *key, TV(VW) *bits, MASKV(VW) *col,
                                                      int *inside)
{
    *inside = interior || row_inside_plane(h, H);
    if (!*inside) return;
    TV(VW) taps[KW];
    MASKV(VW) ok = *row_ok;
    READ_ROW(row_taps_argmax, VW, h, w0);
    *row_ok = ok;
    TV(VW) row_bits = taps[0];
    KTV(VW) row_best = KEYV(VW, row_bits);
    MASKV(VW) row_kw = 0, have = valid[0];
#pragma unroll
    for (int kw = 1; kw < KW; ++kw) {
        const KTV(VW) k = KEYV(VW, taps[kw]);
        const MASKV(VW) take = interior ? (k > row_best) : valid[kw] & (~have | (k > row_best));
        row_best = select(row_best, k, take);
        row_bits = select(row_bits, taps[kw], take);
        row_kw = select(row_kw, (MASKV(VW))(ARGMAX_OFFSETS ? kw * INDEX_COL_STEP(H, W) : kw), take);
        have |= valid[kw];
    }
    *key = row_best;
    *bits = row_bits;
    *col = row_kw;
}

typedef struct block_edges {
    MASKV(VW) valid[KW]; /* per kernel column, the lanes whose tap lies inside the row */
} block_edges;

__attribute__((always_inline)) inline void block_edges_init(block_edges *e, const int W, const int w0,
                                                            const int interior)
{
    lanes_inside_row(e->valid, W, w0, interior);
}

/* What a block carries from one output row to the next, and its NaN check. */
typedef struct block_carry {
    KTV(VW) key[CARRY_SLOTS]; /* per carried input row: argmax_row's results */
    TV(VW) bits[CARRY_SLOTS];
    MASKV(VW) col[CARRY_SLOTS];
    int inside[CARRY_SLOTS];
} block_carry;
typedef MASKV(VW) block_ok;
#define BLOCK_OK_INIT (-1)
#define BLOCK_DONE(ok) (!ARGMAX_FALLBACK || MASK_ALL(ok)) /* exact: keys, or no float NaN seen */

/* A block's first CARRY input rows from h0, which the first output row's window carries in. */
__attribute__((always_inline)) inline void block_prime(__global const T *plane, const int H, const int W,
                                                       const long h0, const int w0, const block_edges *e,
                                                       const int interior, const int guarded, const long buf_lo,
                                                       const long buf_hi, block_ok *ok, block_carry *c)
{
#pragma unroll
    for (int i = 0; i < CARRY; ++i)
        argmax_row(plane, H, W, h0 + i, w0, e->valid, interior, guarded, buf_lo, buf_hi, ok, &c->key[i], &c->bits[i],
                   &c->col[i], &c->inside[i]);
}

/* One output row of a block (first input row h), streamed as on the fast
 * path: the CARRY rows' results shared with the output row above come from
 * *c, NEW rows are read, and the last CARRY rows' results go back to *c. */
__attribute__((always_inline)) inline void block_output_row(__global const T *plane, __global T *out,
                                                            index_sink indices, const int H, const int W,
                                                            const long nc, const long h, const int w0,
                                                            const block_edges *e, const int lanes, const long o,
                                                            const int interior, const int guarded,
                                                            const long buf_lo, const long buf_hi, block_carry *c,
                                                            block_ok *ok)
{
    KTV(VW) win_key[KH];
    TV(VW) win_bits[KH];
    MASKV(VW) win_col[KH];
    int win_inside[KH];
#pragma unroll
    for (int i = 0; i < CARRY; ++i) {
        win_key[i] = c->key[i];
        win_bits[i] = c->bits[i];
        win_col[i] = c->col[i];
        win_inside[i] = c->inside[i];
    }
#pragma unroll
    for (int j = 0; j < NEW; ++j)
        argmax_row(plane, H, W, h + CARRY + j, w0, e->valid, interior, guarded, buf_lo, buf_hi, ok,
                   &win_key[CARRY + j], &win_bits[CARRY + j], &win_col[CARRY + j], &win_inside[CARRY + j]);
    /* best_kw: with ARGMAX_OFFSETS the winner's offset (row and column; best_kh unused) */
#if ARGMAX_OFFSETS
#define WIN_TAP(i) (win_col[i] + (MASKV(VW))((i) * INDEX_ROW_STEP(H, W)))
#else
#define WIN_TAP(i) win_col[i]
#endif
    KTV(VW) best = win_key[0];
    TV(VW) best_bits = win_bits[0];
    MASKV(VW) best_kh = 0, best_kw = win_col[0];
    int started = win_inside[0];
#pragma unroll
    for (int i = 1; i < KH; ++i) {
        if (!win_inside[i]) continue;
        if (interior || started) {
            const MASKV(VW) take = win_key[i] > best;
            best = select(best, win_key[i], take);
            best_bits = select(best_bits, win_bits[i], take);
            best_kh = select(best_kh, (MASKV(VW))(i), take);
            best_kw = select(best_kw, WIN_TAP(i), take);
        } else {
            best = win_key[i];
            best_bits = win_bits[i];
            best_kh = (MASKV(VW))(i);
            best_kw = WIN_TAP(i);
            started = 1;
        }
    }
#undef WIN_TAP
#if ARGMAX_OFFSETS
    (void)best_kh;
    store_block_row_offsets(out, indices, best_bits, best_kw, lanes, o, H, W, nc, (int)h, w0);
#else
    store_block_row(out, indices, best_bits, best_kh, best_kw, lanes, o, H, W, nc, (int)h, w0);
#endif
#pragma unroll
    for (int i = 0; i < CARRY; ++i) {
        c->key[i] = win_key[NEW + i];
        c->bits[i] = win_bits[NEW + i];
        c->col[i] = win_col[NEW + i];
        c->inside[i] = win_inside[NEW + i];
    }
}
#endif /* WITH_INDICES */

/* Interior blocks (no edge masks) get their own specialisation where clang
 * compiles straight to the CPU (PoCL): there a work-item is its own SIMD
 * thread and runs only the one it needs. Where work-items are lanes of one
 * another (GPUs, Mesa's llvmpipe) both would run, masked, one after the
 * other, and both would be compiled: one call with `interior` at run time. */
#if defined(__clang__) && (defined(__x86_64__) || defined(__aarch64__))
#define SPECIALISE_INTERIOR 1
#else
#define SPECIALISE_INTERIOR 0
#endif

/* Outputs per row of a work-item's block: FAST_SUBBLOCKS blocks of FVW
 * (VW with Indices, which keep WIDEN at 1). */
#if WITH_INDICES && WIDEN != 1
#error "the Indices path runs VW lanes: -DWIDEN=1"
#endif
#define BW (VW * WIDEN)

/* First output column of a `width`-wide block meant to start at column ow:
 * the last block of a row ends at the row's end, overlapping its neighbour
 * (both end with the same values), so every block is full width; a row
 * narrower than a block has one partial block at 0. Where a row's blocks run
 * at once (-DOVERLAP_BLOCKS=0: GPUs, llvmpipe) the last block is partial
 * instead: the fast and argmax paths store values the exact path then
 * redoes, and two blocks storing different values into one output race
 * (Oclgrind reports it). */
#ifndef OVERLAP_BLOCKS
#define OVERLAP_BLOCKS 1
#endif
__attribute__((always_inline)) inline long block_start(const long ow, const long OW, const int width)
{
    return OVERLAP_BLOCKS && ow + width > OW && OW >= width ? OW - width : ow;
}

/* Whether the block at input column w0 needs no edge masks and no guard
 * (and, where the path asks, has all its input rows inside the plane). Only
 * the `lanes` it stores count: the taps of the lanes past a row's end read
 * on into the buffer (the guard keeps them inside it) and are dropped, so
 * rows narrower than a block (2x2/s2 on 56-wide int8 rows: 28 of 32 lanes)
 * take the interior code. */
__attribute__((always_inline)) inline int block_interior(const int w0, const int W, const int lanes,
                                                         const int guarded, const int rows_inside)
{
#if INTERIOR_NEEDS_ROWS
    if (!rows_inside) return 0;
#else
    (void)rows_inside;
#endif
    return !guarded && w0 >= 0 && w0 + (lanes - 1) * SW + (KW - 1) < W;
}

/* The block's `rows` output rows, streamed (block_output_row). Stores the
 * outputs and returns 0 where the exact path must redo them. */
__attribute__((always_inline)) inline int maxpool2d_block(__global const T *plane, __global T *out,
                                                          index_sink indices, const int H, const int W,
                                                          const long nc, const int h0, const int w0, const int lanes,
                                                          const int rows, const long o, const long OW,
                                                          const int interior, const int guarded, const long buf_lo,
                                                          const long buf_hi)
{
    block_edges e;
    block_edges_init(&e, W, w0, interior);
    block_ok ok = BLOCK_OK_INIT;
    block_carry c;
    block_prime(plane, H, W, h0, w0, &e, interior, guarded, buf_lo, buf_hi, &ok, &c);
    /* long row numbers: affine in r without sign extensions, so the row addresses are strength-reduced */
    for (long r = 0; r < rows; ++r)
        block_output_row(plane, out, indices, H, W, nc, (long)h0 + r * SH, w0, &e, lanes, o + r * OW, interior,
                         guarded, buf_lo, buf_hi, &c, &ok);
    return BLOCK_DONE(ok);
}

#ifndef SWEEP_BLOCKS
#define SWEEP_BLOCKS 0
#endif
#if SWEEP_BLOCKS
/*
 * Row sweep (-DSWEEP_BLOCKS=n, CPUs, tensors beyond the cache's reach): a work-item goes across up to SWEEP_BLOCKS
 * blocks of FVW outputs of each of its rows in turn (carries in a private array), so it reads its input front to
 * back, one stream the hardware prefetcher follows, where blocks read down 16 rows at a time stall on DRAM.
 */
#define SWEEP_MAX (SWEEP_BLOCKS * FAST_SUBBLOCKS) /* FVW-wide blocks per work-item */

/* First output column of the row's FVW-wide block k. */
__attribute__((always_inline)) inline long sweep_block_col(const long k, const long OW)
{
    return block_start(k * FVW, OW, FVW);
}

/* Block k's first output column; *w0 = its first input column, *lanes = the outputs it stores. */
__attribute__((always_inline)) inline long sweep_block(const long k, const long OW, const long pad_w, int *w0,
                                                       int *lanes)
{
    const long ow = sweep_block_col(k, OW);
    *w0 = (int)(ow * SW - pad_w);
    *lanes = (int)min(OW - ow, (long)FVW);
    return ow;
}

/* Software prefetch, PREFETCH_AHEAD_BYTES ahead of the input a sweep reads next (past a plane's end, into the
 * next plane's first rows): the hardware prefetchers alone left the sweep stalled on DRAM. PREFETCH: common.h. */

/* Prefetches elements [at, at + n) of `plane` (offsets), PREFETCH_AHEAD_BYTES
 * ahead, within the buffer (buf_lo/buf_hi). */
__attribute__((always_inline)) inline void sweep_prefetch(__global const T *plane, const long at, const long n,
                                                          const long buf_lo, const long buf_hi)
{
    const long ahead = at + PREFETCH_AHEAD_BYTES / (long)sizeof(T);
    const long from = max(ahead, buf_lo), to = min(ahead + n, buf_hi);
    if (from < to) prefetch_bytes(plane + from, (to - from) * (long)sizeof(T));
}

/* A sweep's watches: one per block where windows span rows, so a NaN sends only its own blocks to the exact
 * path; one for all blocks where they do not: a 1-D block's scan is one row, too little to pay for a watch in memory. */
#define SWEEP_WATCHES (KH > 1 ? SWEEP_MAX : 1)
#define SWEEP_WATCH(k) (SWEEP_WATCHES > 1 ? (k) : 0)

/* Blocks k0..k0+n-1 of `rows` output rows (the first one's output row
 * starting at `orow`; their loads span input columns [w_from, w_end)),
 * redone by the exact path where the fast path cannot be exact. */
__attribute__((always_inline)) inline void maxpool2d_sweep(__global const T *plane, __global T *out,
                                                           index_sink indices, const int H, const int W,
                                                           const long OW, const long pad_w, const int h0,
                                                           const int rows, const long k0, const int n,
                                                           const long orow, const long nc, const int guarded,
                                                           const int rows_inside, const long w_from,
                                                           const long w_end, const long buf_lo, const long buf_hi)
{
    block_carry carry[SWEEP_MAX];
    block_ok ok[SWEEP_WATCHES];
    for (int k = 0; k < min(n, SWEEP_WATCHES); ++k) ok[k] = BLOCK_OK_INIT;
    for (int k = 0; k < n; ++k) {
        int w0, lanes;
        sweep_block(k0 + k, OW, pad_w, &w0, &lanes);
        const int interior = block_interior(w0, W, lanes, guarded, rows_inside);
        block_edges e;
        block_edges_init(&e, W, w0, interior);
        block_prime(plane, H, W, h0, w0, &e, interior, guarded, buf_lo, buf_hi, &ok[SWEEP_WATCH(k)], &carry[k]);
    }
    for (long r = 0; r < rows; ++r) {
        const long h = (long)h0 + r * SH;
#pragma unroll
        for (int j = 0; j < NEW; ++j) sweep_prefetch(plane, (h + CARRY + j) * W + w_from, w_end - w_from, buf_lo, buf_hi);
        for (int k = 0; k < n; ++k) {
            int w0, lanes;
            const long ow = sweep_block(k0 + k, OW, pad_w, &w0, &lanes);
            const int interior = block_interior(w0, W, lanes, guarded, rows_inside);
            /* edge blocks (one or two a row) set their edges up again rather than keep them */
            block_edges e;
            block_edges_init(&e, W, w0, interior);
            if (SPECIALISE_INTERIOR && interior)
                block_output_row(plane, out, indices, H, W, nc, h, w0, &e, lanes, orow + r * OW + ow, 1, 0, 0, 0,
                                 &carry[k], &ok[SWEEP_WATCH(k)]);
            else
                block_output_row(plane, out, indices, H, W, nc, h, w0, &e, lanes, orow + r * OW + ow, interior,
                                 guarded, buf_lo, buf_hi, &carry[k], &ok[SWEEP_WATCH(k)]);
        }
    }
#if EXACT_PATH
    for (int k = 0; k < n; ++k) {
        if (BLOCK_DONE(ok[SWEEP_WATCH(k)])) continue;
        int w0, lanes; /* a NaN (or, without Indices, a 16-bit -0) in the block's input */
        const long ow = sweep_block(k0 + k, OW, pad_w, &w0, &lanes);
        maxpool2d_redo_exact(plane, out, indices, H, W, h0, w0, lanes, rows, orow + ow, OW, nc, guarded, buf_lo,
                             buf_hi, FVW);
    }
#else
    (void)ok; /* always exact: integers, or Indices on keys */
#endif
}
#endif

#ifndef PLANE_ELEMS
#define PLANE_ELEMS 0
#endif
#ifndef FLAT_ELEMS
#define FLAT_ELEMS 0
#endif
/* An FVW-lane vector of compared values at element x of private array a (the plane and flat paths). */
#if !WITH_INDICES
typedef FAST_ELEM __attribute__((ext_vector_type(FVW), aligned(sizeof(FAST_ELEM)))) plane_vec_elem_aligned;
#define PLANE_AT(a, x) (*(plane_vec_elem_aligned *)((a) + (x)))
#endif
#if (PLANE_ELEMS || FLAT_ELEMS) && !WITH_INDICES && SH == 1 && SW == 1
/* The plane and flat paths: a band's `rows` output rows (from output element
 * o; input rows from h0) redone by the exact path where its watch saw a NaN
 * (or a 16-bit -0) in the band's input. */
__attribute__((always_inline)) inline void band_redo_if_watched(const fast_watch ok, __global const T *plane,
                                                                __global T *out, const long H, const long W,
                                                                const long h0, const long pad_w, const long OW,
                                                                const int rows, const long o, const long nc,
                                                                const long buf_lo, const long buf_hi)
{
#if EXACT_PATH
    if (!BLOCK_DONE(ok))
        for (long ow = 0; ow < OW; ow += FVW) {
            const long col = block_start(ow, OW, FVW);
            maxpool2d_redo_exact(plane, out, 0, (int)H, (int)W, (int)h0, (int)(col - pad_w),
                                 (int)min(OW - col, (long)FVW), rows, o + col, OW, nc, 1, buf_lo, buf_hi, FVW);
        }
#else
    (void)ok;
#endif
}
#endif
#if PLANE_ELEMS && !WITH_INDICES && SH == 1 && SW == 1
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
__attribute__((always_inline)) inline void plane_pass(FAST_ELEM *dst, const FAST_ELEM *src, const int n, const int taps,
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
__attribute__((always_inline)) inline void plane_fill(FAST_ELEM *a, const int from, const int to)
{
    for (int x = from; x < to; x += FVW) PLANE_AT(a, x) = (fast_vec)(FAST_LOWEST);
}

/* Windows of up to 11 taps a side are combined tap by tap; 12 and 13 (the
 * 2-D path's limit) by the log-step: 4 taps, then 8 (pairs 4 apart), then
 * the pair 8 - k apart. A 512-bit store costs Zen 4 two cycles and a load
 * one, so a pass (two loads and a store) has to save more than that. */
#define PLANE_LOG_STEP(k) ((k) > 11)
/* Taps of the last vertical combine (the one into the output rows), P apart
 * times PLANE_V_STEP. */
#define PLANE_V_TAPS (PLANE_LOG_STEP(KH) ? 2 : KH)
#define PLANE_V_STEP (PLANE_LOG_STEP(KH) ? KH - 8 : 1)

__kernel CLPOOL_WIDE_VECTORS void maxpool2d_plane(__global const T *in, __global T *out, const maxpool2d_sizes sz)
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
#elif FLAT_ELEMS && !WITH_INDICES && SH == 1 && SW == 1
/*
 * Flat path (-DFLAT_ELEMS=n, -DPAD_W=the left pad; types of at most 4 bytes
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
__attribute__((always_inline)) inline fast_bits flat_load(__global const T *plane, const long at, const int guarded,
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
__attribute__((always_inline)) inline void flat_across(FAST_ELEM *a, const int q, __global const T *plane,
                                                       const long at0, const int guarded, const long buf_lo,
                                                       const long buf_hi, const int w, flat_col *col, const int step,
                                                       fast_watch *ok)
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

__kernel CLPOOL_WIDE_VECTORS void maxpool2d_flat(__global const T *in, __global T *out, const maxpool2d_sizes sz)
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
    /* Prefetch the next plane's band (mostly this thread's next work-item: PoCL hands a thread consecutive
     * work-groups), its input and its output lines: small planes are too short a run for the hardware prefetcher. */
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
        for (int q = q_lo; q < q_hi; q += FVW) flat_across(a, q, plane, at0, 1, buf_lo, buf_hi, w, &col, step, &ok);
    else
        for (int q = q_lo; q < q_hi; q += FVW) flat_across(a, q, plane, at0, 0, 0, 0, w, &col, step, &ok);
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
#else /* PLANE_ELEMS */
__kernel CLPOOL_WIDE_VECTORS void maxpool2d(__global const T *in, __global T *out,
#if WITH_INDICES
                        __global long *index_at,
#endif
#if INDEX_MAP
                        __global const long *index_map,
#endif
                        const maxpool2d_sizes sz)
{
    const long H = sz.H, W = sz.W, OH = sz.OH, OW = sz.OW, pad_h = sz.pad_h, pad_w = sz.pad_w, in_offset = sz.in_offset,
               out_offset = sz.out_offset, in_limit = sz.in_limit, block_rows = sz.rows;
#if INDEX_MAP
    const index_sink indices = {index_at + sz.idx_offset, index_map};
#elif WITH_INDICES
    const index_sink indices = index_at + sz.idx_offset;
#else
    const index_sink indices = 0; /* the exact path's fallback stores none */
#endif
    long ow0 = (long)get_global_id(0) * (SWEEP_BLOCKS ? SWEEP_BLOCKS * BW : BW);
    const long oh0 = (long)get_global_id(1) * block_rows, nc = (long)get_global_id(2);
    if (ow0 >= OW || oh0 >= OH) return;
    __global const T *plane = in + in_offset + nc * H * W;
    out += out_offset;
    const int rows = (int)min(OH - oh0, block_rows);
    /* Vector loads span [first, last] in buffer elements; where they would
     * leave the buffer the block reads its rows through READ_ROW's guard
     * (buf_lo/buf_hi: the buffer's bounds as offsets from `plane`). */
    const long h0 = oh0 * SH - pad_h;
    const long h_end = h0 + (rows - 1) * SH + (KH - 1); /* last input row of the group */
    const long row_lo = max(h0, 0L), row_hi = min(h_end, H - 1);
    const long buf_lo = -(in_offset + nc * H * W), buf_hi = in_limit + buf_lo;
#if SWEEP_BLOCKS
    /* FVW-wide blocks k0..k0+n-1 */
    const long k0 = ow0 / FVW;
    const int n = (int)min((OW + FVW - 1) / FVW - k0, (long)SWEEP_MAX);
    const long w_from = sweep_block_col(k0, OW) * SW - pad_w; /* the input columns the blocks' loads span */
    const long w_end = sweep_block_col(k0 + n - 1, OW) * SW - pad_w + BLOCK_SPAN;
    const int guarded = row_lo * W + w_from < buf_lo || row_hi * W + w_end > buf_hi;
    maxpool2d_sweep(plane, out, indices, (int)H, (int)W, OW, pad_w, (int)h0, rows, k0, n, (nc * OH + oh0) * OW, nc,
                    guarded, h0 >= 0 && h_end < H, w_from, w_end, buf_lo, buf_hi);
#else
    ow0 = block_start(ow0, OW, BW);
    /* A small plane in one work-item: prefetch the next plane's input and output as the flat path does. */
    if (ow0 == 0 && OW <= BW && oh0 == 0 && rows == OH && H * W * (long)sizeof(T) <= PREFETCH_PLANE_BYTES) {
        prefetch_bytes(plane + H * W, H * W * (long)sizeof(T));
        prefetch_write_bytes(out + (nc + 1) * OH * OW, OH * OW * (long)sizeof(T));
    }
    const long o = (nc * OH + oh0) * OW + ow0, w0 = ow0 * SW - pad_w;
    const int guarded = row_lo * W + w0 < buf_lo || row_hi * W + w0 + BLOCK_SPAN > buf_hi;
    const int lanes = (int)min(OW - ow0, (long)BW);
    for (int s = 0; s < FAST_SUBBLOCKS && s * FVW < lanes; ++s) {
        const int sw0 = (int)w0 + s * FVW * SW, sub_lanes = min(lanes - s * FVW, FVW);
        const long so = o + s * FVW;
        const int interior = block_interior(sw0, (int)W, sub_lanes, guarded, h0 >= 0 && h_end < H);
        const int done = SPECIALISE_INTERIOR && interior
                             ? maxpool2d_block(plane, out, indices, (int)H, (int)W, nc, (int)h0, sw0, sub_lanes, rows,
                                               so, OW, 1, 0, 0, 0)
                             : maxpool2d_block(plane, out, indices, (int)H, (int)W, nc, (int)h0, sw0, sub_lanes, rows,
                                               so, OW, interior, guarded, buf_lo, buf_hi);
#if EXACT_PATH
        if (!done) /* a NaN (or, without Indices, a 16-bit -0) in the block's input */
            maxpool2d_redo_exact(plane, out, indices, (int)H, (int)W, (int)h0, sw0, sub_lanes, rows, so, OW, nc,
                                 guarded, buf_lo, buf_hi, FVW);
#else
        (void)done; /* always exact: integers, or Indices on keys */
#endif
    }
#endif
    STREAM_FENCE();
}
#endif /* PLANE_ELEMS */
#endif
