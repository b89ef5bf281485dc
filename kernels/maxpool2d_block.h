/* A 2-D work-item's block of output rows, on the fast or the argmax path:
 * after maxpool2d_argmax.h. */
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
__attribute__((always_inline)) static inline long block_start(const long ow, const long OW, const int width)
{
    return OVERLAP_BLOCKS && ow + width > OW && OW >= width ? OW - width : ow;
}

/* Whether the block at input column w0 needs no edge masks and no guard
 * (and, where the path asks, has all its input rows inside the plane). Only
 * the `lanes` it stores count: the taps of the lanes past a row's end read
 * on into the buffer (the guard keeps them inside it) and are dropped, so
 * rows narrower than a block (2x2/s2 on 56-wide int8 rows: 28 of 32 lanes)
 * take the interior code. */
__attribute__((always_inline)) static inline int block_interior(const int w0, const int W, const int lanes,
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
__attribute__((always_inline)) static inline int maxpool2d_block(__global const T *plane, __global T *out,
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
