/*
 * MaxPool over NS spatial dims (NS is a -D constant, 1..10; shapes are
 * runtime data). One output element per work-item, no barriers: on PoCL
 * work-items become vectorised loops, on GPUs neighbouring work-items read
 * neighbouring input (3x3/s2 windows need no local-memory tiling).
 *
 * Options: -DNS=<spatial rank>, -DWITH_INDICES=0|1, -DSTORAGE_ORDER=0|1,
 * plus a DT_* dtype macro (common.h).
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
