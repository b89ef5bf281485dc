/*
 * GlobalMaxPool / GlobalAveragePool / GlobalLpPool: reduce each (n, c) plane
 * of S = prod(spatial) elements to one value.
 *
 * Options: DT_* dtype, -DOP=CLPOOL__OP_REDUCE_MAX|CLPOOL__OP_REDUCE_AVG|CLPOOL__OP_REDUCE_LP, -DLP_KIND=1|2|3|0 (p == 1,
 * p == 2, other integer p by squaring, general p via pow; only for CLPOOL__OP_REDUCE_LP), -DCHUNKED=0|1 (how a split plane is
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
