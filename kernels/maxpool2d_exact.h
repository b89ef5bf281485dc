/* The 2-D kernels' stores, and the exact path that redoes the blocks the
 * fast and argmax paths hand back: after maxpool2d_fast.h. */
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
__attribute__((always_inline)) static inline LONGV(VW) mapped_indices(const __global long *map, const LONGV(VW) idx,
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
__attribute__((always_inline)) static inline void store_lanes_and_indices(__global T *out, index_sink indices,
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
__attribute__((always_inline)) static inline void store_block_row(__global T *out, index_sink indices,
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
__attribute__((always_inline)) static inline void store_block_row_offsets(__global T *out, index_sink indices,
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
__attribute__((always_inline)) static inline void maxpool2d_block_exact(__global const T *plane, __global T *out,
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
__attribute__((always_inline)) static inline void lanes_to_scan(MASKV(VW) *watched, const int W, const int w0,
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
__attribute__((always_inline)) static inline int row_needs_exact(__global const T *plane, const int H, const int W,
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
 * Redoes a block of `rows` rows x `lanes` (up to block_lanes) outputs on the
 * exact path, EXACT_ROWS rows x VW lanes at a time, but only the groups whose
 * windows hold a value the fast path could not combine exactly (NEEDS_EXACT):
 * the others keep what the fast (or argmax, or plane) path stored. Each input
 * row is scanned at most once per VW lanes, in order, until a group's
 * question is settled: it needs the exact path where the last such row found
 * lies at or below its windows' first row: a NaN costs the groups whose
 * windows hold it, not every row of its block.
 */
__attribute__((always_inline)) static inline void maxpool2d_redo_exact(__global const T *plane, __global T *out,
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
