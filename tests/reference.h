/*
 * Plain-C reference implementations and helpers shared by the test suites.
 *
 * Written from the semantics in DESIGN.md section 2, independently of the
 * library's host and kernel code. Only the public types of clpool.h are used
 * (shapes, params, dtype values); nothing here calls into the library.
 */
#ifndef CLPOOL_TESTS_REFERENCE_H
#define CLPOOL_TESTS_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include <clpool/clpool.h>

/* ------------------------------------------------------------------ PRNG */

/** splitmix64: tiny, seedable, identical on every platform. */
typedef struct ref_rng {
    uint64_t state;
} ref_rng;

void ref_rng_seed(ref_rng *rng, uint64_t seed);
uint64_t ref_rng_next(ref_rng *rng);
/** Uniform integer in [lo, hi] (inclusive; requires lo <= hi). */
int64_t ref_rng_range(ref_rng *rng, int64_t lo, int64_t hi);
/** Uniform double in [0, 1). */
double ref_rng_unit(ref_rng *rng);
/** 1 with probability p. */
int ref_rng_chance(ref_rng *rng, double p);

/* ----------------------------------------------------- half / bfloat16 */

/** IEEE binary16 <-> float. float -> half rounds to nearest even; NaN stays NaN (sign and top payload bits kept). */
uint16_t ref_float_to_half(float value);
float ref_half_to_float(uint16_t bits);
/** bfloat16 = upper 16 bits of a float32. float -> bfloat16 rounds to nearest even; NaN stays NaN. */
uint16_t ref_float_to_bfloat16(float value);
float ref_bfloat16_to_float(uint16_t bits);

/* --------------------------------------------------------------- dtypes */

/** Bytes per element of a clpool dtype (0 if unknown). Own table, not the library's. */
size_t ref_dtype_size(clpool_dtype dtype);
/** 1 for float32, float64, float16, bfloat16. */
int ref_dtype_is_float(clpool_dtype dtype);
/** Element i of a typed array as a double (exact for every supported dtype). */
double ref_load(clpool_dtype dtype, const void *data, int64_t i);
/** Store `value` into element i (float types round to nearest even; integers must be in range). */
void ref_store(clpool_dtype dtype, void *data, int64_t i, double value);
/** Store raw bits (the low ref_dtype_size()*8 bits of `bits`) into element i. */
void ref_store_bits(clpool_dtype dtype, void *data, int64_t i, uint64_t bits);
/** Raw bits of element i. */
uint64_t ref_load_bits(clpool_dtype dtype, const void *data, int64_t i);

/** Product of dims, 0 for any zero dim; -1 for a negative dim or bad rank. */
int64_t ref_shape_elements(const clpool_shape *shape);

/* --------------------------------------------------------------- MaxPool */

/** Resolved geometry of one MaxPool call (per spatial axis). */
typedef struct ref_maxpool_geometry {
    int32_t ns;
    int64_t in[CLPOOL_MAX_SPATIAL];
    int64_t out[CLPOOL_MAX_SPATIAL];
    int64_t pad_begin[CLPOOL_MAX_SPATIAL];
    int64_t pad_end[CLPOOL_MAX_SPATIAL];
} ref_maxpool_geometry;

/**
 * Output shape of MaxPool. Returns 0 and fills `output` (and `geom` if not
 * NULL) on success. Returns -1 and writes a reason into `why` (if not NULL)
 * when the attributes are invalid for this input: bad ranges, rank mismatch,
 * padded input smaller than the dilated kernel, an output size <= 0, or some
 * window without a single in-bounds tap.
 */
int ref_maxpool_shape(const clpool_shape *input, const clpool_maxpool_params *params, clpool_shape *output,
                      ref_maxpool_geometry *geom, char *why, size_t why_len);

/**
 * The same for any windowed op's window: ref_maxpool_shape's rules, where
 * only with `needs_tap` a window without an in-bounds tap is rejected.
 */
int ref_window_shape(const clpool_shape *input, const clpool_window_params *params, int needs_tap,
                     clpool_shape *output, ref_maxpool_geometry *geom, char *why, size_t why_len);

/**
 * Reference AveragePool (lp 0) or LpPool (lp 1, exponent p) in long double:
 * out[i] = the sum over the window's in-bounds taps of x (AveragePool) or
 * |x|^p (LpPool), divided by the count of in-bounds taps, or with
 * count_include_pad of taps inside [-pad_begin, in + pad_end) per axis
 * (AveragePool), or raised to 1/p (LpPool). IEEE rules: any NaN tap, or +inf
 * with -inf, gives NaN; 0/0 (an empty window without count_include_pad) NaN.
 * `abs_mean` (may be NULL) gets the mean of |x| (AveragePool) as an error
 * scale. Returns 0, or -1 if ref_window_shape() rejects the call or the
 * dtype is not a float dtype.
 */
int ref_sum_pool(clpool_dtype dtype, const clpool_shape *input_shape, const clpool_window_params *params,
                 int count_include_pad, int lp, double p, const void *input, double *out, double *abs_mean);

/**
 * Reference MaxPool. `output` gets copies of input bits; `indices` (may be
 * NULL) gets int64 indices per storage_order. NaN propagates: a window that
 * holds a NaN yields its first NaN (row-major tap order) and that NaN's
 * index; otherwise the first maximum wins (strict >). Returns 0, or -1 if
 * ref_maxpool_shape() rejects the call or the dtype is not a MaxPool dtype.
 */
int ref_maxpool(clpool_dtype dtype, const clpool_shape *input_shape, const clpool_maxpool_params *params,
                const void *input, void *output, int64_t *indices);

/* ------------------------------------------------------------- MaxUnpool */

/**
 * Reference MaxUnpool, as ONNX's reference reads it: indices count positions
 * in N x C x `index_space` (int64 `(n*C + c) * prod(index_space spatial) +
 * position`); `output` (of `out_shape`) is zeroed, then, in X's order, each
 * X element whose index lies in its own plane of the index space is copied
 * (as bits) to the same spatial coordinates of the output, where those lie
 * inside it. Returns the number of X elements not stored (their index
 * outside its plane, or its coordinates outside the output), or -1 for bad
 * shapes.
 */
int64_t ref_max_unpool(clpool_dtype dtype, const clpool_shape *x_shape, const void *x, const int64_t *indices,
                       const clpool_shape *index_space, const clpool_shape *out_shape, void *output);

#endif /* CLPOOL_TESTS_REFERENCE_H */
