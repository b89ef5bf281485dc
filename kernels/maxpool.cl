/*
 * MaxPool over NS spatial dims (NS is a -D constant, 1..10; shapes are
 * runtime data). One output element per work-item, no barriers: on PoCL
 * work-items become vectorised loops, on GPUs neighbouring work-items read
 * neighbouring input (3x3/s2 windows need no local-memory tiling).
 *
 * Options: -DNS=<spatial rank> (general kernel) or -DKH.. (2-D fast path,
 * below), -DWITH_INDICES=0|1, -DSTORAGE_ORDER=0|1, plus a DT_* dtype macro
 * (common.h).
 *
 * Each work-item first narrows every dim's tap range to the taps inside the
 * input (so padding never wins and needs no per-tap test), then walks the taps
 * in row-major order; the host rejects attributes that leave a window empty.
 */

/* Mirrors clpool__maxpool_geom in host/maxpool.c (all 64-bit, no padding). */
typedef struct maxpool_geom {
    long in_dims[CLPOOL_KERNEL_MAX_SPATIAL];
    long out_dims[CLPOOL_KERNEL_MAX_SPATIAL];
    long ksize[CLPOOL_KERNEL_MAX_SPATIAL];  /* "kernel" is an OpenCL C keyword */
    long stride[CLPOOL_KERNEL_MAX_SPATIAL];
    long pad_begin[CLPOOL_KERNEL_MAX_SPATIAL];
    long dilation[CLPOOL_KERNEL_MAX_SPATIAL];
    long in_plane;   /* elements of one (n, c) input plane */
    long total_out;  /* output elements = work-items that do work */
    long in_offset;  /* element offsets into the buffers */
    long out_offset;
    long idx_offset;
    long unused;
} maxpool_geom;

#if defined(NS)
__kernel void maxpool(__global const T *in, __global T *out,
#if WITH_INDICES
                      __global long *indices,
#endif
                      const maxpool_geom g)
{
    const long gid = (long)get_global_id(0);
    if (gid >= g.total_out) return;

    long start[NS], lo[NS], hi[NS], j[NS];
    long rem = gid;
    for (int d = NS - 1; d >= 0; --d) {
        const long o = rem % g.out_dims[d];
        rem /= g.out_dims[d];
        const long s = o * g.stride[d] - g.pad_begin[d];
        const long dl = g.dilation[d];
        start[d] = s;
        lo[d] = s < 0 ? (-s + dl - 1) / dl : 0;                /* first tap at >= 0 */
        hi[d] = min((g.in_dims[d] - s + dl - 1) / dl, g.ksize[d]); /* first tap at >= in */
    }
    const long nc = rem;
    __global const T *plane = in + g.in_offset + nc * g.in_plane;

    long best_off = 0;
    for (int d = 0; d < NS; ++d) {
        j[d] = lo[d];
        best_off = best_off * g.in_dims[d] + start[d] + lo[d] * g.dilation[d];
    }
    CT best = LOAD(plane, best_off);

    const int last = NS - 1;
    for (;;) {
        long row = 0;
        for (int d = 0; d < last; ++d) row = row * g.in_dims[d] + start[d] + j[d] * g.dilation[d];
        row = row * g.in_dims[last] + start[last];
        for (long t = lo[last]; t < hi[last]; ++t) {
            const long off = row + t * g.dilation[last];
            const CT v = LOAD(plane, off);
            if (MAX_BETTER(v, best)) {
                best = v;
                best_off = off;
            }
        }
        int d = last - 1; /* odometer over the outer dims */
        for (; d >= 0; --d) {
            if (++j[d] < hi[d]) break;
            j[d] = lo[d];
        }
        if (d < 0) break;
    }

    /* Copy the winner's bits: exact for every dtype, no rounding. */
    out[g.out_offset + gid] = plane[best_off];
#if WITH_INDICES
    long spatial = best_off;
#if STORAGE_ORDER == 1
    {   /* column-major: first spatial dim varies fastest */
        long coord[NS];
        long r = best_off;
        for (int d = NS - 1; d >= 0; --d) {
            coord[d] = r % g.in_dims[d];
            r /= g.in_dims[d];
        }
        spatial = 0;
        for (int d = NS - 1; d >= 0; --d) spatial = spatial * g.in_dims[d] + coord[d];
    }
#endif
    indices[g.idx_offset + gid] = nc * g.in_plane + spatial;
#endif
}
#endif /* NS */

#if defined(KH)
/*
 * 2-D fast path, specialised on kernel/stride/dilation (-DKH -DKW -DSH -DSW
 * -DDH -DDW; small constants, fully unrolled) with a 3-D NDRange
 * (ow, oh, n*C) so no work-item divides. Taps are clamped into the plane and
 * masked instead of branched on, so neighbouring work-items run the same
 * instructions (vectorised loops on PoCL, no divergence on GPUs). `have`
 * makes the first valid tap win the initial slot, so padding never wins.
 */
__kernel void maxpool2d(__global const T *in, __global T *out,
#if WITH_INDICES
                        __global long *indices,
#endif
                        const long H, const long W, const long OH, const long OW, const long pad_h,
                        const long pad_w, const long in_offset, const long out_offset, const long idx_offset)
{
    const long ow = (long)get_global_id(0), oh = (long)get_global_id(1), nc = (long)get_global_id(2);
    if (ow >= OW || oh >= OH) return;
    const long h0 = oh * SH - pad_h, w0 = ow * SW - pad_w;
    __global const T *plane = in + in_offset + nc * H * W;
    CT best = 0;
    long best_off = 0;
    int have = 0;
    for (int kh = 0; kh < KH; ++kh) {
        const long h = h0 + kh * DH;
        const int h_ok = h >= 0 && h < H;
        const long row = clamp(h, 0L, H - 1) * W;
        for (int kw = 0; kw < KW; ++kw) {
            const long w = w0 + kw * DW;
            const int ok = h_ok && w >= 0 && w < W;
            const long off = row + clamp(w, 0L, W - 1);
            const CT v = LOAD(plane, off);
            const int take = ok && (!have || MAX_BETTER(v, best));
            best = take ? v : best;
            best_off = take ? off : best_off;
            have |= ok;
        }
    }
    const long o = (nc * OH + oh) * OW + ow;
    out[out_offset + o] = plane[best_off];
#if WITH_INDICES
#if STORAGE_ORDER == 1
    const long spatial = (best_off % W) * H + best_off / W;
#else
    const long spatial = best_off;
#endif
    indices[idx_offset + o] = nc * H * W + spatial;
#endif
}
#endif
