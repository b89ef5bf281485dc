/* The 2-D argmax path (Indices): after maxpool2d_exact.h. */
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
/* Row h's per-lane best (key, bits, first column holding it) of its KW
 * taps, and whether the row lies inside the plane (*inside: if not, nothing
 * else is set). Here `interior` also means every row of the block inside
 * the plane (INTERIOR_NEEDS_ROWS): one check per block, not one per row as
 * on the fast path, keeps the interior blocks' loop lean. */
#define INTERIOR_NEEDS_ROWS 1
__attribute__((always_inline)) static inline void argmax_row(__global const T *plane, const int H, const int W, const long h,
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

__attribute__((always_inline)) static inline void block_edges_init(block_edges *e, const int W, const int w0,
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
__attribute__((always_inline)) static inline void block_prime(__global const T *plane, const int H, const int W,
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
__attribute__((always_inline)) static inline void block_output_row(__global const T *plane, __global T *out,
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
