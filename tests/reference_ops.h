/*
 * Plain-C references for GlobalMaxPool / GlobalAveragePool / GlobalLpPool and
 * the variadic, numpy-broadcasting element-wise Max.
 *
 * Written from the semantics in DESIGN.md section 2 and clpool.h, not from the
 * library's host or kernel code. Only public clpool types are used; nothing
 * here calls into the library. Element access goes through reference.h.
 */
#ifndef CLPOOL_TESTS_REFERENCE_OPS_H
#define CLPOOL_TESTS_REFERENCE_OPS_H

#include <stddef.h>
#include <stdint.h>

#include <clpool/clpool.h>

/* ------------------------------------------------------ element order */

/** 1 if `bits` (an element of a float dtype) is a NaN; 0 for every integer dtype. */
int ref_bits_is_nan(clpool_dtype dtype, uint64_t bits);

/**
 * The numpy.maximum rule as a fold step: 1 if candidate `next` replaces the
 * running `current`. A NaN replaces a non-NaN, nothing replaces a NaN, and
 * otherwise only a strictly greater value replaces (ties, including -0.0 vs
 * +0.0, keep `current`). Integers compare exactly as their own type (int64 and
 * uint64 never go through double).
 */
int ref_max_replaces(clpool_dtype dtype, uint64_t current, uint64_t next);

/* ------------------------------------------------------- global pools */

/**
 * Output shape N x C x 1 x ... x 1 (same rank). Returns 0, or -1 if the rank
 * is outside 3..CLPOOL_MAX_RANK, a dim is negative, or a spatial dim is 0.
 */
int ref_global_pool_shape(const clpool_shape *input, clpool_shape *output);

/**
 * GlobalMaxPool: `output` (N*C elements of `dtype`) receives, per plane, a copy
 * of the bits of the first NaN if the plane holds one, else of the first
 * maximum. Returns 0, or -1 for a bad shape or a non-float dtype.
 */
int ref_global_max_pool(clpool_dtype dtype, const clpool_shape *shape, const void *input, void *output);

/**
 * GlobalAveragePool in long double: `mean[i]` is the plane mean (IEEE NaN/inf
 * propagation: any NaN or +inf together with -inf gives NaN). `abs_mean[i]`
 * (may be NULL) is sum|x|/count, the scale for an error bound on mixed-sign
 * data. Returns 0 or -1 as above.
 */
int ref_global_average_pool(clpool_dtype dtype, const clpool_shape *shape, const void *input, double *mean,
                            double *abs_mean);

/**
 * GlobalLpPool in long double: `out[i]` = (sum |x|^p)^(1/p) per plane; p must
 * be finite and > 0. A NaN gives NaN, otherwise an infinity gives +inf.
 * Returns 0, or -1 for a bad shape, dtype or p.
 */
int ref_global_lp_pool(clpool_dtype dtype, const clpool_shape *shape, double p, const void *input, double *out);

/* ----------------------------------------------------------------- Max */

/**
 * Flat index into an input of shape `in` (broadcast to `out`, ranks
 * right-aligned, size-1 dims stretched) that feeds output element `flat`.
 */
int64_t ref_broadcast_index(const clpool_shape *out, const clpool_shape *in, int64_t flat);

/**
 * numpy multidirectional broadcasting of `n` >= 1 shapes: ranks right-aligned,
 * missing leading dims are 1, a size-1 dim stretches, equal dims stay, a 0
 * only meets 0 or 1 (giving 0). Returns 0, or -1 if the shapes do not
 * broadcast or one is invalid (rank outside 0..CLPOOL_MAX_RANK, negative dim).
 */
int ref_max_shape(size_t n, const clpool_shape *shapes, clpool_shape *output);

/**
 * Element-wise Max of `n` broadcast inputs folded left to right with
 * ref_max_replaces(); `output` (ref_max_shape elements) gets raw input bits.
 * Returns 0, or -1 if the shapes do not broadcast or the dtype is unknown.
 */
int ref_max(clpool_dtype dtype, size_t n, const clpool_shape *shapes, const void *const *inputs, void *output);

#endif /* CLPOOL_TESTS_REFERENCE_OPS_H */
