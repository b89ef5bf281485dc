/*
 * GlobalMaxPool / GlobalAveragePool / GlobalLpPool: reduce each (n, c) plane
 * of S = prod(spatial) elements to one value.
 *
 * Options: DT_* dtype, -DOP=OP_MAX|OP_AVG|OP_LP, -DLP_KIND=1|2|3|0 (p == 1,
 * p == 2, other integer p by squaring, general p via pow; only for OP_LP), -DCHUNKED=0|1 (how a split plane is
 * dealt to work-items, see below).
 *
 * Strategy (chosen on the host from the shape and the device):
 *  - many planes (N*C fills the device) or short planes: `global_pool_direct`,
 *    one work-item per plane, a serial loop, no barriers; on CPUs
 *    (float32/float64; Max: planes of 16 elements or more, the sums: 16 to
 *    SHORT_SUM) `global_pool_grouped`, 16 planes per work-item
 *    (`global_max_pool_indices` adds each maximum's position, for MaxPool
 *    with Indices whose windows are whole planes);
 *  - few long planes: `global_pool_partial` splits each plane over P
 *    work-items ("lanes") that write P partial results; `global_pool_final`
 *    then combines each plane's partials. Two barrier-free passes instead of
 *    a local-memory tree, which PoCL would have to split into loops around
 *    each barrier. CHUNKED=1 (CPUs) gives each lane one contiguous chunk, so
 *    a work-item streams through memory; CHUNKED=0 (GPUs) interleaves lanes
 *    (lane, lane + P, ...) so neighbouring work-items read neighbouring
 *    addresses (coalesced).
 * Sums use Kahan compensation in AT (float32 stays accurate on 10^6-element
 * planes; planes of at most 256 elements use plain 16-lane sums, see
 * short_sum) plus a plain running sum that takes over when it is not finite
 * (inf or NaN inputs must give inf/NaN, which compensation alone would turn
 * into NaN); the result is rounded once to the output type. Max tracks the
 * winning element's index and copies its bits (exact for every dtype, NaN
 * payloads included); partial winners are combined so that the result is
 * the one a sequential scan would pick: the first NaN, else the first maximum.
 */
#define OP_MAX 1
#define OP_AVG 2
#define OP_LP 3

/* Mirrors clpool__global_sizes in host/global_pool.c (all 64-bit, no
 * padding): the run-time sizes as one argument, since PoCL copies every
 * argument (an aligned malloc each) at every enqueue. */
typedef struct global_sizes {
    long planes, plane_size;
    long parts; /* lanes per plane of the two-pass kernels */
    long in_offset, out_offset, idx_offset; /* element offsets into the buffers */
    long col_major, d0, d1, d2; /* global_max_pool_indices: storage_order 1, the spatial dims */
} global_sizes;

/* Range of a plane's elements lane `lane` of `parts` visits: i = first; i < end; i += step. */
#if CHUNKED
#define LANE_RANGE(lane, parts, size, first, end, step)                  \
    const long chunk_ = ((size) + (parts) - 1) / (parts);                \
    const long first = (lane) * chunk_;                                  \
    const long end = min((size), first + chunk_);                        \
    const long step = 1
#else
#define LANE_RANGE(lane, parts, size, first, end, step) \
    const long first = (lane);                          \
    const long end = (size);                            \
    const long step = (parts)
#endif

#if defined(DT_FLOAT32) || defined(DT_FLOAT64)
/*
 * The grouped kernels (`global_pool_grouped`; CPUs, float32/float64): one
 * work-item takes 16 neighbouring planes, reduces each to 16 lanes, and
 * then the 16 planes' lanes together, a transpose in four shuffle levels (15
 * vector combines for 16 planes instead of four shuffles and four combines
 * each), stored as one vector. Short planes were bound by the per-plane
 * reduction, not memory.
 */
typedef TV(16) V16;
#if defined(__clang__)
#define SHUFFLE16(a, b, ...) __builtin_shufflevector((a), (b), __VA_ARGS__)
#else
#define SHUFFLE16(a, b, ...) shuffle2((a), (b), (CLPOOL_XPASTE(u, MASKV(16)))(__VA_ARGS__))
#endif
/* Level L takes vectors holding 2^(L-1) planes of 16 >> (L-1) lanes each: LO
 * picks the first half of every plane's lanes from a, then from b (b's lanes
 * count from 16), HI the second halves; combine(LO, HI) holds 2^L planes of
 * half as many lanes, a's planes first. */
#define LEVEL1_LO 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23
#define LEVEL1_HI 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31
#define LEVEL2_LO 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27
#define LEVEL2_HI 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31
#define LEVEL3_LO 0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29
#define LEVEL3_HI 2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31
#define LEVEL4_LO 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define LEVEL4_HI 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
/* The 16 planes' lane vectors m[0..16) -> one vector, lane q plane q's lanes combined by combine(a, b). */
#define FOLD(level, combine, a, b) combine(SHUFFLE16(a, b, LEVEL##level##_LO), SHUFFLE16(a, b, LEVEL##level##_HI))
#define TRANSPOSED_REDUCE16(m, combine, r)                                                         \
    do {                                                                                           \
        V16 l1_[8], l2_[4];                                                                        \
        _Pragma("unroll") for (int j_ = 0; j_ < 8; ++j_) l1_[j_] = FOLD(1, combine, (m)[2 * j_], (m)[2 * j_ + 1]); \
        _Pragma("unroll") for (int j_ = 0; j_ < 4; ++j_) l2_[j_] = FOLD(2, combine, l1_[2 * j_], l1_[2 * j_ + 1]); \
        (r) = FOLD(4, combine, FOLD(3, combine, l2_[0], l2_[1]), FOLD(3, combine, l2_[2], l2_[3]));  \
    } while (0)
#endif

#if OP == OP_MAX
/* --------------------------------------------------------------- max */

/* Index of the winner among x[first..end) by `step`: the first NaN, else the first maximum. */
inline long scan_max(__global const T *x, long first, long end, long step)
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
inline KEY_SCALAR max_key(__global const T *x, long n)
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
inline T plane_max(__global const T *x, long n)
{
    const KEY_SCALAR m = max_key(x, n);
    if (m != 0 && m != KEY_TOP) return BITS_OF_KEY(m);
    long i = 0;
    while (ORDER_KEY(x[i]) != m) ++i;
    return x[i];
}

/* One work-item per plane. */
__kernel void global_pool_direct(__global const T *in, __global T *out, const global_sizes sz, const AT p_unused)
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

/* Planes of at most PREFETCH_PLANE_BYTES (common.h) prefetch the next group's plane (the next work-item's,
 * 16 planes on) while they read their own: such planes are too short a run for the hardware prefetcher. */

/* y[0..count) = the maxima of the count <= 16 planes of n >= 16 elements at x. */
inline void group_max(__global const T *x, const long n, __global T *y, const long count)
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
inline long first_equal(__global const T *x, const long n, const T m)
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

__kernel void global_pool_grouped(__global const T *in, __global T *out, const global_sizes sz, const AT p_unused)
{
    const long first = (long)get_global_id(0) * 16, planes = sz.planes, n = sz.plane_size;
    if (first < planes)
        group_max(in + sz.in_offset + first * n, n, out + sz.out_offset + first, min(16L, planes - first));
}

/*
 * MaxPool with Indices where every window is a whole plane (CPUs, float32/float64, planes of 16 or more): GlobalMaxPool's
 * 16 planes per work-item, then each maximum's first position found again by comparison while the planes are in cache,
 * cheaper than tracking positions through the scan (col_major: storage_order 1, d0 fastest; dims past the rank are 1).
 */
__kernel void global_max_pool_indices(__global const T *in, __global T *out, __global long *indices,
                                      const global_sizes sz)
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

__kernel void global_pool_partial(__global const T *in, __global long *partials, const global_sizes sz,
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
                                const global_sizes sz, const AT p_unused)
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

#else
/* ---------------------------------------------------- average and Lp */

/* Kahan sum with a plain shadow sum for non-finite inputs. */
typedef struct { AT sum, comp, plain; } kahan;

inline void kahan_add(kahan *k, AT v)
{
    const AT y = v - k->comp;
    const AT t = k->sum + y;
    k->comp = (t - k->sum) - y;
    k->sum = t;
    k->plain += v;
}

inline AT kahan_value(kahan k)
{
    return isfinite(k.plain) ? k.sum - k.comp : k.plain;
}

/* 16-lane vector form of the accumulator: independent Kahan sums per lane
 * (SIMD, and 16 dependency chains instead of one), merged into a scalar one. */
#if defined(DT_FLOAT64)
#define AT_NAME double
#else
#define AT_NAME float
#endif
typedef CLPOOL_XPASTE(AT_NAME, 16) AT16;
typedef CLPOOL_XPASTE(AT_NAME, 8) AT8;
typedef CLPOOL_XPASTE(AT_NAME, 4) AT4;
typedef CLPOOL_XPASTE(AT_NAME, 2) AT2;

/* The sum of 16 lanes, pairwise (4 levels). */
inline AT sum_lanes16(AT16 v)
{
    const AT8 v8 = v.lo + v.hi;
    const AT4 v4 = v8.lo + v8.hi;
    const AT2 v2 = v4.lo + v4.hi;
    return v2.lo + v2.hi;
}

/*
 * ipow(a, n): a^n for integer n >= 1 by squaring (a few ulp; PoCL 3.1's
 * double8 pown returned inf). contribution(x, p): what an element adds to the
 * sum. Written once, instantiated for AT and AT16; OP and LP_KIND are
 * constants, so the dead branches fold away.
 */
#define CLPOOL_DEFINE_CONTRIBUTION(type, suffix)                  \
    inline type ipow##suffix(type a, int n)                       \
    {                                                             \
        type r = 1;                                               \
        for (; n; n >>= 1, a *= a)                                \
            if (n & 1) r *= a;                                    \
        return r;                                                 \
    }                                                             \
    inline type contribution##suffix(type x, AT p)                \
    {                                                             \
        if (OP != OP_LP) return x;                                \
        if (LP_KIND == 1) return fabs(x);                         \
        if (LP_KIND == 2) return x * x;                           \
        if (LP_KIND == 3) return ipow##suffix(fabs(x), (int)p);   \
        return pow(fabs(x), (type)p);                             \
    }
CLPOOL_DEFINE_CONTRIBUTION(AT, )
CLPOOL_DEFINE_CONTRIBUTION(AT16, 16)

/* General float p stays on the scalar path: PoCL 3.1's double8 pow returned
 * inf for ordinary inputs, and pow dominates the cost anyway. */
#define VECTOR_SUM (OP != OP_LP || LP_KIND != 0)

/* Sum of contribution(x[i]) for i in [first, end) by `step` into k. The vector loop prefetches
 * PREFETCH_AHEAD_BYTES ahead: the hardware prefetcher alone left the reads short of copy speed. */
inline void sum_range(kahan *k, __global const T *x, long first, long end, long step, AT p)
{
    long i = first;
    if (VECTOR_SUM && step == 1 && end - first >= 16) {
        /* Blocks of up to 1024 elements are summed plainly in four 16-lane
         * accumulators (each lane adds at most 16 terms, within ~16 ulp of
         * the block's sum of |x|), and each block's sum is then Kahan-added:
         * compensation per block rather than per element, which had made the
         * adds, not memory, the bound. No shadow sum in the loop: an inf/NaN
         * input (or an overflow) leaves the compensated sum non-finite, and
         * only then the range is summed again plainly, which gives the IEEE
         * inf/NaN. */
        AT16 sum = 0, comp = 0;
#define KAHAN16(v, sum, comp)              \
    do {                                   \
        const AT16 y_ = (v) - (comp);      \
        const AT16 t_ = (sum) + y_;        \
        (comp) = (t_ - (sum)) - y_;        \
        (sum) = t_;                        \
    } while (0)
        while (i + 64 <= end) {
            const long block_end = min(end, i + 1024);
            AT16 b1 = 0, b2 = 0, b3 = 0, b4 = 0;
            for (; i + 64 <= block_end; i += 64) {
                prefetch_bytes((const __global char *)(x + i) + PREFETCH_AHEAD_BYTES, 64 * (long)sizeof(T));
                b1 += contribution16(VLOAD16C(x + i), p);
                b2 += contribution16(VLOAD16C(x + i + 16), p);
                b3 += contribution16(VLOAD16C(x + i + 32), p);
                b4 += contribution16(VLOAD16C(x + i + 48), p);
            }
            KAHAN16((b1 + b2) + (b3 + b4), sum, comp);
        }
        for (; i + 16 <= end; i += 16) {
            const AT16 v = contribution16(VLOAD16C(x + i), p);
            KAHAN16(v, sum, comp);
        }
#undef KAHAN16
        const AT16 val = sum - comp;
        AT lanes = sum_lanes16(val);
        if (!isfinite(lanes)) {
            lanes = 0;
            for (long j = first; j < i; ++j) lanes += contribution((AT)LOAD(x, j), p);
        }
        if (isfinite(lanes)) kahan_add(k, lanes);
        else k->plain += lanes; /* inf/NaN: only the shadow sum matters now */
    }
    for (; i < end; i += step) kahan_add(k, contribution((AT)LOAD(x, i), p));
}

/*
 * Short planes (at most SHORT_SUM elements, at most 16 per lane): plain
 * 16-lane sums merged pairwise stay within ~20 ulp of the sum of |x| (the
 * tests allow 1e-5 relative), need no compensation and give IEEE inf/NaN by
 * themselves. For 7x7 planes this halves the work per plane.
 */
#define SHORT_SUM 256
inline AT short_sum(__global const T *x, long n, AT p)
{
    AT16 acc = 0;
    long i = 0;
    for (; i + 16 <= n; i += 16) acc += contribution16(VLOAD16C(x + i), p);
    AT tail = 0;
    for (; i < n; ++i) tail += contribution((AT)LOAD(x, i), p);
    return sum_lanes16(acc) + tail;
}

/* The output from a plane's sum: written once, for AT and AT16. */
#define CLPOOL_DEFINE_FINISH(type, suffix)                                    \
    inline type finish##suffix(type v, long count, AT p)                      \
    {                                                                         \
        if (OP == OP_AVG) return v / (type)(AT)count;                        \
        if (LP_KIND == 1) return v;                                           \
        if (LP_KIND == 2) return sqrt(v);                                     \
        return pow(v, (type)((AT)1 / p));                                     \
    }
CLPOOL_DEFINE_FINISH(AT, )
CLPOOL_DEFINE_FINISH(AT16, 16)

__kernel void global_pool_direct(__global const T *in, __global T *out, const global_sizes sz, const AT p)
{
    const long plane = (long)get_global_id(0), plane_size = sz.plane_size;
    if (plane >= sz.planes) return;
    __global const T *x = in + sz.in_offset + plane * plane_size;
    AT total;
    if (VECTOR_SUM && plane_size <= SHORT_SUM) {
        total = short_sum(x, plane_size, p);
    } else {
        kahan k = {0, 0, 0};
        sum_range(&k, x, 0, plane_size, 1, p);
        total = kahan_value(k);
    }
    STORE(out + sz.out_offset, plane, finish(total, plane_size, p));
}

#if (defined(DT_FLOAT32) || defined(DT_FLOAT64)) && VECTOR_SUM
/*
 * `global_pool_grouped` for the sums (planes of 16 to SHORT_SUM elements): 16 plain lane sums within a plane (a ragged
 * end's vector ends at the plane's end, its counted lanes dropped), then TRANSPOSED_REDUCE16 and the finish for all
 * 16 planes at once: fewer instructions per plane, short_sum's error bound, and IEEE inf/NaN by themselves.
 */
#define ADD2(a, b) ((a) + (b))
__kernel void global_pool_grouped(__global const T *in, __global T *out, const global_sizes sz, const AT p)
{
    const long first = (long)get_global_id(0) * 16, planes = sz.planes, n = sz.plane_size;
    if (first >= planes) return;
    __global const T *x = in + sz.in_offset + first * n;
    __global T *y = out + sz.out_offset + first;
    if (planes - first < 16) { /* the last group is short */
        for (long q = 0; q < planes - first; ++q) y[q] = finish(short_sum(x + q * n, n, p), n, p);
        return;
    }
    const long whole = n / 16 * 16; /* elements in whole vectors */
    const MASKV(16) counted = CLPOOL_XPASTE(convert_, MASKV(16))((int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                                                           13, 14, 15) < (int)(whole + 16 - n));
    V16 m[16];
#pragma unroll
    for (int q = 0; q < 16; ++q) {
        __global const T *xq = x + q * n;
        AT16 acc = 0;
        for (long i = 0; i < whole; i += 16) acc += contribution16(vload16(0, xq + i), p);
        if (whole < n) acc += select(contribution16(vload16(0, xq + n - 16), p), (AT16)0, counted);
        m[q] = acc;
    }
    V16 r;
    TRANSPOSED_REDUCE16(m, ADD2, r);
#if OP == OP_LP && LP_KIND == 3 /* pow stays scalar (PoCL 3.1's double8 pow, above) */
    AT sums[16];
    vstore16(r, 0, sums);
    for (int q = 0; q < 16; ++q) y[q] = finish(sums[q], n, p);
#else
    vstore16(finish16(r, n, p), 0, y);
#endif
}
#endif

/* Each lane stores (compensated sum, its correction); a non-finite sum passes through. */
__kernel void global_pool_partial(__global const T *in, __global AT *partials, const global_sizes sz, const AT p)
{
    const long planes = sz.planes, plane_size = sz.plane_size, parts = sz.parts, in_offset = sz.in_offset;
    const long gid = (long)get_global_id(0);
    if (gid >= planes * parts) return;
    const long plane = gid / parts, lane = gid % parts;
    LANE_RANGE(lane, parts, plane_size, first, end, step);
    __global const T *x = in + in_offset + plane * plane_size;
    kahan k = {0, 0, 0};
    sum_range(&k, x, first, end, step, p);
    const int finite = isfinite(k.plain);
    partials[2 * gid] = finite ? k.sum : k.plain;
    partials[2 * gid + 1] = finite ? -k.comp : (AT)0;
}

__kernel void global_pool_final(__global const AT *partials, __global const T *in_unused, __global T *out,
                                const global_sizes sz, const AT p)
{
    const long plane = (long)get_global_id(0), parts = sz.parts;
    if (plane >= sz.planes) return;
    __global const AT *q = partials + 2 * plane * parts;
    kahan k = {0, 0, 0};
    for (long l = 0; l < 2 * parts; ++l) kahan_add(&k, q[l]);
    STORE(out + sz.out_offset, plane, finish(kahan_value(k), sz.plane_size, p));
}
#endif
