/*
 * Variadic element-wise Max with numpy broadcasting. One output element per
 * work-item, ARITY (1..4) inputs per pass; the host folds more inputs in
 * further passes with the output as input 0 (element-wise, so in place is
 * safe). The host merges contiguous dims first, so RANK is the collapsed rank.
 *
 * Options: DT_* dtype, -DARITY=1..4, -DRANK=1..12, -DFLAT=0|1 (1: every input
 * has the output's shape and is contiguous; no index arithmetic at all).
 * Broadcast dims have stride 0. Winner bits are copied, so every dtype is
 * exact; NaN propagates and ties keep the earlier input (common.h).
 */
#define MAX_ARITY 4
#define MAX_RANK 12

/* Mirrors clpool__max_geom in host/max.c. */
typedef struct max_geom {
    long out_dims[MAX_RANK];
    long strides[MAX_ARITY][MAX_RANK]; /* element strides per output dim, 0 = broadcast */
    long in_offset[MAX_ARITY];
    long out_offset;
    long total;
} max_geom;

/* Fold input k's element into (best_bits, best). */
#define FOLD(k, ptr)                                 \
    do {                                             \
        const CT v = LOAD(ptr, off[k]);              \
        if (MAX_BETTER(v, best)) {                   \
            best = v;                                \
            best_bits = (ptr)[off[k]];               \
        }                                            \
    } while (0)

__kernel void max_n(__global T *out, __global const T *in0, __global const T *in1, __global const T *in2,
                    __global const T *in3, const max_geom g)
{
    const long gid = (long)get_global_id(0);
    if (gid >= g.total) return;
    long off[MAX_ARITY];
    for (int k = 0; k < ARITY; ++k) off[k] = g.in_offset[k];
#if FLAT
    for (int k = 0; k < ARITY; ++k) off[k] += gid;
#else
    long rem = gid;
    for (int d = RANK - 1; d >= 0; --d) {
        const long c = rem % g.out_dims[d];
        rem /= g.out_dims[d];
        for (int k = 0; k < ARITY; ++k) off[k] += c * g.strides[k][d];
    }
#endif
    T best_bits = in0[off[0]];
    CT best = LOAD(in0, off[0]);
#if ARITY > 1
    FOLD(1, in1);
#endif
#if ARITY > 2
    FOLD(2, in2);
#endif
#if ARITY > 3
    FOLD(3, in3);
#endif
    out[g.out_offset + gid] = best_bits;
}
