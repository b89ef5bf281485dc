/* The 2-D row sweep (-DSWEEP_BLOCKS): after maxpool2d_block.h. */
#ifndef SWEEP_BLOCKS
#define SWEEP_BLOCKS 0
#endif
#if SWEEP_BLOCKS
/*
 * Row sweep (-DSWEEP_BLOCKS=n, CPUs, tensors beyond the cache's reach): a
 * work-item owns up to sz.sweep * BW outputs of each of its rows (the
 * whole row of most tensors) and goes across them for each output row in
 * turn, so it reads its input rows front to back, one stream the hardware
 * prefetcher follows. A work-item per column block reads its block down 16
 * rows before the next block's, a pattern the prefetcher follows worse.
 * The blocks' carries live in a private array sized for SWEEP_BLOCKS, the
 * window's bound; sz.sweep (at most that) follows the row, so one program
 * serves every row length. Blocks are FVW outputs wide, block k starting at
 * block_start(k * FVW) as without the sweep.
 */
#define SWEEP_MAX (SWEEP_BLOCKS * FAST_SUBBLOCKS) /* FVW-wide blocks per work-item */

/* First output column of the row's FVW-wide block k. */
__attribute__((always_inline)) static inline long sweep_block_col(const long k, const long OW)
{
    return block_start(k * FVW, OW, FVW);
}

/* Block k's first output column; *w0 = its first input column, *lanes = the outputs it stores. */
__attribute__((always_inline)) static inline long sweep_block(const long k, const long OW, const long pad_w, int *w0,
                                                       int *lanes)
{
    const long ow = sweep_block_col(k, OW);
    *w0 = (int)(ow * SW - pad_w);
    *lanes = (int)min(OW - ow, (long)FVW);
    return ow;
}

/* Software prefetch, PREFETCH_AHEAD_BYTES ahead of the input a sweep reads next
 * (past a plane's end, into the next plane's first rows, which the next
 * work-item reads): the hardware prefetchers alone leave the sweep stalled on
 * DRAM. PREFETCH: common.h. */

/* Prefetches elements [at, at + n) of `plane` (offsets), PREFETCH_AHEAD_BYTES
 * ahead, within the buffer (buf_lo/buf_hi). */
__attribute__((always_inline)) static inline void sweep_prefetch(__global const T *plane, const long at, const long n,
                                                          const long buf_lo, const long buf_hi)
{
    const long ahead = at + PREFETCH_AHEAD_BYTES / (long)sizeof(T);
    const long from = max(ahead, buf_lo), to = min(ahead + n, buf_hi);
    if (from < to) prefetch_bytes(plane + from, (to - from) * (long)sizeof(T));
}

/* A sweep's watches: one per block where windows span rows, so a NaN sends
 * only its own blocks to the exact path; one for all blocks where they do
 * not, since a 1-D block's scan is one row, too little work to pay for a
 * watch in memory. */
#define SWEEP_WATCHES (KH > 1 ? SWEEP_MAX : 1)
#define SWEEP_WATCH(k) (SWEEP_WATCHES > 1 ? (k) : 0)

/* Blocks k0..k0+n-1 of `rows` output rows (the first one's output row
 * starting at `orow`; their loads span input columns [w_from, w_end)),
 * redone by the exact path where the fast path cannot be exact. */
__attribute__((always_inline)) static inline void maxpool2d_sweep(__global const T *plane, __global T *out,
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
