/*
 * Variadic element-wise Max with numpy broadcasting, ARITY (1..4) inputs per
 * pass; the host folds more inputs in further passes with the output as
 * input 0 (element-wise, so in place is safe). The host merges dims that are
 * contiguous for every input and drops size-1 dims first, so RANK is the
 * collapsed rank and an input's stride along the innermost dim is 1
 * (contiguous) or 0 (broadcast): bit k of g.inner_mask says which.
 *
 * 3-D NDRange: dim 0 = blocks of VW along the innermost dim, dim 1 = the
 * next dim, dim 2 = all outer dims together (split by division once per
 * work-item). Each work-item loads VW elements of a contiguous input with one
 * vector load, or one scalar broadcast to VW lanes, and folds the inputs
 * lane-wise: explicit SIMD (PoCL runs work-items as scalar loops) and wide
 * loads on GPUs. The winner's bits are stored, so every dtype is exact; NaN
 * propagates and ties keep the earlier input (common.h). A row's last block
 * is shifted left to end at the row's end, overlapping its neighbour: both
 * write the same values. Not where an input is the output (g.aliased: in
 * place, and every pass after the first): the shifted block would read
 * elements its neighbour writes, a data race (Oclgrind reports it), so the
 * row's last elements are folded one at a time instead.
 *
 * Options: DT_* dtype, -DARITY=1..4, -DRANK=1..12, -DVW=8|16 (lanes). At
 * run time (clpool__max_geom), so that one program serves every row length,
 * broadcast and aliasing: g.inner_mask (a uniform branch per input and block),
 * g.aliased and g.blocks (blocks of VW per work-item: several on CPUs, where a
 * work-item's fixed cost would otherwise dominate for small types; one on
 * GPUs, where neighbouring work-items should read neighbouring blocks).
 */
#define MAX_ARITY CLPOOL__ARGS_MAX_ARITY /* clpool__max_geom's bounds (args.h) */
#define MAX_RANK CLPOOL__ARGS_MAX_RANK

#define CONTIGUOUS(k) ((g.inner_mask >> (k)) & 1)
/* Storage bits of VW lanes of input k at element `at` (+lane if contiguous). */
#define LOAD_LANES(k, ptr, at) (CONTIGUOUS(k) ? VLOADV(VW, (ptr) + (at)) : (TV(VW))((ptr)[at]))
#define LANE_OFFSET(k, at, j) ((at) + (CONTIGUOUS(k) ? (j) : 0))

/* A whole block, around the cache under -DSTREAM_STORES (common.h). */
#define STORE_BLOCK(v, p) STORE_STREAMED(TV(VW), v, p, STORE_BITSV(VW, (v), (p)))

__kernel void max_n(__global T *out, __global const T *in0, __global const T *in1, __global const T *in2,
                    __global const T *in3, const clpool__max_geom g)
{
    const long n0 = g.out_dims[RANK - 1];
    const long nb = g.blocks;
    const long first = (long)get_global_id(0) * (VW * nb);
#if RANK >= 2
    const long n1 = g.out_dims[RANK - 2];
    const long c1 = (long)get_global_id(1);
    if (first >= n0 || c1 >= n1) return;
#else
    const long n1 = 1, c1 = 0;
    if (first >= n0) return;
#endif
    const long outer = (long)get_global_id(2);
    long at[MAX_ARITY]; /* row starts */
    for (int k = 0; k < ARITY; ++k) at[k] = g.in_offset[k];
#if RANK >= 2
    for (int k = 0; k < ARITY; ++k) at[k] += c1 * g.strides[k * MAX_RANK + RANK - 2];
#endif
    long rest = outer;
    for (int d = RANK - 3; d >= 0; --d) {
        const long c = rest % g.out_dims[d];
        rest /= g.out_dims[d];
        for (int k = 0; k < ARITY; ++k) at[k] += c * g.strides[k * MAX_RANK + d];
    }
    __global T *dst = out + g.out_offset + (outer * n1 + c1) * n0;

    long j0 = 0; /* where the element-at-a-time loop below starts */
    if (n0 >= VW) {
        /* nb blocks of VW lanes; the row's last block ends at the row's end
         * (aliased, the loop below takes the row's last elements). */
        j0 = n0;
        for (long b = 0; b < nb; ++b) {
            long i0 = first + b * VW;
            if (i0 >= n0) break;
            if (i0 + VW > n0) {
                if (g.aliased) {
                    j0 = i0;
                    break;
                }
                i0 = n0 - VW;
            }
            TV(VW) best_bits = LOAD_LANES(0, in0, LANE_OFFSET(0, at[0], i0));
#if IS_FLOAT_TYPE && ARITY > 1
            KTV(VW) best = KEYV(VW, best_bits);
#define FOLDV(k, ptr)                                                          \
            {                                                                  \
                const TV(VW) bits = LOAD_LANES(k, ptr, LANE_OFFSET(k, at[k], i0)); \
                const KTV(VW) v = KEYV(VW, bits);                              \
                const MASKV(VW) take = BETTERV(VW, v, best);                   \
                best = select(best, v, take);                                  \
                best_bits = select(best_bits, bits, take);                     \
            }
#else /* integers: the bits are the value, equal values are identical */
#define FOLDV(k, ptr) best_bits = max(best_bits, LOAD_LANES(k, ptr, LANE_OFFSET(k, at[k], i0)));
#endif
#if ARITY > 1
            FOLDV(1, in1)
#endif
#if ARITY > 2
            FOLDV(2, in2)
#endif
#if ARITY > 3
            FOLDV(3, in3)
#endif
            STORE_BLOCK(best_bits, dst + i0);
        }
        STREAM_FENCE();
    }
    /* A row shorter than one block, or an aliased row's last elements: one at a time. */
    for (long j = j0; j < n0; ++j) {
        T bits = in0[LANE_OFFSET(0, at[0], j)];
#if ARITY > 1
        CT best = LOAD(in0, LANE_OFFSET(0, at[0], j));
#endif
#define FOLD1(k, ptr)                                             \
        {                                                         \
            const CT v = LOAD(ptr, LANE_OFFSET(k, at[k], j));     \
            if (MAX_BETTER(v, best)) {                            \
                best = v;                                         \
                bits = (ptr)[LANE_OFFSET(k, at[k], j)];           \
            }                                                     \
        }
#if ARITY > 1
        FOLD1(1, in1)
#endif
#if ARITY > 2
        FOLD1(2, in2)
#endif
#if ARITY > 3
        FOLD1(3, in3)
#endif
        dst[j] = bits;
    }
}
