/* GlobalMaxPool's kernels (-DOP=CLPOOL__OP_REDUCE_MAX): after global_pool.h. */
#if OP != CLPOOL__OP_REDUCE_MAX
#error "global_max_pool.cl: -DOP=CLPOOL__OP_REDUCE_MAX"
#endif
/* Index of the winner among x[first..end) by `step`: the first NaN, else the first maximum. */
static inline long scan_max(__global const T *x, long first, long end, long step)
{
    long best_i = first;
    CT best = LOAD(x, first);
    long i = first + step;
    if (step == 1 && end - first >= 16 && end - first <= INT_MAX) {
        /* 8 lanes each keep their own winner over a strided subsequence (its
         * position as an int relative to `first`: cheaper selects than long);
         * the lane winners are then combined by value, ties to the lower index. */
        const int8 lane = (int8)(0, 1, 2, 3, 4, 5, 6, 7);
        CT8 vbest = VLOAD8C(x + first);
        int8 vpos = lane;
        for (i = first + 8; i + 8 <= end; i += 8) {
            const CT8 v = VLOAD8C(x + i);
            const int8 take = MAX_BETTER8(v, vbest);
            vbest = select(vbest, v, SELECT_MASK8(take));
            vpos = select(vpos, lane + (int)(i - first), take);
        }
        int lane_pos[8]; /* OpenCL C 1.2 has no run-time vector subscripts */
        vstore8(vpos, 0, lane_pos);
        for (int l = 0; l < 8; ++l) {
            const long at = first + lane_pos[l];
            const CT v = LOAD(x, at);
            if (MAX_BETTER(v, best) || (!MAX_BETTER(best, v) && at < best_i)) {
                best = v;
                best_i = at;
            }
        }
    }
    for (; i < end; i += step) {
        const CT v = LOAD(x, i);
        if (MAX_BETTER(v, best)) {
            best = v;
            best_i = i;
        }
    }
    return best_i;
}

/* The largest order key of x[0..n), n >= 1: integer max() over 16 lanes, no
 * positions (a key names its bits, see common.h); a ragged end is one more
 * vector overlapping the previous one, harmless for a max. */
static inline KEY_SCALAR max_key(__global const T *x, long n)
{
    if (n < 16) {
        KEY_SCALAR best = ORDER_KEY(x[0]);
        for (long i = 1; i < n; ++i) best = max(best, ORDER_KEY(x[i]));
        return best;
    }
    KEYT(16) acc = order_key16(vload16(0, x));
    for (long i = 16; i + 16 <= n; i += 16) acc = max(acc, order_key16(vload16(0, x + i)));
    acc = max(acc, order_key16(vload16(0, x + n - 16)));
    const KEYT(8) m8 = max(acc.lo, acc.hi);
    const KEYT(4) m4 = max(m8.lo, m8.hi);
    const KEYT(2) m2 = max(m4.lo, m4.hi);
    return max(m2.lo, m2.hi);
}

/* The maximum of x[0..n), n >= 1: the first NaN, else the first maximum. Only
 * a maximum of +-0 or NaN needs the plane again, for the first element with
 * that key (its sign or payload). */
static inline T plane_max(__global const T *x, long n)
{
    const KEY_SCALAR m = max_key(x, n);
    if (m != 0 && m != KEY_TOP) return BITS_OF_KEY(m);
    long i = 0;
    while (ORDER_KEY(x[i]) != m) ++i;
    return x[i];
}

/* One work-item per plane. */
__kernel void global_pool_direct(__global const T *in, __global T *out, const clpool__global_sizes sz, const AT p_unused)
{
    const long plane = (long)get_global_id(0);
    if (plane >= sz.planes) return;
    out[sz.out_offset + plane] = plane_max(in + sz.in_offset + plane * sz.plane_size, sz.plane_size);
}

#if defined(DT_FLOAT32) || defined(DT_FLOAT64)
/*
 * `global_pool_grouped` for Max (planes of at least 16 elements): within a
 * plane the 16 lanes keep plain float maxima (MAX_KEEP_FIRST, x86 maxps: no
 * order keys), then TRANSPOSED_REDUCE16. That is exact unless the group
 * holds a NaN (maxps drops it: all 16 planes are redone by plane_max) or a
 * plane's maximum is +-0 (the first zero's sign: that plane is redone).
 */

/* Planes of at most PREFETCH_PLANE_BYTES (common.h) prefetch the next
 * group's plane (the next work-item's, 16 planes on) while they read their
 * own: runs that short escape the hardware prefetcher; longer ones do not. */

/* y[0..count) = the maxima of the count <= 16 planes of n >= 16 elements at x. */
static inline void group_max(__global const T *x, const long n, __global T *y, const long count)
{
    if (count < 16) { /* the last group is short */
        for (long p = 0; p < count; ++p) y[p] = plane_max(x + p * n, n);
        return;
    }
    V16 m[16];
    MASKV(16) nan = 0;
    const int prefetch_ahead = n * (long)sizeof(T) <= PREFETCH_PLANE_BYTES;
#pragma unroll
    for (int p = 0; p < 16; ++p) {
        __global const T *xp = x + p * n;
        if (prefetch_ahead) prefetch_bytes(xp + 16 * n, n * (long)sizeof(T));
        /* The last vector overlaps the one before it (harmless for a max). */
        const V16 a = vload16(0, xp), b = vload16(0, xp + n - 16);
        nan |= (a != a) | (b != b);
        V16 acc = MAX_KEEP_FIRST(a, b);
        for (long i = 16; i < n - 16; i += 16) {
            const V16 v = vload16(0, xp + i);
            nan |= v != v;
            acc = MAX_KEEP_FIRST(acc, v);
        }
        m[p] = acc;
    }
    if (MASK_ANY(nan)) {
        for (int p = 0; p < 16; ++p) y[p] = plane_max(x + p * n, n);
        return;
    }
    V16 r;
    TRANSPOSED_REDUCE16(m, MAX_KEEP_FIRST, r);
    vstore16(r, 0, y);
    const MASKV(16) zero = r == (V16)0;
    if (MASK_ANY(zero)) {
        MASK_SCALAR z[16]; /* OpenCL C 1.2 has no run-time vector subscripts */
        vstore16(zero, 0, z);
        for (int p = 0; p < 16; ++p)
            if (z[p]) y[p] = plane_max(x + p * n, n);
    }
}

/* The first element of x[0..n) that equals m (NaN: the first NaN; zero: the
 * first zero of either sign), m one of them: 16 at a time. */
static inline long first_equal(__global const T *x, const long n, const T m)
{
    long i = 0;
    if (m != m) {
        for (; i + 16 <= n && !MASK_ANY(vload16(0, x + i) != vload16(0, x + i)); i += 16) {}
        while (x[i] == x[i]) ++i;
    } else {
        for (; i + 16 <= n && !MASK_ANY(vload16(0, x + i) == (V16)m); i += 16) {}
        while (x[i] != m) ++i;
    }
    return i;
}

__kernel void global_pool_grouped(__global const T *in, __global T *out, const clpool__global_sizes sz, const AT p_unused)
{
    const long first = (long)get_global_id(0) * 16, planes = sz.planes, n = sz.plane_size;
    if (first < planes)
        group_max(in + sz.in_offset + first * n, n, out + sz.out_offset + first, min(16L, planes - first));
}

/*
 * MaxPool with Indices where every window is a whole plane (CPUs, float32
 * and float64, planes of at least 16; host/maxpool.c): GlobalMaxPool's 16
 * planes per work-item, then each maximum's first position, found again by
 * comparison while the planes are in cache (the output holds that element's
 * bits already: the first zero's sign, the first NaN), as the Indices count
 * it (col_major: storage_order 1, the first of the spatial dims d0, d1, d2
 * fastest; dims past the rank are 1). Positions tracked through the scan, as
 * the window kernel does, cost a select per vector; a maximum per plane in
 * turn, located at once from L1, loses the 16 planes' transposed reduction.
 */
__kernel void global_max_pool_indices(__global const T *in, __global T *out, __global long *indices,
                                      const clpool__global_sizes sz)
{
    const long planes = sz.planes, n = sz.plane_size, in_offset = sz.in_offset, out_offset = sz.out_offset,
               idx_offset = sz.idx_offset, col_major = sz.col_major, d0 = sz.d0, d1 = sz.d1, d2 = sz.d2;
    const long first = (long)get_global_id(0) * 16;
    if (first >= planes) return;
    const long count = min(16L, planes - first);
    __global const T *x = in + in_offset + first * n;
    __global T *y = out + out_offset + first;
    group_max(x, n, y, count);
    for (long p = 0; p < count; ++p) {
        long at = first_equal(x + p * n, n, y[p]);
        if (col_major) {
            const long c2 = at % d2, c1 = at / d2 % d1, c0 = at / (d1 * d2);
            at = c0 + d0 * (c1 + d1 * c2);
        }
        indices[idx_offset + first + p] = (first + p) * n + at;
    }
}
#endif

__kernel void global_pool_partial(__global const T *in, __global long *partials, const clpool__global_sizes sz,
                                  const AT p_unused)
{
    const long planes = sz.planes, plane_size = sz.plane_size, parts = sz.parts, in_offset = sz.in_offset;
    const long gid = (long)get_global_id(0);
    if (gid >= planes * parts) return;
    const long plane = gid / parts, lane = gid % parts;
    LANE_RANGE(lane, parts, plane_size, first, end, step);
    /* An empty chunk (possible for huge P) names element 0: a real member, harmless to the combine. */
    partials[gid] = first < end ? scan_max(in + in_offset + plane * plane_size, first, end, step) : 0;
}

/* Combine lane winners: a better value wins; between equivalent ones (equal,
 * +-0, or both NaN) the smaller index, i.e. the one a sequential scan meets first. */
__kernel void global_pool_final(__global const long *partials, __global const T *in, __global T *out,
                                const clpool__global_sizes sz, const AT p_unused)
{
    const long planes = sz.planes, plane_size = sz.plane_size, parts = sz.parts, in_offset = sz.in_offset,
               out_offset = sz.out_offset;
    const long plane = (long)get_global_id(0);
    if (plane >= planes) return;
    __global const T *x = in + in_offset + plane * plane_size;
    __global const long *q = partials + plane * parts;
    long best_i = q[0];
    CT best = LOAD(x, best_i);
    for (long l = 1; l < parts; ++l) {
        const long i = q[l];
        const CT v = LOAD(x, i);
        if (MAX_BETTER(v, best) || (!MAX_BETTER(best, v) && i < best_i)) {
            best = v;
            best_i = i;
        }
    }
    out[out_offset + plane] = x[best_i];
}
