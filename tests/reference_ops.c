/* Plain-C references for the global pools and Max (see reference_ops.h). */
#include "reference_ops.h"

#include <math.h>
#include <string.h>

#include "reference.h"

/* ------------------------------------------------------ element order */

int ref_bits_is_nan(clpool_dtype dtype, uint64_t bits)
{
    switch (dtype) {
    case CLPOOL_FLOAT32: return (bits & 0x7FFFFFFFu) > 0x7F800000u;
    case CLPOOL_FLOAT64: return (bits & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull;
    case CLPOOL_FLOAT16: return (bits & 0x7FFFu) > 0x7C00u;
    case CLPOOL_BFLOAT16: return (bits & 0x7FFFu) > 0x7F80u;
    default: return 0;
    }
}

/* A non-NaN float element as a double: exact for all four float dtypes. */
static double float_value(clpool_dtype dtype, uint64_t bits)
{
    uint64_t tmp = 0;
    ref_store_bits(dtype, &tmp, 0, bits);
    return ref_load(dtype, &tmp, 0);
}

/* a > b, exactly, in the element type's own order (no NaNs here). */
static int greater(clpool_dtype dtype, uint64_t a, uint64_t b)
{
    switch (dtype) {
    case CLPOOL_FLOAT32: case CLPOOL_FLOAT64: case CLPOOL_FLOAT16: case CLPOOL_BFLOAT16:
        return float_value(dtype, a) > float_value(dtype, b);
    case CLPOOL_INT8: return (int8_t)(uint8_t)a > (int8_t)(uint8_t)b;
    case CLPOOL_INT16: return (int16_t)(uint16_t)a > (int16_t)(uint16_t)b;
    case CLPOOL_INT32: return (int32_t)(uint32_t)a > (int32_t)(uint32_t)b;
    case CLPOOL_INT64: return (int64_t)a > (int64_t)b;
    case CLPOOL_UINT8: return (uint8_t)a > (uint8_t)b;
    case CLPOOL_UINT16: return (uint16_t)a > (uint16_t)b;
    case CLPOOL_UINT32: return (uint32_t)a > (uint32_t)b;
    case CLPOOL_UINT64: return a > b;
    }
    return 0;
}

int ref_max_replaces(clpool_dtype dtype, uint64_t current, uint64_t next)
{
    if (ref_bits_is_nan(dtype, current)) return 0;
    if (ref_bits_is_nan(dtype, next)) return 1;
    return greater(dtype, next, current);
}

/* ------------------------------------------------------- global pools */

int ref_global_pool_shape(const clpool_shape *input, clpool_shape *output)
{
    if (!input || !output || input->rank < 3 || input->rank > CLPOOL_MAX_RANK) return -1;
    for (int32_t i = 0; i < input->rank; ++i)
        if (input->dims[i] < 0 || (i >= 2 && input->dims[i] == 0)) return -1;
    memset(output, 0, sizeof *output);
    output->rank = input->rank;
    output->dims[0] = input->dims[0];
    output->dims[1] = input->dims[1];
    for (int32_t i = 2; i < input->rank; ++i) output->dims[i] = 1;
    return 0;
}

/* Planes and elements per plane of a valid global-pool call. */
static int global_geometry(clpool_dtype dtype, const clpool_shape *shape, int64_t *planes, int64_t *plane_size)
{
    clpool_shape out;
    if (!ref_dtype_is_float(dtype) || ref_global_pool_shape(shape, &out) != 0) return -1;
    *planes = shape->dims[0] * shape->dims[1];
    *plane_size = 1;
    for (int32_t i = 2; i < shape->rank; ++i) *plane_size *= shape->dims[i];
    return 0;
}

int ref_global_max_pool(clpool_dtype dtype, const clpool_shape *shape, const void *input, void *output)
{
    int64_t planes, size;
    if (global_geometry(dtype, shape, &planes, &size) != 0) return -1;
    for (int64_t pl = 0; pl < planes; ++pl) {
        uint64_t best = ref_load_bits(dtype, input, pl * size);
        for (int64_t j = 1; j < size; ++j) {
            const uint64_t v = ref_load_bits(dtype, input, pl * size + j);
            if (ref_max_replaces(dtype, best, v)) best = v;
        }
        ref_store_bits(dtype, output, pl, best);
    }
    return 0;
}

int ref_global_average_pool(clpool_dtype dtype, const clpool_shape *shape, const void *input, double *mean,
                            double *abs_mean)
{
    int64_t planes, size;
    if (global_geometry(dtype, shape, &planes, &size) != 0) return -1;
    for (int64_t pl = 0; pl < planes; ++pl) {
        long double sum = 0.0L, abs_sum = 0.0L;
        for (int64_t j = 0; j < size; ++j) {
            const long double x = ref_load(dtype, input, pl * size + j);
            sum += x;
            abs_sum += fabsl(x);
        }
        mean[pl] = (double)(sum / (long double)size);
        if (abs_mean) abs_mean[pl] = (double)(abs_sum / (long double)size);
    }
    return 0;
}

int ref_global_lp_pool(clpool_dtype dtype, const clpool_shape *shape, double p, const void *input, double *out)
{
    int64_t planes, size;
    if (!(p > 0.0 && isfinite(p)) || global_geometry(dtype, shape, &planes, &size) != 0) return -1;
    const long double lp = p;
    for (int64_t pl = 0; pl < planes; ++pl) {
        long double sum = 0.0L;
        for (int64_t j = 0; j < size; ++j) {
            const long double a = fabsl((long double)ref_load(dtype, input, pl * size + j));
            sum += p == 1.0 ? a : p == 2.0 ? a * a : powl(a, lp);
        }
        out[pl] = (double)(p == 1.0 ? sum : p == 2.0 ? sqrtl(sum) : powl(sum, 1.0L / lp));
    }
    return 0;
}

/* ----------------------------------------------------------------- Max */

int ref_max_shape(size_t n, const clpool_shape *shapes, clpool_shape *output)
{
    if (n == 0 || !shapes || !output) return -1;
    int32_t rank = 0;
    for (size_t i = 0; i < n; ++i) {
        if (shapes[i].rank < 0 || shapes[i].rank > CLPOOL_MAX_RANK) return -1;
        for (int32_t d = 0; d < shapes[i].rank; ++d)
            if (shapes[i].dims[d] < 0) return -1;
        if (shapes[i].rank > rank) rank = shapes[i].rank;
    }
    clpool_shape out;
    memset(&out, 0, sizeof out);
    out.rank = rank;
    for (int32_t a = 0; a < rank; ++a) {
        int64_t dim = 1;
        for (size_t i = 0; i < n; ++i) {
            const int32_t d = shapes[i].rank - (rank - a); /* right-aligned axis of input i */
            if (d < 0) continue;
            const int64_t v = shapes[i].dims[d];
            if (v == 1) continue;
            if (dim == 1) dim = v;
            else if (dim != v) return -1;
        }
        out.dims[a] = dim;
    }
    *output = out;
    return 0;
}

int64_t ref_broadcast_index(const clpool_shape *out, const clpool_shape *in, int64_t flat)
{
    int64_t idx = 0, stride = 1;
    for (int32_t a = out->rank - 1, d = in->rank - 1; a >= 0 && d >= 0; --a, --d) {
        const int64_t coord = flat % out->dims[a];
        flat /= out->dims[a];
        if (in->dims[d] != 1) idx += coord * stride;
        stride *= in->dims[d];
    }
    return idx;
}

int ref_max(clpool_dtype dtype, size_t n, const clpool_shape *shapes, const void *const *inputs, void *output)
{
    clpool_shape out;
    if (ref_dtype_size(dtype) == 0 || ref_max_shape(n, shapes, &out) != 0) return -1;
    const int64_t total = ref_shape_elements(&out);
    for (int64_t o = 0; o < total; ++o) {
        uint64_t best = 0;
        for (size_t i = 0; i < n; ++i) {
            const uint64_t v = ref_load_bits(dtype, inputs[i], ref_broadcast_index(&out, &shapes[i], o));
            if (i == 0 || ref_max_replaces(dtype, best, v)) best = v;
        }
        ref_store_bits(dtype, output, o, best);
    }
    return 0;
}
