/* GlobalAveragePool's and GlobalLpPool's kernels (-DOP=CLPOOL__OP_REDUCE_AVG or CLPOOL__OP_REDUCE_LP):
 * after global_pool.h. */
#if OP == CLPOOL__OP_REDUCE_MAX
#error "global_sum_pool.cl: -DOP=CLPOOL__OP_REDUCE_AVG or CLPOOL__OP_REDUCE_LP"
#endif

/* Sum of contribution(x[i]) for i in [first, end) by `step` into k. The
 * vector loop prefetches PREFETCH_AHEAD_BYTES ahead: the hardware prefetcher
 * alone keeps reads short of copy speed from memory, and in cache it costs nothing. */
static inline void sum_range(kahan *k, __global const T *x, long first, long end, long step, AT p)
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
static inline AT short_sum(__global const T *x, long n, AT p)
{
    AT16 acc = 0;
    long i = 0;
    for (; i + 16 <= n; i += 16) acc += contribution16(VLOAD16C(x + i), p);
    AT tail = 0;
    for (; i < n; ++i) tail += contribution((AT)LOAD(x, i), p);
    return sum_lanes16(acc) + tail;
}


__kernel void global_pool_direct(__global const T *in, __global T *out, const clpool__global_sizes sz, const AT p)
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
    STORE(out + sz.out_offset, plane, finish(total, (AT)plane_size, p));
}

#if (defined(DT_FLOAT32) || defined(DT_FLOAT64)) && VECTOR_SUM
/*
 * `global_pool_grouped` for the sums (planes of 16 to SHORT_SUM elements):
 * within a plane 16 plain lane sums (a ragged end is the vector ending at the
 * plane's end, its lanes already counted dropped), then TRANSPOSED_REDUCE16
 * and the finish, all 16 planes at once: the same error bound as short_sum,
 * and IEEE inf/NaN by themselves, in fewer instructions per plane than one
 * plane per work-item.
 */
#define ADD2(a, b) ((a) + (b))
__kernel void global_pool_grouped(__global const T *in, __global T *out, const clpool__global_sizes sz, const AT p)
{
    const long first = (long)get_global_id(0) * 16, planes = sz.planes, n = sz.plane_size;
    if (first >= planes) return;
    __global const T *x = in + sz.in_offset + first * n;
    __global T *y = out + sz.out_offset + first;
    if (planes - first < 16) { /* the last group is short */
        for (long q = 0; q < planes - first; ++q) y[q] = finish(short_sum(x + q * n, n, p), (AT)n, p);
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
#if OP == CLPOOL__OP_REDUCE_LP && LP_KIND == 3 /* pow stays scalar (PoCL 3.1's double8 pow, above) */
    AT sums[16];
    vstore16(r, 0, sums);
    for (int q = 0; q < 16; ++q) y[q] = finish(sums[q], (AT)n, p);
#else
    vstore16(finish16(r, (AT16)(AT)n, p), 0, y);
#endif
}
#endif

/* Each lane stores (compensated sum, its correction); a non-finite sum passes through. */
__kernel void global_pool_partial(__global const T *in, __global AT *partials, const clpool__global_sizes sz, const AT p)
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
                                const clpool__global_sizes sz, const AT p)
{
    const long plane = (long)get_global_id(0), parts = sz.parts;
    if (plane >= sz.planes) return;
    __global const AT *q = partials + 2 * plane * parts;
    kahan k = {0, 0, 0};
    for (long l = 0; l < 2 * parts; ++l) kahan_add(&k, q[l]);
    STORE(out + sz.out_offset, plane, finish(kahan_value(k), (AT)sz.plane_size, p));
}
