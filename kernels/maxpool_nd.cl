/*
 * MaxPool's general kernels (-DNS=<spatial rank>, any attributes): maxpool,
 * VW outputs side by side along a row per work-item, and maxpool_window, a
 * window's taps across the lanes; -DWITH_INDICES=0|1, -DSTORAGE_ORDER=0|1
 * and a DT_* dtype macro (common.h). No barriers: on PoCL a work-item's
 * vectors are its SIMD, on GPUs neighbouring work-items read neighbouring
 * input. The host rejects attributes that leave a window without a tap
 * inside the input. Built after window_lanes.h.
 */
#ifndef NS
#error "maxpool_nd.cl: -DNS=<spatial rank>"
#endif

/*
 * The general kernel: any rank, kernel, stride, dilation and padding. The
 * geometry is run-time data (clpool__window_nd_geom), so one program per rank, dtype,
 * Indices variant, lane count (-DVW) and last-dim stride class (-DSW)
 * serves every attribute set. A work-item owns NB blocks of VW neighbouring
 * outputs along the last spatial dim of g.rows consecutive output rows (a row:
 * one position in N, C and the other spatial dims), the lanes' columns set up
 * once for them: a row's windows' taps on the other dims are the
 * same for every lane and are narrowed to the input once, and along the last
 * dim lane j's tap kw reads column (ow0 + j) * stride - pad + kw * dilation.
 * A tap loads its lanes as vectors where the last dim's stride is 1 or 2,
 * or 3 to 8 with 16 lanes under clang (-DSW; 0: any stride, VW single
 * loads), skips the taps whose lanes are all in the padding, and updates the best with a
 * select, without a data-dependent branch (a branch per compare mispredicts
 * on random data). A tap with lanes in the padding masks them out (its loads
 * read the neighbouring elements where they stay in the buffer, clamped
 * columns elsewhere). Every lane starts from its window's first tap inside
 * the input and takes a tap only if it is strictly better, so padding never
 * wins and ties keep the first tap in row-major order. Lanes past the row's
 * end are computed alongside and not stored.
 */

/* float16/bfloat16 compare order keys kept beside the bits; the other types
 * compare the bits themselves. */
#if defined(DT_FLOAT16) || defined(DT_BFLOAT16)
#define SEPARATE_KEYS 1
#else
#define SEPARATE_KEYS 0
#endif
#define ALL_LANES ((MASKV(VW))(-1))

/* float32/float64 without Indices first try the value path: from -inf (which
 * a lane's first tap inside replaces, or equals), a plain max per tap (x86's
 * maxps keeps the first of equal values and a NaN already taken) and, beside
 * it, watch += v - v in the lanes inside, which turns NaN at a NaN or an
 * infinity. Where the watch stays clean the maxima are exact; otherwise the
 * work-item starts over on the exact path (strict compares, the NaN rule).
 * The exact path's three compares per tap had kept x86's one compare port
 * busy. */
#if !WITH_INDICES && (defined(DT_FLOAT32) || defined(DT_FLOAT64))
#define VALUE_PATH 1
#else
#define VALUE_PATH 0
#endif

/* Window row spans of this many bytes are prefetched before the walk: shorter ones cost more to walk
 * than they wait, longer ones (dilations, strides) are mostly gaps. */
#define PREFETCH_ROW_SPAN_MIN 256
#define PREFETCH_ROW_SPAN_MAX 4096

/* Blocks of VW outputs per work-item: maxpool takes one block, and on CPUs
 * (-DNB_MAX=n) maxpool_nd_nb2..maxpool_nd_nbn take 2..n, kernels of one program so
 * that every row length shares it; in each, NB is a constant. */
#ifndef NB_MAX
#define NB_MAX 1
#endif

/* The best taps so far of a work-item's NB blocks of VW lanes. NB blocks
 * side by side keep NB compare-select chains in flight: one block's chain,
 * a compare and a select per tap, had left the core waiting on it. */
typedef struct maxpool_best {
    TV(VW) bits[NB_MAX];
#if SEPARATE_KEYS
    KTV(VW) key[NB_MAX];
#endif
#if WITH_INDICES
    LONGV(VW) at[NB_MAX]; /* in-plane offsets */
#endif
#if VALUE_PATH
    TV(VW) watch[NB_MAX];
#endif
} maxpool_best;

/* Block b's lanes take tap v (storage bits) where it is strictly better and
 * `inside` is set; at + cols: the lanes' in-plane offsets. */
static inline void take_tap(maxpool_best *best, int b, TV(VW) v, MASKV(VW) inside, long at, LONGV(VW) cols, int exact)
{
#if VALUE_PATH
    if (!exact) {
        const TV(VW) u = select(best->bits[b], v, inside); /* padding lanes offer the best itself */
        best->bits[b] = MAX_KEEP_FIRST(best->bits[b], u);
        best->watch[b] += select((TV(VW))0, v - v, inside);
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

/* An in-plane offset as the Indices count it: column-major (the first
 * spatial dim fastest) with storage_order 1. */
static inline long spatial_index(const clpool__window_nd_geom *g, long at)
{
#if STORAGE_ORDER == 1
    long coord[NS];
    for (int d = NS - 1; d >= 0; --d) {
        coord[d] = at % g->w.in_dims[d];
        at /= g->w.in_dims[d];
    }
    for (int d = NS - 1; d >= 0; --d) at = at * g->w.in_dims[d] + coord[d];
#else
    (void)g;
#endif
    return at;
}

/* The window rows of output row `out_row` (their spans from column col0), fetched PREFETCH_ROWS_AHEAD output
 * rows ahead of their walk: fetched just before it, the walk's first load waited for memory (strides past the
 * window leave the hardware prefetcher gaps). */
#define PREFETCH_ROWS_AHEAD 2
static inline void prefetch_window_rows(const clpool__window_nd_geom *g, __global const T *in, long out_row, long col0,
                                        long span)
{
    long start[OUTER_SLOTS], lo[OUTER_SLOTS], hi[OUTER_SLOTS], j[OUTER_SLOTS];
    const long nc = outer_taps(&g->w, out_row, start, lo, hi, j);
    __global const T *plane = in + g->in_offset + nc * g->w.in_plane;
    do
        prefetch_bytes(plane + tap_row(&g->w, start, j) * g->w.in_dims[LAST] + col0, span);
    while (next_tap_row(lo, hi, j));
}

/* Both general kernels' arguments: input, output, Indices (if wanted), geometry. */
#if WITH_INDICES
#define GENERAL_ARGS __global const T *in, __global T *out, __global long *indices, const clpool__window_nd_geom g
#define GENERAL_PASS in, out, indices, g
#else
#define GENERAL_ARGS __global const T *in, __global T *out, const clpool__window_nd_geom g
#define GENERAL_PASS in, out, g
#endif

/* The general kernels' work-item: NB (a constant in each) blocks of VW outputs. Inlined
 * at build, not SHARED_ITEM: PoCL's build would warn it cannot unroll the loops over NB. */
__attribute__((always_inline)) static inline void maxpool_blocks(GENERAL_ARGS, const int NB)
{
    const long gid = (long)get_global_id(0);
    if (gid >= g.items) return;
    const long OW = g.w.out_dims[LAST], row_items = (OW + NB * VW - 1) / (NB * VW);
    const long group = gid / row_items, ow0 = (gid - group * row_items) * (NB * VW);
    const long first_out_row = group * g.rows, end_row = min(first_out_row + g.rows, g.out_rows);

    /* Along the last dim: lane l's tap kw is column col0 + lane_at[l] + kw * DW (set up once for the rows). */
    const long W = g.w.in_dims[LAST], KW = g.w.kernel_shape[LAST], DW = g.w.dilations[LAST];
    const long col0 = ow0 * STRIDE_W - g.w.pad_begin[LAST];
    const int live = (int)min((long)(NB * VW), OW - ow0); /* lanes with an output */
    long lane_at[NB_MAX * VW], first_col[NB_MAX * VW];
    for (int l = 0; l < NB * VW; ++l) {
        lane_at[l] = (VECTOR_TAPS ? l : min(l, live - 1)) * STRIDE_W;
        const long c = col0 + lane_at[l];
        first_col[l] = min(c + tap_ceil_div(-c, DW) * DW, W - 1); /* the lane's first tap inside */
    }
    LONGV(VW) lane_cols[NB_MAX];
#pragma unroll
    for (int b = 0; b < NB; ++b) lane_cols[b] = VLOADV(VW, lane_at + b * VW);
    const row_taps taps = row_taps_of(col0, col0 + (live - 1) * STRIDE_W, W, KW, DW);
    /* Every window row's span at once: the rows' loads then overlap instead of waiting row by row. */
    const long span = ((NB * VW - 1) * STRIDE_W + (KW - 1) * DW + 1) * (long)sizeof(T);
    const int prefetch_rows = span >= PREFETCH_ROW_SPAN_MIN && span <= PREFETCH_ROW_SPAN_MAX;

    for (long out_row = first_out_row; out_row < end_row; ++out_row) {
        long start[OUTER_SLOTS], lo[OUTER_SLOTS], hi[OUTER_SLOTS], j[OUTER_SLOTS];
        const long nc = outer_taps(&g.w, out_row, start, lo, hi, j);
        const long plane_at = g.in_offset + nc * g.w.in_plane;
        __global const T *plane = in + plane_at;
        const long first_row = tap_row(&g.w, start, j);
        if (prefetch_rows)
            for (long r = out_row == first_out_row ? out_row : out_row + PREFETCH_ROWS_AHEAD;
                 r <= out_row + PREFETCH_ROWS_AHEAD && r < end_row; ++r)
                prefetch_window_rows(&g, in, r, col0, span);
        maxpool_best best;
        for (int exact = !VALUE_PATH;; exact = 1) {
#pragma unroll
            for (int b = 0; b < NB; ++b) {
#if VALUE_PATH
                /* the value path starts from -inf: its first tap inside replaces it (or is it), as from that tap */
                if (!exact) {
                    best.bits[b] = (TV(VW))(-INFINITY);
                    best.watch[b] = 0;
                    continue;
                }
#endif
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
                const long row_at = tap_row(&g.w, start, j) * W;
#if VECTOR_TAPS /* the vector loads stay inside the input buffer */
                const long fast_hi = vector_taps_end(taps, g.in_limit - (plane_at + row_at + col0 + NB * TAP_SPAN), DW);
#else
                const long fast_hi = taps.in_hi;
#endif
                for (long kw = taps.any_lo; kw < taps.any_hi; ++kw) {
                    const long c = col0 + kw * DW; /* lane 0's column */
                    const long at = row_at + c;
                    if (kw >= taps.in_lo && kw < fast_hi) {
#pragma unroll
                        for (int b = 0; b < NB; ++b)
                            take_tap(&best, b, INSIDE_TAP(plane, at, b, lane_at), ALL_LANES, at, lane_cols[b], exact);
                    } else { /* lanes in the padding: masked out */
#pragma unroll
                        for (int b = 0; b < NB; ++b) {
                            const MASKV(VW) inside = TO_MASKV(VW, edge_lanes_inside(c, W, STRIDE_W, b, NB * VW));
                            const TV(VW) v = edge_tap(in, plane_at, row_at, c, b, lane_at, W, g.in_limit);
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
            for (int l = 0; l < lanes; ++l)
                indices[g.idx_offset + out_at + l] = nc * g.w.in_plane + spatial_index(&g, at[l]);
#elif WITH_INDICES
            STORE_LANES(long, STORE_LONGV, nc * g.w.in_plane + best.at[b], lanes, indices + g.idx_offset + out_at);
#endif
        }
    }
}

__kernel CLPOOL_WIDE_VECTORS void maxpool_nd(GENERAL_ARGS) { maxpool_blocks(GENERAL_PASS, 1); }
#if NB_MAX >= 2
__kernel CLPOOL_WIDE_VECTORS void maxpool_nd_nb2(GENERAL_ARGS) { maxpool_blocks(GENERAL_PASS, 2); }
#endif
#if NB_MAX >= 3
__kernel CLPOOL_WIDE_VECTORS void maxpool_nd_nb3(GENERAL_ARGS) { maxpool_blocks(GENERAL_PASS, 3); }
#endif
#if NB_MAX >= 4
__kernel CLPOOL_WIDE_VECTORS void maxpool_nd_nb4(GENERAL_ARGS) { maxpool_blocks(GENERAL_PASS, 4); }
#endif

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
    const long OW = g.w.out_dims[LAST], out_row = gid / OW, ow = gid - out_row * OW;
    long start[OUTER_SLOTS], lo[OUTER_SLOTS], hi[OUTER_SLOTS], j[OUTER_SLOTS];
    const long nc = outer_taps(&g.w, out_row, start, lo, hi, j);
    const long plane_at = g.in_offset + nc * g.w.in_plane;
    __global const T *plane = in + plane_at;

    /* Along the last dim: tap t (0..taps-1) inside the input is column c_first + t * DW. */
    const long W = g.w.in_dims[LAST], KW = g.w.kernel_shape[LAST], DW = g.w.dilations[LAST];
    const long s = ow * g.w.strides[LAST] - g.w.pad_begin[LAST];
    const long klo = tap_ceil_div(-s, DW);
    const long taps = min(tap_ceil_div(W - s, DW), KW) - klo, c_first = s + klo * DW;
    const INTV(VW) lane = LANE_IDS;
    const WINDOW_ATV lane_cols = WINDOW_CONVERT_AT(min(lane, (int)min(taps - 1, (long)VW - 1))) * (WINDOW_AT)DW; /* in range */

    const long first_at = tap_row(&g.w, start, j) * W + c_first;
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
        const long row_at = tap_row(&g.w, start, j) * W + c_first;
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
    indices[g.idx_offset + gid] = nc * g.w.in_plane + spatial_index(&g, win_at);
#endif
}
