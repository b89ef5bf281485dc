/* The 2-D kernel: column blocks (or row sweeps) of output rows on the fast,
 * argmax and exact paths. Built after maxpool2d_sweep.h. */
__kernel CLPOOL_WIDE_VECTORS void maxpool2d(__global const T *in, __global T *out,
#if WITH_INDICES
                        __global long *index_at,
#endif
#if INDEX_MAP
                        __global const long *index_map,
#endif
                        const clpool__maxpool2d_sizes sz)
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
#if SWEEP_BLOCKS
    const long sweep = min(sz.sweep, (long)SWEEP_BLOCKS); /* the carries' array holds SWEEP_BLOCKS blocks */
#else
    const long sweep = 1;
#endif
    long ow0 = (long)get_global_id(0) * sweep * BW;
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
    const int n = (int)min((OW + FVW - 1) / FVW - k0, sweep * FAST_SUBBLOCKS);
    const long w_from = sweep_block_col(k0, OW) * SW - pad_w; /* the input columns the blocks' loads span */
    const long w_end = sweep_block_col(k0 + n - 1, OW) * SW - pad_w + BLOCK_SPAN;
    const int guarded = row_lo * W + w_from < buf_lo || row_hi * W + w_end > buf_hi;
    maxpool2d_sweep(plane, out, indices, (int)H, (int)W, OW, pad_w, (int)h0, rows, k0, n, (nc * OH + oh0) * OW, nc,
                    guarded, h0 >= 0 && h_end < H, w_from, w_end, buf_lo, buf_hi);
#else
    ow0 = block_start(ow0, OW, BW);
    /* A small plane in one work-item: prefetch the next plane's input and
     * output as the flat path does; such planes are too short a run for the
     * hardware prefetcher. */
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
