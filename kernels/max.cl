/*
 * Variadic element-wise Max with numpy broadcasting, 1 to 4 inputs per
 * pass; the host folds more inputs in further passes with the output as
 * input 0 (element-wise, so in place is safe). The host merges dims that are
 * contiguous for every input and drops size-1 dims first, so an input's
 * stride along the innermost dim is 1 (contiguous) or 0 (broadcast): bit k of
 * g.inner_mask says which.
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
 * Options: DT_* dtype, -DVW=8|16 (lanes); the kernel max_of_<n> takes n
 * inputs. At run time (clpool__max_geom), so that one program serves every
 * shape, broadcast and aliasing: the dims (only a work-item's index setup
 * reads them), g.inner_mask (all-contiguous inputs in a loop of their own, a
 * broadcast a uniform branch per input and block), g.aliased
 * and g.blocks (blocks of VW per work-item: several on CPUs, where a
 * work-item's fixed cost would otherwise dominate for small types; one on
 * GPUs, where neighbouring work-items should read neighbouring blocks).
 */
#define MAX_ARITY CLPOOL__ARGS_MAX_ARITY /* clpool__max_geom's bounds (args.h) */
#define MAX_RANK CLPOOL__ARGS_MAX_RANK

#define CONTIGUOUS(k) ((inner_mask >> (k)) & 1)
/* -DVIEW=1 (views whose layout the contiguous form does not take): an input's stride along the innermost
 * dim, inner[k], may be other than 1 (contiguous: a vector load) or 0 (broadcast: one element to every
 * lane), its lanes then loaded one by one, and the output's rows may be strided (stored element by
 * element). Every other call builds without it, the code of the contiguous form. */
#ifndef VIEW
#define VIEW 0
#endif
#if VIEW
#define STRIDE_AT8(p, s, b)                                                                                    \
    (p)[(b) * (s)], (p)[((b) + 1) * (s)], (p)[((b) + 2) * (s)], (p)[((b) + 3) * (s)], (p)[((b) + 4) * (s)], \
        (p)[((b) + 5) * (s)], (p)[((b) + 6) * (s)], (p)[((b) + 7) * (s)]
#if VW == 16
#define LOAD_STRIDED(p, s) ((TV(VW))(STRIDE_AT8(p, s, 0), STRIDE_AT8(p, s, 8)))
#else
#define LOAD_STRIDED(p, s) ((TV(VW))(STRIDE_AT8(p, s, 0)))
#endif
/* Storage bits of VW lanes of input k from element `at` (lane 0's). */
#define LOAD_LANES(k, ptr, at)                                                                                  \
    (CONTIGUOUS(k) ? VLOADV(VW, (ptr) + (at)) : inner[k] == 0 ? (TV(VW))((ptr)[at]) : LOAD_STRIDED((ptr) + (at), inner[k]))
#define LANE_OFFSET(k, at, j) ((at) + (CONTIGUOUS(k) ? (j) : (j) * inner[k]))
#else
/* Storage bits of VW lanes of input k at element `at` (+lane if contiguous). */
#define LOAD_LANES(k, ptr, at) (CONTIGUOUS(k) ? VLOADV(VW, (ptr) + (at)) : (TV(VW))((ptr)[at]))
#define LANE_OFFSET(k, at, j) ((at) + (CONTIGUOUS(k) ? (j) : 0))
#endif

/* A whole block, around the cache under -DSTREAM_STORES (common.h). */
#define STORE_BLOCK(v, p) STORE_STREAMED(TV(VW), v, p, STORE_BITSV(VW, (v), (p)))

/* Lane-wise fold of input k's block into best_bits (and best, its keys). */
#if IS_FLOAT_TYPE
#define FOLDV(k, ptr)                                                          \
    {                                                                          \
        const TV(VW) bits = LOAD_LANES(k, ptr, LANE_OFFSET(k, at[k], i0));     \
        const KTV(VW) v = KEYV(VW, bits);                                      \
        const MASKV(VW) take = BETTERV(VW, v, best);                           \
        best = select(best, v, take);                                          \
        best_bits = select(best_bits, bits, take);                             \
    }
#else /* integers: the bits are the value, equal values are identical */
#define FOLDV(k, ptr) best_bits = max(best_bits, LOAD_LANES(k, ptr, LANE_OFFSET(k, at[k], i0)));
#endif
/* The same for one element j. */
#define FOLD1(k, ptr)                                             \
    {                                                             \
        const CT v = LOAD(ptr, LANE_OFFSET(k, at[k], j));         \
        if (MAX_BETTER(v, best)) {                                \
            best = v;                                             \
            bits = (ptr)[LANE_OFFSET(k, at[k], j)];               \
        }                                                         \
    }

/* Blocks of VW lanes from `first`, nb at most, the row's last block ending at
 * the row's end; returns where the element-at-a-time loop takes over (an
 * aliased row's last elements). `arity` is each kernel's constant. */
__attribute__((always_inline)) static inline long max_blocks(__global T *dst, __global const T *in0,
                                                             __global const T *in1, __global const T *in2,
                                                             __global const T *in3, const long *at,
                                                             const long *inner, const long first, const long n0,
                                                             const long nb, const long aliased, const int arity,
                                                             const long inner_mask)
{
#if !VIEW
    (void)inner;
#endif
    for (long b = 0; b < nb; ++b) {
        long i0 = first + b * VW;
        if (i0 >= n0) break;
        if (i0 + VW > n0) {
            if (aliased) return i0;
            i0 = n0 - VW;
        }
        TV(VW) best_bits = LOAD_LANES(0, in0, LANE_OFFSET(0, at[0], i0));
#if IS_FLOAT_TYPE
        KTV(VW) best = KEYV(VW, best_bits);
#endif
        if (arity > 1) FOLDV(1, in1)
        if (arity > 2) FOLDV(2, in2)
        if (arity > 3) FOLDV(3, in3)
        STORE_BLOCK(best_bits, dst + i0);
    }
    return n0;
}

/* The fold of `arity` inputs, a constant in each kernel below (SHARED_ITEM:
 * inlined into each when PoCL generates its code, at build elsewhere). */
SHARED_ITEM void max_fold(__global T *out, __global const T *in0, __global const T *in1, __global const T *in2,
                          __global const T *in3, const clpool__max_geom *g, const int arity)
{
    /* The host right-aligns the dims (out_dims[MAX_RANK - 1] the innermost,
     * leading dims of 1 with strides 0), so every field is read at a constant
     * index: rusticl (Mesa 22.3) crashes on run-time indices into a by-value
     * struct argument. */
    const long n0 = g->out_dims[MAX_RANK - 1], n1 = g->out_dims[MAX_RANK - 2];
    const long nb = g->blocks;
    const long first = (long)get_global_id(0) * (VW * nb);
    const long c1 = (long)get_global_id(1);
    if (first >= n0 || c1 >= n1) return;
    const long outer = (long)get_global_id(2);
    long at[MAX_ARITY], inner[MAX_ARITY]; /* row starts, innermost strides (VIEW) */
    for (int k = 0; k < arity; ++k) {
        at[k] = g->in_offset[k] + c1 * g->strides[k * MAX_RANK + MAX_RANK - 2];
        inner[k] = g->strides[k * MAX_RANK + MAX_RANK - 1];
    }
#if VIEW
    long dst_at = g->out_offset + c1 * g->out_strides[MAX_RANK - 2];
#endif
    long rest = outer;
#pragma unroll
    for (int d = MAX_RANK - 3; d >= 0; --d) {
        const long n = g->out_dims[d];
        const long c = n > 1 ? rest % n : 0; /* leading dims of 1 cost a compare */
        rest = n > 1 ? rest / n : rest;
        for (int k = 0; k < arity; ++k) at[k] += c * g->strides[k * MAX_RANK + d];
#if VIEW
        dst_at += c * g->out_strides[d];
#endif
    }
#if VIEW
    __global T *dst = out + dst_at;
    const long os = g->out_strides[MAX_RANK - 1]; /* a strided row is stored element by element */
#else
    __global T *dst = out + g->out_offset + (outer * n1 + c1) * n0;
    const long os = 1;
#endif

    long j0 = 0; /* where the element-at-a-time loop below starts */
#if VIEW
    if (n0 >= VW && os == 1) {
#else
    if (n0 >= VW) {
#endif
        /* every input contiguous (the same-shape case) in a loop of its own,
         * without a branch per input and block; broadcasts test their bits */
        const long all = (1L << arity) - 1;
        j0 = (g->inner_mask & all) == all
                 ? max_blocks(dst, in0, in1, in2, in3, at, inner, first, n0, nb, g->aliased, arity, all)
                 : max_blocks(dst, in0, in1, in2, in3, at, inner, first, n0, nb, g->aliased, arity, g->inner_mask);
        STREAM_FENCE();
    } else if (first > 0) {
        return; /* a strided row (VIEW): the row's first work-item stores it all */
    }
    /* A row shorter than one block, an aliased row's last elements, or a strided row: one at a time. */
    const long inner_mask = g->inner_mask;
    for (long j = j0; j < n0; ++j) {
        T bits = in0[LANE_OFFSET(0, at[0], j)];
        CT best = LOAD(in0, LANE_OFFSET(0, at[0], j));
        if (arity > 1) FOLD1(1, in1)
        if (arity > 2) FOLD1(2, in2)
        if (arity > 3) FOLD1(3, in3)
        dst[j * os] = bits;
    }
}

/* max_of_1 .. max_of_4: one program, a kernel per input count; PoCL generates
 * code only for the kernels a process runs, and each is the fold unrolled. */
#define MAX_ARGS                                                                                              \
    __global T *out, __global const T *in0, __global const T *in1, __global const T *in2, __global const T *in3, \
        const clpool__max_geom g
__kernel void max_of_1(MAX_ARGS) { max_fold(out, in0, in1, in2, in3, &g, 1); }
__kernel void max_of_2(MAX_ARGS) { max_fold(out, in0, in1, in2, in3, &g, 2); }
__kernel void max_of_3(MAX_ARGS) { max_fold(out, in0, in1, in2, in3, &g, 3); }
__kernel void max_of_4(MAX_ARGS) { max_fold(out, in0, in1, in2, in3, &g, 4); }
